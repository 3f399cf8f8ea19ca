package main

import (
	"strings"
	"testing"
	"time"
)

// stream is go test -json from a run with a failure, a skipped browser test
// and a build error in a third package.
const stream = `{"Action":"start","Package":"github.com/taskd/taskd/store"}
{"Action":"run","Package":"github.com/taskd/taskd/store","Test":"TestA"}
{"Action":"output","Package":"github.com/taskd/taskd/store","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"run","Package":"github.com/taskd/taskd/store","Test":"TestA/sqlite"}
{"Action":"pass","Package":"github.com/taskd/taskd/store","Test":"TestA/sqlite"}
{"Action":"pass","Package":"github.com/taskd/taskd/store","Test":"TestA","Elapsed":0.5}
{"Action":"output","Package":"github.com/taskd/taskd/store","Test":"TestB","Output":"    b_test.go:9: the sum is 3, want 4\n"}
{"Action":"fail","Package":"github.com/taskd/taskd/store","Test":"TestB"}
{"Action":"fail","Package":"github.com/taskd/taskd/store","Elapsed":1.5}
{"Action":"output","Package":"github.com/taskd/taskd/server","Test":"TestBrowserPages","Output":"    browser_test.go:41: chromium is not installed\n"}
{"Action":"skip","Package":"github.com/taskd/taskd/server","Test":"TestBrowserPages"}
{"Action":"pass","Package":"github.com/taskd/taskd/server","Test":"TestPages","Elapsed":7.25}
{"Action":"pass","Package":"github.com/taskd/taskd/server","Elapsed":2}
{"Action":"build-output","ImportPath":"github.com/taskd/taskd/api","Output":"api/x.go:1:1: undefined: y\n"}
{"Action":"fail","Package":"github.com/taskd/taskd/api","Elapsed":0}
{"Action":"output","Package":"github.com/taskd/taskd/web","Test":"TestP","Output":"panic: boom\n"}
{"Action":"fail","Package":"github.com/taskd/taskd/web","Elapsed":0.1}
`

func TestSummary(t *testing.T) {
	s := newSummary()
	var out strings.Builder
	if s.read(strings.NewReader(stream), &out) {
		t.Fatal("a run with a failed test and a build error was reported as passing")
	}
	for _, want := range []string{"the sum is 3, want 4", "api/x.go:1:1: undefined: y", "panic: boom", "FAIL\tgithub.com/taskd/taskd/store", "ok  \tgithub.com/taskd/taskd/server"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "=== RUN   TestA") {
		t.Errorf("a passing test's output was printed:\n%s", out.String())
	}
	want := "tests: 3 run in 4 packages (store 2, server 1), 1 subtests, 1 skipped; BROWSER TESTS SKIPPED: 1 of 1 (chromium is not installed); FAILED: github.com/taskd/taskd/store.TestB"
	if got := s.line(); got != want {
		t.Errorf("summary\n got %s\nwant %s", got, want)
	}
}

func TestSummaryOfNothingFails(t *testing.T) {
	if newSummary().read(strings.NewReader("no tests here\n"), &strings.Builder{}) {
		t.Fatal("input that is not test2json passed")
	}
}

// TestSlowest lists the top-level tests that ran, slowest first, no more
// than asked.
func TestSlowest(t *testing.T) {
	s := newSummary()
	s.read(strings.NewReader(stream), &strings.Builder{})
	var out strings.Builder
	s.printSlowest(&out, 2)
	want := "slowest tests:\n     7.2s  server.TestPages\n     0.5s  store.TestA\n"
	if out.String() != want {
		t.Errorf("slowest\n got %q\nwant %q", out.String(), want)
	}
}

// TestProgressLine: a progress line names the phase, the packages done of
// the total, the time since the run began and the packages still running.
func TestProgressLine(t *testing.T) {
	s := newSummary()
	s.read(strings.NewReader(stream+`{"Action":"start","Package":"github.com/taskd/taskd/cmd/taskd"}
{"Action":"start","Package":"github.com/taskd/taskd"}
`), &strings.Builder{})
	begun := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	p := progress{phase: "race run", total: 38, since: begun}
	want := "== race run: 4 of 38 packages done, 4m10s so far; running: cmd/taskd, taskd; 1 failed"
	if got := p.line(s, begun.Add(4*time.Minute+10*time.Second+300*time.Millisecond)); got != want {
		t.Errorf("progress line\n got %s\nwant %s", got, want)
	}
	p.total = 0
	want = "== race run: 4 packages done, 0s so far; running: cmd/taskd, taskd; 1 failed"
	if got := p.line(s, begun); got != want {
		t.Errorf("progress line without a total\n got %s\nwant %s", got, want)
	}
}
