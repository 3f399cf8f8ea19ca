package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// liveMsg is one message of a live stream.
type liveMsg struct {
	id, event string
	data      struct {
		Event, Title, By, Page string
		Project, Task          int64
	}
}

// liveStream reads a page's live stream (GET /a/{slug}/live) in the
// background, message by message.
type liveStream struct {
	msgs   chan liveMsg
	cancel context.CancelFunc
}

// openLive opens the live stream of the account at base for the browser,
// resuming after last when not empty.
func openLive(t *testing.T, b *testsite.Browser, url, last string) *liveStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	res, err := b.C.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		t.Fatalf("live stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	l := &liveStream{msgs: make(chan liveMsg, 10000), cancel: cancel}
	t.Cleanup(l.close)
	go func() {
		defer res.Body.Close()
		defer close(l.msgs)
		sc := bufio.NewScanner(res.Body)
		var m liveMsg
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if m.event != "" {
					l.msgs <- m
				}
				m = liveMsg{}
			case strings.HasPrefix(line, "id: "):
				m.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				m.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				json.Unmarshal([]byte(line[6:]), &m.data)
			}
		}
	}()
	return l
}

func (l *liveStream) close() { l.cancel() }

// until reads messages until one satisfies done, or fails after a while.
func (l *liveStream) until(t *testing.T, what string, done func(liveMsg) bool) []liveMsg {
	t.Helper()
	var got []liveMsg
	deadline := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-l.msgs:
			if !ok {
				t.Fatalf("the stream ended before %s; got %v", what, got)
			}
			got = append(got, m)
			if done(m) {
				return got
			}
		case <-deadline:
			t.Fatalf("no %s on the stream; got %v", what, got)
		}
	}
}

// carries reads messages until one satisfies done (true) or the stream
// ends (false: the server closed it without such a message), and returns
// what it read; it fails when neither happens within 20 s.
func (l *liveStream) carries(t *testing.T, what string, done func(liveMsg) bool) (bool, []liveMsg) {
	t.Helper()
	var got []liveMsg
	deadline := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-l.msgs:
			if !ok {
				return false, got
			}
			if got = append(got, m); done(m) {
				return true, got
			}
		case <-deadline:
			t.Fatalf("the stream neither carried %s nor ended within 20 s; got %s", what, titles(got))
			return false, got
		}
	}
}

// rest reads what arrives within d.
func (l *liveStream) rest(d time.Duration) []liveMsg {
	var got []liveMsg
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-l.msgs:
			if !ok {
				return got
			}
			got = append(got, m)
		case <-deadline:
			return got
		}
	}
}

// titles is the messages' titles and events, one string to search.
func titles(ms []liveMsg) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s %s %s|", m.id, m.data.Event, m.data.Title)
	}
	return b.String()
}

// TestLiveStreamsAnswerByOneRule adds the live streams to the visibility
// matrix: each person's stream, open while the world is made, tells of
// exactly the projects, tasks and comments the rule lets them see.
func TestLiveStreamsAnswerByOneRule(t *testing.T) {
	t.Parallel() // a site of its own
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		s.AddMember(s.Slug, matrixAdmin, "Ada", "Admin", taskd.RoleAdmin)
		s.AddMember(s.Slug, guestEmail, "Gus", "Guest", taskd.RoleGuest)
		s.AddMember(s.Slug, readerEmail, "Rea", "Reader", taskd.RoleReader)
		s.AddMember(s.Slug, gia, "Gia", "Guest", taskd.RoleGuest)
		emails := []string{testsite.OwnerEmail, matrixAdmin, testsite.UserEmail, guestEmail, readerEmail, gia}
		streams := map[string]*liveStream{}
		for _, e := range emails {
			streams[e] = openLive(t, s.SignedIn(e), s.AccountURL()+"/live", "")
		}
		w := newMatrixWorld(t, s)
		_, owner := s.Owner()
		if _, err := s.Store.CreateComment(context.Background(), owner, mustID(t, w.ids[markV]), markLast); err != nil {
			t.Fatal(err)
		}
		last := lastEventID(t, s)
		for _, v := range w.viewers[1:] {
			var got []liveMsg
			if w.seenBy(v, markV) { // the last comment ends what they hear
				got = streams[v.email].until(t, "the last comment", func(m liveMsg) bool { return m.id == last })
			}
			got = append(got, streams[v.email].rest(300*time.Millisecond)...)
			all := titles(got)
			scope := []string{markBeta, markH, markS, markL, markV, markT}
			if !v.role.Limited() { // a stream tells what the viewer saw when it happened: Alpha was made before its team
				scope = append(scope, markAlpha)
			}
			w.expect(t, v, "live stream", shows{body: all, ok: true}, scope...)
			// Comments on V, each told with V's name: the plain one, the
			// last, and the secret one for whom it is meant.
			want := 0
			for _, m := range []string{markCH, markCV, markLast} {
				if w.seenBy(v, m) {
					want++
				}
			}
			if n := strings.Count(all, "post_comment "+markV+"|"); n != want {
				t.Errorf("%s: the stream tells of %d comments on V, want %d: %s", v.name, n, want, all)
			}
		}
	})
}

// lastEventID is the id of the account's newest event.
func lastEventID(t *testing.T, s *testsite.Site) string {
	t.Helper()
	acct, _ := s.Owner()
	evs, err := s.Store.Events(context.Background(), taskd.AccountViewer(acct.ID), time.Time{}, 0)
	if err != nil || len(evs) == 0 {
		t.Fatalf("events: %v %v", evs, err)
	}
	return fmt.Sprint(evs[len(evs)-1].ID)
}
