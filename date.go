package taskd

import (
	"fmt"
	"time"
)

// DateLayout is the form of a day in the domain and in storage: a task's
// or a project's DateStart and DateEnd, a cost line's Date (YYYY-MM-DD).
// Package wire reads the API's other forms into it.
const DateLayout = "2006-01-02"

// FirstDate and LastDate bound every day taskd keeps, both included: a
// task's or a project's start and due dates, a cost line's date, a custom
// field's date, a schedule's day (issue 46). update_task takes no other
// (wire.ParseDate reads the API's and the pages' dates and applies
// CheckDate), and the store applies CheckDate to every date it writes,
// whoever asks, so that whatever is kept can be sent back as it is.
const (
	FirstDate = "1900-01-01"
	LastDate  = "2999-12-31"
)

// firstDay and lastDay are FirstDate and LastDate at midnight UTC.
var (
	firstDay = time.Date(1900, time.January, 1, 0, 0, 0, 0, time.UTC)
	lastDay  = time.Date(2999, time.December, 31, 0, 0, 0, 0, time.UTC)
)

// dateSpanDays is how many days lie from FirstDate to LastDate: a shift
// by more, either way, takes any kept date out of them. It is counted in
// seconds: a time.Duration holds only 292 years.
var dateSpanDays = int((lastDay.Unix() - firstDay.Unix()) / (24 * 60 * 60))

// CheckDate is the one rule of a kept date: d is "" (no date) or a day in
// DateLayout from FirstDate to LastDate. Otherwise it returns an invalid
// error naming field: "A date's year is 1900 to 2999" for a day outside
// them, as update_task answers.
func CheckDate(field, d string) error {
	if d == "" {
		return nil
	}
	t, err := time.Parse(DateLayout, d)
	if err != nil || t.Format(DateLayout) != d {
		return Invalid(field, "%q is not a date: a date is YYYY-MM-DD", d)
	}
	if t.Before(firstDay) || t.After(lastDay) {
		return Invalid(field, "A date's year is 1900 to 2999")
	}
	return nil
}

// SetDate writes v onto *dst when v is set (nil keeps *dst), once
// CheckDate takes it: how the store writes a task's or a project's date,
// whoever asks. CheckDateRange then checks the pair.
func SetDate(field string, dst, v *string) error {
	if v == nil {
		return nil
	}
	if err := CheckDate(field, *v); err != nil {
		return err
	}
	*dst = *v
	return nil
}

// CheckDateRange returns an invalid error when both dates are set and end precedes start.
func CheckDateRange(start, end string) error {
	if start != "" && end != "" && end < start {
		return Invalid("dateend", "End date is before start date")
	}
	return nil
}

// ShiftDate moves a kept date by days; "" stays "". ok is false when the
// day it lands on is not one CheckDate takes (or d is not a date): to is
// then that day, or "" when it is beyond any kept date. Any days may be
// given: no arithmetic overflows.
func ShiftDate(d string, days int) (to string, ok bool) {
	if d == "" {
		return "", true
	}
	t, err := time.Parse(DateLayout, d)
	if err != nil || t.Format(DateLayout) != d {
		return "", false
	}
	if days > dateSpanDays || days < -dateSpanDays {
		return "", false
	}
	to = t.AddDate(0, 0, days).Format(DateLayout)
	return to, CheckDate("date", to) == nil
}

// ShiftTaskDates is where t's start and due dates land when moved by days
// (ShiftDependents), "" staying "". When either would leave FirstDate to
// LastDate, it returns an invalid error on "days" that names the task, the
// date and the bound, so that the caller refuses the whole shift.
func ShiftTaskDates(t Task, days int) (start, end string, err error) {
	dates := []struct {
		what string
		from string
		to   *string
	}{{"start date", t.DateStart, &start}, {"due date", t.DateEnd, &end}}
	if days > 0 { // the due date leaves first: name it
		dates[0], dates[1] = dates[1], dates[0]
	}
	for _, d := range dates {
		to, ok := ShiftDate(d.from, days)
		if !ok {
			return "", "", errShiftOut(t, days, d.what, d.from, to)
		}
		*d.to = to
	}
	return start, end, nil
}

// errShiftOut is ShiftTaskDates' refusal: task t's date (what), from, would
// land on to ("" when beyond any date, or from is none taskd keeps).
func errShiftOut(t Task, days int, what, from, to string) *Error {
	task := fmt.Sprintf("Task #%d “%s”", t.ID, t.Name)
	if CheckDate("date", from) != nil {
		return Invalid("days", "%s cannot move: its %s %q is not one taskd keeps (%s to %s); change it first. Nothing was shifted.",
			task, what, from, FirstDate, LastDate)
	}
	move, side, bound := dayCount(uint(days))+" later", "after", LastDate+", the last date taskd keeps"
	if days < 0 {
		move, side, bound = dayCount(uint(-days))+" earlier", "before", FirstDate+", the first date taskd keeps"
	}
	if to == "" {
		return Invalid("days", "%s cannot move %s: its %s would be %s %s. Nothing was shifted.", task, move, what, side, bound)
	}
	return Invalid("days", "%s cannot move %s: its %s would be %s, %s %s. Nothing was shifted.", task, move, what, to, side, bound)
}

// dayCount is n days in words: "1 day", "3650 days".
func dayCount(n uint) string {
	if n == 1 {
		return "1 day"
	}
	return fmt.Sprintf("%d days", n)
}
