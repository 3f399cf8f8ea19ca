package web

import (
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// projectRoutes are the addresses of an account's projects: the list, a
// project's page and its changes, and a new task.
func (s *Server) projectRoutes() []route {
	return []route{
		{"GET /a/{slug}/{$}", s.page(s.inAccount(taskd.PermRead, s.projects))},
		{"POST /a/{slug}/projects", s.form(s.inAccount(taskd.PermWork, s.createProject))},
		{"POST /a/{slug}/project/{project}/archive", s.form(s.inAccount(taskd.PermWork, s.setProjectStatus(taskd.ProjectArchive)))},
		{"POST /a/{slug}/project/{project}/activate", s.form(s.inAccount(taskd.PermWork, s.setProjectStatus(taskd.ProjectActive)))},
		{"GET /a/{slug}/project/{project}/{$}", s.page(s.inAccount(taskd.PermRead, s.projectPage))},
		{"POST /a/{slug}/project/{project}/update", s.form(s.inAccount(taskd.PermWork, s.updateProject))},
		{"POST /a/{slug}/project/{project}/tasks", s.upload(s.inAccount(taskd.PermWork, s.createTask))},
	}
}

// projectFuncs are the template functions of the projects page.
func projectFuncs() template.FuncMap {
	return template.FuncMap{
		"managerName": func(p taskd.PersonRef) string {
			if p.ID == 0 || p.ID == taskd.NobodyID || p.ID == taskd.AnyoneID {
				return ""
			}
			return p.Name
		},
	}
}

// projectsView is an account's start page: its projects.
type projectsView struct {
	Folders  []projectFolder // the active projects, by folder
	Active   []taskd.Project
	Archived []taskd.Project
	Titles   []string // every folder's title, for the form
	Error    *formError
	Values   map[string][]string
	CanWrite bool
	Progress map[int64]taskd.Progress // per project, as the viewer sees its tasks
	Today    time.Time                // the viewer's, for the due dates' cues
}

// Of is a project's progress.
func (pv *projectsView) Of(id int64) taskd.Progress { return pv.Progress[id] }

// Cue is the next due date's cue.
func (pv *projectsView) Cue(p taskd.Progress) dueCue {
	return newDueCue(pv.Today, p.NextDue, taskd.StatusActive)
}

// projectFolder is a folder's active projects; Title "" holds those in
// none.
type projectFolder struct {
	Title    string
	Projects []taskd.Project
}

func (s *Server) projects(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	return s.renderProjects(w, r, v, me, http.StatusOK, nil)
}

func (s *Server) renderProjects(w http.ResponseWriter, r *http.Request, v *view, me member, status int, fe *formError) error {
	acct := me.Account
	ctx := r.Context()
	all, err := s.cfg.Projects.Projects(ctx, me.viewer(), "")
	if err != nil {
		return err
	}
	folders, err := s.cfg.Directory.ProjectFolders(ctx, acct.ID)
	if err != nil {
		return err
	}
	progress, err := s.cfg.Projects.ProjectProgress(ctx, me.viewer())
	if err != nil {
		return err
	}
	pv := &projectsView{Error: fe, Values: r.PostForm, CanWrite: me.Member.Role.Can(taskd.PermWork), Progress: progress, Today: v.Today()}
	for _, f := range folders {
		pv.Titles = append(pv.Titles, f.Title)
	}
	for _, p := range all {
		switch {
		case p.Status == taskd.ProjectArchive:
			pv.Archived = append(pv.Archived, p)
		default:
			pv.Active = append(pv.Active, p)
		}
	}
	pv.Folders = byFolder(pv.Active)
	v.Title, v.Data = acct.Name+": projects", pv
	return s.renderStatus(w, r, status, "projects.html", v)
}

func (s *Server) createProject(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	in, err := wire.ParseProjectInput(formParams(r))
	if err == nil && in.Name == nil {
		err = taskd.Required("title")
	}
	var p taskd.Project
	if err == nil {
		p, err = s.cfg.Projects.CreateProject(r.Context(), me.actor(), in)
	}
	if err != nil {
		fe, ok := asFormError("project", err)
		if !ok {
			return err
		}
		return s.renderProjects(w, r, v, me, formStatus(w, err), fe)
	}
	return see303(w, r, s.cfg.accountPath(acct)+p.Page())
}

// setProjectStatus archives or activates the path's project.
func (s *Server) setProjectStatus(status string) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		acct := me.Account
		id, err := taskd.ParseID(r.PathValue("project"), "project")
		if err == nil {
			_, err = s.cfg.Projects.SetProjectStatus(r.Context(), me.actor(), id, status)
		}
		if err == nil || taskd.AsError(err).Reason == taskd.ReasonAlreadyInState {
			return see303(w, r, s.cfg.accountPath(acct)+"/")
		}
		return s.failWith(w, r, err)
	}
}

