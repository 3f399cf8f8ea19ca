package wire_test

import (
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

func TestParseDate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"", "", true},
		{"01.03.2026", "2026-03-01", true},
		{"2026-03-01", "2026-03-01", true},
		{"29.02.2024", "2024-02-29", true},
		{"29.02.2026", "", false},
		{"1.3.2026", "", false},
		{"01.03.26", "", false},
		{"01.03.1800", "", false},
		{"2026-3-1", "", false},
		{"01/03/2026", "", false},
		{"31.12.2999", "2999-12-31", true},
	} {
		got, err := wire.ParseDate("datestart", tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseDate(%q) = %q, %v; want %q, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && (taskd.ErrorKind(err) != taskd.KindInvalid || taskd.AsError(err).Field != "datestart") {
			t.Errorf("ParseDate(%q) error = %v", tc.in, err)
		}
	}
}

// TestImpossibleDates: a date in the right shape that is no day says why,
// rather than asking for the format it already has.
func TestImpossibleDates(t *testing.T) {
	for in, want := range map[string]string{
		"31.02.2026": "There is no 31.02.2026: February 2026 has 28 days",
		"29.02.2026": "There is no 29.02.2026: February 2026 has 28 days",
		"31.04.2026": "There is no 31.04.2026: April 2026 has 30 days",
		"2024-02-30": "There is no 2024-02-30: February 2024 has 29 days",
		"01.13.2026": "There is no 01.13.2026: a month is 01 to 12",
		"00.01.2026": "There is no 00.01.2026: January 2026 has 31 days",
		"01.03.1800": "A date's year is 1900 to 2999",
		"1.3.2026":   "Date must be DD.MM.YYYY",
		"aa.bb.cccc": "Date must be DD.MM.YYYY",
	} {
		_, err := wire.ParseDate("dateend", in)
		if e := taskd.AsError(err); err == nil || e.Message != want || e.Field != "dateend" {
			t.Errorf("ParseDate(%q) = %v, want %q", in, err, want)
		}
	}
}
