package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCheckAccountURL(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"http://127.0.0.1:8080/a/acme/", "http://127.0.0.1:8080/a/acme", true},
		{"http://127.9.8.7:1/a/x", "http://127.9.8.7:1/a/x", true},
		{"http://[::1]:8080/a/acme", "http://[::1]:8080/a/acme", true},
		{"http://LOCALHOST:8080/a/acme", "http://LOCALHOST:8080/a/acme", true},
		{"http://10.0.0.1:8080/a/acme", "", false},
		{"http://example.com/a/acme", "", false},
		{"http://128.0.0.1/a/acme", "", false},
		{"ftp://127.0.0.1/a/acme", "", false},
		{"127.0.0.1:8080/a/acme", "", false},
		{"http://127.0.0.1/a/acme?x=1", "", false},
	} {
		got, err := checkAccountURL(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("checkAccountURL(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestPercentile(t *testing.T) {
	var v []time.Duration
	for i := 1; i <= 100; i++ {
		v = append(v, time.Duration(i))
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{0.50, 50}, {0.99, 99}, {1, 100}, {0.001, 1}} {
		if got := percentile(v, tc.p); got != tc.want {
			t.Errorf("percentile(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile(nil) = %v", got)
	}
}

func TestSyntheticBody(t *testing.T) {
	b, err := syntheticBody(30000)
	if err != nil || len(b) != 30000 || !json.Valid(b) || !bytes.Contains(b, statusOK) {
		t.Fatalf("syntheticBody(30000): len %d, err %v", len(b), err)
	}
	if _, err := syntheticBody(5); err == nil {
		t.Fatal("syntheticBody(5) succeeded")
	}
}

func TestParseFlagsRefuses(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--scenario", "nope"},
		{"--scenario", "get_tasks", "--url", "http://127.0.0.1:1/a/x", "--key", "k"},
		{"--scenario", "get_tasks", "--url", "http://192.168.1.1/a/x", "--key", "k", "--project", "1"},
		{"--scenario", "get_tasks", "--url", "http://127.0.0.1:1/a/x", "--key", "k", "--project", "01"},
		{"--scenario", "ceiling", "--clients", "0"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) succeeded", args)
		}
	}
}

// TestCeilingRun drives the ceiling scenario briefly with a request limit.
func TestCeilingRun(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"--scenario", "ceiling", "--clients", "4", "--duration", "2s", "--warmup", "0",
		"--requests", "200", "--body-size", "1000", "--json"}
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("run: %v (%s)", err, errOut.String())
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("decode %q: %v", out.String(), err)
	}
	if r.Requests != 200 || r.Failures != 0 || r.BodyBytes != 1000 || r.RPS <= 0 || r.P50Ms <= 0 {
		t.Fatalf("unexpected result %+v", r)
	}
}

// TestFailuresCounted checks that error envelopes count as failures, that
// the run reports an error, and that post_task titles are distinct.
func TestFailuresCounted(t *testing.T) {
	var titles titleSet
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || !strings.HasPrefix(r.Header.Get("Authorization"), "Admin ") {
			t.Errorf("bad request: %v %q", err, r.Header.Get("Authorization"))
		}
		titles.add(r.PostForm.Get("title"))
		if n.Add(1)%2 == 0 {
			w.Write([]byte(`{"status":"error","status_code":4}`))
			return
		}
		w.Write([]byte(`{"status":"ok"}`))
	}))
	defer srv.Close()
	var out bytes.Buffer
	args := []string{"--scenario", "post_task", "--url", srv.URL + "/a/acme", "--key", "k", "--project", "3",
		"--clients", "2", "--warmup", "0", "--requests", "50"}
	err := run(context.Background(), args, &out, io.Discard)
	if !errors.Is(err, errFailures) {
		t.Fatalf("run: %v, want errFailures", err)
	}
	if !strings.Contains(out.String(), "requests=50 failures=25 ") {
		t.Fatalf("output %q", out.String())
	}
	if titles.dup || len(titles.seen) != 50 {
		t.Fatal("a title was sent twice")
	}
}

// titleSet records titles and whether one was seen twice.
type titleSet struct {
	mu   sync.Mutex
	seen map[string]bool
	dup  bool
}

func (s *titleSet) add(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = make(map[string]bool)
	}
	s.dup = s.dup || s.seen[v]
	s.seen[v] = true
}
