// Package upload admits the files of a request once its sender is known,
// for the account API and the pages alike: a bounded number of uploading
// requests per person and per account at once, each paced, so that a body
// that stops arriving ends instead of holding its connection.
//
// The bounds are of this process: they protect its connections and
// goroutines, which are its own (with several replicas, each has them).
package upload

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/admit"
)

// Defaults of Limits.
const (
	DefaultMinRate = 8 << 10 // bytes a second
	DefaultGrace   = 30 * time.Second
	DefaultIdle    = 30 * time.Second
)

// answerTime is how long the answer to an upload may take to write once
// its body is read.
const answerTime = time.Minute

// Limits bound the uploads of this process.
type Limits struct {
	// PerPerson and PerAccount bound the requests uploading at once; 0:
	// no bound.
	PerPerson, PerAccount int
	// An upload's body must arrive at MinRate bytes a second on average
	// once Grace has passed since the sender was admitted, and never
	// pause for longer than Idle. Zero takes the defaults.
	MinRate     int64
	Grace, Idle time.Duration
}

// Gate admits uploads within Limits.
type Gate struct {
	limits Limits
	held   *admit.Gate
}

// New returns a gate.
func New(l Limits) *Gate {
	if l.MinRate <= 0 {
		l.MinRate = DefaultMinRate
	}
	if l.Grace <= 0 {
		l.Grace = DefaultGrace
	}
	if l.Idle <= 0 {
		l.Idle = DefaultIdle
	}
	return &Gate{limits: l, held: admit.New(admit.Limits{PerPerson: l.PerPerson, PerAccount: l.PerAccount})}
}

// Enter admits one uploading request of the person in the account and
// returns its release, which the caller calls once the request's files are
// read. Rate limited (field "file") when the person or the account has as
// many uploading as the limits allow. A nil Gate admits everything.
func (g *Gate) Enter(accountID, personID int64) (release func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	release, refused := g.held.Enter(accountID, personID)
	switch refused {
	case admit.Person:
		return nil, busy("You have %d uploads in progress, the most at once; wait for one to finish", g.limits.PerPerson)
	case admit.Account:
		return nil, busy("The account has %d uploads in progress, the most at once; wait for one to finish", g.limits.PerAccount)
	}
	return release, nil
}

func busy(format string, n int) error {
	return &taskd.Error{Kind: taskd.KindRateLimited, Field: "file", RetryAfter: 5 * time.Second, Message: fmt.Sprintf(format, n)}
}

// Body is a request body whose read deadline, once Pace is called, follows
// its pace (Limits). Until then it reads under the server's own timeouts.
type Body struct {
	body  io.Reader
	rc    *http.ResponseController
	l     Limits
	start time.Time // when Pace was called; zero before
	n     int64     // bytes read since
}

// MultipartReader returns the multipart reader of r's body, reading
// through a Body whose pace starts when Pace is called. r.Body itself is
// left as it is: the server then still knows how much of it is unread
// when the handler answers without reading it (a refusal), and closes the
// connection at once instead of waiting for the rest. A nil Gate paces
// with the defaults.
func (g *Gate) MultipartReader(w http.ResponseWriter, r *http.Request) (*multipart.Reader, *Body, error) {
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (ct != "multipart/form-data" && ct != "multipart/mixed") || params["boundary"] == "" {
		return nil, nil, errors.New("upload: not a multipart body with a boundary")
	}
	if r.ContentLength < 0 {
		// A body of unknown length (chunked) that the handler leaves
		// unread, a refusal, would be read on by net/http, up to 256 KB
		// or its read timeout, before the answer is sent: the connection
		// is closed after the answer instead.
		w.Header().Set("Connection", "close")
	}
	b := g.Body(w, r)
	return multipart.NewReader(b, params["boundary"]), b, nil
}

// Body returns a reader of r.Body, paced once Pace is called; r.Body
// itself is left as it is (see MultipartReader). A nil Gate paces with the
// defaults.
func (g *Gate) Body(w http.ResponseWriter, r *http.Request) *Body {
	l := New(Limits{}).limits
	if g != nil {
		l = g.limits
	}
	return &Body{body: r.Body, rc: http.NewResponseController(w), l: l}
}

// Pace lifts the server's read deadline: from now on the body may take as
// long as it keeps its pace.
func (b *Body) Pace() {
	if b != nil {
		b.start, b.n = time.Now(), 0
	}
}

// Read reads, first moving the read deadline to where the pace puts it:
// Grace plus the time the bytes so far take at MinRate after the start,
// but never more than Idle from now. The write deadline, which the server
// set when the request began, moves along: the answer is written once the
// body is read, however long that took.
func (b *Body) Read(p []byte) (int, error) {
	if !b.start.IsZero() {
		due := b.start.Add(b.l.Grace + time.Duration(float64(b.n)/float64(b.l.MinRate)*float64(time.Second)))
		if idle := time.Now().Add(b.l.Idle); idle.Before(due) {
			due = idle
		}
		// Not every writer supports deadlines (tests' recorders): then none.
		_ = b.rc.SetReadDeadline(due)
		_ = b.rc.SetWriteDeadline(due.Add(answerTime))
	}
	n, err := b.body.Read(p)
	b.n += int64(n)
	return n, err
}
