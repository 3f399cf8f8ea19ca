package taskd

import (
	"strconv"
	"time"
)

// Date layouts of the API (compat).
const (
	DateTimeLayout = "2006-01-02 15:04" // date_added
	DateLayout     = "2006-01-02"       // date_start, date_end, storage
	InputLayout    = "02.01.2006"       // datestart, dateend parameters
)

// ParseDate reads an input date in DD.MM.YYYY (compat) or YYYY-MM-DD form and
// returns it in storage form YYYY-MM-DD. An empty string clears the date.
// Errors are invalid, naming the field.
func ParseDate(field, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	for _, layout := range []string{InputLayout, DateLayout} {
		if len(s) != len(layout) {
			continue
		}
		if t, err := time.Parse(layout, s); err == nil {
			if t.Year() < 1900 || t.Year() > 2999 {
				break
			}
			return t.Format(DateLayout), nil
		}
	}
	return "", Invalid(field, "Date must be DD.MM.YYYY")
}

// CheckDateRange returns an invalid error when both dates are set and end precedes start.
func CheckDateRange(start, end string) error {
	if start != "" && end != "" && end < start {
		return Invalid("dateend", "End date is before start date")
	}
	return nil
}

// FormatDateTime renders a timestamp as the API's date_added (UTC).
func FormatDateTime(t time.Time) string { return t.UTC().Format(DateTimeLayout) }

// ParseID reads a positive decimal id of the object named by field.
// Anything else, including signs, leading zeros and overflow, names no
// object: a KindNotFound error.
func ParseID(s, field string) (int64, error) {
	if len(s) == 0 || len(s) > 18 || s[0] == '0' {
		return 0, NotFound(field)
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, NotFound(field)
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, NotFound(field)
	}
	return n, nil
}

// Zone is the first of the IANA zone names that loads: a person's zone,
// then the account's; UTC when none does.
func Zone(names ...string) *time.Location {
	for _, name := range names {
		if name == "" {
			continue
		}
		if loc, err := time.LoadLocation(name); err == nil {
			return loc
		}
	}
	return time.UTC
}
