package quickadd

import (
	"strconv"
	"strings"
	"time"
)

// The weekdays by their names and three-letter abbreviations.
var weekdays = map[string]time.Weekday{
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

// readDate reads a date from the first words: the day and how many words
// it took, 0 when they do not start with a date.
func readDate(words []string, today time.Time) (time.Time, int) {
	if len(words) == 0 {
		return time.Time{}, 0
	}
	w := strings.ToLower(words[0])
	if w == "next" && len(words) > 1 {
		next := strings.ToLower(words[1])
		if next == "week" { // the Monday of next week
			return today.AddDate(0, 0, 7-(int(today.Weekday())+6)%7), 2
		}
		if d, ok := weekdays[next]; ok { // a week after the coming one
			return comingDay(today, d).AddDate(0, 0, 7), 2
		}
		return time.Time{}, 0
	}
	switch w {
	case "today":
		return today, 1
	case "tomorrow":
		return today.AddDate(0, 0, 1), 1
	}
	if d, ok := weekdays[w]; ok {
		return comingDay(today, d), 1
	}
	if t, ok := isoDate(w); ok {
		return t, 1
	}
	if t, ok := monthDay(w, today); ok {
		return t, 1
	}
	return time.Time{}, 0
}

// comingDay is the first day on or after today that falls on d.
func comingDay(today time.Time, d time.Weekday) time.Time {
	return today.AddDate(0, 0, (int(d)-int(today.Weekday())+7)%7)
}

// isoDate reads YYYY-MM-DD.
func isoDate(w string) (time.Time, bool) {
	if len(w) != len("2006-01-02") {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02", w)
	return t, err == nil && inRange(t)
}

// monthDay reads M/D (the next such day from today on) and M/D/YYYY.
func monthDay(w string, today time.Time) (time.Time, bool) {
	parts := strings.Split(w, "/")
	if len(parts) != 2 && len(parts) != 3 {
		return time.Time{}, false
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		if p == "" || len(p) > 4 || !allDigits(p) {
			return time.Time{}, false
		}
		nums[i], _ = strconv.Atoi(p)
	}
	m, d := nums[0], nums[1]
	if len(nums) == 3 {
		if len(parts[2]) != 4 {
			return time.Time{}, false
		}
		return validDay(nums[2], m, d)
	}
	t, ok := validDay(today.Year(), m, d)
	if ok && t.Before(today) {
		return validDay(today.Year()+1, m, d)
	}
	if !ok && m == 2 && d == 29 { // 2/29 in a year without one: the next leap year's
		for y := today.Year() + 1; y <= today.Year()+8; y++ {
			if t, ok := validDay(y, m, d); ok {
				return t, true
			}
		}
	}
	return t, ok
}

// validDay is the day, if it exists (no 31 April) and its year is one the
// domain takes.
func validDay(y, m, d int) (time.Time, bool) {
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d || t.Month() != time.Month(m) {
		return time.Time{}, false
	}
	return t, inRange(t)
}

// inRange reports whether the day's year is one the domain takes.
func inRange(t time.Time) bool { return t.Year() >= 1900 && t.Year() <= 2999 }
