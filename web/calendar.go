package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// The calendar (issue 35): month and week grids of the tasks' due dates,
// for My tasks and per project, in the viewer's time zone, with the time
// the viewer logged each day. A task moves to another day by its small
// form (moveDue), which the script calendar.js fills in when a task is
// dragged.

// The calendar's bounds: the tasks one grid lists at most.
const calendarTasks = 2000

// calendarView is a calendar page.
type calendarView struct {
	Heading string // "My tasks" or the project's name
	Project *taskd.Project
	Base    string // the account's path
	Mode    string // "month" or "week"
	Label   string // "November 2026", "23–29 Nov 2026"
	// Prev, Next, Today, Month and Week are links of the same calendar.
	Prev, Next, Today, Month, Week string
	Here                           string // this page, for the move forms to come back to
	Weekdays                       []string
	Weeks                          [][]calendarDay
	CanWrite                       bool
	// Logged is the viewer's time logged in the grid's days, in minutes.
	Logged int64
	// Count is how many tasks the grid shows; Capped whether more were
	// left out.
	Count  int
	Capped bool
}

// calendarDay is a day of the grid.
type calendarDay struct {
	Date    string // YYYY-MM-DD
	Label   string // "Mon 23 Nov"
	Day     int
	Outside bool // of another month than the grid's
	Today   bool
	Tasks   []calendarTask
	Logged  int64 // the viewer's minutes that day
}

// calendarTask is a task on its due day.
type calendarTask struct {
	ID      int64
	Name    string
	Link    string
	Project string
	Date    string // the due date, YYYY-MM-DD
	Done    bool
	Overdue bool
}

// calendarGrid is the days a calendar shows: whole weeks from Monday, the
// month's or the week's of anchor.
type calendarGrid struct {
	mode        string
	first, last time.Time // the grid's first and last day
	anchor      time.Time // the month's first day, or the week's Monday
	prev, next  time.Time
}

// newCalendarGrid lays out the grid of mode around day (dates at
// midnight UTC).
func newCalendarGrid(mode string, day time.Time) calendarGrid {
	monday := func(t time.Time) time.Time { return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7)) }
	if mode == "week" {
		m := monday(day)
		return calendarGrid{mode: mode, first: m, last: m.AddDate(0, 0, 6), anchor: m, prev: m.AddDate(0, 0, -7), next: m.AddDate(0, 0, 7)}
	}
	start := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(0, 1, -1)
	last := monday(end).AddDate(0, 0, 6)
	return calendarGrid{mode: "month", first: monday(start), last: last, anchor: start, prev: start.AddDate(0, -1, 0), next: start.AddDate(0, 1, 0)}
}

// label names the grid's period.
func (g calendarGrid) label() string {
	if g.mode == "week" {
		if g.first.Month() == g.last.Month() {
			return g.first.Format("2") + "–" + g.last.Format("2 January 2006")
		}
		return g.first.Format("2 Jan") + " – " + g.last.Format("2 Jan 2006")
	}
	return g.anchor.Format("January 2006")
}

// calendarLink is the calendar at path in mode around day.
func calendarLink(path, mode string, day time.Time) string {
	return path + "?" + url.Values{"view": {mode}, "date": {day.Format(taskd.DateLayout)}}.Encode()
}

// myCalendar is GET /a/{slug}/my/calendar: the viewer's assigned tasks.
func (s *Server) myCalendar(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	q := taskd.TaskQuery{Viewer: me.viewer(), AssigneeEmail: me.Member.Email, ActiveProjects: true}
	return s.renderCalendar(w, r, v, me, q, nil, s.cfg.accountPath(me.Account)+"/my/calendar")
}

// projectCalendar is GET /a/{slug}/project/{project}/calendar: the project's
// tasks the viewer sees.
func (s *Server) projectCalendar(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	p, ok, err := s.pathProject(w, r, me)
	if !ok {
		return err
	}
	q := taskd.TaskQuery{Viewer: me.viewer(), ProjectID: p.ID}
	return s.renderCalendar(w, r, v, me, q, &p, s.cfg.accountPath(me.Account)+p.Page()+"calendar")
}

