package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// The timelines: a project's (/project/{pid}/timeline), the signed-in
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
	// Error is a refused change of a task's dates.
	Error *formError
	// Edit is the dates form of a task, nil when none is asked for.
	Edit *timelineEdit
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

// reschedule is POST of a timeline's address: task, datestart and
// dateend change the task's dates through the use case update_task uses
// (its event, webhooks and digests), parsed as update_task parses them,
// so it refuses what update_task refuses with the same messages. The
// timeline answers: the same window after a change, or with the refusal
// beside the task's row (422).
func (s *Server) reschedule(kind string) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		sc, ok, err := s.timelineScopeOf(kind, w, r, v, me)
		if !ok {
			return err
		}
		id, err := taskd.ParseID(r.PostFormValue("task"), "task")
		if err == nil {
			var in taskd.TaskInput
			if in, err = wire.ParseTaskInput(datesOnly(formParams(r))); err == nil {
				_, err = s.cfg.Work.Tasks.Update(r.Context(), actor(me.Account, me.Member), id, in)
			}
		}
		if err != nil {
			fe, ok := asFormError("dates", err)
			if !ok {
				return err
			}
			return s.renderTimeline(w, r, v, me, sc, formStatus(w, err), fe, id)
		}
		win := readTimelineWindow(r.URL.Query(), s.today(v), sc.Group)
		return see303(w, r, s.cfg.accountPath(me.Account)+sc.Path+win.Here())
	}
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
// task edit (a refused change's, fe set) or, without one, of ?edit=ID.
func (s *Server) renderTimeline(w http.ResponseWriter, r *http.Request, v *view, me member, sc timelineScope, status int, fe *formError, edit int64) error {
	tasks, err := sc.tasks(r.Context())
	if err != nil {
		return err
	}
	win := readTimelineWindow(r.URL.Query(), s.today(v), sc.Group)
	chart := buildTimeline(tasks, win)
	if err := s.nameTimelineParents(r.Context(), v.viewer(), chart); err != nil {
		return err
	}
	tv := &timelineView{Scope: sc, Window: win, Chart: chart, Base: s.cfg.accountPath(me.Account),
		CanWrite: me.Member.Role.Can(taskd.PermWork), Error: fe}
	if fe == nil {
		edit, _ = strconv.ParseInt(r.URL.Query().Get("edit"), 10, 64)
	}
	if row, ok := chart.findRow(edit); ok && tv.CanWrite {
		tv.Edit = &timelineEdit{Row: row, Start: row.DateStart, End: row.DateEnd}
		if fe != nil {
			tv.Edit.Start, tv.Edit.End, tv.Edit.Error = r.PostFormValue("datestart"), r.PostFormValue("dateend"), fe.Message
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
	viewer := v.viewer()
	switch kind {
	case timelineOfProject:
		p, ok, err := s.pathProject(w, r, v)
		if !ok {
			return timelineScope{}, false, err
		}
		return timelineScope{Title: p.Name + ": timeline", Path: p.Page() + "timeline", Group: groupProject,
			Crumbs: []timelineLink{{Label: p.Name, Query: base + p.Page()}},
			tasks: func(ctx context.Context) ([]taskd.Task, error) {
				return s.cfg.Reads.Tasks(ctx, taskd.TaskQuery{Viewer: viewer, ProjectID: p.ID, Sort: taskd.SortTree})
			}}, true, nil
	case timelineOfMine:
		email := me.Member.Email
		return timelineScope{Title: "My tasks: timeline", Path: "/my/timeline", Group: groupProject,
			Crumbs: []timelineLink{{Label: "My tasks", Query: base + "/my"}},
			tasks: func(ctx context.Context) ([]taskd.Task, error) {
				return s.cfg.Reads.Tasks(ctx, taskd.TaskQuery{Viewer: viewer, ActiveProjects: true, AssigneeEmail: email, Sort: taskd.SortTree})
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
				tasks, err := s.cfg.Reads.Tasks(ctx, taskd.TaskQuery{Viewer: viewer, ActiveProjects: true, AssigneeEmail: m.Email, Sort: taskd.SortTree})
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
