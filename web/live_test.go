package web_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/web"
)

// TestLiveStreamAnswers: a member's stream is Server-Sent Events with a
// heartbeat while idle; a visitor is sent to sign in and a non-member
// finds no account, neither getting a stream.
func TestLiveStreamAnswers(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	base := pagesWith(t, s, func(c *web.Config) { c.LiveHeartbeat = 20 * time.Millisecond })
	live := base + "/a/" + s.Slug + "/live"

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
	if p := b.Get(base + "/a/" + s.Other + "/live"); p.Status != http.StatusNotFound || strings.Contains(p.Header.Get("Content-Type"), "event-stream") {
		t.Errorf("another account's stream: %d %s", p.Status, p.Header.Get("Content-Type"))
	}
}
