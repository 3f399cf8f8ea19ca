package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress is what a run's progress lines say: the phase, the packages
// done of the total, the time since the whole run began, and the packages
// still running (what to look at when a run seems to hang).
type progress struct {
	phase string
	total int       // packages the run tests; 0 when not known
	since time.Time // when the whole run began
}

// line is the progress line at now, "== race run: 12 of 38 packages done,
// 4m10s so far; running: store, web".
func (p progress) line(s *summary, now time.Time) string {
	done := fmt.Sprintf("%d packages done", s.packages)
	if p.total > 0 {
		done = fmt.Sprintf("%d of %d packages done", s.packages, p.total)
	}
	line := fmt.Sprintf("== %s: %s, %s so far", p.phase, done, now.Sub(p.since).Round(time.Second))
	if len(s.running) > 0 {
		names := make([]string, len(s.running))
		for i, pkg := range s.running {
			names[i] = s.relative(pkg)
		}
		line += "; running: " + strings.Join(names, ", ")
	}
	if len(s.failed) > 0 {
		line += fmt.Sprintf("; %d failed", len(s.failed))
	}
	return line
}

// report writes a progress line to w every interval until stop is
// closed. It holds s.mu while it writes, so that a line never cuts into
// the output of a failed test.
func (p progress) report(s *summary, w io.Writer, every time.Duration, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			s.mu.Lock()
			fmt.Fprintln(w, p.line(s, now))
			s.mu.Unlock()
		}
	}
}
