package importer

import (
	"context"
	"slices"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
)

// taskWrite is what is written of a source task; its fingerprint decides
// whether a later run changes the task.
type taskWrite struct {
	Name, Text           string
	Priority             int
	Assignee             string // a member's e-mail, ANY or NOONE
	Start, End           string
	Tags, Subscribers    []string
	MaxMinutes, MaxCents int64
	Done                 bool
}

// ensureProjects reads the source's projects and the mapped ones when the
// projects family did not run (--only), opening them for the run.
func (r *run) ensureProjects(ctx context.Context) error {
	if r.sourceProjects != nil {
		return nil
	}
	list, err := r.src.Projects(ctx)
	if err != nil {
		return err
	}
	done, err := r.mappings(ctx, "project")
	if err != nil {
		return err
	}
	for _, p := range list {
		if m, ok := done[p.ID]; ok {
			r.projects[p.ID] = m.LocalID
			if err := r.openProject(ctx, m.LocalID); err != nil {
				return err
			}
		}
	}
	r.sourceProjects = list
	return nil
}

// taskMap fills r.tasks from the mappings when the tasks family did not run.
func (r *run) taskMap(ctx context.Context) error {
	if len(r.tasks) > 0 {
		return nil
	}
	done, err := r.mappings(ctx, "task")
	if err != nil {
		return err
	}
	for id, m := range done {
		r.tasks[id] = m.LocalID
	}
	return nil
}

// tasksStep makes or updates every task of the imported projects, each
// before its subtasks.
func (r *run) tasksStep(ctx context.Context, c *Count) error {
	if err := r.ensureProjects(ctx); err != nil {
		return err
	}
	done, err := r.mappings(ctx, "task")
	if err != nil {
		return err
	}
	hidden, err := r.mappings(ctx, "task_hidden")
	if err != nil {
		return err
	}
	r.hiddenRead = true
	for _, p := range r.sourceProjects {
		pid, ok := r.projects[p.ID]
		if !ok {
			r.skip(FamilyTasks, p.ID, "the tasks of project %q: the project was not imported", p.Name)
			continue
		}
		tree, err := r.src.Tasks(ctx, p.ID)
		if err != nil {
			return err
		}
		var failed error
		var order []*source.Task
		source.Walk(tree, func(t *source.Task) {
			order = append(order, t)
			if failed == nil {
				failed = r.task(ctx, c, pid, t, done, hidden)
			}
		})
		if failed != nil {
			return failed
		}
		if err := r.completions(ctx, order); err != nil {
			return err
		}
		r.keep(p.ID, order)
	}
	return nil
}

// completions completes the tasks done in the source, subtasks before
// their parents (order is the walk's, each task before its subtasks).
// A run killed before it finds them open and completes them next time.
func (r *run) completions(ctx context.Context, order []*source.Task) error {
	if r.opts.DryRun {
		return nil
	}
	for i := len(order) - 1; i >= 0; i-- {
		t := order[i]
		id, ok := r.tasks[t.ID]
		if !ok || t.Status != "done" {
			continue
		}
		local, err := r.dst.Store.Task(ctx, r.owner.Viewer(), id)
		if err != nil || local.Status == taskd.StatusDone {
			continue
		}
		if _, err := r.dst.Store.CompleteTask(ctx, r.actor(t.Author), id); err != nil && !isConflict(err) {
			r.skip(FamilyTasks, t.ID, "completing %q: %v", t.Name, err)
		}
	}
	return nil
}

