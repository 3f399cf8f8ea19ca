package web

import (
	"context"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/taskd/taskd"
)

// taskListFuncs are the template functions of the rows of task lists,
// boards and task pages.
func taskListFuncs() template.FuncMap {
	return template.FuncMap{
		"rowContext": func(base string, v *view, canWrite bool, ret, back string, showDone, showProject bool) rowContext {
			return rowContext{Base: base, CSRF: v.CSRF, CanWrite: canWrite, Return: ret, Back: back, ShowDone: showDone, ShowProject: showProject, Today: v.Today()}
		},
		"taskRow":   newTaskRowView,
		"rowPeople": withPeople,
		"asRow":     func(t taskd.Task) taskRow { return taskRow{Task: t} },
	}
}

// listPage is how many tasks a task list shows at a time.
const listPage = 50

// listFilter is what a task list shows, read from its query string: a
// text search, the status, assignee, tag and due date to keep, the order
// and the page. Unknown values fall back to the defaults, so that a link
// edited by hand still shows a list.
type listFilter struct {
	Text     string // q: in the name or the description
	Status   string // status: active (default), done or all
	Assignee string // assignee: a member's e-mail or NOONE
	Tag      int64  // tag: a task tag's id
	Due      string // due: overdue, today, week or none
	Sort     string // sort: a taskd.Sort* order; tree by default
	Page     int    // page: from 1
	// Show is "My tasks"' choice: assigned, created or subscribed.
	Show string
	// DefaultSort is the order when none is asked for.
	DefaultSort string
}

// The due-date filters.
var dueFilters = []struct{ Value, Label string }{
	{"overdue", "overdue"}, {"today", "due today"}, {"week", "due in 7 days"}, {"none", "no due date"},
}

// The orders a list offers.
var listSorts = []struct{ Value, Label string }{
	{taskd.SortTree, "as added, subtasks under their task"},
	{taskd.SortNewest, "newest first"},
	{taskd.SortDue, "due date"},
	{taskd.SortPriority, "priority"},
	{taskd.SortName, "name"},
}

// readListFilter reads a list's query string; defaultSort is the order
// when it names none.
func readListFilter(q url.Values, defaultSort string) listFilter {
	f := listFilter{Text: strings.TrimSpace(q.Get("q")), Status: q.Get("status"), Assignee: q.Get("assignee"),
		Due: q.Get("due"), Sort: q.Get("sort"), DefaultSort: defaultSort}
	// The text goes to the database as a parameter: valid UTF-8 without
	// NUL only (PostgreSQL refuses anything else), cut at a character's
	// boundary.
	f.Text = strings.ReplaceAll(strings.ToValidUTF8(f.Text, ""), "\x00", "")
	for len(f.Text) > 200 {
		_, size := utf8.DecodeLastRuneInString(f.Text)
		f.Text = f.Text[:len(f.Text)-size]
	}
	if f.Status != taskd.StatusDone && f.Status != "all" {
		f.Status = taskd.StatusActive
	}
	if !strings.Contains(f.Assignee, "@") && f.Assignee != "NOONE" {
		f.Assignee = ""
	}
	f.Tag, _ = strconv.ParseInt(q.Get("tag"), 10, 64)
	f.Tag = max(f.Tag, 0)
	if !oneOf(f.Due, len(dueFilters), func(i int) string { return dueFilters[i].Value }) {
		f.Due = ""
	}
	if !oneOf(f.Sort, len(listSorts), func(i int) string { return listSorts[i].Value }) {
		f.Sort = defaultSort
	}
	f.Page, _ = strconv.Atoi(q.Get("page"))
	f.Page = min(max(f.Page, 1), 10000)
	return f
}

func oneOf(v string, n int, at func(int) string) bool {
	for i := range n {
		if at(i) == v {
			return true
		}
	}
	return false
}

// Narrowed reports whether the list leaves out tasks other than by status.
func (f listFilter) Narrowed() bool {
	return f.Text != "" || f.Assignee != "" || f.Tag != 0 || f.Due != ""
}

