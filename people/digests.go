package people

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/hex"
	"fmt"
	htmltemplate "html/template"
	"log/slog"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/secret"
)

// Notifier mails each person one digest of the changes to the tasks they
// follow (subscribed to or assigned): a change waits Window for others to
// join it, so a burst of changes makes one e-mail, not many.
type Notifier struct {
	Store  taskd.NotificationStore
	Outbox *mail.Outbox
	Sealer *secret.Sealer
	// PublicURL starts the links of the digest.
	PublicURL string
	// Window is how long a change waits for more (default 2 minutes).
	Window time.Duration
	// Poll is the longest the notifier sleeps (default 30 s): it sleeps
	// until the oldest waiting change settles (Window after it was made);
	// a change committed here or (PostgreSQL) by another replica, which
	// settles a Window later, shortens the sleep to that without a query.
	// The poll finds changes whose signal was lost.
	Poll time.Duration
	Now  func() time.Time
	Log  *slog.Logger
}

// Run sends due digests until ctx ends. A round with nothing due costs
// one read-only query (WaitingDigests).
func (n *Notifier) Run(ctx context.Context) {
	poll := n.Poll
	if poll <= 0 {
		poll = 30 * time.Second
	}
	changed := n.Store.EventsWritten()
	timer := time.NewTimer(0)
	defer timer.Stop()
	var at time.Time // when the timer fires
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			// The change settles a window from now, not sooner: no query.
			if settles := time.Now().Add(n.window()); settles.Before(at) {
				at = settles
				timer.Reset(n.window())
			}
			continue
		case <-timer.C:
		}
		wait := poll
		next, _, err := n.sendDue(ctx)
		switch {
		case err != nil:
			if ctx.Err() == nil && n.Log != nil {
				n.Log.WarnContext(ctx, "sending notifications failed", "err", err)
			}
		case next > 0:
			wait = min(wait, next)
		}
		at = time.Now().Add(wait)
		timer.Reset(wait)
	}
}

func (n *Notifier) window() time.Duration {
	if n.Window <= 0 {
		return 2 * time.Minute
	}
	return n.Window
}

func (n *Notifier) now() time.Time {
	if n.Now != nil {
		return n.Now()
	}
	return time.Now()
}

// SendDue queues the digests of everyone whose oldest waiting change is
// older than the window, and reports how many mails it queued.
func (n *Notifier) SendDue(ctx context.Context) (int, error) {
	_, sent, err := n.sendDue(ctx)
	return sent, err
}

// sendDue is SendDue; it also returns how long until the next digest is
// due (zero when no change waits).
func (n *Notifier) sendDue(ctx context.Context) (time.Duration, int, error) {
	sent := 0
	for ctx.Err() == nil {
		people, next, err := n.Store.WaitingDigests(ctx, n.now().Add(-n.window()), 50)
		if err != nil || len(people) == 0 {
			return next, sent, err
		}
		for _, id := range people {
			k, err := n.Store.SendDigests(ctx, id, n.compose)
			if err != nil {
				return 0, sent, err
			}
			sent += k
		}
	}
	return 0, sent, ctx.Err()
}

// digestTask is one task of a digest with its changes.
type digestTask struct {
	Name, Link string
	Lines      []string
}

type digestValues struct {
	Name, Account, Unsubscribe, Profile string
	Tasks                               []digestTask
}

