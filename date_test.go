package taskd_test

import (
	"math"
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

// TestCheckDate: the one rule of a kept date (issue 46): "" or a day in
// YYYY-MM-DD from 1900-01-01 to 2999-12-31, both included.
func TestCheckDate(t *testing.T) {
	t.Parallel()
	for d, ok := range map[string]bool{
		"": true, "1900-01-01": true, "2999-12-31": true, "2026-02-28": true, "2024-02-29": true,
		"1899-12-31": false, "3000-01-01": false, "3009-06-30": false, "0000-01-01": false, "-0009-03-02": false,
		"2026-02-29": false, "2026-2-28": false, "28.02.2026": false, "10000-01-01": false, " 2026-02-28": false,
	} {
		err := taskd.CheckDate("dateend", d)
		if (err == nil) != ok {
			t.Errorf("CheckDate(%q) = %v, want ok=%v", d, err, ok)
		}
		if err != nil && (taskd.ErrorKind(err) != taskd.KindInvalid || taskd.AsError(err).Field != "dateend") {
			t.Errorf("CheckDate(%q) = %v, want invalid on dateend", d, err)
		}
	}
	if err := taskd.CheckDate("datestart", "3000-01-01"); taskd.AsError(err).Message != "A date's year is 1900 to 2999" {
		t.Errorf("a day past the last: %v, want update_task's words", err)
	}
}

// TestShiftDate: a shift lands on the day days away when CheckDate takes
// it; any days, however large, is answered without overflow.
func TestShiftDate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		from string
		days int
		to   string
		ok   bool
	}{
		{"", 5, "", true},
		{"2026-03-02", 3, "2026-03-05", true},
		{"2026-03-02", -3650, "2016-03-04", true},
		{"2999-12-30", 1, "2999-12-31", true},
		{"2999-12-31", 1, "3000-01-01", false},
		{"1900-01-02", -1, "1900-01-01", true},
		{"1900-01-01", -1, "1899-12-31", false},
		{"2999-06-01", 3650, "3009-05-30", false},
		{"1900-01-01", 401766, "2999-12-31", true},
		{"2999-12-31", -401766, "1900-01-01", true},
		{"1900-01-01", 401767, "", false},
		{"2026-03-02", math.MaxInt, "", false},
		{"2026-03-02", math.MinInt, "", false},
		{"-0009-03-02", 3650, "", false},
		{"3009-06-30", -3650, "2999-07-02", true}, // a date kept before the rule may come back
	} {
		to, ok := taskd.ShiftDate(c.from, c.days)
		if to != c.to || ok != c.ok {
			t.Errorf("ShiftDate(%q, %d) = %q, %v; want %q, %v", c.from, c.days, to, ok, c.to, c.ok)
		}
	}
}

// TestShiftTaskDates: a shift that takes either date out is refused on
// "days", naming the task, the date and the bound.
func TestShiftTaskDates(t *testing.T) {
	t.Parallel()
	task := taskd.Task{ID: 42, Name: "Launch", DateStart: "2999-06-01", DateEnd: "2999-06-30"}
	if s, e, err := taskd.ShiftTaskDates(task, 184); err != nil || s != "2999-12-02" || e != "2999-12-31" {
		t.Errorf("184 days: %s..%s, %v", s, e, err)
	}
	for _, c := range []struct {
		task taskd.Task
		days int
		want string
	}{
		{task, 3650, `Task #42 “Launch” cannot move 3650 days later: its due date would be 3009-06-28, after 2999-12-31, the last date taskd keeps. Nothing was shifted.`},
		{task, 185, `Task #42 “Launch” cannot move 185 days later: its due date would be 3000-01-01, after 2999-12-31`},
		{taskd.Task{ID: 7, Name: "Old", DateStart: "1900-01-01"}, -1, `Task #7 “Old” cannot move 1 day earlier: its start date would be 1899-12-31, before 1900-01-01, the first date taskd keeps.`},
		{taskd.Task{ID: 7, Name: "Old", DateEnd: "1950-01-01"}, math.MinInt, `cannot move 9223372036854775808 days earlier: its due date would be before 1900-01-01, the first date taskd keeps. Nothing was shifted.`},
		{taskd.Task{ID: 8, Name: "Bad", DateStart: "-0009-03-02"}, -1, `Task #8 “Bad” cannot move: its start date "-0009-03-02" is not one taskd keeps (1900-01-01 to 2999-12-31); change it first.`},
	} {
		_, _, err := taskd.ShiftTaskDates(c.task, c.days)
		if e := taskd.AsError(err); err == nil || e.Field != "days" || e.Kind != taskd.KindInvalid || !strings.Contains(e.Message, c.want) {
			t.Errorf("ShiftTaskDates(%v, %d) = %v, want invalid on days saying %q", c.task, c.days, err, c.want)
		}
	}
}
