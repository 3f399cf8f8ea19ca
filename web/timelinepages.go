package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// timelineRoutes are the addresses of the timelines: a project's, the
// member's own and a team's.
func (s *Server) timelineRoutes() []route {
	return []route{
		{"GET /a/{slug}/project/{project}/timeline", s.page(s.inAccount(taskd.PermRead, s.timeline(timelineOfProject)))},
		{"POST /a/{slug}/project/{project}/timeline", s.form(s.inAccount(taskd.PermWork, s.reschedule(timelineOfProject)))},
		{"GET /a/{slug}/my/timeline", s.page(s.inAccount(taskd.PermRead, s.timeline(timelineOfMine)))},
		{"POST /a/{slug}/my/timeline", s.form(s.inAccount(taskd.PermWork, s.reschedule(timelineOfMine)))},
		{"GET /a/{slug}/people/teams/{team}/timeline", s.page(s.inAccount(taskd.PermRead, s.timeline(timelineOfTeam)))},
		{"POST /a/{slug}/people/teams/{team}/timeline", s.form(s.inAccount(taskd.PermWork, s.reschedule(timelineOfTeam)))},
	}
}

// The timelines: a project's (/project/{project}/timeline), the signed-in
// member's tasks' (/my/timeline) and a team's, the tasks of its members
// (/people/teams/{team}/timeline). Each GET shows the timeline
// (timeline.go); each POST to the same address changes one task's dates
// (reschedule), the form every row carries and what timeline.js sends.

// The kinds of timeline.
const (
	timelineOfProject = "project"
	timelineOfMine    = "my"
	timelineOfTeam    = "team"
)

// timelineScope is whose tasks a timeline shows.
type timelineScope struct {
	Title string
	Path  string // the timeline's address in the account, without query
	// Group is the rows' grouping when the address names none.
	Group string
	// Crumbs lead back to the pages the timeline belongs to.
	Crumbs []timelineLink
	tasks  func(ctx context.Context) ([]taskd.Task, error)
}

// timelineView is a timeline page.
type timelineView struct {
	Scope    timelineScope
	Window   timelineWindow
	Chart    *timelineChart
	Base     string // the account's path
	CanWrite bool
	// Error is a refused change.
	Error *timelineRefusal
	// Edit is the dates form of a task, nil when none is asked for.
	Edit *timelineEdit
	// Shift, after a task's dates moved (?offer=ID&shift=D), offers to
	// move its dependents too.
	Shift *timelineShiftOffer
}

// timelineShiftOffer is the offer to shift the dependents of the task
// whose bar moved.
type timelineShiftOffer struct {
	Row taskRow
	*shiftOffer
}

// timelineEdit is the dates form of one task (?edit=ID, or the task a
// refused change was for), the way without JavaScript to do what
// dragging does.
type timelineEdit struct {
	Row        taskRow
	Start, End string
	Error      string
}

// EditLink is the address of the timeline with the task's dates form.
func (tv *timelineView) EditLink(id int64) string {
	return tv.Self() + "&edit=" + strconv.FormatInt(id, 10) + "#tl-edit"
}

// findRow is the task's row on the timeline, if it is shown.
func (c *timelineChart) findRow(id int64) (taskRow, bool) {
	for _, g := range c.Groups {
		for _, b := range g.Rows {
			if b.ID == id {
				return b.taskRow, true
			}
		}
	}
	for _, r := range c.Unscheduled {
		if r.ID == id {
			return r, true
		}
	}
	return taskRow{}, false
}

// Self is the timeline's address as shown, the forms' action.
func (tv *timelineView) Self() string { return tv.Base + tv.Scope.Path + tv.Window.Here() }

// Cols is how many columns a row of the chart spans: the name and the
// days.
func (tv *timelineView) Cols() int { return tv.Window.Days + 1 }

