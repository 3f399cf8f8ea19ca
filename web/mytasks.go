package web

import (
	"net/http"

	"github.com/taskd/taskd"
)

// myTaskRoutes are the addresses of the member's own tasks.
func (s *Server) myTaskRoutes() []route {
	return []route{
		{"GET /a/{slug}/my", s.page(s.inAccount(taskd.PermRead, s.myTasks))},
	}
}

// myTasksView is the "My tasks" page: the signed-in member's tasks in the
// account, a page at a time under the list's filters.
type myTasksView struct {
	List     *taskList
	Base     string
	CanWrite bool
	Shown    *flash // what the last change did (a one-line add)
}

// The tasks "My tasks" can show.
var myTaskShows = []struct{ Value, Label string }{
	{"assigned", "assigned to me"}, {"created", "created by me"}, {"subscribed", "I am subscribed to"},
}

// myTasks is GET /a/{slug}/my: ?show=assigned|created|subscribed and the
// filters of every task list, newest first by default.
func (s *Server) myTasks(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	return s.renderMyTasks(w, r, v, me, http.StatusOK, nil)
}

// renderMyTasks shows "My tasks" with status, and fe beside its form.
func (s *Server) renderMyTasks(w http.ResponseWriter, r *http.Request, v *view, me member, status int, fe *formError) error {
	ctx := r.Context()
	acct, m := me.Account, me.Member
	f := readListFilter(r.URL.Query(), taskd.SortNewest)
	f.Show = r.URL.Query().Get("show")
	query := taskd.TaskQuery{Viewer: me.viewer(), ActiveProjects: true}
	switch f.Show {
	case "created":
		query.AuthorEmail = m.Email
	case "subscribed":
		query.SubscriberID = m.ID
	default:
		f.Show = "assigned"
		f.Assignee = "" // the filter would contradict the choice
		query.AssigneeEmail = m.Email
	}
	base := s.cfg.accountPath(acct)
	list, err := s.listTasks(ctx, query, f, s.today(v), base+"/my")
	if err != nil {
		return err
	}
	list.Return, list.Shows = "my", myTaskShows
	if list.People, err = s.cfg.Accounts.Members(ctx, acct.ID); err != nil {
		return err
	}
	if list.Tags, err = s.cfg.Tags.Tags(ctx, acct.ID, taskd.TagsOfTasks, "", "", ""); err != nil {
		return err
	}
	if m.Role.Can(taskd.PermWork) {
		projects, err := s.cfg.Projects.Projects(ctx, me.viewer(), "")
		if err != nil {
			return err
		}
		list.QuickAdd = newQuickAdd(v, base, 0, projects, "my", list.Query(), fe, r)
	}
	v.Title, v.Data = "My tasks", &myTasksView{List: list, Base: base, CanWrite: m.Role.Can(taskd.PermWork), Shown: s.takeFlash(w, r)}
	return s.renderStatus(w, r, status, "mytasks.html", v)
}
