package web

import (
	"net/http"
	"strconv"

	"github.com/taskd/taskd"
)

// quickEditRoutes are the addresses of a task's quick edit (issue 35).
func (s *Server) quickEditRoutes() []route {
	return []route{
		{"GET /a/{slug}/tasks/{task}/quick", s.page(s.inAccount(taskd.PermWork, s.quickEdit))},
	}
}

// withPeople is the row context with the assignees its rows' quick edit
// offers (issue 35; templates/quickedit.html).
func withPeople(c rowContext, people []taskd.Member) rowContext {
	c.People = people
	if c.People == nil {
		c.People = []taskd.Member{}
	}
	return c
}

// RowID is the id of the element a row's quick edit updates in place:
// the row (or board card) itself.
func (r taskRowView) RowID() string { return "task" + strconv.FormatInt(r.ID, 10) }

// quickView is the page of one task's quick edit: the form a row's
// control opens in place with JavaScript, on its own page without.
type quickView struct {
	Row     taskRowView
	Project taskd.Project
}

// quickEdit is GET /a/{slug}/tasks/{task}/quick?return=…&back=…: one
// task's quick edit form, which returns where the row's list does.
func (s *Server) quickEdit(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	ctx := r.Context()
	t, ok, err := s.pathTask(w, r, me, r.PathValue("task"))
	if !ok {
		return err
	}
	qv := &quickView{}
	if qv.Project, err = s.cfg.Projects.Project(ctx, me.viewer(), t.ProjectID); err != nil {
		return err
	}
	people, err := s.cfg.Accounts.Members(ctx, me.Account.ID)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	c := rowContext{Base: s.cfg.accountPath(me.Account), CSRF: v.CSRF, CanWrite: true, Return: q.Get("return"), Back: q.Get("back"), Today: v.Today()}
	qv.Row = newTaskRowView(withPeople(c, people), taskRow{Task: t})
	v.Title, v.Data = "Quick edit "+t.Name, qv
	return s.render(w, r, "quick.html", v)
}

// Blank is a row of no task (id 0) in the context: the shared form the
// script fills in for a row (template "quicktemplate").
func (c rowContext) Blank() taskRowView { return newTaskRowView(c, taskRow{}) }
