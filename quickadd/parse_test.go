package quickadd

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// thursday is the day the tests count from: Thursday 26 November 2026.
var thursday = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func prio(n int) *int { return &n }

func TestParse(t *testing.T) {
	for _, c := range []struct {
		line string
		want Line
	}{
		{"Write copy", Line{Name: "Write copy"}},
		{"  Write   copy  ", Line{Name: "Write copy"}},
		{"Write copy @dana !high due fri #design",
			Line{Name: "Write copy", Assignee: "dana", Priority: prio(8), Due: day("2026-11-27"), Tags: []string{"design"}}},
		// Shortcuts anywhere in the line; the name keeps its order.
		{"@dana Write #design copy", Line{Name: "Write copy", Assignee: "dana", Tags: []string{"design"}}},
		{"Fix #a #b", Line{Name: "Fix", Tags: []string{"a", "b"}}},
		// An e-mail address is not an assignee: the @ does not start the word.
		{"Mail email@x.com", Line{Name: "Mail email@x.com"}},
		{"Ask @dana@x.com", Line{Name: "Ask", Assignee: "dana@x.com"}},
		// Lone signs, issue numbers and unknown priorities stay in the name.
		{"Fix bug #12 @ ! #", Line{Name: "Fix bug #12 @ ! #"}},
		{"Wow! !important !0 !11 !01", Line{Name: "Wow! !important !0 !11 !01"}},
		// !0 is text however it is written: priorities run from !1.
		{"Fix it !0", Line{Name: "Fix it !0"}},
		{"Fix it !-0", Line{Name: "Fix it !-0"}},
		{"Fix it !-00", Line{Name: "Fix it !-00"}},
		// The limit is 2,000 bytes: 1,000 "é" are 2,000.
		{strings.Repeat("é", MaxLine/2), Line{Name: strings.Repeat("é", MaxLine/2)}},
		// A backslash keeps a shortcut in the name, without the backslash.
		{`Tweet \@dana \#launch \!high \due today`, Line{Name: "Tweet @dana #launch !high due today"}},
		{`Path C:\x \`, Line{Name: `Path C:\x \`}},
		// Priorities.
		{"A !low", Line{Name: "A", Priority: prio(0)}},
		{"A !normal", Line{Name: "A", Priority: prio(1)}},
		{"A !URGENT", Line{Name: "A", Priority: prio(10)}},
		{"A !1", Line{Name: "A", Priority: prio(1)}},
		{"A !7", Line{Name: "A", Priority: prio(7)}},
		{"A !10", Line{Name: "A", Priority: prio(10)}},
		// "due" and "start" take a date; without one they are words.
		{"Pay dues due", Line{Name: "Pay dues due"}},
		{"Do due diligence", Line{Name: "Do due diligence"}},
		{"Start the car start tomorrow", Line{Name: "Start the car", Start: day("2026-11-27")}},
		{"A due today", Line{Name: "A", Due: thursday}},
		{"A due Tomorrow", Line{Name: "A", Due: day("2026-11-27")}},
		// A weekday is the next such day, today included.
		{"A due thu", Line{Name: "A", Due: thursday}},
		{"A due wed", Line{Name: "A", Due: day("2026-12-02")}},
		{"A due monday", Line{Name: "A", Due: day("2026-11-30")}},
		{"A due sun", Line{Name: "A", Due: day("2026-11-29")}},
		{"A due next week", Line{Name: "A", Due: day("2026-11-30")}},
		{"A due next thu", Line{Name: "A", Due: day("2026-12-03")}},
		{"A due next fri", Line{Name: "A", Due: day("2026-12-04")}},
		{"A due next time", Line{Name: "A due next time"}},
		{"A due 2027-01-15", Line{Name: "A", Due: day("2027-01-15")}},
		{"A due 2027-02-30", Line{Name: "A due 2027-02-30"}},
		// M/D is the next such day; M/D/YYYY a given year.
		{"A due 12/31", Line{Name: "A", Due: day("2026-12-31")}},
		{"A due 11/26", Line{Name: "A", Due: thursday}},
		{"A due 1/5", Line{Name: "A", Due: day("2027-01-05")}},
		{"A due 2/29", Line{Name: "A", Due: day("2028-02-29")}},
		{"A due 3/4/2028", Line{Name: "A", Due: day("2028-03-04")}},
		{"A due 13/1", Line{Name: "A due 13/1"}},
		{"A due 4/31", Line{Name: "A due 4/31"}},
		{"A due 1/2/28", Line{Name: "A due 1/2/28"}},
		{"A start mon due fri", Line{Name: "A", Start: day("2026-11-30"), Due: day("2026-11-27")}},
	} {
		got, err := Parse(c.line, thursday)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.line, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", c.line, got, c.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ line, says string }{
		{"", "needs a name"},
		{"@dana !high due fri #design", "needs a name"},
		{"A @dana @eve", "Only one assignee"},
		{"A !high !low", "Only one priority"},
		{"A due fri due mon", "Only one due date"},
		{"A start fri start mon", "Only one start date"},
		{strings.Repeat("a", MaxLine+1), "too long"},
		{strings.Repeat("é", MaxLine/2+1), "too long"}, // 1,001 characters, 2,002 bytes
		{"A \xff", "not valid text"},
	} {
		_, err := Parse(c.line, thursday)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Message, c.says) {
			t.Errorf("Parse(%.40q) = %v, want an error saying %q", c.line, err, c.says)
		}
	}
}

// FuzzParse checks that any line is read or refused with a message, never
// a panic; that the name keeps every word but the shortcuts; and that a
// line read twice reads the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"Write copy @dana !high due fri #design", `\@x a`, "a due 2/29", "a start next week", "a due 12/31/2999", "#1 !10 @"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		l, err := Parse(line, thursday)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Message == "" {
				t.Fatalf("Parse(%q): %v is not a message", line, err)
			}
			return
		}
		if l.Name == "" || l.Name != strings.TrimSpace(l.Name) {
			t.Fatalf("Parse(%q): name %q", line, l.Name)
		}
		if l.Priority != nil && (*l.Priority < 0 || *l.Priority > 10) {
			t.Fatalf("Parse(%q): priority %d", line, *l.Priority)
		}
		for _, d := range []time.Time{l.Due, l.Start} {
			if !d.IsZero() && (d.Year() < 1900 || d.Year() > 2999 || d.Hour() != 0 || d.Location() != time.UTC) {
				t.Fatalf("Parse(%q): day %v", line, d)
			}
		}
		again, err := Parse(line, thursday)
		if err != nil || !reflect.DeepEqual(l, again) {
			t.Fatalf("Parse(%q) twice: %+v then %+v, %v", line, l, again, err)
		}
	})
}
