package wire_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

func TestParsePeriod(t *testing.T) {
	t.Parallel()
	good := map[string]time.Duration{"1m": time.Minute, "360m": 6 * time.Hour, "1h": time.Hour, "72h": 72 * time.Hour,
		"1d": 24 * time.Hour, "30d": 30 * 24 * time.Hour}
	for in, want := range good {
		if got, err := wire.ParsePeriod(in); err != nil || got != want {
			t.Errorf("ParsePeriod(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "m", "0m", "361m", "73h", "31d", "01h", "+1h", "-1h", "1w", "1.5h", "99999d", "1H"} {
		if _, err := wire.ParsePeriod(in); taskd.ErrorKind(err) != taskd.KindInvalid {
			t.Errorf("ParsePeriod(%q) accepted or wrong code: %v", in, err)
		}
	}
}

func TestParsePriority(t *testing.T) {
	t.Parallel()
	for i := 0; i <= 10; i++ {
		if got, err := wire.ParsePriority(strconv.Itoa(i)); err != nil || got != i {
			t.Errorf("priority %d: %v %v", i, got, err)
		}
	}
	for _, in := range []string{"", "-1", "11", "007", "00", "05", "1.0", "x", " 1", "+1", "٣"} {
		if _, err := wire.ParsePriority(in); taskd.ErrorKind(err) != taskd.KindInvalid {
			t.Errorf("ParsePriority(%q) = %v", in, err)
		}
	}
}

func FuzzParsers(f *testing.F) {
	for _, s := range []string{"01.03.2026", "2026-03-01", "72h", "10", "a@b.cd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := wire.ParseDate("d", s); err == nil && d != "" {
			if again, err := wire.ParseDate("d", d); err != nil || again != d {
				t.Fatalf("ParseDate(%q) = %q does not round-trip", s, d)
			}
		}
		if d, err := wire.ParsePeriod(s); err == nil && (d < time.Minute || d > 30*24*time.Hour) {
			t.Fatalf("ParsePeriod(%q) = %v out of range", s, d)
		}
		if p, err := wire.ParsePriority(s); err == nil && (p < 0 || p > 10) {
			t.Fatalf("ParsePriority(%q) = %d", s, p)
		}
		if list, err := wire.ParseEmails("members", s); err == nil {
			if again, err := wire.ParseEmails("members", strings.Join(list, ",")); err != nil || !slices.Equal(again, list) {
				t.Fatalf("ParseEmails(%q) = %v does not round-trip", s, list)
			}
		}
	})
}