func (r *run) task(ctx context.Context, c *Count, projectID int64, t *source.Task, done, hidden map[string]taskd.ImportMapping) error {
	c.Read++
	parent := int64(0)
	if t.ParentID != "" {
		id, ok := r.tasks[t.ParentID]
		if !ok {
			r.skip(FamilyTasks, t.ID, "task %q: its parent was not imported", t.Name)
			return nil
		}
		parent = id
	}
	what := "task " + quote(t.Name)
	_, mapped := done[t.ID]
	o := dated{family: FamilyTasks, id: t.ID, what: what, mapped: mapped}
	w, in, subs, waits := r.taskInput(t, o)
	by, _, authorWaits := r.author(t.Author, taskd.WaitTaskAuthor)
	var viewers []string
	if t.HiddenKnown {
		r.hiddenShown = true
		if len(t.Hidden) > 0 {
			list, faithful := r.hiddenList(FamilyTasks, t.ID, what, t.Hidden, t.Author, by)
			if !faithful && !mapped {
				return nil
			}
			viewers = list
		}
	}
	id, err := r.sync(ctx, c, done, object{family: FamilyTasks, kind: "task", id: t.ID, what: what,
		fingerprint: fingerprint(w), added: r.added(o, t.Added), waits: append(waits, authorWaits...),
		create: func(ctx context.Context, rec *taskd.ImportRecord) (int64, error) {
			in := in
			in.Subscribe, in.Hidden, in.Import = subs, viewers, rec
			if parent != 0 {
				// A subtask is added under an open task only: a parent done
				// here is reopened, and completed again at the end of the
				// project (completions).
				if pt, err := r.dst.Store.Task(ctx, r.owner.Viewer(), parent); err == nil && pt.Status == taskd.StatusDone {
					if _, err := r.dst.Store.ReopenTask(ctx, r.owner, parent); err != nil {
						return 0, err
					}
				}
			}
			made, err := r.dst.Store.CreateTask(ctx, by, projectID, parent, in)
			return made.ID, err
		},
		update: func(ctx context.Context, local int64) error { return r.updateTask(ctx, local, w, in, subs) },
		// A task completed or reopened here is brought back to the
		// source's state.
		current: func(ctx context.Context, local int64) bool {
			lt, err := r.dst.Store.Task(ctx, r.owner.Viewer(), local)
			return err == nil && (lt.Status == taskd.StatusDone) == w.Done
		},
	})
	if id == 0 || err != nil {
		return err
	}
	r.tasks[t.ID] = id
	if t.HiddenKnown {
		return r.hiddenKept(ctx, FamilyTasks, "task", t.ID, what, id, viewers, hidden)
	}
	return nil
}

// updateTask brings a mapped task to what the source has; subs are its
// subscribers who are members.
func (r *run) updateTask(ctx context.Context, id int64, w taskWrite, in taskd.TaskInput, subs []string) error {
	local, err := r.dst.Store.Task(ctx, r.owner.Viewer(), id)
	if err != nil {
		return err
	}
	if local.Status == taskd.StatusDone && !w.Done {
		if _, err := r.dst.Store.ReopenTask(ctx, r.owner, id); err != nil {
			return err
		}
	}
	if _, err := r.dst.Store.UpdateTask(ctx, r.owner, id, in); err != nil {
		return err
	}
	for _, e := range subs {
		if err := r.dst.Store.Subscribe(ctx, r.owner, id, e, true); err != nil && !isConflict(err) {
			return err
		}
	}
	return nil
}

// taskInput is what is written of t (w, its fingerprint, names invited
// people as members), the input that writes it now, its subscribers who
// are members, and what waits on it for invited people. o names t for
// the rule of its dates (run.date).
func (r *run) taskInput(t *source.Task, o dated) (w taskWrite, in taskd.TaskInput, subs []string, waits []taskd.WaitingRole) {
	w = taskWrite{Name: t.Name, Text: t.Text, Priority: t.Priority, MaxMinutes: t.MaxMinutes, MaxCents: t.MaxCents,
		Done: t.Status == "done", Assignee: "NOONE"}
	assignee := "NOONE"
	switch {
	case t.Assignee.Anyone():
		w.Assignee, assignee = "ANY", "ANY"
	case t.Assignee.Nobody():
	default:
		switch e, waiting := r.due(t.Assignee); {
		case e == "":
			r.skip(FamilyTasks, t.ID, "the assignee of %q, %s, is not a member: left unassigned", t.Name, t.Assignee.Email)
		case waiting:
			w.Assignee = e
			waits = append(waits, taskd.WaitingRole{Email: e, Role: taskd.WaitTaskAssignee})
			r.skip(FamilyTasks, t.ID, "the assignee of %q, %s, is invited: assigned when they accept", t.Name, e)
		default:
			w.Assignee, assignee = e, e
		}
	}
	var start, end *string
	w.Start, start = r.date(o, "date_start", t.Start)
	w.End, end = r.date(o, "date_end", t.End)
	for _, s := range t.Subscribers {
		e, waiting := r.due(s)
		if e == "" || slices.Contains(w.Subscribers, e) {
			continue
		}
		w.Subscribers = append(w.Subscribers, e)
		if waiting {
			waits = append(waits, taskd.WaitingRole{Email: e, Role: taskd.WaitTaskSubscriber})
		} else {
			subs = append(subs, e)
		}
	}
	slices.Sort(w.Subscribers)
	slices.Sort(subs)
	w.Tags = r.localTags(FamilyTasks, t.ID, taskd.TagsOfTasks, t.Tags)
	if t.TimeEnd != "" {
		r.skip(FamilyTasks, t.ID, "the due time %s of %q: taskd keeps a due date without a time", t.TimeEnd, t.Name)
	}
	in = taskd.TaskInput{Name: &w.Name, Text: &w.Text, Priority: &w.Priority, AssigneeEmail: &assignee,
		DateStart: start, DateEnd: end, Tags: &w.Tags, MaxMinutes: &w.MaxMinutes, MaxCents: &w.MaxCents}
	return w, in, subs, waits
}
