package wire

import (
	"strconv"
	"strings"

	"github.com/taskd/taskd"
)

// Amounts as the API writes them: time as hours (decimal or H:MM), money
// as a decimal number of units. Both are read into the domain's exact
// integers, minutes and minor units (taskd.Cost), and never through a
// float.

const (
	maxFraction    = 6         // decimal places of hours read
	pow10Fraction  = 1_000_000 // 10^maxFraction
	minutesPerHour = 60
	centsPerUnit   = 100
)

// ParseCostTime reads a cost's time (spec §1.3, §8): decimal hours with
// "." or "," ("0.15" and "0,15" are 9 minutes; a whole number is hours,
// C8), or hours and minutes as H:MM ("0:09"). It is rounded to the
// nearest minute and must be more than 0 and at most MaxCostMinutes.
func ParseCostTime(s string) (int64, error) {
	minutes, err := parseMinutes("time", s)
	switch {
	case err != nil:
		return 0, err
	case minutes <= 0:
		return 0, taskd.Invalid("time", "Time must be at least one minute")
	case minutes > taskd.MaxCostMinutes:
		return 0, taskd.Invalid("time", "Time is at most %d hours", taskd.MaxCostMinutes/minutesPerHour)
	}
	return minutes, nil
}

// ParseBudgetTime reads max_time, a budget of hours in the formats of
// ParseCostTime; "" and 0 mean no budget.
func ParseBudgetTime(s string) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	minutes, err := parseMinutes("max_time", s)
	if err == nil && minutes > taskd.MaxBudgetMinutes {
		return 0, taskd.Invalid("max_time", "A budget is at most %d hours", taskd.MaxBudgetMinutes/minutesPerHour)
	}
	return minutes, err
}

// parseMinutes reads decimal hours or H:MM into minutes, rounded to the
// nearest minute (halves up); errors name field.
func parseMinutes(field, s string) (int64, error) {
	bad := taskd.Invalid(field, "Time is hours, as 1.5, 1,5 or 1:30")
	s = strings.TrimSpace(s)
	if h, m, ok := strings.Cut(s, ":"); ok {
		hours, err1 := digits(h, 7)
		mins, err2 := digits(m, 2)
		if err1 != nil || err2 != nil || len(m) != 2 || mins >= minutesPerHour {
			return 0, bad
		}
		return hours*minutesPerHour + mins, nil
	}
	whole, frac, _ := strings.Cut(strings.Replace(s, ",", ".", 1), ".")
	hours, err1 := digits(whole, 7)
	if whole == "" && frac != "" {
		hours, err1 = 0, nil
	}
	f, err2 := fraction(frac)
	if err1 != nil || err2 != nil {
		return 0, bad
	}
	// f/10^6 of an hour, to the nearest minute (halves up).
	return hours*minutesPerHour + (f*minutesPerHour+pow10Fraction/2)/pow10Fraction, nil
}

// FormatCostTime writes minutes as the API does: H:MM ("0:09", "10:00",
// "130:05"); negative amounts get a leading minus.
func FormatCostTime(minutes int64) string {
	sign := ""
	if minutes < 0 {
		sign, minutes = "-", -minutes
	}
	m := minutes % minutesPerHour
	return sign + strconv.FormatInt(minutes/minutesPerHour, 10) + ":" + string(rune('0'+m/10)) + string(rune('0'+m%10))
}

// ParseMoney reads an amount of money in units with at most two decimal
// places, "." or "," ("100", "100.5", "99,99"), into minor units; it must
// be 0 or more and at most MaxCostCents.
func ParseMoney(s string) (int64, error) { return parseCents("money", s) }

// ParseBudgetMoney reads max_money like ParseMoney; "" and 0 mean no
// budget.
func ParseBudgetMoney(s string) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	return parseCents("max_money", s)
}

func parseCents(field, s string) (int64, error) {
	bad := taskd.Invalid(field, "Money is an amount such as 100 or 99.50")
	whole, frac, _ := strings.Cut(strings.Replace(strings.TrimSpace(s), ",", ".", 1), ".")
	units, err := digits(whole, 10)
	if whole == "" && frac != "" {
		units, err = 0, nil
	}
	if err != nil || len(frac) > 2 {
		return 0, bad
	}
	cents := int64(0)
	if frac != "" {
		c, err := digits(frac, 2)
		if err != nil {
			return 0, bad
		}
		if len(frac) == 1 {
			c *= 10
		}
		cents = c
	}
	total := units*centsPerUnit + cents
	if total > taskd.MaxCostCents {
		return 0, taskd.Invalid(field, "Money is at most %d", taskd.MaxCostCents/centsPerUnit)
	}
	return total, nil
}

// FormatHours writes minutes as a decimal number of hours with at most
// two places ("20", "1.5", "1.33"), for max_time.
func FormatHours(minutes int64) string {
	hundredths := (minutes*100 + minutesPerHour/2) / minutesPerHour
	s := strconv.FormatInt(hundredths/100, 10)
	switch f := hundredths % 100; {
	case f == 0:
	case f%10 == 0:
		s += "." + string(rune('0'+f/10))
	default:
		s += "." + string(rune('0'+f/10)) + string(rune('0'+f%10))
	}
	return s
}

// FormatUnits writes minor units as a decimal number without trailing
// zeros ("50", "50.5", "0.05"), for max_money.
func FormatUnits(cents int64) string {
	s := FormatMoney(cents)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// FormatMoney writes minor units as the API does: a decimal string with
// two places ("100.00", "-3.05").
func FormatMoney(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	c := cents % centsPerUnit
	return sign + strconv.FormatInt(cents/centsPerUnit, 10) + "." + string(rune('0'+c/10)) + string(rune('0'+c%10))
}

// digits reads 1..max ASCII digits.
func digits(s string, max int) (int64, error) {
	if s == "" || len(s) > max {
		return 0, strconv.ErrSyntax
	}
	var n int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, strconv.ErrSyntax
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

// fraction reads the digits after a decimal point as millionths; "" is 0.
func fraction(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if len(s) > maxFraction {
		return 0, strconv.ErrSyntax
	}
	n, err := digits(s, maxFraction)
	for range maxFraction - len(s) {
		n *= 10
	}
	return n, err
}
