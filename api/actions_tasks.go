package api

import (
	"github.com/taskd/taskd"
	"github.com/taskd/taskd/filter"
	"github.com/taskd/taskd/wire"
)

func (c *call) view() taskView {
	return taskView{viewer: c.personID(), text: c.extra("text")}
}

func taskFilter(c *call) (string, error) {
	return c.choice("filter", taskd.StatusActive, taskd.StatusDone)
}

func getTasks(c *call) (any, error) {
	pid, err := c.id("id_project", CodeProjectInvalid)
	if err != nil {
		return nil, err
	}
	status, err := taskFilter(c)
	if err != nil {
		return nil, err
	}
	version, err := c.projectVersion(pid)
	if err != nil {
		return nil, err
	}
	// Not cached: none of these (a field's name, a relation with a task
	// of another project) changes the project's version.
	if c.extra("subscribers") || c.extra("files") || c.extra("custom_fields") || c.extra("relations") || c.extra("hidden") {
		tasks, err := c.store.Tasks(c.ctx, taskd.TaskQuery{Viewer: c.viewer(), ProjectID: pid, Status: status})
		if err != nil {
			return nil, err
		}
		v := c.view()
		if c.extra("subscribers") {
			if v.subscribers, err = c.store.ProjectSubscribers(c.ctx, c.accountID(), pid); err != nil {
				return nil, err
			}
		}
		if err := c.withTags(&v, tasks); err != nil {
			return nil, err
		}
		if err := c.withFiles(&v, pid); err != nil {
			return nil, err
		}
		if err := c.withTaskValues(&v, tasks, false); err != nil {
			return nil, err
		}
		if err := c.withRelations(&v, tasks); err != nil {
			return nil, err
		}
		if err := c.withHidden(&v, tasks); err != nil {
			return nil, err
		}
		return ok(v.renderAll(taskd.BuildTree(tasks))), nil
	}
	key := listKey{account: c.accountID(), project: pid, version: version, viewer: c.personID(), filter: status, text: c.extra("text")}
	if body, hit := c.lists.get(key); hit {
		return body, nil
	}
	tasks, err := c.store.Tasks(c.ctx, taskd.TaskQuery{Viewer: c.viewer(), ProjectID: pid, Status: status})
	if err != nil {
		return nil, err
	}
	v := c.view()
	if err := c.withTags(&v, tasks); err != nil {
		return nil, err
	}
	body, err := render(ok(v.renderAll(taskd.BuildTree(tasks))))
	if err != nil {
		return nil, taskd.Internal("render tasks", err)
	}
	c.lists.put(key, body)
	return body, nil
}

// getAllTasks answers the account's tasks as they are read, a few trees
// at a time (stream.go): an account of 100,000 tasks is never held whole.
func getAllTasks(c *call) (any, error) {
	status, err := taskFilter(c)
	if err != nil {
		return nil, err
	}
	v := c.view()
	v.project = true
	if err := c.withFiles(&v, 0); err != nil {
		return nil, err
	}
	q := taskd.TaskQuery{Viewer: c.viewer(), Status: status}
	return streamBody(func(put func(any) error) error {
		return c.store.TaskTrees(c.ctx, q, func(tops []taskd.Task) error {
			if err := c.withTags(&v, tops); err != nil {
				return err
			}
			if err := c.withTaskValues(&v, flatten(tops), false); err != nil {
				return err
			}
			if err := c.withRelations(&v, flatten(tops)); err != nil {
				return err
			}
			if err := c.withHidden(&v, flatten(tops)); err != nil {
				return err
			}
			for _, t := range tops {
				if err := put(v.render(t)); err != nil {
					return err
				}
			}
			return nil
		})
	}), nil
}

// flatten lists tasks and their subtasks, at every level.
func flatten(tasks []taskd.Task) []taskd.Task {
	var out []taskd.Task
	for _, t := range tasks {
		out = append(out, t)
		out = append(out, flatten(t.Children)...)
	}
	return out
}