// updateProject is POST /a/{slug}/project/{project}/update: the project's name,
// text, options of logging time and custom fields, parsed and changed as
// the API's update_project does (the same parsers, store method,
// permission and update_project event). The options are checkboxes, sent
// only when ticked: an option the form leaves out is off. Other fields
// have their own forms and are left as they are.
func (s *Server) updateProject(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	p, ok, err := s.pathProject(w, r, me)
	if !ok {
		return err
	}
	in, err := wire.ParseProjectInput(checkboxes(formParams(r), wire.OptionTimeRequire, wire.OptionTimeToday, wire.OptionTimerOnly))
	if err == nil && in.Name == nil {
		err = taskd.Required("title")
	}
	var values map[int64]string
	if err == nil {
		values, err = formFieldValues(r)
	}
	if err == nil {
		in = taskd.ProjectInput{Name: in.Name, Text: in.Text, Options: in.Options, Fields: values}
		_, err = s.cfg.Projects.UpdateProject(r.Context(), me.actor(), p.ID, in)
	}
	if err != nil {
		fe, ok := asFormError("project", err)
		if !ok {
			return err
		}
		return s.renderProject(w, r, v, me, p, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: "Project saved."})
	return see303(w, r, s.cfg.accountPath(me.Account)+p.Page())
}

// projectView is a project's page: a page of its tasks under the list's
// filters, the new-task form and the team.
type projectView struct {
	Project taskd.Project
	List    *taskList
	People  []taskd.Member
	Team    []taskd.PersonRef // the project's members
	Outside []taskd.Member    // the account's members not on the team
	Error   *formError
	Values  map[string][]string
	Base    string // the account's path
	Tags    []taskd.Tag
	TagForm *tagForm // nil without project tags or for readers
	// Board is the board's address when the account has a task status
	// group; "" otherwise.
	Board string
	// CanWrite hides the forms from readers.
	CanWrite bool
	// Budget is the spending against max_time and max_money; nil
	// without a budget.
	Budget *budgetView
	// Files are the project's own files; Me who looks at them.
	Files []taskd.File
	Me    taskd.Actor
	// Shown is the notice of the form sent before (a saved edit).
	Shown *flash
	// FieldValues are the project's custom field values; FieldInputs
	// the edit form's inputs of the account's fields of projects.
	FieldValues []taskd.FieldValue
	FieldInputs []fieldInput
}

func (s *Server) projectPage(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	p, ok, err := s.pathProject(w, r, me)
	if !ok {
		return err
	}
	return s.renderProject(w, r, v, me, p, http.StatusOK, nil)
}

// pathProject reads the path's project, if the viewer sees it; ok false
// when it answered.
func (s *Server) pathProject(w http.ResponseWriter, r *http.Request, me member) (taskd.Project, bool, error) {
	id, err := taskd.ParseID(r.PathValue("project"), "project")
	var p taskd.Project
	if err == nil {
		p, err = s.cfg.Projects.Project(r.Context(), me.viewer(), id)
	}
	if taskd.IsNotFound(err) {
		return p, false, s.failWith(w, r, err)
	}
	return p, err == nil, err
}

func (s *Server) renderProject(w http.ResponseWriter, r *http.Request, v *view, me member, p taskd.Project, status int, fe *formError) error {
	acct := me.Account
	ctx := r.Context()
	people, err := s.cfg.Accounts.Members(ctx, acct.ID)
	if err != nil {
		return err
	}
	team, err := s.cfg.Teams.ProjectMembers(ctx, acct.ID, p.ID)
	if err != nil {
		return err
	}
	base := s.cfg.accountPath(acct)
	list, err := s.listTasks(ctx, taskd.TaskQuery{Viewer: me.viewer(), ProjectID: p.ID},
		readListFilter(r.URL.Query(), taskd.SortTree), s.today(v), base+p.Page())
	if err != nil {
		return err
	}
	list.People, list.Return = people, "project"
	if me.Member.Role.Can(taskd.PermWork) && p.Status != taskd.ProjectArchive {
		list.QuickAdd = newQuickAdd(v, base, p.ID, nil, "project", list.Query(), fe, r)
	}
	if list.Tags, err = s.cfg.Tags.Tags(ctx, acct.ID, taskd.TagsOfTasks, "", "", ""); err != nil {
		return err
	}
	pv := &projectView{Project: p, List: list, People: people, Team: team, Error: fe, Values: r.PostForm,
		Base: base, CanWrite: me.Member.Role.Can(taskd.PermWork), Shown: s.takeFlash(w, r)}
	if pv.Tags, pv.TagForm, err = s.objectTags(ctx, v, me, taskd.TagsOfProjects, p.ID, base+p.Page()+"tags", fe, "projecttags"); err != nil {
		return err
	}
	if pv.Budget, err = s.projectBudget(ctx, me, p); err != nil {
		return err
	}
	files, err := s.cfg.Files.Files(ctx, taskd.FileQuery{Viewer: me.viewer(), ProjectID: p.ID})
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.Owner == taskd.OwnerProject {
			pv.Files = append(pv.Files, f)
		}
	}
	fields, values, err := s.objectValues(ctx, me, taskd.ObjectProject, p.ID)
	if err != nil {
		return err
	}
	pv.FieldValues = values
	pv.FieldInputs = fieldInputs("edit-project", fields, values, r.PostForm, errorFor(fe, "project") != "")
	pv.Me = me.actor()
	if slices.ContainsFunc(list.Tags, func(t taskd.Tag) bool { return t.Group.Type == "status" }) {
		pv.Board = base + p.Page() + "board" // Page ends with its slash
	}
	for _, m := range people {
		if !slices.ContainsFunc(team, func(t taskd.PersonRef) bool { return t.ID == m.ID }) {
			pv.Outside = append(pv.Outside, m)
		}
	}
	v.Title, v.Data = p.Name, pv
	return s.renderStatus(w, r, status, "project.html", v)
}

