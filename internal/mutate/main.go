// Command mutate checks that the tests bite: it applies, one at a time, the
// invariant-breaking changes listed in the repository's
// */testdata/mutations.txt files to a copy of the module, runs the tests
// each entry names, and reports whether they caught it. Every entry must be
// caught; an entry whose text no longer matches the code, or whose change
// does not build, is a failure too.
//
//	go run ./internal/mutate            # every entry
//	go run ./internal/mutate -run NAME  # entries whose name contains NAME
//	go run ./internal/mutate -list      # list the entries
//
// TASKD_TEST_POSTGRES is passed on, so the tests run on both databases
// when it is set. See docs/testing.md.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// mutation is one invariant-breaking change and the tests that must catch it.
type mutation struct {
	Name    string // short and unique
	Why     string // the invariant it breaks
	File    string // relative to the module root
	Find    string // occurs exactly once in File
	Replace string
	Tests   [][]string // runs of "go test", each with its packages and flags
	From    string     // the list it came from
}

// result is what happened to one mutation.
type result struct {
	m       mutation
	verdict string // caught, SURVIVED, STALE, BROKEN
	took    time.Duration
	detail  string
}

func main() {
	run := flag.String("run", "", "only entries whose name contains this")
	list := flag.Bool("list", false, "list the entries and exit")
	timeout := flag.Duration("timeout", 10*time.Minute, "time limit of one entry's tests")
	flag.Parse()
	if err := mutate(context.Background(), os.Stdout, *run, *list, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func mutate(ctx context.Context, out io.Writer, only string, list bool, timeout time.Duration) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	ms, err := load(root)
	if err != nil {
		return err
	}
	var chosen []mutation
	for _, m := range ms {
		if strings.Contains(m.Name, only) {
			chosen = append(chosen, m)
		}
	}
	if list {
		for _, m := range chosen {
			fmt.Fprintf(out, "%-28s %s  (%s)\n", m.Name, m.Why, m.File)
		}
		return nil
	}
	if len(chosen) == 0 {
		return errors.New("no entry matches")
	}
	work, err := os.MkdirTemp("", "taskd-mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := copyTree(root, work); err != nil {
		return fmt.Errorf("copy the module: %w", err)
	}
	fmt.Fprintf(out, "%d mutations, each in %s\n", len(chosen), work)
	failed := 0
	for _, m := range chosen {
		r := apply(ctx, work, m, timeout)
		fmt.Fprintf(out, "%-9s %-28s %6.1fs  %s\n", r.verdict, m.Name, r.took.Seconds(), m.Why)
		if r.verdict != "caught" {
			failed++
			if r.detail != "" {
				fmt.Fprintf(out, "          %s\n", strings.ReplaceAll(strings.TrimSpace(r.detail), "\n", "\n          "))
			}
		}
	}
	fmt.Fprintf(out, "%d of %d caught\n", len(chosen)-failed, len(chosen))
	if failed > 0 {
		return fmt.Errorf("%d mutations not caught", failed)
	}
	return nil
}

// apply makes one change in the copy, runs its tests and undoes it.
func apply(ctx context.Context, work string, m mutation, timeout time.Duration) result {
	start := time.Now()
	r := result{m: m}
	path := filepath.Join(work, m.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		r.verdict, r.detail = "STALE", err.Error()
		return r
	}
	if n := bytes.Count(orig, []byte(m.Find)); n != 1 {
		r.verdict, r.detail = "STALE", fmt.Sprintf("the text to change occurs %d times in %s (want once)", n, m.File)
		return r
	}
	defer os.WriteFile(path, orig, 0o644)
	if err := os.WriteFile(path, bytes.Replace(orig, []byte(m.Find), []byte(m.Replace), 1), 0o644); err != nil {
		r.verdict, r.detail = "BROKEN", err.Error()
		return r
	}
	r.verdict, r.detail = "SURVIVED", "the tests passed with the change in place"
	for _, args := range m.Tests {
		tctx, cancel := context.WithTimeout(ctx, timeout)
		cmd := exec.CommandContext(tctx, "go", append([]string{"test", "-count=1"}, args...)...)
		cmd.Dir = work
		output, err := cmd.CombinedOutput()
		timedOut := tctx.Err() != nil
		cancel()
		switch {
		case err == nil:
			if bytes.Contains(output, []byte("no tests to run")) {
				r.verdict, r.detail = "STALE", "go test "+strings.Join(args, " ")+" runs no test"
				r.took = time.Since(start)
				return r
			}
			continue
		case bytes.Contains(output, []byte("[build failed]")) || bytes.Contains(output, []byte("[setup failed]")) || bytes.Contains(output, []byte("vet:")):
			r.verdict, r.detail = "BROKEN", lastLines(output, 8)
		case timedOut:
			r.verdict, r.detail = "SURVIVED", "the tests ran out of time instead of failing"
		default:
			r.verdict, r.detail = "caught", ""
		}
		break
	}
	r.took = time.Since(start)
	return r
}

// load reads every */testdata/mutations.txt below root.
func load(root string) ([]mutation, error) {
	var all []mutation
	names := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "mutations.txt" || filepath.Base(filepath.Dir(path)) != "testdata" {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(root, path)
		ms, err := parse(f, rel)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		for _, m := range ms {
			if prev, dup := names[m.Name]; dup {
				return fmt.Errorf("%s: entry %s is also in %s", rel, m.Name, prev)
			}
			names[m.Name] = rel
		}
		all = append(all, ms...)
		return nil
	})
	return all, err
}

// parse reads entries: blocks of "key: value" lines separated by blank
// lines, with "# " lines as the reason. In find and replace, \n and \t
// stand for a newline and a tab.
func parse(r io.Reader, from string) ([]mutation, error) {
	var out []mutation
	var m mutation
	flush := func() error {
		if m.Name == "" && m.File == "" {
			m = mutation{} // a comment block of its own
			return nil
		}
		if m.Name == "" || m.File == "" || m.Find == "" || len(m.Tests) == 0 {
			return fmt.Errorf("entry %q lacks name, file, find or test", m.Name)
		}
		m.From = from
		out = append(out, m)
		m = mutation{}
		return nil
	}
	unescape := strings.NewReplacer(`\n`, "\n", `\t`, "\t")
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		case strings.HasPrefix(line, "#"):
			m.Why = strings.TrimSpace(m.Why + " " + strings.TrimSpace(strings.TrimPrefix(line, "#")))
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("line %q is not key: value", line)
		}
		value = strings.TrimPrefix(value, " ")
		switch key {
		case "name":
			if m.Name != "" { // two entries with no blank line between: the first would be lost
				return nil, fmt.Errorf("entry %q: a blank line must come before the entry %q", m.Name, value)
			}
			m.Name = value
		case "file":
			m.File = value
		case "find":
			m.Find = unescape.Replace(value)
		case "replace":
			m.Replace = unescape.Replace(value)
		case "test":
			args, err := splitArgs(value)
			if err != nil {
				return nil, err
			}
			m.Tests = append(m.Tests, args)
		default:
			return nil, fmt.Errorf("unknown key %q", key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, flush()
}

// splitArgs splits a command line at spaces, keeping 'quoted' parts whole.
func splitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	quoted, has := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, has = !quoted, true
		case r == ' ' && !quoted:
			if has {
				out = append(out, cur.String())
				cur.Reset()
				has = false
			}
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unclosed quote in %q", s)
	}
	if has {
		out = append(out, cur.String())
	}
	return out, nil
}

// copyTree copies the module's files (not .git, not artifacts) to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() && rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == "artifacts" || d.Name() == "taskd-data") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