func searchTasks(c *call) (any, error) {
	q := taskd.TaskQuery{Viewer: c.viewer()}
	var err error
	if q.ProjectID, err = c.optID("id_project", CodeProjectInvalid); err != nil {
		return nil, err
	}
	if q.TaskID, err = c.optID("id_task", CodeTaskInvalid); err != nil {
		return nil, err
	}
	if c.p["id_project"] == "" && c.p["id_task"] == "" && c.p["email_user_from"] == "" && c.p["email_user_to"] == "" && c.p["filter"] == "" {
		return nil, failf(CodeFieldRequired, "filter", "Give at least one of id_project, id_task, email_user_from, email_user_to, filter")
	}
	if f := c.p["filter"]; f != "" {
		if q.Filter, err = filter.ParseTasks(f); err != nil {
			return nil, err
		}
		if filter.HasCustom(q.Filter) {
			fields, err := c.store.CustomFields(c.ctx, c.accountID(), taskd.ObjectTask)
			if err != nil {
				return nil, err
			}
			if q.Filter, err = filter.Bind(q.Filter, fields); err != nil {
				return nil, err
			}
		}
	}
	// Without a project, archived projects are left out (spec §4).
	q.ActiveProjects = q.ProjectID == 0
	if q.Status, err = c.choice("status", taskd.StatusActive, taskd.StatusDone); err != nil {
		return nil, err
	}
	for name, dst := range map[string]*string{"email_user_from": &q.AuthorEmail, "email_user_to": &q.AssigneeEmail} {
		v := c.p[name]
		if v == "" || v == "ANY" || v == "NOONE" {
			*dst = v
			continue
		}
		if *dst, err = taskd.NormalizeEmail(v); err != nil {
			return nil, failf(CodeInvalidValue, name, "E-mail address is invalid")
		}
	}
	if q.AuthorEmail == "ANY" || q.AuthorEmail == "NOONE" {
		return nil, failf(CodeInvalidValue, "email_user_from", "E-mail address is invalid")
	}
	tasks, err := c.store.Tasks(c.ctx, q)
	if err != nil {
		return nil, err
	}
	v := c.view()
	v.project = true
	if err := c.withTags(&v, tasks); err != nil {
		return nil, err
	}
	if err := c.withFiles(&v, 0); err != nil {
		return nil, err
	}
	if err := c.withTaskValues(&v, tasks, false); err != nil {
		return nil, err
	}
	if err := c.withRelations(&v, tasks); err != nil {
		return nil, err
	}
	return ok(v.renderAll(tasks)), nil
}

// withChildren loads the subtasks of a task or a subtask for rendering,
// each with its own (child): a task's subtree, as far as the viewer sees.
func (c *call) withChildren(t taskd.Task) (taskd.Task, error) {
	if !t.CanHaveSubtasks() {
		return t, nil
	}
	subtree, err := c.store.Tasks(c.ctx, taskd.TaskQuery{Viewer: c.viewer(), TaskID: t.ID})
	if err != nil {
		return t, err
	}
	for _, root := range taskd.BuildTree(subtree) {
		if root.ID == t.ID {
			t.Children = root.Children
		}
	}
	return t, nil
}

// renderOne renders a task with its subtasks, and their custom field
// values with extra=custom_fields or when values is set (the call set
// some).
func (c *call) renderOne(t taskd.Task, values bool) (any, error) {
	t, err := c.withChildren(t)
	if err != nil {
		return nil, err
	}
	v := taskView{viewer: c.personID(), text: true, project: true}
	if err := c.withTags(&v, []taskd.Task{t}); err != nil {
		return nil, err
	}
	if err := c.withTaskValues(&v, []taskd.Task{t}, values); err != nil {
		return nil, err
	}
	if c.extra("subscribers") {
		if v.subscribers, err = c.store.ProjectSubscribers(c.ctx, c.accountID(), t.ProjectID); err != nil {
			return nil, err
		}
	}
	if err := c.withFiles(&v, t.ProjectID); err != nil {
		return nil, err
	}
	if err := c.withRelations(&v, flatten([]taskd.Task{t})); err != nil {
		return nil, err
	}
	if err := c.withHidden(&v, flatten([]taskd.Task{t})); err != nil {
		return nil, err
	}
	return ok(v.render(t)), nil
}