// timeline is GET of a timeline's address.
func (s *Server) timeline(kind string) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		sc, ok, err := s.timelineScopeOf(kind, w, r, v, me)
		if !ok {
			return err
		}
		return s.renderTimeline(w, r, v, me, sc, http.StatusOK, nil, 0)
	}
}

// The changes a POST to a timeline's address makes, by its op field.
const (
	// timelineDates (task, datestart, dateend) changes a task's dates:
	// the rows' form, and what timeline.js sends after a drag.
	timelineDates = ""
	// timelineRelate (from, to, type) adds the dependency drawn from one
	// bar to another: to depends on from.
	timelineRelate = "relate"
	// timelineShift (task, days) moves the task's dependents: the offer
	// made after its dates moved.
	timelineShift = "shift"
)

// reschedule is POST of a timeline's address, one change by its op. A
// task's dates change through the use case update_task uses (its event,
// webhooks and digests), parsed as update_task parses them, so it refuses
// what update_task refuses with the same messages; a dependency and a
// shift go through add_task_relation's and shift_dependent_tasks' use
// cases. The timeline answers: the same window after a change (with the
// offer to shift a moved task's dependents), or with the refusal (422).
func (s *Server) reschedule(kind string) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		sc, ok, err := s.timelineScopeOf(kind, w, r, v, me)
		if !ok {
			return err
		}
		next := readTimelineWindow(r.URL.Query(), s.today(v), sc.Group).Here()
		op, field, task := r.PostFormValue("op"), "dates", int64(0)
		switch op {
		case timelineRelate:
			field, err = "relations", s.timelineRelate(r, me)
		case timelineShift:
			field = "days"
			if task, err = taskd.ParseID(r.PostFormValue("task"), "task"); err == nil {
				err = s.timelineShiftDependents(r, me, task)
			}
		default:
			op = timelineDates
			var offer string
			if task, err = taskd.ParseID(r.PostFormValue("task"), "task"); err == nil {
				offer, err = s.timelineDates(r, me, task)
			}
			next += offer
		}
		if err != nil {
			fe, ok := asFormError(field, err)
			if !ok {
				return err
			}
			return s.renderTimeline(w, r, v, me, sc, formStatus(w, err), &timelineRefusal{Op: op, formError: fe}, task)
		}
		return see303(w, r, s.cfg.accountPath(me.Account)+sc.Path+next)
	}
}

// timelineDates changes the task's dates to the form's; the query that
// offers to shift its dependents as far as it moved, when it has any.
func (s *Server) timelineDates(r *http.Request, me member, id int64) (string, error) {
	by := me.actor()
	in, err := wire.ParseTaskInput(datesOnly(formParams(r)))
	if err != nil {
		return "", err
	}
	before, err := s.cfg.Tasks.Task(r.Context(), by.Viewer(), id)
	if err != nil {
		return "", err
	}
	after, err := s.cfg.Tasks.UpdateTask(r.Context(), by, id, in)
	if err != nil {
		return "", err
	}
	if days := s.movedWithDependents(r.Context(), by, before, after); days != 0 {
		return "&offer=" + strconv.FormatInt(id, 10) + "&shift=" + strconv.Itoa(days) + "#tl-shift", nil
	}
	return "", nil
}

// timelineRelate adds the dependency drawn on the timeline: the task to
// waits for the task from (finish to start unless type says otherwise).
func (s *Server) timelineRelate(r *http.Request, me member) error {
	from, ferr := taskd.ParseID(r.PostFormValue("from"), "task")
	to, terr := taskd.ParseID(r.PostFormValue("to"), "task")
	if ferr != nil || terr != nil {
		return taskd.Invalid("task", "Draw a dependency from one task's bar to another's")
	}
	rel := taskd.Relation{From: from, To: to, Type: r.PostFormValue("type")}
	if rel.Type == "" {
		rel.Type = taskd.RelationFinishToStart
	}
	err := s.cfg.Relations.AddRelation(r.Context(), me.actor(), rel)
	if taskd.IsNotFound(err) {
		return taskd.Invalid("task", "One of the tasks is gone, or you cannot see it")
	}
	return err
}

