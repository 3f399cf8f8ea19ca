package web

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/quickadd"
)

// quickAddRoutes are the addresses of the header's quick add.
func (s *Server) quickAddRoutes() []route {
	return []route{
		{"POST /a/{slug}/quickadd", s.form(s.inAccount(taskd.PermWork, s.quickAdd))},
	}
}

// quickAddForm is the one-line add field above a task list (issue 35):
// a line such as "Write copy @dana !high due fri #design", read by
// package quickadd.
type quickAddForm struct {
	Action, CSRF string
	// Project is the project the task goes to on a project's page;
	// Projects are the choice on "My tasks" (Project 0).
	Project  int64
	Projects []taskd.Project
	// Return and Back say where the page comes back to, as a row's forms.
	Return, Back string
	// Line and Error are a refused line and why; Chosen its project.
	Line, Error string
	Chosen      int64
}

// newQuickAdd is the one-line add form of a list: project is the page's
// project (0 on "My tasks", where projects are the choice).
func newQuickAdd(v *view, base string, project int64, projects []taskd.Project, ret, back string, fe *formError, r *http.Request) *quickAddForm {
	f := &quickAddForm{Action: base + "/quickadd", CSRF: v.CSRF, Project: project, Return: ret, Back: back}
	for _, p := range projects {
		if p.Status != taskd.ProjectArchive {
			f.Projects = append(f.Projects, p)
		}
	}
	if msg := errorFor(fe, "quickadd"); msg != "" {
		f.Error, f.Line = msg, r.PostFormValue("line")
		f.Chosen, _ = strconv.ParseInt(r.PostFormValue("project"), 10, 64)
	}
	return f
}

// quickAdd is POST /a/{slug}/quickadd: line, project, return (project or
// my) and back (the list's query). The line's shortcuts are resolved
// against the account's members and tags; a line that names nobody or no
// tag, or that the parser refuses, creates nothing and comes back with
// the message beside the field. The task is created by the same use case
// as the full form.
func (s *Server) quickAdd(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	ctx := r.Context()
	acct := me.Account
	by := me.actor()
	id, err := taskd.ParseID(r.PostFormValue("project"), "project")
	var p taskd.Project
	if err == nil {
		p, err = s.cfg.Projects.Project(ctx, me.viewer(), id)
	}
	fromMy := r.PostFormValue("return") == "my"
	if err != nil && !fromMy { // a project's page names its own project
		return s.failWith(w, r, err)
	}
	var t taskd.Task
	if err == nil {
		var in taskd.TaskInput
		if in, err = s.quickInput(r, acct, r.PostFormValue("line"), s.today(v)); err == nil {
			t, err = s.cfg.Tasks.CreateTask(ctx, by, p.ID, 0, in)
		}
	}
	if err != nil {
		fe, ok := asFormError("quickadd", err)
		if !ok {
			return err
		}
		if fromMy {
			return s.renderMyTasks(w, r, v, me, formStatus(w, err), fe)
		}
		return s.renderProject(w, r, v, me, p, formStatus(w, err), fe)
	}
	base := s.cfg.accountPath(acct)
	s.setFlash(w, flash{Message: "Added “" + t.Name + "” to " + p.Name + ".", Link: base + t.Page(), LinkText: "Open it"})
	if fromMy {
		return see303(w, r, base+"/my"+listQuery(r.PostFormValue("back")))
	}
	return see303(w, r, base+p.Page()+listQuery(r.PostFormValue("back"))+"#task"+strconv.FormatInt(t.ID, 10))
}

// quickInput reads a line into a new task's input, resolving "@person"
// among the account's members and "#tag" among its tags of tasks.
func (s *Server) quickInput(r *http.Request, acct taskd.Account, line string, today time.Time) (taskd.TaskInput, error) {
	var in taskd.TaskInput
	l, err := quickadd.Parse(line, today)
	if err != nil {
		return in, quickError(err)
	}
	name, err := taskd.CleanName("line", l.Name)
	if err != nil {
		return in, err
	}
	in.Name, in.Priority = &name, l.Priority
	if l.Assignee != "" {
		people, err := s.cfg.Accounts.Members(r.Context(), acct.ID)
		if err != nil {
			return in, err
		}
		plain := make([]quickadd.Person, len(people))
		for i, m := range people {
			plain[i] = quickadd.Person{Email: m.Email, Name: strings.TrimSpace(m.FirstName + " " + m.LastName)}
		}
		who, err := quickadd.MatchPerson(l.Assignee, plain)
		if err != nil {
			return in, quickError(err)
		}
		in.AssigneeEmail = &who.Email
	}
	if len(l.Tags) > 0 {
		tags, err := s.cfg.Tags.Tags(r.Context(), acct.ID, taskd.TagsOfTasks, "", "", "")
		if err != nil {
			return in, err
		}
		plain := make([]quickadd.Tag, len(tags))
		for i, t := range tags {
			plain[i] = quickadd.Tag{ID: t.ID, Title: t.Title, Group: t.Group.Title}
		}
		var ids []string
		for _, word := range l.Tags {
			tag, err := quickadd.MatchTag(word, plain)
			if err != nil {
				return in, quickError(err)
			}
			if id := strconv.FormatInt(tag.ID, 10); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		in.Tags = &ids
	}
	for _, d := range []struct {
		day time.Time
		dst **string
	}{{l.Start, &in.DateStart}, {l.Due, &in.DateEnd}} {
		if !d.day.IsZero() {
			s := d.day.Format(taskd.DateLayout)
			*d.dst = &s
		}
	}
	return in, nil
}

// quickError is the parser's refusal as the domain's invalid value of the
// line, shown beside the field.
func quickError(err error) error {
	var e *quickadd.Error
	if errors.As(err, &e) {
		return taskd.Invalid("line", "%s", e.Message)
	}
	return err
}
