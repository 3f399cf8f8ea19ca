package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEntriesMatchTheCode: every entry's text occurs exactly once in its
// file, and names are unique. Running the entries takes an hour; this
// check takes a moment, so a change to the code that leaves an entry
// stale fails the ordinary test run instead of the next mutation run.
func TestEntriesMatchTheCode(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ms, err := load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 50 {
		t.Fatalf("only %d entries loaded", len(ms))
	}
	names := map[string]bool{}
	for _, m := range ms {
		if names[m.Name] {
			t.Errorf("%s: the name %q is used twice", m.From, m.Name)
		}
		names[m.Name] = true
		src, err := os.ReadFile(filepath.Join(root, m.File))
		if err != nil {
			t.Errorf("%s: %v", m.Name, err)
			continue
		}
		if n := bytes.Count(src, []byte(m.Find)); n != 1 {
			t.Errorf("%s (%s): its text occurs %d times in %s, want once", m.Name, m.From, n, m.File)
		}
		if m.Find == m.Replace || len(m.Tests) == 0 {
			t.Errorf("%s: changes nothing or names no test", m.Name)
		}
	}
}

// TestEntriesNeedABlankLineBetween: two entries with no blank line
// between them are refused, rather than read as one whose name and file
// are the second's (the first was lost so, with its tests run for the
// second).
func TestEntriesNeedABlankLineBetween(t *testing.T) {
	one := "name: a\nfile: f.go\nfind: x\nreplace: y\ntest: ./f\n"
	two := "# why\nname: b\nfile: g.go\nfind: x\nreplace: y\ntest: ./g\n"
	if ms, err := parse(strings.NewReader(one+"\n"+two), "list"); err != nil || len(ms) != 2 {
		t.Fatalf("two entries apart: %d entries, %v", len(ms), err)
	}
	if ms, err := parse(strings.NewReader(one+two), "list"); err == nil {
		t.Fatalf("two entries with no blank line between: read as %d entries, %+v", len(ms), ms)
	}
}
