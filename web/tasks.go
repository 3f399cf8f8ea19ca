package web

import (
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// taskRoutes are the addresses of a task's page and its changes, and of its
// comments.
func (s *Server) taskRoutes() []route {
	return []route{
		{"GET /a/{slug}/project/{project}/{task}/{$}", s.page(s.inAccount(taskd.PermRead, s.taskPage))},
		{"GET /a/{slug}/project/{project}/{parent}/{task}/{$}", s.page(s.inAccount(taskd.PermRead, s.taskPage))},
		{"POST /a/{slug}/tasks/{task}/update", s.form(s.inAccount(taskd.PermWork, s.taskChange("edit", s.updateTask)))},
		{"POST /a/{slug}/tasks/{task}/complete", s.form(s.inAccount(taskd.PermWork, s.taskChange("status", s.completeTask)))},
		{"POST /a/{slug}/tasks/{task}/reopen", s.form(s.inAccount(taskd.PermWork, s.taskChange("status", s.reopenTask)))},
		{"POST /a/{slug}/tasks/{task}/delete", s.form(s.inAccount(taskd.PermWork, s.taskChange("status", s.deleteTask)))},
		{"POST /a/{slug}/tasks/{task}/comments", s.upload(s.inAccount(taskd.PermWork, s.taskChange("comment", s.addComment)))},
		{"POST /a/{slug}/comments/{comment}/update", s.form(s.inAccount(taskd.PermWork, s.commentChange(false)))},
		{"POST /a/{slug}/comments/{comment}/delete", s.form(s.inAccount(taskd.PermWork, s.commentChange(true)))},
	}
}

// taskFuncs are the template functions of a task's page and the task form.
func taskFuncs() template.FuncMap {
	return template.FuncMap{
		"fields":     newTaskFields,
		"priorities": func() []int { return []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10} },
		"canEdit":    func(by taskd.Actor, c taskd.Comment) bool { return taskd.CanChangeComment(by, c) == nil },
	}
}

// taskView is a task's page: the task, its subtasks (with theirs) and its
// comments.
type taskView struct {
	Task taskd.Task
	// Parent and Grandparent are the tasks above a subtask and a
	// sub-subtask, for the breadcrumb; nil above a top-level task.
	Parent, Grandparent *taskd.Task
	// Subtasks are the rows of the task's subtasks, each followed by
	// its own subtasks' rows (Sub).
	Subtasks []taskRow
	Project  taskd.Project
	Comments []taskd.Comment
	People   []taskd.Member
	// Subscribers follow the task; Subscribed is whether the viewer does.
	Subscribers []taskd.PersonRef
	Subscribed  bool
	CanWrite    bool
	Tags        []taskd.Tag
	TagForm     *tagForm // nil without tags or for readers
	// FieldValues are the task's custom field values; FieldInputs the
	// edit form's inputs of the account's fields of tasks.
	FieldValues []taskd.FieldValue
	FieldInputs []fieldInput
	Costs       *costsView
	// Files are the task's own files; CommentFiles those of its
	// comments, by comment.
	Files        []taskd.File
	CommentFiles map[int64][]taskd.File
	Me           taskd.Actor
	Error        *formError
	Values       map[string][]string
	Base         string

	// Relations are the "Blocked by / Blocks" section (relations.go).
	Relations *relationsView
}

// taskPage serves /project/{project}/{task}/ and /project/{project}/{parent}/{task}/:
// the task must be of that project (and parent), or the page is not found.
func (s *Server) taskPage(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	t, ok, err := s.pathTask(w, r, me, r.PathValue("task"))
	if !ok {
		return err
	}
	if strconv.FormatInt(t.ProjectID, 10) != r.PathValue("project") || parentOf(r) != t.ParentID {
		s.fail(w, r, http.StatusNotFound, "There is no such task.")
		return nil
	}
	return s.renderTask(w, r, v, me, t, http.StatusOK, nil)
}

func parentOf(r *http.Request) int64 {
	p, _ := strconv.ParseInt(r.PathValue("parent"), 10, 64)
	return p
}

// pathTask reads a task by id, if the viewer sees it; ok false when it
// answered.
func (s *Server) pathTask(w http.ResponseWriter, r *http.Request, me member, raw string) (taskd.Task, bool, error) {
	id, err := taskd.ParseID(raw, "task")
	var t taskd.Task
	if err == nil {
		t, err = s.cfg.Tasks.Task(r.Context(), me.viewer(), id)
	}
	if taskd.IsNotFound(err) {
		return t, false, s.failWith(w, r, err)
	}
	return t, err == nil, err
}

func (s *Server) renderTaskByID(w http.ResponseWriter, r *http.Request, v *view, me member, id int64, status int, fe *formError) error {
	t, err := s.cfg.Tasks.Task(r.Context(), me.viewer(), id)
	if err != nil {
		return err
	}
	return s.renderTask(w, r, v, me, t, status, fe)
}

