package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestSmall imports a tiny account twice with a taskd built from the
// module: run itself fails unless every task and comment was made and
// the second run made or changed nothing; the output names the requests
// the source answered and the peak RSS of each run.
func TestSmall(t *testing.T) {
	var out strings.Builder
	c := config{size: size{tasks: 9, comments: 12, files: 2, fileBytes: 1000, perProject: 4, members: 1}, fractions: []float64{1}, again: true}
	if err := run(context.Background(), c, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	// 9 tasks in 3 projects: a get_tasks per project (once: the later
	// families walk what the tasks family kept), a get_comments per task,
	// a download per file.
	// A count of requests is followed by the time they took when it was
	// a tenth of a second or more ("get_tasks=3 in 0.6s,"): counts are
	// matched whole, times left out.
	for _, want := range []string{`tasks=9 `, `comments=12 `, `files=2;`, `get_comments=9\b`, `get_tasks=3\b`, `download=2\b`, `  again `} {
		if !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if n := len(regexp.MustCompile(`peak RSS [1-9][0-9.]* MiB`).FindAllString(got, -1)); n != 3 {
		t.Errorf("%d peak RSS figures, want 3 (version, import, again):\n%s", n, got)
	}
}

// TestHostileSmall imports a small hostile source at two concurrencies:
// every task and comment it answers is made, and each run prints its peak
// RSS.
func TestHostileSmall(t *testing.T) {
	var out strings.Builder
	c := config{hostile: &hostileSize{tasks: 2, answerBytes: 256 << 10, commentBytes: 16 << 10}, concurrency: []int{1, 2}}
	if err := run(context.Background(), c, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	// 256 KiB of comments of 16 KiB: 16 a task.
	for _, want := range []string{`--concurrency 1 with taskd: .*tasks=2 comments=32\n`, `--concurrency 2 with taskd: .*tasks=2 comments=32\n`,
		`get_comments=2\b`, `get_tasks=1\b`} {
		if !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if n := len(regexp.MustCompile(`peak RSS [1-9][0-9.]* MiB`).FindAllString(got, -1)); n != 3 {
		t.Errorf("%d peak RSS figures, want 3 (version, two imports):\n%s", n, got)
	}
}
