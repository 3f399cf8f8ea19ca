package taskd

import (
	"strconv"
	"time"
)

// Task statuses.
const (
	StatusActive = "active"
	StatusDone   = "done"
)

// Priority bounds (compat).
const (
	MinPriority = 0
	MaxPriority = 10
)

// MaxLevels is how deep tasks nest: a task, its subtasks and theirs, the
// sub-subtasks, as Worksection's docs and PHP SDK show (spec §2.1,
// conflict C6). A sub-subtask cannot have subtasks (CanAddSubtask).
const MaxLevels = 3

// Task is a unit of work in a project. A task with a ParentID is a subtask,
// and one whose parent is a subtask too (GrandparentID) a sub-subtask.
type Task struct {
	ID        int64
	AccountID int64
	ProjectID int64
	ParentID  int64 // 0 for a top-level task
	// GrandparentID is the parent's parent: set for a sub-subtask only.
	GrandparentID int64
	Name          string
	Text          string
	Status        string
	Priority      int
	Author        PersonRef
	Assignee      PersonRef // Nobody, Anyone or a member
	DateAdded     time.Time
	DateStart     string
	DateEnd       string
	DateClosed    time.Time
	Project       ProjectRef
	Children      []Task
	// MaxMinutes and MaxCents are the task's budget (max_time,
	// max_money); 0 when not set.
	MaxMinutes int64
	MaxCents   int64
}

// TaskPage is the page of a task relative to the account URL (compat).
func TaskPage(projectID, parentID, id int64) string {
	p := ProjectPage(projectID)
	if parentID != 0 {
		p += strconv.FormatInt(parentID, 10) + "/"
	}
	return p + strconv.FormatInt(id, 10) + "/"
}

// Page is the task's page relative to the account URL.
func (t Task) Page() string { return TaskPage(t.ProjectID, t.ParentID, t.ID) }

// ParentPage is the page of the task's parent; "" for a top-level task.
func (t Task) ParentPage() string {
	if t.ParentID == 0 {
		return ""
	}
	return TaskPage(t.ProjectID, t.GrandparentID, t.ParentID)
}

// Level is how deep the task is: 1 for a top-level task, 2 for a subtask,
// 3 (MaxLevels) for a sub-subtask.
func (t Task) Level() int {
	switch {
	case t.GrandparentID != 0:
		return 3
	case t.ParentID != 0:
		return 2
	}
	return 1
}

// TopID is the id of the task's top-level task: its grandparent, its
// parent, or itself.
func (t Task) TopID() int64 {
	switch {
	case t.GrandparentID != 0:
		return t.GrandparentID
	case t.ParentID != 0:
		return t.ParentID
	}
	return t.ID
}

// CanHaveSubtasks reports whether subtasks may be added under t as far as
// its level goes: a sub-subtask may have none.
func (t Task) CanHaveSubtasks() bool { return t.Level() < MaxLevels }

// TaskInput holds the fields of a task to create or change; nil means "leave
// as is". AssigneeEmail is a member's e-mail, ANY or NOONE.
type TaskInput struct {
	Name          *string
	Text          *string
	Priority      *int
	AssigneeEmail *string
	DateStart     *string // storage form, already parsed
	DateEnd       *string
	// Subscribe lists members, by e-mail, to subscribe to the task (on
	// creation); the author and the assignee are subscribed anyway.
	Subscribe []string
	// Hidden lists members, by e-mail, who alone (with the author) may
	// see the task (on creation); empty: everyone who sees the project.
	Hidden []string
	// Tags, when set, are the task's tags (ids or exact titles): on
	// creation its first, on an update its whole new set.
	Tags *[]string
	// MaxMinutes and MaxCents set the budget; 0 clears it.
	MaxMinutes *int64
	MaxCents   *int64
	// Files are uploads of the author's, not attached yet, to attach to
	// the new task in the same transaction (on creation).
	Files []int64
	// Fields are values of the account's custom fields of tasks, by
	// field id, as sent (the store reads them with the field's type); ""
	// clears a value. Fields not named keep theirs.
	Fields map[int64]string
	// Import, set by an import only, is recorded with the new task in
	// its transaction (ImportRecord); a change ignores it.
	Import *ImportRecord
}