func (s *Server) renderTask(w http.ResponseWriter, r *http.Request, v *view, me member, t taskd.Task, status int, fe *formError) error {
	acct := me.Account
	ctx := r.Context()
	tv := &taskView{Task: t, Error: fe, Values: r.PostForm, Base: s.cfg.accountPath(acct), Me: me.actor()}
	var err error
	if t.CanHaveSubtasks() {
		subtree, err := s.cfg.Tasks.Tasks(ctx, taskd.TaskQuery{Viewer: me.viewer(), TaskID: t.ID})
		if err != nil {
			return err
		}
		for _, root := range taskd.BuildTree(subtree) {
			if root.ID == t.ID {
				tv.Task.Children, tv.Subtasks = root.Children, subtaskRows(root.Children)
			}
		}
	}
	for _, up := range []struct {
		id  int64
		dst **taskd.Task
	}{{t.ParentID, &tv.Parent}, {t.GrandparentID, &tv.Grandparent}} {
		if up.id == 0 {
			continue
		}
		above, err := s.cfg.Tasks.Task(ctx, me.viewer(), up.id)
		if err != nil {
			return err
		}
		*up.dst = &above
	}
	if tv.Project, err = s.cfg.Projects.Project(ctx, me.viewer(), t.ProjectID); err != nil {
		return err
	}
	if tv.Costs, err = s.taskCosts(ctx, v, me, t, tv.Project); err != nil {
		return err
	}
	files, err := s.cfg.Files.Files(ctx, taskd.FileQuery{Viewer: me.viewer(), TaskID: t.ID})
	if err != nil {
		return err
	}
	tv.CommentFiles = map[int64][]taskd.File{}
	for _, f := range files {
		if f.Owner == taskd.OwnerComment {
			tv.CommentFiles[f.OwnerID] = append(tv.CommentFiles[f.OwnerID], f)
		} else if f.Owner == taskd.OwnerTask {
			tv.Files = append(tv.Files, f)
		}
	}
	if tv.Comments, err = s.cfg.Comments.Comments(ctx, me.viewer(), t.ID); err != nil {
		return err
	}
	if tv.People, err = s.cfg.Accounts.Members(ctx, acct.ID); err != nil {
		return err
	}
	if tv.Subscribers, err = s.cfg.Teams.Subscribers(ctx, acct.ID, t.ID); err != nil {
		return err
	}
	if tv.Tags, tv.TagForm, err = s.objectTags(ctx, v, me, taskd.TagsOfTasks, t.ID, tv.Base+"/tasks/"+strconv.FormatInt(t.ID, 10)+"/tags", fe, "tags"); err != nil {
		return err
	}
	fields, values, err := s.objectValues(ctx, me, taskd.ObjectTask, t.ID)
	if err != nil {
		return err
	}
	tv.FieldValues = values
	tv.FieldInputs = fieldInputs("edit", fields, values, r.PostForm, errorFor(fe, "edit") != "")
	tv.Subscribed = slices.ContainsFunc(tv.Subscribers, func(p taskd.PersonRef) bool { return p.ID == me.Member.ID })
	tv.CanWrite = me.Member.Role.Can(taskd.PermWork)
	if tv.Relations, err = s.relationsOf(ctx, r, me, t); err != nil {
		return err
	}
	v.Title, v.Data = t.Name, tv
	return s.renderStatus(w, r, status, "task.html", v)
}

// subtaskRows are the rows of a task page's subtasks: each subtask, then
// its own subtasks indented under it.
func subtaskRows(children []taskd.Task) []taskRow {
	var rows []taskRow
	for _, c := range children {
		rows = append(rows, taskRow{Task: c})
		for _, g := range c.Children {
			rows = append(rows, taskRow{Task: g, Sub: true})
		}
	}
	return rows
}

// taskChange runs a change on the path's task and returns to its page; a
// rule the change breaks is shown on the page.
func (s *Server) taskChange(form string, change func(r *http.Request, me member, t taskd.Task) (string, error)) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		acct := me.Account
		t, ok, err := s.pathTask(w, r, me, r.PathValue("task"))
		if !ok {
			return err
		}
		back := r.PostFormValue("return")
		fromProject := back == "project"
		to, err := change(r, me, t)
		if err != nil {
			fe, ok := asFormError(form, err)
			if !ok {
				return err
			}
			status := formStatus(w, err)
			if fromProject {
				fe.Form = "tree"
				p, err := s.cfg.Projects.Project(r.Context(), me.viewer(), t.ProjectID)
				if err != nil {
					return err
				}
				return s.renderProject(w, r, v, me, p, status, fe)
			}
			return s.renderTaskByID(w, r, v, me, t.ID, status, fe)
		}
		switch {
		case fromProject:
			to = taskd.ProjectPage(t.ProjectID) + listQuery(r.PostFormValue("back")) + "#task" + strconv.FormatInt(t.ID, 10)
		case back == "my" && err == nil:
			to = "/my" + listQuery(r.PostFormValue("back"))
		case back == "board" && err == nil: // the board of the group in "back"; the card is gone from it
			group, perr := strconv.ParseInt(r.PostFormValue("back"), 10, 64)
			if perr != nil || group < 0 {
				group = 0 // the project's first status group
			}
			to = boardPage(t.ProjectID, group)
		case back == "parent" && t.ParentID != 0: // a subtask's row on its parent's page, or a sub-subtask's on its grandparent's
			to = t.ParentPage()
			if t.GrandparentID != 0 && r.PostFormValue("back") == strconv.FormatInt(t.GrandparentID, 10) {
				to = taskd.TaskPage(t.ProjectID, 0, t.GrandparentID)
			}
			to += "#task" + strconv.FormatInt(t.ID, 10)
		case to == "":
			to = t.Page()
		}
		return see303(w, r, s.cfg.accountPath(acct)+to)
	}
}