// apply adds the filters to the query and sets its order and page; today
// is the viewer's date, for the due-date filters.
func (f listFilter) apply(q *taskd.TaskQuery, today time.Time) {
	// The filter narrows the query; it never widens what the page chose.
	q.Sort, q.Text = f.Sort, f.Text
	if f.Assignee != "" {
		q.AssigneeEmail = f.Assignee
	}
	if f.Tag != 0 {
		q.TagID = f.Tag
	}
	if f.Status != "all" {
		q.Status = f.Status
	}
	day := func(op string, t time.Time) taskd.Query {
		return taskd.QueryCond{Field: taskd.FieldDateEnd, Op: op, Date: t.Format(taskd.DateLayout)}
	}
	also := func(c taskd.Query) {
		if q.Filter != nil {
			c = taskd.QueryAnd{Parts: []taskd.Query{q.Filter, c}}
		}
		q.Filter = c
	}
	switch f.Due {
	case "overdue":
		also(day("<", today))
	case "today":
		also(day("=", today))
	case "week":
		also(taskd.QueryAnd{Parts: []taskd.Query{day(">=", today), day("<=", today.AddDate(0, 0, 6))}})
	case "none":
		q.NoDateEnd = true
	}
	q.Limit, q.Offset = listPage+1, (f.Page-1)*listPage
}

