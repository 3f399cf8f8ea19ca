// Command testsummary reads "go test -json" on stdin and prints what a
// person wants from a long run: one line per package as go test prints it,
// the output of every failed test in full, any build error, and at the end
// the slowest top-level tests (what to look at when the run is too long),
// then one line counting the tests run in each part of the tree, the
// skipped ones, and above all the browser tests if any were skipped.
//
//	go test -json ./... | go run ./internal/testsummary -o summary.txt
//
// It exits 1 when a test or a build failed, or when the input is not
// test2json. -o writes the summary line to a file too. While it reads, it
// writes a progress line to stderr every minute (-every): the phase
// (-phase), the packages done of the total (-packages), the time since
// the run began (-since, Unix seconds) and the packages still running, so
// that a long run never looks hung.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	out := flag.String("o", "", "also write the summary line to this file")
	phase := flag.String("phase", "tests", "the phase the progress lines name")
	total := flag.Int("packages", 0, "how many packages the run tests (0: not known)")
	since := flag.Int64("since", 0, "when the whole run began, in Unix seconds (0: now)")
	every := flag.Duration("every", time.Minute, "how often a progress line is written (0: never)")
	flag.Parse()
	p := progress{phase: *phase, total: *total, since: time.Now()}
	if *since > 0 {
		p.since = time.Unix(*since, 0)
	}
	s := newSummary()
	stop, wg := make(chan struct{}), &sync.WaitGroup{}
	if *every > 0 {
		wg.Add(1)
		go p.report(s, os.Stderr, *every, stop, wg)
	}
	ok := s.read(os.Stdin, os.Stdout)
	close(stop)
	wg.Wait()
	s.printSlowest(os.Stdout, slowestShown)
	line := s.line()
	fmt.Println(line)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(line+"\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(1)
		}
	}
	if !ok {
		os.Exit(1)
	}
}

// event is one line of test2json.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// summary counts tests by part of the tree and keeps the output of each
// running test until it is known to have failed. mu guards it while a
// progress line reads it.
type summary struct {
	mu       sync.Mutex
	module   string
	run      map[string]int // top-level tests passed or failed, by part
	order    []string
	subtests int
	skipped  int
	failed   []string
	browser  struct{ run, skipped int }
	skipWhy  string
	output   map[string][]string // by package and test, until the test ends
	packages int
	running  []string // packages started and not done, in the order they started
	timed    []timedTest
}

// timedTest is a top-level test that ran, and how long it took.
type timedTest struct {
	name    string // package (within the module) and test
	elapsed float64
}

// slowestShown is how many of the slowest tests a run lists.
const slowestShown = 12

func newSummary() *summary {
	return &summary{module: "github.com/taskd/taskd", run: map[string]int{}, output: map[string][]string{}}
}

// read copies the package results and failures from r to w as they come,
// and reports whether everything passed.
func (s *summary) read(r io.Reader, w io.Writer) bool {
	ok, sawEvent := true, false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text()) // not test2json: a build error printed as text, say
			continue
		}
		sawEvent = true
		s.mu.Lock()
		if !s.take(w, e) {
			ok = false
		}
		s.mu.Unlock()
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(w, "testsummary: reading go test -json:", err)
		return false
	}
	return ok && sawEvent && len(s.failed) == 0
}

// take counts one event, writing to w what a person must see of it, and
// reports whether it was not a package's failure.
func (s *summary) take(w io.Writer, e event) bool {
	key := e.Package + " " + e.Test
	switch e.Action {
	case "start":
		s.running = append(s.running, e.Package)
	case "build-output":
		fmt.Fprint(w, e.Output)
	case "output":
		s.output[key] = append(s.output[key], e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			s.packageDone(w, e)
			return e.Action != "fail"
		}
		s.testDone(w, e, key)
	}
	return true
}

