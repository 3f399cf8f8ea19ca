package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/taskd/taskd"
)

// myTasksPage is how many tasks "My tasks" shows at a time.
const myTasksPage = 50

// myTasksView is the "My tasks" page: the signed-in member's tasks in the
// account, newest first, a page at a time.
type myTasksView struct {
	Show   string // assigned, created or subscribed
	Status string // active, done or "" for both
	Tasks  []taskd.Task
	Page   int
	Prev   string // the previous page's address; "" on the first
	Next   string // the next page's address; "" on the last
	Base   string
}

// myTasks is GET /a/{slug}/my: ?show=assigned|created|subscribed,
// ?status=active|done, ?page=N.
func (s *Server) myTasks(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct, m := me.Account, me.Member
	q := r.URL.Query()
	mv := &myTasksView{Show: q.Get("show"), Status: q.Get("status"), Base: s.cfg.accountPath(acct)}
	if mv.Show != "created" && mv.Show != "subscribed" {
		mv.Show = "assigned"
	}
	if mv.Status != "done" && mv.Status != "" {
		mv.Status = "active"
	}
	if _, given := q["status"]; !given {
		mv.Status = "active"
	}
	mv.Page, _ = strconv.Atoi(q.Get("page"))
	mv.Page = max(mv.Page, 1)
	query := taskd.TaskQuery{AccountID: acct.ID, Status: mv.Status, Viewer: m.ID, Sort: taskd.SortNewest,
		Limit: myTasksPage + 1, Offset: (mv.Page - 1) * myTasksPage}
	switch mv.Show {
	case "assigned":
		query.AssigneeEmail = m.Email
	case "created":
		query.AuthorEmail = m.Email
	default:
		query.SubscriberID = m.ID
	}
	see, err := s.projectFilter(r, acct, m)
	if err != nil {
		return err
	}
	tasks, err := s.cfg.Store.Tasks(r.Context(), query)
	if err != nil {
		return err
	}
	more := len(tasks) > myTasksPage
	for _, t := range tasks[:min(len(tasks), myTasksPage)] {
		if see(t.ProjectID) {
			mv.Tasks = append(mv.Tasks, t)
		}
	}
	link := func(page int) string {
		return mv.Base + "/my?" + url.Values{"show": {mv.Show}, "status": {mv.Status}, "page": {strconv.Itoa(page)}}.Encode()
	}
	if mv.Page > 1 {
		mv.Prev = link(mv.Page - 1)
	}
	if more {
		mv.Next = link(mv.Page + 1)
	}
	v.Title, v.Data = "My tasks", mv
	return s.render(w, r, "mytasks.html", v)
}
