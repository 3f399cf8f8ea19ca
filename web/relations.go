package web

import (
	"context"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// relationRoutes are the addresses of a task's relations (issue 35).
func (s *Server) relationRoutes() []route {
	return []route{
		{"POST /a/{slug}/tasks/{task}/relations", s.form(s.inAccount(taskd.PermWork, s.taskChange("relations", s.addRelation)))},
		{"POST /a/{slug}/tasks/{task}/relations/delete", s.form(s.inAccount(taskd.PermWork, s.taskChange("relations", s.deleteRelation)))},
		{"POST /a/{slug}/tasks/{task}/shift", s.form(s.inAccount(taskd.PermWork, s.taskChange("relations", s.shiftDependents)))},
	}
}

// relationFuncs are the template functions of a task's relations (issue
// 35).
func relationFuncs() template.FuncMap {
	return template.FuncMap{
		"relationList":     newRelationList,
		"relationTypeName": relationTypeName,
	}
}

// relationChoices caps the tasks the add form's list offers; any other
// task is given by its number.
const relationChoices = 200

// relationsView is the task page's "Blocked by / Blocks" section.
type relationsView struct {
	BlockedBy, Blocks []taskd.RelatedTask
	// Choices are the project's other tasks, for the add form's list.
	Choices []taskd.Task
	Types   []string
	// Shift, when set, offers to move the task's dependents too, after
	// its dates were changed.
	Shift *shiftOffer
}

// shiftOffer is the question asked after a task's dates moved: shift its
// Count dependents (those with dates) by Days too?
type shiftOffer struct {
	Days, Count int
	// Abs is Days without its sign; Earlier says it is negative.
	Abs     int
	Earlier bool
}

// relationsOf reads a task page's relations section; the shift offer when
// the page was reached with ?shift=D after an edit and the task has
// dependents with dates.
func (s *Server) relationsOf(ctx context.Context, r *http.Request, me member, t taskd.Task) (*relationsView, error) {
	rv := &relationsView{Types: taskd.RelationTypes}
	var err error
	if rv.BlockedBy, rv.Blocks, err = s.cfg.Relations.RelatedTasks(ctx, me.viewer(), t.ID); err != nil {
		return nil, err
	}
	if !me.Member.Role.Can(taskd.PermWork) {
		return rv, nil
	}
	tasks, err := s.cfg.Tasks.Tasks(ctx, taskd.TaskQuery{Viewer: me.viewer(), ProjectID: t.ProjectID, Sort: taskd.SortTree, Limit: relationChoices + 1})
	if err != nil {
		return nil, err
	}
	for _, c := range tasks {
		if c.ID != t.ID && len(rv.Choices) < relationChoices {
			rv.Choices = append(rv.Choices, c)
		}
	}
	if days, err := strconv.Atoi(r.URL.Query().Get("shift")); err == nil && days != 0 {
		if rv.Shift, err = s.offerShift(ctx, me.viewer(), t.ID, days); err != nil {
			return nil, err
		}
	}
	return rv, nil
}

// offerShift is the offer to move a task's dependents by days, nil when
// none of them (as the viewer sees them) has dates.
func (s *Server) offerShift(ctx context.Context, v taskd.Viewer, taskID int64, days int) (*shiftOffer, error) {
	deps, err := s.cfg.Relations.Dependents(ctx, v, taskID)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, d := range deps {
		if d.DateStart != "" || d.DateEnd != "" {
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	return &shiftOffer{Days: days, Count: n, Abs: max(days, -days), Earlier: days < 0}, nil
}

// addRelation relates the page's task to another (by its number, else
// the one chosen in the list): blocked by it, or blocking it (side).
func (s *Server) addRelation(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	raw := strings.TrimPrefix(strings.TrimSpace(r.PostFormValue("task_id")), "#")
	if raw == "" {
		raw = r.PostFormValue("task")
	}
	other, err := taskd.ParseID(raw, "task")
	if err != nil {
		return "", taskd.Invalid("task", "Choose a task, or give its number")
	}
	rel := taskd.Relation{From: other, To: t.ID, Type: r.PostFormValue("type")}
	if rel.Type == "" {
		rel.Type = taskd.RelationFinishToStart
	}
	if r.PostFormValue("side") == "blocks" {
		rel.From, rel.To = t.ID, other
	}
	err = s.cfg.Relations.AddRelation(r.Context(), by, rel)
	if taskd.IsNotFound(err) {
		return "", taskd.Invalid("task", "There is no task %d that you can see", other)
	}
	return t.Page() + "#relations", err
}

// deleteRelation removes a relation of the page's task: from the task
// "from" to the task "to", one of them the page's.
func (s *Server) deleteRelation(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	from, ferr := taskd.ParseID(r.PostFormValue("from"), "task")
	to, terr := taskd.ParseID(r.PostFormValue("to"), "task")
	if ferr != nil || terr != nil || (from != t.ID && to != t.ID) {
		return "", taskd.Invalid("task", "That is not a relation of this task")
	}
	err := s.cfg.Relations.DeleteRelation(r.Context(), by, from, to)
	if taskd.IsNotFound(err) {
		return "", taskd.Invalid("task", "That relation is gone already")
	}
	return t.Page() + "#relations", err
}

// shiftDependents moves the dates of the page's task's dependents by the
// form's days.
func (s *Server) shiftDependents(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	days, err := strconv.Atoi(r.PostFormValue("days"))
	if err != nil {
		return "", taskd.Invalid("days", "Days must be a whole number")
	}
	_, err = s.cfg.Relations.ShiftDependents(r.Context(), by, t.ID, days)
	return t.Page() + "#relations", err
}

// shiftOfferPage is where an edit of a task's dates returns: its page
// with ?shift=D, which offers to move its dependents as far as its start
// moved (its due date when it has no start), when it has any; "" (the
// page itself) otherwise.
func (s *Server) shiftOfferPage(ctx context.Context, by taskd.Actor, before, after taskd.Task) string {
	days := s.movedWithDependents(ctx, by, before, after)
	if days == 0 {
		return ""
	}
	return after.Page() + "?shift=" + strconv.Itoa(days) + "#shift"
}

// movedWithDependents is how many days an edit moved a task (its start,
// else its due date) when the task has dependents the actor sees; 0 when
// it did not move or has none, the cases where nothing is offered.
func (s *Server) movedWithDependents(ctx context.Context, by taskd.Actor, before, after taskd.Task) int {
	days := dayDelta(before.DateStart, after.DateStart)
	if days == 0 {
		days = dayDelta(before.DateEnd, after.DateEnd)
	}
	if days == 0 {
		return 0
	}
	deps, err := s.cfg.Relations.Dependents(ctx, by.Viewer(), after.ID)
	if err != nil || len(deps) == 0 {
		return 0 // the edit is made: no offer is no harm
	}
	return days
}

// dayDelta is how many days a date moved; 0 when either is not set.
func dayDelta(from, to string) int {
	a, err1 := time.Parse(time.DateOnly, from)
	b, err2 := time.Parse(time.DateOnly, to)
	if err1 != nil || err2 != nil {
		return 0
	}
	return int(b.Sub(a).Hours() / 24)
}

// relationListView is one side of a task's relations on its page.
type relationListView struct {
	Base, CSRF, Title, ID string
	TaskID                int64
	CanWrite              bool
	Items                 []taskd.RelatedTask
	// From says the items are the tasks the relations come from (the
	// page's task is blocked by them).
	From bool
}

// newRelationList is the template function relationList.
func newRelationList(v *view, title, id string, items []taskd.RelatedTask, from bool) relationListView {
	tv, _ := v.Data.(*taskView)
	l := relationListView{CSRF: v.CSRF, Title: title, ID: id, Items: items, From: from}
	if tv != nil {
		l.Base, l.TaskID, l.CanWrite = tv.Base, tv.Task.ID, tv.CanWrite
	}
	return l
}

// relationTypeName is how a page names a type of relation.
func relationTypeName(typ string) string {
	switch typ {
	case taskd.RelationStartToStart:
		return "start to start"
	case taskd.RelationFinishToStart:
		return "finish to start"
	}
	return typ
}