// renderCalendar shows the tasks of q due in the grid that ?view=month|week
// and ?date=YYYY-MM-DD choose (this month by default; what does not parse
// falls back to it).
func (s *Server) renderCalendar(w http.ResponseWriter, r *http.Request, v *view, me member, q taskd.TaskQuery, p *taskd.Project, path string) error {
	ctx := r.Context()
	today := s.today(v)
	mode := r.URL.Query().Get("view")
	if mode != "week" {
		mode = "month"
	}
	day, ok := parseDay(r.URL.Query().Get("date"))
	if !ok || day.Year() < 1000 || day.Year() > 9000 {
		day = today
	}
	g := newCalendarGrid(mode, day)
	q.Filter = taskd.QueryAnd{Parts: []taskd.Query{
		taskd.QueryCond{Field: taskd.FieldDateEnd, Op: ">=", Date: g.first.Format(taskd.DateLayout)},
		taskd.QueryCond{Field: taskd.FieldDateEnd, Op: "<=", Date: g.last.Format(taskd.DateLayout)},
	}}
	q.Sort, q.Limit = taskd.SortDue, calendarTasks+1
	tasks, err := s.cfg.Tasks.Tasks(ctx, q)
	if err != nil {
		return err
	}
	cv := &calendarView{Project: p, Base: s.cfg.accountPath(me.Account), Mode: mode, Label: g.label(),
		Prev: calendarLink(path, mode, g.prev), Next: calendarLink(path, mode, g.next), Today: path + "?view=" + mode,
		Month: calendarLink(path, "month", g.anchor), Week: calendarLink(path, "week", g.anchor),
		Here: strings.TrimPrefix(calendarLink(path, mode, g.anchor), s.cfg.accountPath(me.Account)), CanWrite: me.Member.Role.Can(taskd.PermWork),
		Weekdays: []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}}
	if len(tasks) > calendarTasks {
		tasks, cv.Capped = tasks[:calendarTasks], true
	}
	cv.Count = len(tasks)
	cv.Heading = "My tasks"
	if p != nil {
		cv.Heading = p.Name
	}
	byDay := map[string][]calendarTask{}
	for _, t := range tasks {
		done := t.Status == taskd.StatusDone
		byDay[t.DateEnd] = append(byDay[t.DateEnd], calendarTask{ID: t.ID, Name: t.Name, Link: cv.Base + t.Page(), Project: t.Project.Name, Date: t.DateEnd,
			Done: done, Overdue: !done && t.DateEnd < today.Format(taskd.DateLayout)})
	}
	cq := taskd.CostQuery{Viewer: me.viewer(), PersonID: me.Member.ID, ProjectID: q.ProjectID,
		From: g.first.Format(taskd.DateLayout), To: g.last.Format(taskd.DateLayout)}
	sums, err := s.cfg.Costs.CostSums(ctx, cq, taskd.CostByDay)
	if err != nil {
		return err
	}
	logged := map[string]int64{}
	for _, sum := range sums {
		logged[sum.Day] += sum.Minutes
		cv.Logged += sum.Minutes
	}
	var week []calendarDay
	for d := g.first; !d.After(g.last); d = d.AddDate(0, 0, 1) {
		key := d.Format(taskd.DateLayout)
		week = append(week, calendarDay{Date: key, Label: d.Format("Mon 2 Jan"), Day: d.Day(),
			Outside: mode == "month" && d.Month() != g.anchor.Month(), Today: d.Equal(today), Tasks: byDay[key], Logged: logged[key]})
		if len(week) == 7 {
			cv.Weeks, week = append(cv.Weeks, week), nil
		}
	}
	v.Title, v.Data = cv.Heading+": calendar", cv
	return s.render(w, r, "calendar.html", v)
}

// moveDue is POST /a/{slug}/tasks/{task}/due: the task's due date becomes
// the form's dateend, by the ordinary update of a task (its event, webhooks
// and digests), and the browser goes back to the calendar it came from
// (back, a calendar of this account) or else to the task. A refused date
// shows on the task's page beside its form.
func (s *Server) moveDue(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	day, err := wire.ParseDate("dateend", r.PostFormValue("dateend"))
	if err != nil {
		return "", err
	}
	if day == "" {
		return "", taskd.Invalid("dateend", "Choose the new due date")
	}
	in := taskd.TaskInput{DateEnd: &day}
	if _, err := s.cfg.Tasks.UpdateTask(r.Context(), by, t.ID, in); err != nil {
		return "", err
	}
	return calendarReturn(r.PostFormValue("back")), nil
}

// calendarReturn is where a move goes back to, relative to the account:
// back when it is one of the account's calendars, else "" (the task).
func calendarReturn(back string) string {
	u, err := url.Parse(back)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(back, "/") {
		return ""
	}
	if u.Path != "/my/calendar" && !(strings.HasPrefix(u.Path, "/project/") && strings.HasSuffix(u.Path, "/calendar") && strings.Count(u.Path, "/") == 3) {
		return ""
	}
	return localPath(back)
}

// calendarRoutes are the addresses of the calendar, the iCalendar feed and
// the activity feeds (issue 35).
func (s *Server) calendarRoutes() []route {
	return []route{
		{"GET /a/{slug}/my/calendar", s.page(s.inAccount(taskd.PermRead, s.myCalendar))},
		{"GET /a/{slug}/project/{project}/calendar", s.page(s.inAccount(taskd.PermRead, s.projectCalendar))},
		{"POST /a/{slug}/tasks/{task}/due", s.form(s.inAccount(taskd.PermWork, s.taskChange("edit", s.moveDue)))},
		{"GET /a/{slug}/project/{project}/activity", s.page(s.inAccount(taskd.PermRead, s.projectActivity))},
		{"GET /a/{slug}/people/{person}/activity", s.page(s.inAccount(taskd.PermRead, s.personActivity))},
		{"POST /profile/calendar-feed", s.form(s.rotateFeed)},
		{"GET /ical/{feed}", s.icalFeed},
	}
}
