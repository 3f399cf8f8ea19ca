package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
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

// TestLiveStreamEndsAtItsAge (issue 47): a stream ends once
// Config.LiveMaxAge has passed (30 minutes unless set, docs/architecture.md),
// no earlier, having told the page at its start to come back after 2 s
// (retry); the page's EventSource then reconnects with Last-Event-ID and
// hears what changed meanwhile, from after the last event it had, so
// nothing is lost or heard twice across the end.
func TestLiveStreamEndsAtItsAge(t *testing.T) {
	s := testsite.New(t)
	const age = 300 * time.Millisecond
	hub := runningHub(t, s) // the stream opened again hears what came after the first
	base := pagesWith(t, s, func(c *web.Config) { c.LiveMaxAge, c.Live = age, hub })
	live := base + "/a/" + s.Slug + "/live"
	_, owner := s.Owner()
	p, err := s.Store.CreateProject(context.Background(), owner, taskd.ProjectInput{Name: new("Aging")})
	if err != nil {
		t.Fatal(err)
	}
	task := func(name string) {
		t.Helper()
		if _, err := s.Store.CreateTask(context.Background(), owner, p.ID, 0, taskd.TaskInput{Name: new(name)}); err != nil {
			t.Fatal(err)
		}
	}
	b := s.SignedIn(testsite.UserEmail)
	// stream reads a stream to its end, bounded: its lines, and when it
	// was asked for.
	stream := func(query string, header http.Header) (lines []string, asked time.Time) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, live+query, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		asked = time.Now()
		res, err := b.C.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("stream: HTTP %d", res.StatusCode)
		}
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("the stream did not end at its age of %v: %v; it sent %q", age, err, lines)
		}
		return lines, asked
	}
	// changes are a stream's changes, as "id title".
	changes := func(lines []string) []string {
		var out []string
		var id string
		for _, l := range lines {
			if v, ok := strings.CutPrefix(l, "id: "); ok {
				id = v
			}
			if v, ok := strings.CutPrefix(l, "data: "); ok && id != "" {
				var m struct{ Title string }
				json.Unmarshal([]byte(v), &m)
				out = append(out, id+" "+m.Title)
				id = ""
			}
		}
		return out
	}

	made := s.Clock.Now()
	task("before the end")
	lines, asked := stream(fmt.Sprintf("?since=%d", made.UnixMilli()), nil)
	if took := time.Since(asked); took < age {
		t.Errorf("the stream ended after %v, before its age of %v", took, age)
	}
	if len(lines) == 0 || lines[0] != "retry: 2000" {
		t.Fatalf("the stream does not start by telling the page when to come back: %q", lines)
	}
	got := changes(lines) // the project's change too, maybe
	if len(got) == 0 || !strings.HasSuffix(got[len(got)-1], " before the end") || slices.Contains(lines, "event: reload") {
		t.Fatalf("the first stream's changes: %q, want the task made before it last\n%q", got, lines)
	}
	last, _, _ := strings.Cut(got[len(got)-1], " ")

	task("after the end")
	lines, _ = stream("", http.Header{"Last-Event-ID": {last}})
	if got := changes(lines); len(got) != 1 || !strings.HasSuffix(got[0], " after the end") {
		t.Fatalf("the stream opened again after event %s: %q, want the task made after the end, once", last, got)
	}
}
