package web

import (
	"net/http"
	"strconv"

	"github.com/taskd/taskd"
)

// projectsView is an account's start page: its projects.
type projectsView struct {
	Active   []taskd.Project
	Archived []taskd.Project
	Error    *formError
	Values   map[string][]string
}

func (s *Server) projects(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	return s.renderProjects(w, r, v, acct, http.StatusOK, nil)
}

func (s *Server) renderProjects(w http.ResponseWriter, r *http.Request, v *view, acct taskd.Account, status int, fe *formError) error {
	all, err := s.cfg.Store.Projects(r.Context(), acct.ID, "")
	if err != nil {
		return err
	}
	pv := &projectsView{Error: fe, Values: r.PostForm}
	for _, p := range all {
		if p.Status == taskd.ProjectArchive {
			pv.Archived = append(pv.Archived, p)
		} else {
			pv.Active = append(pv.Active, p)
		}
	}
	v.Title, v.Data = acct.Name+": projects", pv
	return s.renderStatus(w, r, status, "projects.html", v)
}

func (s *Server) createProject(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct, m := me.Account, me.Member
	in, err := taskd.ParseProjectInput(formParams(r))
	if err == nil && in.Name == nil {
		err = taskd.Required("title")
	}
	var p taskd.Project
	if err == nil {
		p, err = s.cfg.Store.CreateProject(r.Context(), actor(acct, m), in)
	}
	if err != nil {
		fe, ok := asFormError("project", err)
		if !ok {
			return err
		}
		return s.renderProjects(w, r, v, acct, http.StatusUnprocessableEntity, fe)
	}
	return see303(w, r, s.cfg.accountPath(acct)+p.Page())
}

// setProjectStatus archives or activates the path's project.
func (s *Server) setProjectStatus(status string) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		acct, m := me.Account, me.Member
		id, err := taskd.ParseID(r.PathValue("pid"), "project")
		if err == nil {
			_, err = s.cfg.Store.SetProjectStatus(r.Context(), actor(acct, m), id, status)
		}
		if err == nil || taskd.AsError(err).Reason == taskd.ReasonAlreadyInState {
			return see303(w, r, s.cfg.accountPath(acct)+"/")
		}
		return s.failWith(w, r, err)
	}
}

// projectView is a project's page: its task tree and the new-task form.
type projectView struct {
	Project taskd.Project
	Tasks   []taskd.Task // top-level, with Children
	Done    int
	People  []taskd.Member
	Error   *formError
	Values  map[string][]string
	Base    string // the account's path
}

func (s *Server) projectPage(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	p, ok, err := s.pathProject(w, r, acct)
	if !ok {
		return err
	}
	return s.renderProject(w, r, v, acct, p, http.StatusOK, nil)
}

// pathProject reads the path's project of the account; ok false when it answered.
func (s *Server) pathProject(w http.ResponseWriter, r *http.Request, acct taskd.Account) (taskd.Project, bool, error) {
	id, err := taskd.ParseID(r.PathValue("pid"), "project")
	var p taskd.Project
	if err == nil {
		p, err = s.cfg.Store.Project(r.Context(), acct.ID, id)
	}
	if taskd.IsNotFound(err) {
		return p, false, s.failWith(w, r, err)
	}
	return p, err == nil, err
}

func (s *Server) renderProject(w http.ResponseWriter, r *http.Request, v *view, acct taskd.Account, p taskd.Project, status int, fe *formError) error {
	ctx := r.Context()
	tasks, err := s.cfg.Store.Tasks(ctx, taskd.TaskQuery{AccountID: acct.ID, ProjectID: p.ID})
	if err != nil {
		return err
	}
	people, err := s.cfg.Store.Members(ctx, acct.ID)
	if err != nil {
		return err
	}
	pv := &projectView{Project: p, Tasks: taskd.BuildTree(tasks), People: people, Error: fe, Values: r.PostForm, Base: s.cfg.accountPath(acct)}
	for _, t := range tasks {
		if t.Status == taskd.StatusDone {
			pv.Done++
		}
	}
	v.Title, v.Data = p.Name, pv
	return s.renderStatus(w, r, status, "project.html", v)
}

// createTask adds a task, or a subtask when the form names a parent.
func (s *Server) createTask(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct, m := me.Account, me.Member
	p, ok, err := s.pathProject(w, r, acct)
	if !ok {
		return err
	}
	var parent int64
	if pv := r.PostFormValue("id_parent"); pv != "" {
		if parent, err = taskd.ParseID(pv, "parent"); err != nil {
			s.fail(w, r, http.StatusNotFound, "There is no such task.")
			return nil
		}
	}
	in, err := taskd.ParseTaskInput(formParams(r))
	if err == nil && in.Name == nil {
		err = taskd.Required("title")
	}
	var t taskd.Task
	if err == nil {
		t, err = s.cfg.Store.CreateTask(r.Context(), actor(acct, m), p.ID, parent, in)
	}
	if err != nil {
		fe, ok := asFormError("task", err)
		if !ok {
			return err
		}
		if parent != 0 && r.PostFormValue("return") != "project" {
			return s.renderTaskByID(w, r, v, acct, parent, http.StatusUnprocessableEntity, &formError{Form: "subtask", Field: fe.Field, Message: fe.Message})
		}
		return s.renderProject(w, r, v, acct, p, http.StatusUnprocessableEntity, fe)
	}
	if parent != 0 && r.PostFormValue("return") != "project" {
		return see303(w, r, s.cfg.accountPath(acct)+taskd.TaskPage(p.ID, 0, parent))
	}
	return see303(w, r, s.cfg.accountPath(acct)+p.Page()+"#task"+strconv.FormatInt(t.ID, 10))
}
