package wire

import (
	"time"

	"github.com/taskd/taskd"
)

// Date layouts of the API (compat), besides taskd.DateLayout (YYYY-MM-DD),
// which date_start and date_end are written in and which inputs also take.
const (
	DateTimeLayout = "2006-01-02 15:04" // date_added
	InputLayout    = "02.01.2006"       // datestart, dateend parameters
)

// ParseDate reads an input date in DD.MM.YYYY (compat) or YYYY-MM-DD form and
// returns it in storage form YYYY-MM-DD. An empty string clears the date.
// A day outside taskd.FirstDate..taskd.LastDate is refused by
// taskd.CheckDate, the rule the store applies to every date it writes.
// Errors are invalid, naming the field.
func ParseDate(field, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	for _, layout := range []string{InputLayout, taskd.DateLayout} {
		if len(s) != len(layout) {
			continue
		}
		if t, err := time.Parse(layout, s); err == nil {
			d := t.Format(taskd.DateLayout)
			if err := taskd.CheckDate(field, d); err != nil {
				return "", err // the one rule of a kept date
			}
			return d, nil
		}
		if y, m, d, ok := dateParts(layout, s); ok {
			return "", impossibleDate(field, s, y, m, d)
		}
	}
	return "", taskd.Invalid(field, "Date must be DD.MM.YYYY")
}

// dateParts reads the year, month and day of a date written in layout's
// shape, whether or not such a day exists.
func dateParts(layout, s string) (y, m, d int, ok bool) {
	num := func(a, b int) int {
		n := 0
		for _, c := range s[a:b] {
			if c < '0' || c > '9' {
				ok = false
				return 0
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	ok = true
	if layout == InputLayout {
		if s[2] != '.' || s[5] != '.' {
			return 0, 0, 0, false
		}
		d, m, y = num(0, 2), num(3, 5), num(6, 10)
	} else {
		if s[4] != '-' || s[7] != '-' {
			return 0, 0, 0, false
		}
		y, m, d = num(0, 4), num(5, 7), num(8, 10)
	}
	return y, m, d, ok
}

// impossibleDate says why a date in the right shape is no day.
func impossibleDate(field, s string, y, m, d int) error {
	if m < 1 || m > 12 {
		return taskd.Invalid(field, "There is no %s: a month is 01 to 12", s)
	}
	days := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return taskd.Invalid(field, "There is no %s: %s %d has %d days", s, time.Month(m), y, days)
}

// FormatDateTime renders a timestamp as the API's date_added (UTC).
func FormatDateTime(t time.Time) string { return t.UTC().Format(DateTimeLayout) }
