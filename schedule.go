package taskd

import (
	"context"
	"time"
)

// Schedule is a member's working schedule in an account (spec
// §5, get_users_schedule): the hours of each day of the week, and the
// dates that differ from the week (a day off, a short day, a Saturday
// worked). Hours are kept in whole minutes, as cost lines keep time.
type Schedule struct {
	PersonID int64
	// Week is the minutes of each weekday, by time.Weekday (Sunday is 0).
	Week [7]int64
	// Days are the dates (DateLayout) that differ from Week, with their
	// minutes; 0 is a day off.
	Days map[string]int64
}

// DefaultWeek is the schedule of a member nobody set one for: eight hours
// from Monday to Friday, the weekend off.
var DefaultWeek = [7]int64{0, 8 * 60, 8 * 60, 8 * 60, 8 * 60, 8 * 60, 0}

// MaxDayMinutes bounds the hours of one day: the whole day.
const MaxDayMinutes = 24 * 60

// MaxScheduleDays bounds the dates one read of schedules covers.
const MaxScheduleDays = 366

// WeekdayKeys name the days of the week as update_users_schedule's keys
// do, by time.Weekday.
var WeekdayKeys = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// Minutes is how long the member works on day (DateLayout): the date's own
// minutes when it has them, else its weekday's; 0 for a malformed date.
func (s Schedule) Minutes(day string) int64 {
	if m, ok := s.Days[day]; ok {
		return m
	}
	d, err := time.Parse(DateLayout, day)
	if err != nil {
		return 0
	}
	return s.Week[d.Weekday()]
}

// CheckDay refuses a date that is not a day in DateLayout, or one that
// CheckDate refuses; the error names the date.
func CheckDay(day string) error {
	if d, err := time.Parse(DateLayout, day); err != nil || d.Format(DateLayout) != day {
		return Invalid(day, "A date is a day, as 2026-03-02")
	}
	return CheckDate(day, day)
}

// Dates lists the days from from to to (DateLayout, both inclusive), in
// order.
func Dates(from, to string) ([]string, error) {
	start, err := time.Parse(DateLayout, from)
	if err != nil {
		return nil, Invalid("datestart", "The date is not a day")
	}
	end, err := time.Parse(DateLayout, to)
	if err != nil {
		return nil, Invalid("dateend", "The date is not a day")
	}
	if end.Before(start) {
		return nil, Invalid("dateend", "End date is before start date")
	}
	if n := int(end.Sub(start).Hours()/24) + 1; n > MaxScheduleDays {
		return nil, Invalid("dateend", "A schedule is read for at most %d days at a time", MaxScheduleDays)
	}
	var out []string
	for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
		out = append(out, d.Format(DateLayout))
	}
	return out, nil
}

// ScheduleChange is what one update sets of one member's schedule; nil
// means "leave as is".
type ScheduleChange struct {
	// Email names the member.
	Email string
	// Week holds the new minutes of the weekdays given, by time.Weekday.
	Week [7]*int64
	// Days holds dates (DateLayout) with their new minutes; a nil value
	// takes the date back to its weekday's hours.
	Days map[string]*int64
}

// CheckDayMinutes refuses minutes a day cannot hold; field names the
// weekday or date.
func CheckDayMinutes(field string, minutes int64) error {
	if minutes < 0 || minutes > MaxDayMinutes {
		return Invalid(field, "A day's hours are 0 to 24")
	}
	return nil
}

// CanSetSchedule returns nil when by may change members' schedules: a
// schedule is what the account expects of a member, set by those who
// manage people (owners and admins), like a role or an hourly rate.
func CanSetSchedule(by Actor) error { return Authorize(by, PermManagePeople) }

// ScheduleStore keeps members' working schedules.
type ScheduleStore interface {
	// Schedules returns, for each of the account's members, their
	// schedule with the dates from from to to (DateLayout) that differ
	// from their week; a member nobody set a schedule for has
	// DefaultWeek. Every member may read every schedule, as they read
	// the list of members.
	Schedules(ctx context.Context, accountID int64, from, to string) (map[int64]Schedule, error)
	// SetSchedules applies the changes, each to one member named by
	// e-mail, in one transaction, if by may (CanSetSchedule); not found
	// ("member", with the e-mail as Value) when an e-mail names no member.
	SetSchedules(ctx context.Context, by Actor, changes []ScheduleChange) error
}
