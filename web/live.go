package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/admit"
	"github.com/taskd/taskd/secret"
)

// liveRoutes are the address of the pages' live stream; none without
// Config.Live.
func (s *Server) liveRoutes() []route {
	if s.cfg.Live == nil {
		return nil
	}
	return []route{
		{"GET /a/{slug}/live", s.page(s.inAccount(taskd.PermRead, s.live))},
	}
}

// LiveStore opens the live streams of the pages (DESIGN §11): the events
// a viewer sees, from the outbox, as they commit.
type LiveStore interface {
	LiveEvents(ctx context.Context, r taskd.LiveRequest) (taskd.LiveStream, error)
}

// Bounds of a live stream.
const (
	// liveHeartbeat is how often an idle stream sends a comment, so that
	// proxies keep it open.
	liveHeartbeat = 25 * time.Second
	// liveMaxAge ends a stream, which the page opens again from its last
	// event, so that a change of the person's role or membership is
	// heard within it (Config.LiveMaxAge when set).
	liveMaxAge = 30 * time.Minute
	// liveWriteWait bounds each write: a reader that takes no more is
	// dropped.
	liveWriteWait = 20 * time.Second
	// liveSinceSlack is how much earlier than a page was made its first
	// stream starts: a change shown twice costs a fetch, one missed a
	// stale page.
	liveSinceSlack = time.Second
)

// liveMessage is the data of a stream's "change" event.
type liveMessage struct {
	Event   string `json:"event"`
	Project int64  `json:"project"`
	Task    int64  `json:"task,omitempty"`
	Page    string `json:"page,omitempty"`
	By      string `json:"by"`
	Title   string `json:"title"`
	Self    bool   `json:"self,omitempty"` // made by the stream's own person
}

// live serves GET /a/{slug}/live: a Server-Sent Events stream of the
// changes the member sees, each with its event's id, resuming after
// Last-Event-ID (or ?last=), or else from when the page was made
// (?since=, Unix milliseconds); "reload" when that is too old to resume.
func (s *Server) live(w http.ResponseWriter, r *http.Request, _ *view, me member) error {
	last := lastEventID(r)
	ctx := r.Context()
	var since time.Time
	if ms, err := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64); last == 0 && err == nil && ms > 0 {
		// A page's first stream: from when the page was made (a second
		// early, for changes committing while it was), so that nothing
		// between the page and its stream is lost.
		since = time.UnixMilli(ms).Add(-liveSinceSlack)
	}
	release, refused := s.cfg.LiveStreams.EnterWithin(ctx, liveAdmitWait, me.Account.ID, me.Member.ID)
	if refused != admit.None {
		return s.liveRefused(w, r, refused)
	}
	defer release()
	st, err := s.cfg.Live.LiveEvents(ctx, taskd.LiveRequest{Viewer: me.viewer(), Session: secret.HashToken(s.cookie(r, "session")), Last: last, Since: since})
	if err != nil {
		return err
	}
	defer st.Close()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	send := func(text string) bool {
		if err := rc.SetWriteDeadline(time.Now().Add(liveWriteWait)); err != nil && err != http.ErrNotSupported {
			return false
		}
		if _, err := w.Write([]byte(text)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	base := s.cfg.accountPath(me.Account)
	if !send("retry: 2000\n\n") {
		return nil
	}
	if st.Reload {
		send("event: reload\ndata: {}\n\n")
		return nil
	}
	for _, e := range st.Replay {
		if !send(liveText(base, e, me.Member.ID)) {
			return nil
		}
	}
	beat := time.NewTicker(s.liveHeartbeat())
	defer beat.Stop()
	age := time.NewTimer(s.liveMaxAge())
	defer age.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-age.C:
			return nil
		case <-beat.C:
			if !send(": beat\n\n") {
				return nil
			}
		case e, ok := <-st.Events:
			if !ok || !send(liveText(base, e, me.Member.ID)) {
				return nil
			}
		}
	}
}

// liveAdmitWait is how long a stream beyond a bound waits for a place
// before it is refused: a page's stream often starts before the server
// sees the previous page's end.
const liveAdmitWait = 2 * time.Second

// liveRetry is when a page refused a stream tries again (Retry-After).
const liveRetry = time.Minute

// liveRefused answers a stream beyond a bound of Config.LiveStreams: 429
// with Retry-After, which live.js reads to tell the person and try again.
func (s *Server) liveRefused(w http.ResponseWriter, r *http.Request, b admit.Bound) error {
	l := s.cfg.LiveStreams.Limits()
	msg := fmt.Sprintf("You have %d pages with live updates open, the most at once. Close one, and this page will update again within a minute.", l.PerPerson)
	switch {
	case b == admit.Person && l.PerPerson == 1:
		msg = "You have another page with live updates open, the most at once. Close it, and this page will update again within a minute."
	case b == admit.Account:
		msg = "Your account has as many pages with live updates open as this server allows. This page will try again within a minute."
	case b == admit.Total:
		msg = "This server has as many pages with live updates open as it allows. This page will try again within a minute."
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(liveRetry/time.Second)))
	s.fail(w, r, http.StatusTooManyRequests, msg)
	return nil
}

// liveHeartbeat is Config.LiveHeartbeat or liveHeartbeat.
func (s *Server) liveHeartbeat() time.Duration {
	if s.cfg.LiveHeartbeat > 0 {
		return s.cfg.LiveHeartbeat
	}
	return liveHeartbeat
}

// liveMaxAge is Config.LiveMaxAge or liveMaxAge.
func (s *Server) liveMaxAge() time.Duration {
	if s.cfg.LiveMaxAge > 0 {
		return s.cfg.LiveMaxAge
	}
	return liveMaxAge
}

// liveText is an event as a stream's message.
func liveText(base string, e taskd.LiveEvent, me int64) string {
	m := liveMessage{Event: e.Name, Project: e.ProjectID, Task: e.TaskID, By: e.By, Title: e.Title, Self: e.ByID == me}
	if e.Page != "" {
		m.Page = base + e.Page
	}
	data, _ := json.Marshal(m) // strings and numbers: cannot fail; one line
	return fmt.Sprintf("id: %d\nevent: change\ndata: %s\n\n", e.ID, data)
}

// lastEventID is the id a stream resumes after: the Last-Event-ID header
// a reconnecting EventSource sends, or ?last=; 0 when neither is a
// positive number.
func lastEventID(r *http.Request) int64 {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("last")
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