func (s *Server) updateTask(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	in, err := wire.ParseTaskInput(formParams(r))
	if err != nil {
		return "", err
	}
	if in.Fields, err = formFieldValues(r); err != nil {
		return "", err
	}
	u, err := s.cfg.Tasks.UpdateTask(r.Context(), by, t.ID, in)
	if err != nil {
		return "", err
	}
	return s.shiftOfferPage(r.Context(), by, t, u), nil
}

func (s *Server) completeTask(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	_, err := s.cfg.Tasks.CompleteTask(r.Context(), by, t.ID)
	return "", err
}

func (s *Server) reopenTask(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	_, err := s.cfg.Tasks.ReopenTask(r.Context(), by, t.ID)
	return "", err
}

func (s *Server) deleteTask(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	to := taskd.ProjectPage(t.ProjectID)
	if t.ParentID != 0 {
		to = t.ParentPage()
	}
	return to, s.cfg.Tasks.DeleteTask(r.Context(), by, t.ID)
}

func (s *Server) addComment(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	text, err := wire.ParseCommentText(formParams(r))
	if err != nil {
		return "", err
	}
	// The files first: a refused file leaves no comment behind.
	ids, err := s.receiveFiles(r, by)
	if err != nil {
		return "", err
	}
	c, err := s.cfg.Comments.PostComment(r.Context(), by, t.ID, taskd.CommentInput{Text: text, Files: ids})
	if err != nil {
		s.dropFiles(r, by, ids)
	}
	return c.Page(), err
}

// commentChange edits or deletes the path's comment, if taskd.CanChangeComment
// allows (the store checks it again in the change's transaction).
func (s *Server) commentChange(del bool) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		acct := me.Account
		id, err := taskd.ParseID(r.PathValue("comment"), "comment")
		var c taskd.Comment
		if err == nil {
			c, err = s.cfg.Comments.Comment(r.Context(), me.viewer(), id)
		}
		by := me.actor()
		if err == nil {
			err = taskd.CanChangeComment(by, c)
		}
		if err != nil {
			return s.failWith(w, r, err)
		}
		if del {
			err = s.cfg.Comments.DeleteComment(r.Context(), by, c.ID)
		} else {
			var text string
			if text, err = wire.ParseCommentText(formParams(r)); err == nil {
				c, err = s.cfg.Comments.UpdateComment(r.Context(), by, c.ID, text)
			}
		}
		if err != nil {
			fe, ok := asFormError("comment"+strconv.FormatInt(c.ID, 10), err)
			if !ok {
				return err
			}
			return s.renderTaskByID(w, r, v, me, c.TaskID, http.StatusUnprocessableEntity, fe)
		}
		if del {
			return see303(w, r, s.cfg.accountPath(acct)+c.TaskPage)
		}
		return see303(w, r, s.cfg.accountPath(acct)+c.Page())
	}
}

// listQuery is the query string of the list a change was made from ("?…"
// from its form's "back" field), rebuilt from its parsed values so that
// nothing but a query string goes into the address; "" when there is none.
func listQuery(back string) string {
	q, err := url.ParseQuery(strings.TrimPrefix(back, "?"))
	if err != nil || len(q) == 0 || !strings.HasPrefix(back, "?") {
		return ""
	}
	return "?" + q.Encode()
}

// taskFields fills the task form's shared fields.
type taskFields struct {
	ID                   string
	People               []taskd.Member
	Priority             int
	Assignee, Start, End string
}

func newTaskFields(id string, people []taskd.Member, priority any, assignee, start, end string) taskFields {
	f := taskFields{ID: id, People: people, Priority: 1, Assignee: assignee, Start: start, End: end}
	switch p := priority.(type) {
	case int:
		f.Priority = p
	case string:
		if n, err := wire.ParsePriority(p); err == nil {
			f.Priority = n
		}
	}
	if f.Assignee == "" {
		f.Assignee = "NOONE"
	}
	return f
}