// timelineShiftDependents moves the task's dependents by the form's days.
func (s *Server) timelineShiftDependents(r *http.Request, me member, id int64) error {
	by := me.actor()
	days, err := strconv.Atoi(r.PostFormValue("days"))
	if err != nil {
		return taskd.Invalid("days", "Days must be a whole number")
	}
	_, err = s.cfg.Relations.ShiftDependents(r.Context(), by, id, days)
	return err
}

// timelineRefusal is a change the timeline refused: which (op) and why.
type timelineRefusal struct {
	Op string
	*formError
}

// What says what was not done.
func (f *timelineRefusal) What() string {
	switch f.Op {
	case timelineRelate:
		return "The dependency was not added"
	case timelineShift:
		return "The tasks were not shifted"
	}
	return "The dates were not changed"
}

// datesOnly keeps a form's start and due dates, so that a timeline's
// form changes nothing else of a task.
func datesOnly(p wire.Params) wire.Params {
	return func(name string) (string, bool) {
		if name != "datestart" && name != "dateend" {
			return "", false
		}
		return p(name)
	}
}

// renderTimeline shows the scope's timeline with the dates form of the
// task edit (a refused change of dates, fe set) or, without one, of
// ?edit=ID, and the offer to shift a moved task's dependents.
func (s *Server) renderTimeline(w http.ResponseWriter, r *http.Request, v *view, me member, sc timelineScope, status int, fe *timelineRefusal, edit int64) error {
	tasks, err := sc.tasks(r.Context())
	if err != nil {
		return err
	}
	win := readTimelineWindow(r.URL.Query(), s.today(v), sc.Group)
	chart := buildTimeline(tasks, win)
	if err := s.nameTimelineParents(r.Context(), me.viewer(), chart); err != nil {
		return err
	}
	tv := &timelineView{Scope: sc, Window: win, Chart: chart, Base: s.cfg.accountPath(me.Account),
		CanWrite: me.Member.Role.Can(taskd.PermWork), Error: fe}
	if err := s.drawDependencies(r.Context(), me.viewer(), chart); err != nil {
		return err
	}
	q := r.URL.Query()
	if fe == nil {
		edit, _ = strconv.ParseInt(q.Get("edit"), 10, 64)
	} else if fe.Op != timelineDates {
		edit = 0
	}
	if row, ok := chart.findRow(edit); ok && tv.CanWrite {
		tv.Edit = &timelineEdit{Row: row, Start: row.DateStart, End: row.DateEnd}
		if fe != nil {
			tv.Edit.Start, tv.Edit.End, tv.Edit.Error = r.PostFormValue("datestart"), r.PostFormValue("dateend"), fe.Message
		}
	}
	offer, _ := strconv.ParseInt(q.Get("offer"), 10, 64)
	if days, _ := strconv.Atoi(q.Get("shift")); days != 0 && fe == nil && tv.CanWrite {
		if row, ok := chart.findRow(offer); ok {
			so, err := s.offerShift(r.Context(), me.viewer(), offer, days)
			if err != nil {
				return err
			}
			if so != nil {
				tv.Shift = &timelineShiftOffer{Row: row, shiftOffer: so}
			}
		}
	}
	for i := range chart.Groups {
		tv.writeRows(&chart.Groups[i])
	}
	v.Title, v.Data = sc.Title, tv
	return s.renderStatus(w, r, status, "timeline.html", v)
}

