package api

import (
	"strconv"

	"github.com/taskd/taskd"
)

// guard keeps a token's guest or reader to the projects they are on the
// team of (taskd.CanSeeProject): the project, task or comment an action
// names is not found for them when it lies outside, exactly as an id of
// nothing is, and c.sees filters the lists. Everyone else sees the whole
// account. Ids that do not parse are left to the action.
func (c *call) guard() error {
	if err := c.guardHidden(); err != nil {
		return err
	}
	p := c.who.person
	if p == nil || !p.Role.Limited() {
		return nil
	}
	ids, err := c.store.MemberProjects(c.ctx, c.accountID(), p.ID)
	if err != nil {
		return err
	}
	c.visible = make(map[int64]bool, len(ids))
	for _, id := range ids {
		c.visible[id] = true
	}
	if id, ok := c.paramID("id_project"); ok && !c.visible[id] {
		return taskd.NotFound("project")
	}
	if id, ok := c.paramID("id_task"); ok {
		if t, err := c.store.Task(c.ctx, c.accountID(), id); err == nil && !c.visible[t.ProjectID] {
			return taskd.NotFound("task")
		}
	}
	if id, ok := c.paramID("id_parent"); ok {
		if t, err := c.store.Task(c.ctx, c.accountID(), id); err == nil && !c.visible[t.ProjectID] {
			return taskd.NotFound("parent")
		}
	}
	if id, ok := c.paramID("id_comment"); ok {
		if cm, err := c.store.Comment(c.ctx, c.accountID(), id); err == nil {
			if t, err := c.store.Task(c.ctx, c.accountID(), cm.TaskID); err == nil && !c.visible[t.ProjectID] {
				return taskd.NotFound("comment")
			}
		}
	}
	if id, ok := c.paramID("id_costs"); ok {
		if x, err := c.store.Cost(c.ctx, c.accountID(), id); err == nil && !c.visible[x.ProjectID] {
			return taskd.NotFound("cost")
		}
	}
	if id, ok := c.paramID("id_file"); ok {
		if f, err := c.store.File(c.ctx, c.accountID(), id); err == nil && f.Owner != taskd.OwnerNone && !c.visible[f.ProjectID] {
			return taskd.NotFound("file")
		}
	}
	return nil
}

// paramID returns an id parameter that parses.
func (c *call) paramID(name string) (int64, bool) {
	id, err := strconv.ParseInt(c.p[name], 10, 64)
	return id, err == nil && id > 0
}

// sees reports whether the caller may see the project.
func (c *call) sees(projectID int64) bool { return c.visible == nil || c.visible[projectID] }

// visibleTasks keeps the tasks of projects the caller may see.
func (c *call) visibleTasks(tasks []taskd.Task) []taskd.Task {
	if c.visible == nil {
		return tasks
	}
	out := tasks[:0:0]
	for _, t := range tasks {
		if c.sees(t.ProjectID) {
			out = append(out, t)
		}
	}
	return out
}

// guardHidden keeps a token's person from tasks and comments hidden from
// them (taskd.HiddenStore): not found, as an id of nothing.
func (c *call) guardHidden() error {
	p := c.who.person
	if p == nil {
		return nil
	}
	for name, object := range map[string]string{"id_task": "task", "id_parent": "parent"} {
		if id, ok := c.paramID(name); ok {
			if seen, err := c.store.CanSeeTask(c.ctx, c.accountID(), p.ID, id); err != nil || !seen {
				if err == nil {
					err = taskd.NotFound(object)
				}
				return err
			}
		}
	}
	if id, ok := c.paramID("id_comment"); ok {
		if seen, err := c.store.CanSeeComment(c.ctx, c.accountID(), p.ID, id); err != nil || !seen {
			if err == nil {
				err = taskd.NotFound("comment")
			}
			return err
		}
	}
	if id, ok := c.paramID("id_costs"); ok {
		if x, err := c.store.Cost(c.ctx, c.accountID(), id); err == nil {
			if seen, err := c.store.CanSeeTask(c.ctx, c.accountID(), p.ID, x.TaskID); err != nil || !seen {
				if err == nil {
					err = taskd.NotFound("cost")
				}
				return err
			}
		}
	}
	if id, ok := c.paramID("id_file"); ok {
		if f, err := c.store.File(c.ctx, c.accountID(), id); err == nil {
			if seen, err := c.seesFile(p.ID, f); err != nil || !seen {
				if err == nil {
					err = taskd.NotFound("file")
				}
				return err
			}
		}
	}
	return nil
}

// seesFile reports whether the person may see what a file is attached
// to: its task (and the task's parent), or its comment.
func (c *call) seesFile(personID int64, f taskd.File) (bool, error) {
	switch f.Owner {
	case taskd.OwnerComment:
		return c.store.CanSeeComment(c.ctx, c.accountID(), personID, f.OwnerID)
	case taskd.OwnerTask:
		return c.store.CanSeeTask(c.ctx, c.accountID(), personID, f.TaskID)
	}
	return true, nil
}
