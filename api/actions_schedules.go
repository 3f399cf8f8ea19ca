package api

import (
	"slices"
	"strconv"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// scheduleOut is a member's working schedule as the Python SDK's Schedule
// reads it (spec §2.5): who, and dates, the hours of each day asked for
// ("0" off), keyed YYYY-MM-DD. week is ours: the hours of each weekday,
// which the dates follow unless a date was set apart.
type scheduleOut struct {
	ID         string            `json:"id"`
	Email      string            `json:"email"`
	Name       string            `json:"name"`
	Group      string            `json:"group"`
	Department string            `json:"department"`
	Dates      map[string]string `json:"dates"`
	Week       weekOut           `json:"week"`
}

// weekOut is a week's hours, Monday first, keyed as update_users_schedule
// takes them.
type weekOut struct {
	Mon string `json:"mon"`
	Tue string `json:"tue"`
	Wed string `json:"wed"`
	Thu string `json:"thu"`
	Fri string `json:"fri"`
	Sat string `json:"sat"`
	Sun string `json:"sun"`
}

func renderWeek(w [7]int64) weekOut {
	h := func(d time.Weekday) string { return wire.FormatHours(w[d]) }
	return weekOut{Mon: h(time.Monday), Tue: h(time.Tuesday), Wed: h(time.Wednesday), Thu: h(time.Thursday),
		Fri: h(time.Friday), Sat: h(time.Saturday), Sun: h(time.Sunday)}
}

// scheduleWeek is get_users_schedule's span when no date bounds it: a
// week from datestart, or up to dateend, or from today.
const scheduleWeek = 6

// getUsersSchedule answers every member's schedule, or those users names
// (e-mails; code 22 for one of no member), for each day from datestart to
// dateend (both inclusive, at most a year).
func getUsersSchedule(c *call) (any, error) {
	from, err := wire.ParseDate("datestart", c.p["datestart"])
	if err != nil {
		return nil, err
	}
	to, err := wire.ParseDate("dateend", c.p["dateend"])
	if err != nil {
		return nil, err
	}
	from, to = scheduleSpan(from, to, c.now().In(c.zone()))
	days, err := taskd.Dates(from, to)
	if err != nil {
		return nil, err
	}
	members, err := c.store.Members(c.ctx, c.accountID())
	if err != nil {
		return nil, err
	}
	if v := c.p["users"]; v != "" {
		emails, err := wire.ParseEmails("users", v)
		if err != nil {
			return nil, err
		}
		for _, e := range emails {
			if !slices.ContainsFunc(members, func(m taskd.Member) bool { return m.Email == e }) {
				return nil, failf(CodeUserInvalid, e, "User is not a member of this account")
			}
		}
		members = slices.DeleteFunc(members, func(m taskd.Member) bool { return !slices.Contains(emails, m.Email) })
	}
	schedules, err := c.directory.Schedules(c.ctx, c.accountID(), from, to)
	if err != nil {
		return nil, err
	}
	out := make([]scheduleOut, 0, len(members))
	for _, m := range members {
		s, ok := schedules[m.ID]
		if !ok {
			s = taskd.Schedule{PersonID: m.ID, Week: taskd.DefaultWeek}
		}
		dates := make(map[string]string, len(days))
		for _, d := range days {
			dates[d] = wire.FormatHours(s.Minutes(d))
		}
		out = append(out, scheduleOut{ID: strconv.FormatInt(m.ID, 10), Email: m.Email, Name: m.DisplayName(), Group: m.Team,
			Department: m.Department, Dates: dates, Week: renderWeek(s.Week)})
	}
	return ok(out), nil
}

// scheduleSpan fills in the dates get_users_schedule was not given: a week
// from datestart, a week up to dateend, or a week from today (now's date).
func scheduleSpan(from, to string, now time.Time) (string, string) {
	shift := func(day string, days int) string {
		d, err := time.Parse(taskd.DateLayout, day)
		if err != nil {
			return day // Dates names it
		}
		return d.AddDate(0, 0, days).Format(taskd.DateLayout)
	}
	switch {
	case from == "" && to == "":
		from = now.Format(taskd.DateLayout)
		to = shift(from, scheduleWeek)
	case from == "":
		from = shift(to, -scheduleWeek)
	case to == "":
		to = shift(from, scheduleWeek)
	}
	return from, to
}

// updateUsersSchedule sets schedules: data is an object keyed by member
// e-mail (wire.ParseSchedules), applied in one transaction by a member
// who manages people; an e-mail of no member changes nothing (22).
func updateUsersSchedule(c *call) (any, error) {
	data, err := c.required("data")
	if err != nil {
		return nil, err
	}
	changes, err := wire.ParseSchedules(data)
	if err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	if err := c.directory.SetSchedules(c.ctx, by, changes); err != nil {
		return nil, err
	}
	return okBody{Status: "ok"}, nil
}