var (
	digestText = template.Must(template.New("").Parse(`Hello {{.Name}},

Changes in {{.Account}} to tasks you follow:
{{range .Tasks}}
{{.Name}}
{{.Link}}
{{range .Lines}}  - {{.}}
{{end}}{{end}}
You get this because you are subscribed to these tasks or assigned to them.
Stop these e-mails: {{.Unsubscribe}}
Or change it in your profile: {{.Profile}}
`))
	digestHTML = htmltemplate.Must(htmltemplate.New("").Parse(`<p>Hello {{.Name}},</p>
<p>Changes in <strong>{{.Account}}</strong> to tasks you follow:</p>
{{range .Tasks}}<p><a href="{{.Link}}"><strong>{{.Name}}</strong></a></p>
<ul>{{range .Lines}}<li>{{.}}</li>{{end}}</ul>
{{end}}<p style="color:#555">You get this because you are subscribed to these tasks or assigned to them.
<a href="{{.Unsubscribe}}">Stop these e-mails</a> or change it in <a href="{{.Profile}}">your profile</a>.</p>`))
)

// compose makes one digest's mail.
func (n *Notifier) compose(d taskd.Digest) (taskd.QueuedMail, error) {
	base := strings.TrimRight(n.PublicURL, "/")
	v := digestValues{Name: d.Person.DisplayName(), Account: d.Account.Name, Unsubscribe: n.UnsubscribeLink(d.Person),
		Profile: base + "/profile"}
	changes := 0
	for _, l := range d.Lines {
		if len(v.Tasks) == 0 || v.Tasks[len(v.Tasks)-1].Link != base+"/a/"+d.Account.Slug+l.TaskPage {
			v.Tasks = append(v.Tasks, digestTask{Name: l.TaskName, Link: base + "/a/" + d.Account.Slug + l.TaskPage})
		}
		t := &v.Tasks[len(v.Tasks)-1]
		t.Lines = append(t.Lines, l.Line)
		changes++
	}
	var text, html bytes.Buffer
	if err := digestText.Execute(&text, v); err != nil {
		return taskd.QueuedMail{}, err
	}
	if err := digestHTML.Execute(&html, v); err != nil {
		return taskd.QueuedMail{}, err
	}
	subject := fmt.Sprintf("%s: %s", d.Account.Name, d.Lines[0].TaskName)
	if len(v.Tasks) > 1 || changes > 1 {
		subject = fmt.Sprintf("%s: %d changes to %d tasks you follow", d.Account.Name, changes, len(v.Tasks))
		if len(v.Tasks) == 1 {
			subject = fmt.Sprintf("%s: %d changes to %s", d.Account.Name, changes, d.Lines[0].TaskName)
		}
	}
	subject = strings.Join(strings.Fields(subject), " ")
	return n.Outbox.Seal("notification", mail.Message{To: d.Person.Email, Subject: subject, Text: text.String(), HTML: html.String()})
}

// UnsubscribeLink is the link in every digest that turns the person's
// notifications off without signing in: it names the person and carries
// a MAC of their id and address under the server key, so it works for
// them only, and only while the address it was mailed to is theirs.
func (n *Notifier) UnsubscribeLink(p taskd.Person) string {
	id := strconv.FormatInt(p.ID, 10)
	return strings.TrimRight(n.PublicURL, "/") + "/notifications/off?p=" + id + "&s=" + UnsubscribeMAC(n.Sealer, p)
}

// unsubscribeData is what an unsubscribe MAC covers.
func unsubscribeData(p taskd.Person) []byte {
	return []byte(strconv.FormatInt(p.ID, 10) + " " + p.Email)
}

// UnsubscribeMAC is the MAC of an unsubscribe link.
func UnsubscribeMAC(s *secret.Sealer, p taskd.Person) string {
	return hex.EncodeToString(s.MAC("unsubscribe", unsubscribeData(p))[:16])
}

// CheckUnsubscribe reports whether mac is the person's unsubscribe MAC
// for their current address, under the current key or, during a
// rotation, an old one: links in mail sent before the rotation keep
// working while the old key is held.
func CheckUnsubscribe(s *secret.Sealer, p taskd.Person, mac string) bool {
	for _, m := range s.MACs("unsubscribe", unsubscribeData(p)) {
		if hmac.Equal([]byte(mac), []byte(hex.EncodeToString(m[:16]))) {
			return true
		}
	}
	return false
}