// today is the viewer's date, in their time zone.
func (s *Server) today(v *view) time.Time {
	y, m, d := s.cfg.Now().In(v.Zone()).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// createTask adds a task, or a subtask when the form names a parent (a
// task or a subtask; a sub-subtask's page has no such form).
func (s *Server) createTask(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	p, ok, err := s.pathProject(w, r, me)
	if !ok {
		return err
	}
	var parent int64
	if pv := r.PostFormValue("id_parent"); pv != "" {
		// The parent comes in the form: a task of this project the person
		// sees, or there is no such task.
		var pt taskd.Task
		if parent, err = taskd.ParseID(pv, "parent"); err == nil {
			pt, err = s.cfg.Tasks.Task(r.Context(), me.viewer(), parent)
		}
		if err == nil && pt.ProjectID != p.ID {
			err = taskd.NotFound("task")
		}
		if taskd.IsNotFound(err) {
			s.fail(w, r, http.StatusNotFound, "There is no such task.")
			return nil
		}
		if err != nil {
			return err
		}
	}
	in, err := wire.ParseTaskInput(formParams(r))
	if err == nil && in.Name == nil {
		err = taskd.Required("title")
	}
	var t taskd.Task
	var files []int64
	if err == nil { // the files first: a refused file leaves no task behind
		files, err = s.receiveFiles(r, me.actor())
	}
	if err == nil {
		in.Files = files
		t, err = s.cfg.Tasks.CreateTask(r.Context(), me.actor(), p.ID, parent, in)
	}
	if err != nil {
		s.dropFiles(r, me.actor(), files)
	}
	if err != nil {
		fe, ok := asFormError("task", err)
		if !ok {
			return err
		}
		if parent != 0 && r.PostFormValue("return") != "project" {
			return s.renderTaskByID(w, r, v, me, parent, formStatus(w, err), &formError{Form: "subtask", Field: fe.Field, Message: fe.Message})
		}
		return s.renderProject(w, r, v, me, p, formStatus(w, err), fe)
	}
	if parent != 0 && r.PostFormValue("return") != "project" {
		return see303(w, r, s.cfg.accountPath(acct)+t.ParentPage())
	}
	// The page comes back at the new task's row, which is marked (:target),
	// and its notice says what was added, with a link to it (the task may
	// sort onto another page of the list).
	s.setFlash(w, flash{Message: "Added “" + t.Name + "”.", Link: s.cfg.accountPath(acct) + t.Page(), LinkText: "Open it"})
	return see303(w, r, s.cfg.accountPath(acct)+p.Page()+"#task"+strconv.FormatInt(t.ID, 10))
}

// byFolder groups projects by folder title, the folders by title and the
// projects without one last.
func byFolder(projects []taskd.Project) []projectFolder {
	var out []projectFolder
	for _, p := range projects {
		i := slices.IndexFunc(out, func(f projectFolder) bool { return f.Title == p.Folder })
		if i < 0 {
			out = append(out, projectFolder{Title: p.Folder})
			i = len(out) - 1
		}
		out[i].Projects = append(out[i].Projects, p)
	}
	slices.SortStableFunc(out, func(a, b projectFolder) int {
		if (a.Title == "") != (b.Title == "") {
			return strings.Compare(b.Title, a.Title) // "" sorts last
		}
		return strings.Compare(a.Title, b.Title)
	})
	return out
}