// CanAddSubtask reports whether a subtask may be added under parent: a
// task or a subtask that is not done. A sub-subtask as parent is invalid
// ("parent"; the API's code 5): tasks nest MaxLevels deep at most.
func CanAddSubtask(parent Task) error {
	if !parent.CanHaveSubtasks() {
		return Invalid("parent", "Tasks nest three levels deep at most: a sub-subtask cannot have subtasks")
	}
	if parent.Status == StatusDone {
		return Conflict(ReasonTaskClosed, "parent", "Task is closed")
	}
	return nil
}

// CanComplete reports whether t may be completed, given how many of its
// own subtasks (its children, at any level) are still active. Applied at
// each level, it keeps a done task's whole subtree done: a subtask with
// active sub-subtasks cannot be completed, nor its parent while it is
// active.
func CanComplete(t Task, activeChildren int) error {
	if t.Status == StatusDone {
		return Conflict(ReasonAlreadyInState, "task", "Task is already closed")
	}
	if activeChildren > 0 {
		return Conflict(ReasonOpenSubtasks, "task", "Task has children")
	}
	return nil
}

// CanReopen reports whether t may be reopened, given its parent's status
// ("" for a top-level task). The parent alone decides: a done task's
// subtasks are all done (CanComplete), so an active parent's own parent
// is active too.
func CanReopen(t Task, parentStatus string) error {
	if t.Status == StatusActive {
		return Conflict(ReasonAlreadyInState, "task", "Task is already active")
	}
	if parentStatus == StatusDone {
		return Conflict(ReasonParentDone, "task", "Parent task is done")
	}
	return nil
}

// BuildTree nests tasks under their parents, at every level, keeping the
// order of tasks. Top-level tasks come first; a task whose parent is not
// in tasks comes after them, at the top level with its own subtasks,
// grouped with its siblings in the order the first of them appears.
func BuildTree(tasks []Task) []Task {
	ids, parents := make([]int64, len(tasks)), make([]int64, len(tasks))
	for i, t := range tasks {
		ids[i], parents[i] = t.ID, t.ParentID
	}
	shape := ShapeTree(ids, parents)
	var nest func(i int) Task
	nest = func(i int) Task {
		t := tasks[i]
		if kids := shape.Children[t.ID]; len(kids) > 0 {
			t.Children = make([]Task, len(kids))
			for j, k := range kids {
				t.Children[j] = nest(k)
			}
		}
		return t
	}
	out := make([]Task, len(shape.Top))
	for j, i := range shape.Top {
		out[j] = nest(i)
	}
	return out
}

// TreeShape is the tree BuildTree makes of a list of tasks, by their
// indexes in the list: the top-level entries in order, and the children
// of each task (by id), in order. It lets a long list be nested from its
// ids alone and read a few trees at a time.
type TreeShape struct {
	Top      []int
	Children map[int64][]int
}

// ShapeTree is the TreeShape of the tasks with these ids and parent ids
// (0 for a top-level task), in this order, as BuildTree nests them.
func ShapeTree(ids, parents []int64) TreeShape {
	in := make(map[int64]bool, len(ids))
	for _, id := range ids {
		in[id] = true
	}
	s := TreeShape{Children: make(map[int64][]int)} // parent → indexes of its children
	orphans := make(map[int64][]int)                // missing parent → indexes
	var missing []int64
	for i, parent := range parents {
		switch {
		case parent == 0:
			s.Top = append(s.Top, i)
		case in[parent]:
			s.Children[parent] = append(s.Children[parent], i)
		default:
			if _, ok := orphans[parent]; !ok {
				missing = append(missing, parent)
			}
			orphans[parent] = append(orphans[parent], i)
		}
	}
	for _, pid := range missing {
		s.Top = append(s.Top, orphans[pid]...)
	}
	return s
}
