package web

import (
	"net/http"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// scheduleRoutes are the addresses of a member's schedule.
func (s *Server) scheduleRoutes() []route {
	return []route{
		{"GET /a/{slug}/people/{person}/schedule", s.page(s.inAccount(taskd.PermRead, s.schedulePage))},
		{"POST /a/{slug}/people/{person}/schedule", s.form(s.inAccount(taskd.PermManagePeople, s.setSchedule))},
	}
}

// scheduleDays is how many days from today a schedule page lists.
const scheduleDays = 28

// scheduleView is a member's schedule page: their week, and the days
// ahead with the dates set apart from it marked.
type scheduleView struct {
	Who  taskd.Member
	Week []scheduleWeekday // Monday first
	Days []scheduleDay
	// CanSet shows the forms to those who manage people.
	CanSet bool
	Error  *formError
	Values map[string][]string
	Shown  *flash
	Base   string // the member's schedule page
}

// scheduleWeekday is a day of a member's week.
type scheduleWeekday struct {
	Key     string // the form field and API key: mon … sun
	Name    string
	Minutes int64
}

// scheduleDay is one date of the days ahead.
type scheduleDay struct {
	Date    string // YYYY-MM-DD
	Weekday string
	Minutes int64
	Apart   bool // set apart from the week
	Today   bool
}

// schedulePage is GET /a/{slug}/people/{person}/schedule: a member's
// working schedule, which every member sees (as they see the people
// list) and owners and admins change.
func (s *Server) schedulePage(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	who, err := s.pathMember(r, me)
	if err != nil {
		return s.failWith(w, r, err)
	}
	return s.renderSchedule(w, r, v, me, who, http.StatusOK, nil)
}

// pathMember is the account's member the path names.
func (s *Server) pathMember(r *http.Request, me member) (taskd.Member, error) {
	id, err := taskd.ParseID(r.PathValue("person"), "member")
	if err != nil {
		return taskd.Member{}, taskd.NotFound("member")
	}
	return s.cfg.Accounts.Member(r.Context(), me.Account.ID, id)
}

func (s *Server) renderSchedule(w http.ResponseWriter, r *http.Request, v *view, me member, who taskd.Member, status int, fe *formError) error {
	today := v.Today()
	from, to := today.Format(taskd.DateLayout), today.AddDate(0, 0, scheduleDays-1).Format(taskd.DateLayout)
	all, err := s.cfg.Directory.Schedules(r.Context(), me.Account.ID, from, to)
	if err != nil {
		return err
	}
	sched, ok := all[who.ID]
	if !ok {
		sched = taskd.Schedule{PersonID: who.ID, Week: taskd.DefaultWeek}
	}
	sv := &scheduleView{Who: who, CanSet: me.Member.Role.Can(taskd.PermManagePeople), Error: fe, Shown: s.takeFlash(w, r),
		Base: s.cfg.accountPath(me.Account) + "/people/" + r.PathValue("person") + "/schedule"}
	if fe != nil {
		sv.Values = r.PostForm
	}
	for i := range 7 {
		day := time.Weekday((i + 1) % 7) // Monday first
		sv.Week = append(sv.Week, scheduleWeekday{Key: taskd.WeekdayKeys[day], Name: day.String(), Minutes: sched.Week[day]})
	}
	for d := range scheduleDays {
		date := today.AddDate(0, 0, d)
		key := date.Format(taskd.DateLayout)
		_, apart := sched.Days[key]
		sv.Days = append(sv.Days, scheduleDay{Date: key, Weekday: date.Weekday().String(), Minutes: sched.Minutes(key), Apart: apart, Today: d == 0})
	}
	v.Title, v.Data = "Schedule of "+who.DisplayName(), sv
	return s.renderStatus(w, r, status, "schedule.html", v)
}

// setSchedule is POST /a/{slug}/people/{person}/schedule: the week's
// hours (mon … sun), or one date's (date, hours; no hours: back to the
// week's), read as update_users_schedule reads them and set through the
// same store method and rule (taskd.CanSetSchedule).
func (s *Server) setSchedule(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	who, err := s.pathMember(r, me)
	if err != nil {
		return s.failWith(w, r, err)
	}
	form := "week"
	if _, ok := r.PostForm["date"]; ok {
		form = "day"
	}
	ch, err := wire.ParseScheduleForm(who.Email, formParams(r))
	if err == nil {
		err = s.cfg.Directory.SetSchedules(r.Context(), me.actor(), []taskd.ScheduleChange{ch})
	}
	if err != nil {
		fe, ok := asFormError(form, err)
		if !ok {
			return err
		}
		return s.renderSchedule(w, r, v, me, who, formStatus(w, err), fe)
	}
	msg := who.DisplayName() + "'s week is saved."
	if form == "day" {
		for date, m := range ch.Days {
			msg = date + " is back to " + who.DisplayName() + "'s week."
			if m != nil {
				msg = date + " is now " + wire.FormatHours(*m) + " h for " + who.DisplayName() + "."
			}
		}
	}
	s.setFlash(w, flash{Message: msg})
	return see303(w, r, s.cfg.accountPath(me.Account)+"/people/"+r.PathValue("person")+"/schedule")
}
