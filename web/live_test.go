package web_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/web"
	"github.com/taskd/taskd/work"
)

// TestLiveStreamAnswers: a member's stream is Server-Sent Events with a
// heartbeat while idle; a visitor is sent to sign in and a non-member
// finds no account, neither getting a stream.
func TestLiveStreamAnswers(t *testing.T) {
	s := testsite.New(t)
	st := s.Store
	pages, err := web.New(web.Config{Reads: st, Accounts: st, Directory: st, Invitations: st, Sessions: st, Apps: st,
		Webhooks: st, Counts: st, Sealer: s.Sealer, Work: work.New(st, taskd.DefaultFileLimits), Live: st, LiveHeartbeat: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	pages.Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	live := srv.URL + "/a/" + s.Slug + "/live"

	b := s.SignedIn(testsite.UserEmail) // its cookie holds for every port of the host
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", live, nil)
	res, err := b.C.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("stream: %d %v", res.StatusCode, res.Header)
	}
	sc := bufio.NewScanner(res.Body)
	beats := 0
	for beats < 2 && sc.Scan() {
		if sc.Text() == ": beat" {
			beats++
		}
	}
	if beats < 2 {
		t.Fatalf("no heartbeat: %v", sc.Err())
	}

	if p := s.Browser().Get(live); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/login") {
		t.Errorf("a visitor's stream: %d %s", p.Status, p.Header.Get("Location"))
	}
	if p := b.Get(srv.URL + "/a/" + s.Other + "/live"); p.Status != http.StatusNotFound || strings.Contains(p.Header.Get("Content-Type"), "event-stream") {
		t.Errorf("another account's stream: %d %s", p.Status, p.Header.Get("Content-Type"))
	}
}
