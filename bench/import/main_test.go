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
	for _, want := range []string{"tasks=9 ", "comments=12 ", "files=2;", "get_comments=9", "get_tasks=3,", "download=2", "  again "} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if n := len(regexp.MustCompile(`peak RSS [1-9][0-9.]* MiB`).FindAllString(got, -1)); n != 3 {
		t.Errorf("%d peak RSS figures, want 3 (version, import, again):\n%s", n, got)
	}
}