func getTask(c *call) (any, error) {
	id, err := c.id("id_task", CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	t, err := c.store.Task(c.ctx, c.viewer(), id)
	if err != nil {
		return nil, err
	}
	return c.renderOne(t, false)
}

func postTask(c *call) (any, error) {
	pid, err := c.id("id_project", CodeProjectInvalid)
	if err != nil {
		return nil, err
	}
	parent, err := c.optID("id_parent", CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	if _, err := c.required("title"); err != nil {
		return nil, err
	}
	in, err := wire.ParseTaskInput(c.opt)
	if err != nil {
		return nil, err
	}
	if in.Fields, err = c.fieldValues(); err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	if in.Files, err = c.files(by); err != nil {
		return nil, err
	}
	t, err := c.store.CreateTask(c.ctx, by, pid, parent, in)
	if err != nil {
		return nil, err
	}
	c.uploads = nil // attached
	v := taskView{viewer: c.personID(), text: true, project: true}
	if in.Tags != nil { // a new task has no subtasks, and tags only when given
		if err := c.withTags(&v, []taskd.Task{t}); err != nil {
			return nil, err
		}
	}
	if err := c.withTaskValues(&v, []taskd.Task{t}, in.Fields != nil); err != nil {
		return nil, err
	}
	return ok(v.render(t)), nil
}

func updateTask(c *call) (any, error) {
	id, err := c.id("id_task", CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	in, err := wire.ParseTaskInput(c.opt)
	if err != nil {
		return nil, err
	}
	if in.Fields, err = c.fieldValues(); err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	t, err := c.store.UpdateTask(c.ctx, by, id, in)
	if err != nil {
		return nil, err
	}
	return c.renderOne(t, in.Fields != nil)
}

func taskStatus(complete bool) func(*call) (any, error) {
	return func(c *call) (any, error) {
		id, by, err := c.target("id_task", CodeTaskInvalid)
		if err != nil {
			return nil, err
		}
		change := c.store.ReopenTask
		if complete {
			change = c.store.CompleteTask
		}
		t, err := change(c.ctx, by, id)
		if err != nil {
			return nil, err
		}
		return c.renderOne(t, false)
	}
}

func deleteTask(c *call) (any, error) {
	id, by, err := c.target("id_task", CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	return ok(nil), c.store.DeleteTask(c.ctx, by, id)
}

// withTags loads the tags of the tasks and of their subtasks, at every
// level, for rendering.
func (c *call) withTags(v *taskView, tasks []taskd.Task) error {
	var ids []int64
	var add func([]taskd.Task)
	add = func(tasks []taskd.Task) {
		for _, t := range tasks {
			ids = append(ids, t.ID)
			add(t.Children)
		}
	}
	add(tasks)
	var err error
	v.tags, err = c.store.ObjectTags(c.ctx, c.viewer(), taskd.TagsOfTasks, ids)
	return err
}

// withFiles sets the tasks' own files, with extra=files: those of a
// project, or of the account (0).
func (c *call) withFiles(v *taskView, projectID int64) error {
	if !c.extra("files") {
		return nil
	}
	files, err := c.store.Files(c.ctx, taskd.FileQuery{Viewer: c.viewer(), ProjectID: projectID})
	if err != nil {
		return err
	}
	v.files = filesOf(files, taskd.OwnerTask)
	return nil
}

// withTaskValues sets the custom field values of the tasks and their
// subtasks, with extra=custom_fields or when always is set.
func (c *call) withTaskValues(v *taskView, tasks []taskd.Task, always bool) error {
	var ids []int64
	for _, t := range tasks {
		ids = append(ids, t.ID)
		for _, k := range t.Children {
			ids = append(ids, k.ID)
		}
	}
	var err error
	v.values, err = c.withValues(taskd.ObjectTask, ids, always)
	return err
}