// timelineScopeOf reads whose timeline the path names, as the viewer sees
// it; ok false when it answered (not found).
func (s *Server) timelineScopeOf(kind string, w http.ResponseWriter, r *http.Request, v *view, me member) (timelineScope, bool, error) {
	base := s.cfg.accountPath(me.Account)
	viewer := me.viewer()
	switch kind {
	case timelineOfProject:
		p, ok, err := s.pathProject(w, r, me)
		if !ok {
			return timelineScope{}, false, err
		}
		return timelineScope{Title: p.Name + ": timeline", Path: p.Page() + "timeline", Group: groupProject,
			Crumbs: []timelineLink{{Label: p.Name, Query: base + p.Page()}},
			tasks: func(ctx context.Context) ([]taskd.Task, error) {
				return s.cfg.Tasks.Tasks(ctx, taskd.TaskQuery{Viewer: viewer, ProjectID: p.ID, Sort: taskd.SortTree})
			}}, true, nil
	case timelineOfMine:
		email := me.Member.Email
		return timelineScope{Title: "My tasks: timeline", Path: "/my/timeline", Group: groupProject,
			Crumbs: []timelineLink{{Label: "My tasks", Query: base + "/my"}},
			tasks: func(ctx context.Context) ([]taskd.Task, error) {
				return s.cfg.Tasks.Tasks(ctx, taskd.TaskQuery{Viewer: viewer, ActiveProjects: true, AssigneeEmail: email, Sort: taskd.SortTree})
			}}, true, nil
	}
	team, ok, err := s.pathTeam(w, r, me)
	if !ok {
		return timelineScope{}, false, err
	}
	return timelineScope{Title: team.Title + ": timeline", Path: "/people/teams/" + strconv.FormatInt(team.ID, 10) + "/timeline", Group: groupAssignee,
		Crumbs: []timelineLink{{Label: "People", Query: base + "/people"}},
		tasks: func(ctx context.Context) ([]taskd.Task, error) {
			// The team's members' tasks: each member's, as the viewer
			// sees them.
			members, err := s.cfg.Accounts.Members(ctx, me.Account.ID)
			if err != nil {
				return nil, err
			}
			var all []taskd.Task
			for _, m := range members {
				if m.Team != team.Title {
					continue
				}
				tasks, err := s.cfg.Tasks.Tasks(ctx, taskd.TaskQuery{Viewer: viewer, ActiveProjects: true, AssigneeEmail: m.Email, Sort: taskd.SortTree})
				if err != nil {
					return nil, err
				}
				all = append(all, tasks...)
			}
			return all, nil
		}}, true, nil
}

// pathTeam reads the path's team of the account; ok false when it
// answered (not found).
func (s *Server) pathTeam(w http.ResponseWriter, r *http.Request, me member) (taskd.Team, bool, error) {
	id, err := strconv.ParseInt(r.PathValue("team"), 10, 64)
	if err != nil {
		s.fail(w, r, http.StatusNotFound, "There is no such team.")
		return taskd.Team{}, false, nil
	}
	teams, err := s.cfg.Directory.Teams(r.Context(), me.Account.ID)
	if err != nil {
		return taskd.Team{}, false, err
	}
	for _, t := range teams {
		if t.ID == id {
			return t, true, nil
		}
	}
	s.fail(w, r, http.StatusNotFound, "There is no such team.")
	return taskd.Team{}, false, nil
}

// nameTimelineParents names the parents of the subtasks that are not
// shown under them.
func (s *Server) nameTimelineParents(ctx context.Context, viewer taskd.Viewer, c *timelineChart) error {
	var rows []*taskRow
	var ids []int64
	for gi := range c.Groups {
		for ri := range c.Groups[gi].Rows {
			rows = append(rows, &c.Groups[gi].Rows[ri].taskRow)
		}
	}
	for i := range c.Unscheduled {
		rows = append(rows, &c.Unscheduled[i])
	}
	flat := make([]taskRow, 0, len(rows))
	for _, r := range rows {
		if r.ParentID != 0 && !r.Sub {
			ids = append(ids, r.ParentID)
		}
		flat = append(flat, *r)
	}
	if err := s.nameParents(ctx, viewer, flat, ids); err != nil {
		return err
	}
	for i, r := range rows {
		r.Parent = flat[i].Parent
	}
	return nil
}
