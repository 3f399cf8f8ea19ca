package wire_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// TestParseCostTime: the spec's example set (0.15, 0,15 and 0:09 are the
// same 9 minutes), whole numbers as hours (C8), rounding to the minute,
// and what is refused.
func TestParseCostTime(t *testing.T) {
	for in, want := range map[string]int64{
		"0.15": 9, "0,15": 9, "0:09": 9, "1": 60, "90": 5400, "1.5": 90, "1,5": 90, "1:30": 90, " 2:00 ": 120,
		".5": 30, "1.": 60, "0.01": 1, "0.008": 0, "0.0084": 1, "0.0083": 0, "10000": 600000, "130:05": 7805,
	} {
		got, err := wire.ParseCostTime(in)
		if want == 0 {
			if err == nil {
				t.Errorf("%q = %d, want an error (less than a minute)", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", " ", "-1", "1:60", "1:5", "1:005", "a", "1.2.3", "1,2,3", "0", "0:00", "1e3", "10001", "+1",
		"1.1234567", "9999999:00", "１", "0x10", ":30", "1:", "NaN", "Inf"} {
		if got, err := wire.ParseCostTime(in); err == nil {
			t.Errorf("%q = %d, want an error", in, got)
		} else if e := taskd.AsError(err); e.Field != "time" {
			t.Errorf("%q: error names %q, want time", in, e.Field)
		}
	}
}

// TestParseMoney: two decimal places at most, either separator, exact.
func TestParseMoney(t *testing.T) {
	for in, want := range map[string]int64{"100": 10000, "100.5": 10050, "99,99": 9999, "0": 0, "0.01": 1, ".5": 50, "1000000000": 100000000000} {
		if got, err := wire.ParseMoney(in); err != nil || got != want {
			t.Errorf("%q = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.001", "1,2,3", "abc", "1e2", "1000000000.01", "12345678901", "1.-1"} {
		if got, err := wire.ParseMoney(in); err == nil {
			t.Errorf("%q = %d, want an error", in, got)
		}
	}
}

// TestFormatAmounts: the API's output forms.
func TestFormatAmounts(t *testing.T) {
	for in, want := range map[int64]string{0: "0:00", 9: "0:09", 600: "10:00", 1800: "30:00", 7805: "130:05", -75: "-1:15"} {
		if got := wire.FormatCostTime(in); got != want {
			t.Errorf("FormatCostTime(%d) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[int64]string{0: "0.00", 10000: "100.00", 5: "0.05", 123456: "1234.56", -305: "-3.05"} {
		if got := wire.FormatMoney(in); got != want {
			t.Errorf("FormatMoney(%d) = %q, want %q", in, got, want)
		}
	}
}

// TestTotalsAreExact sums 10,000 random entries as parsed integers and as
// the decimal strings' exact values computed apart (integer hundredths of
// the written amount), and the two agree to the cent; the float sum of
// the same strings is what the integers avoid.
func TestTotalsAreExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var cents, independent int64
	for range 10_000 {
		units, hundredths := r.Int64N(100_000), r.Int64N(100)
		s := strconv.FormatInt(units, 10) + "." + strconv.FormatInt(hundredths/10, 10) + strconv.FormatInt(hundredths%10, 10)
		c, err := wire.ParseMoney(s)
		if err != nil {
			t.Fatal(err)
		}
		cents += c
		independent += units*100 + hundredths
	}
	if cents != independent {
		t.Fatalf("sum %s, want %s", wire.FormatMoney(cents), wire.FormatMoney(independent))
	}
}

// FuzzParseCostTime: any input is a time within bounds or an error naming
// the field, never a panic; a parsed time written as H:MM reads back the same.
func FuzzParseCostTime(f *testing.F) {
	for _, s := range []string{"0.15", "0,15", "0:09", "90", "1:30", "", "-1", "1.1234567"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := wire.ParseCostTime(s)
		if err != nil {
			if taskd.AsError(err).Field != "time" {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if m <= 0 || m > taskd.MaxCostMinutes {
			t.Fatalf("%q = %d minutes, out of bounds", s, m)
		}
		if back, err := wire.ParseCostTime(wire.FormatCostTime(m)); err != nil || back != m {
			t.Fatalf("%q = %d, written %q, read back %d, %v", s, m, wire.FormatCostTime(m), back, err)
		}
	})
}

// TestBudgets: max_time and max_money read like time and money, clear
// with "" or 0, and print as bare numbers.
func TestBudgets(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "0": 0, "20": 1200, "1:30": 90, "2,25": 135, "1000000": 60_000_000} {
		if got, err := wire.ParseBudgetTime(in); err != nil || got != want {
			t.Errorf("ParseBudgetTime(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"1000001", "-1", "lots", "1:60"} {
		if _, err := wire.ParseBudgetTime(bad); err == nil || taskd.AsError(err).Field != "max_time" {
			t.Errorf("ParseBudgetTime(%q) = %v, want invalid max_time", bad, err)
		}
	}
	if got, err := wire.ParseBudgetMoney("50,5"); err != nil || got != 5050 {
		t.Errorf("ParseBudgetMoney(50,5) = %d, %v", got, err)
	}
	if _, err := wire.ParseBudgetMoney("-1"); err == nil || taskd.AsError(err).Field != "max_money" {
		t.Errorf("ParseBudgetMoney(-1) = %v", err)
	}
	for minutes, want := range map[int64]string{1200: "20", 90: "1.5", 80: "1.33", 1: "0.02", 61: "1.02", 66: "1.1"} {
		if got := wire.FormatHours(minutes); got != want {
			t.Errorf("FormatHours(%d) = %q, want %q", minutes, got, want)
		}
	}
	for cents, want := range map[int64]string{5000: "50", 5050: "50.5", 5: "0.05", 12345: "123.45", 0: "0"} {
		if got := wire.FormatUnits(cents); got != want {
			t.Errorf("FormatUnits(%d) = %q, want %q", cents, got, want)
		}
	}
}