func (s *summary) packageDone(w io.Writer, e event) {
	key := e.Package + " "
	switch e.Action {
	case "pass":
		fmt.Fprintf(w, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
	case "skip":
		fmt.Fprintf(w, "?   \t%s\t[no test files]\n", e.Package)
	case "fail":
		// A panic, a timeout or a build failure: the package's own output,
		// and that of any test it cut short.
		for _, k := range slices.Sorted(maps.Keys(s.output)) {
			if strings.HasPrefix(k, key) {
				for _, l := range s.output[k] {
					fmt.Fprint(w, l)
				}
			}
		}
		fmt.Fprintf(w, "FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
	}
	for k := range s.output {
		if strings.HasPrefix(k, key) {
			delete(s.output, k)
		}
	}
	s.running = slices.DeleteFunc(s.running, func(p string) bool { return p == e.Package })
	s.packages++
}

func (s *summary) testDone(w io.Writer, e event, key string) {
	lines := s.output[key]
	delete(s.output, key)
	browser := strings.HasPrefix(e.Test, "TestBrowser")
	if strings.Contains(e.Test, "/") {
		if e.Action != "skip" {
			s.subtests++
		}
		if e.Action == "fail" {
			s.failed = append(s.failed, e.Test)
			for _, l := range lines {
				fmt.Fprint(w, l)
			}
		}
		return
	}
	switch e.Action {
	case "skip":
		s.skipped++
		if browser {
			s.browser.skipped++
			if s.skipWhy == "" {
				s.skipWhy = skipReason(lines)
			}
		}
		return
	case "fail":
		s.failed = append(s.failed, e.Package+"."+e.Test)
		for _, l := range lines {
			fmt.Fprint(w, l)
		}
	}
	if browser {
		s.browser.run++
	}
	s.timed = append(s.timed, timedTest{name: s.relative(e.Package) + "." + e.Test, elapsed: e.Elapsed})
	part := s.part(e.Package)
	if _, seen := s.run[part]; !seen {
		s.order = append(s.order, part)
	}
	s.run[part]++
}

// printSlowest writes the n slowest top-level tests, slowest first.
func (s *summary) printSlowest(w io.Writer, n int) {
	slow := slices.SortedStableFunc(slices.Values(s.timed), func(a, b timedTest) int {
		switch {
		case a.elapsed > b.elapsed:
			return -1
		case a.elapsed < b.elapsed:
			return 1
		}
		return 0
	})
	if len(slow) == 0 {
		return
	}
	fmt.Fprintln(w, "slowest tests:")
	for _, t := range slow[:min(n, len(slow))] {
		fmt.Fprintf(w, "%8.1fs  %s\n", t.elapsed, t.name)
	}
}

// relative is a package's path within the module ("taskd" for the root).
func (s *summary) relative(pkg string) string {
	if rel := strings.TrimPrefix(strings.TrimPrefix(pkg, s.module), "/"); rel != "" {
		return rel
	}
	return "taskd"
}

// part names a package's place in the tree: its first directory, or
// "taskd" for the root package.
func (s *summary) part(pkg string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, s.module), "/")
	if rel == "" {
		return "taskd"
	}
	first, _, _ := strings.Cut(rel, "/")
	if first == "internal" || first == "cmd" {
		return rel
	}
	return first
}

// skipReason finds the t.Skip message in a skipped test's output.
func skipReason(lines []string) string {
	for _, l := range lines {
		if _, after, ok := strings.Cut(l, ": "); ok && strings.Contains(l, ".go:") {
			return strings.TrimSpace(after)
		}
	}
	return "skipped"
}

// line is the one-line summary.
func (s *summary) line() string {
	total := 0
	parts := make([]string, 0, len(s.order))
	for _, p := range s.order {
		total += s.run[p]
		parts = append(parts, fmt.Sprintf("%s %d", p, s.run[p]))
	}
	line := fmt.Sprintf("tests: %d run in %d packages (%s), %d subtests, %d skipped",
		total, s.packages, strings.Join(parts, ", "), s.subtests, s.skipped)
	if s.browser.skipped > 0 {
		line += fmt.Sprintf("; BROWSER TESTS SKIPPED: %d of %d (%s)", s.browser.skipped, s.browser.run+s.browser.skipped, s.skipWhy)
	} else {
		line += fmt.Sprintf("; %d browser tests in Chromium", s.browser.run)
	}
	if len(s.failed) > 0 {
		line += fmt.Sprintf("; FAILED: %s", strings.Join(s.failed[:min(5, len(s.failed))], ", "))
		if len(s.failed) > 5 {
			line += fmt.Sprintf(" and %d more", len(s.failed)-5)
		}
	}
	return line
}