// link is the list's address at a page, keeping its filters.
func (f listFilter) link(path string, page int) string {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("show", f.Show)
	set("q", f.Text)
	if f.Status != taskd.StatusActive {
		set("status", f.Status)
	}
	set("assignee", f.Assignee)
	if f.Tag != 0 {
		set("tag", strconv.FormatInt(f.Tag, 10))
	}
	set("due", f.Due)
	if f.Sort != f.DefaultSort {
		set("sort", f.Sort)
	}
	if page > 1 {
		set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// taskRow is a task as a list shows it: with its tags, indented under its
// parent when that is the row above, else naming the parent.
type taskRow struct {
	taskd.Task
	Tags []taskd.Tag
	// Fields are the task's custom field values, shown as labels.
	Fields []taskd.FieldValue
	Sub    bool   // a subtask (or sub-subtask) shown under its parent
	Deep   bool   // shown under a parent that is itself shown under its own
	Parent string // the parent's name, for a subtask shown alone
}

// rowContext is what every row of a list shares: where its links and
// forms go, and what it shows.
type rowContext struct {
	Base, CSRF   string
	CanWrite     bool
	Return, Back string // where completing a task returns, and the list's query
	ShowDone     bool   // a "done" badge: only where done and active rows mix
	ShowProject  bool   // the project's name: where rows of several projects mix
	Today        time.Time
	// People are the assignees a row's quick edit offers (quickedit.go);
	// nil: no quick edit.
	People []taskd.Member
}

// Due is the row's due-date cue.
func (r taskRowView) Due() dueCue { return newDueCue(r.Today, r.DateEnd, r.Status) }

// taskRowView is one row as the taskrow template shows it.
type taskRowView struct {
	rowContext
	taskRow
	Project string
}

// newTaskRowView joins a row to its list's context.
func newTaskRowView(c rowContext, r taskRow) taskRowView {
	v := taskRowView{rowContext: c, taskRow: r}
	if c.ShowProject {
		v.Project = r.Task.Project.Name
	}
	return v
}

// taskList is a page of a task list with what its controls need.
type taskList struct {
	Filter     listFilter
	Rows       []taskRow
	Counts     taskd.TaskCounts // by status, under the other filters
	Prev, Next string           // the neighbouring pages' addresses, "" at an end
	People     []taskd.Member   // for the assignee filter
	Tags       []taskd.Tag      // for the tag filter
	Dues       []struct{ Value, Label string }
	Sorts      []struct{ Value, Label string }
	Path       string // the list's address without its query
	// Return names the page a row's form comes back to: project or my.
	Return string
	// Shows are "My tasks"' choices of tasks; nil elsewhere.
	Shows []struct{ Value, Label string }
	// QuickAdd is the one-line add field (quickadd.go); nil for readers.
	QuickAdd *quickAddForm
}

// listTasks reads a page of the query's tasks under the filter, with their
// tags, their custom field values and the names of parents not on the
// page.
func (s *Server) listTasks(ctx context.Context, q taskd.TaskQuery, f listFilter, today time.Time, path string) (*taskList, error) {
	f.apply(&q, today)
	tasks, err := s.cfg.Tasks.Tasks(ctx, q)
	if err != nil {
		return nil, err
	}
	counts, err := s.cfg.Tasks.CountTasks(ctx, q)
	if err != nil {
		return nil, err
	}
	l := &taskList{Filter: f, Counts: counts, Dues: dueFilters, Sorts: listSorts, Path: path}
	if f.Page > 1 {
		l.Prev = f.link(path, f.Page-1)
	}
	if len(tasks) > listPage {
		tasks = tasks[:listPage]
		l.Next = f.link(path, f.Page+1)
	}
	ids := make([]int64, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	tags, err := s.cfg.Tags.ObjectTags(ctx, q.Viewer, taskd.TagsOfTasks, ids)
	if err != nil {
		return nil, err
	}
	values, err := s.cfg.Fields.FieldValues(ctx, q.Viewer, taskd.ObjectTask, ids)
	if err != nil {
		return nil, err
	}
	shown := make(map[int64]bool, len(tasks))
	sub := make(map[int64]bool, len(tasks)) // rows shown under their parent
	var orphans []int64
	for _, t := range tasks {
		row := taskRow{Task: t, Tags: tags[t.ID], Fields: values[t.ID]}
		row.Sub = t.ParentID != 0 && f.Sort == taskd.SortTree && shown[t.ParentID]
		row.Deep = row.Sub && sub[t.ParentID]
		if t.ParentID != 0 && !row.Sub {
			orphans = append(orphans, t.ParentID)
		}
		shown[t.ID], sub[t.ID] = true, row.Sub
		l.Rows = append(l.Rows, row)
	}
	return l, s.nameParents(ctx, q.Viewer, l.Rows, orphans)
}

// nameParents sets the parent's name on the rows of subtasks shown alone.
func (s *Server) nameParents(ctx context.Context, viewer taskd.Viewer, rows []taskRow, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	parents, err := s.cfg.Tasks.Tasks(ctx, taskd.TaskQuery{Viewer: viewer,
		Filter: taskd.QueryCond{Field: taskd.FieldID, Op: "in", Ints: ids}})
	if err != nil {
		return err
	}
	names := make(map[int64]string, len(parents))
	for _, p := range parents {
		names[p.ID] = p.Name
	}
	for i := range rows {
		if rows[i].ParentID != 0 && !rows[i].Sub {
			rows[i].Parent = names[rows[i].ParentID]
		}
	}
	return nil
}

// StatusLink is the list's address showing the status's tasks (active,
// done or all), from the first page.
func (l *taskList) StatusLink(status string) string {
	f := l.Filter
	f.Status = status
	return f.link(l.Path, 1)
}

// ClearLink is the list's address without filters, in its order.
func (l *taskList) ClearLink() string {
	f := l.Filter
	return listFilter{Status: taskd.StatusActive, Sort: f.Sort, DefaultSort: f.DefaultSort, Show: f.Show}.link(l.Path, 1)
}

// Shown is how many tasks the list's status selects under its filters.
func (l *taskList) Shown() int {
	switch l.Filter.Status {
	case taskd.StatusActive:
		return l.Counts.Active
	case taskd.StatusDone:
		return l.Counts.Done
	}
	return l.Counts.Active + l.Counts.Done
}

// Pages is how many pages the list has.
func (l *taskList) Pages() int { return max(1, (l.Shown()+listPage-1)/listPage) }

// Query is the list's query string ("?…", "" for the default list), for
// the forms that return to it.
func (l *taskList) Query() string { return l.Filter.link("", l.Filter.Page) }
