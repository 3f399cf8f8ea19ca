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

// Task is a unit of work in a project. A task with a ParentID is a subtask;
// there are two levels only.
type Task struct {
	ID         int64
	AccountID  int64
	ProjectID  int64
	ParentID   int64 // 0 for a top-level task
	Name       string
	Text       string
	Status     string
	Priority   int
	Author     PersonRef
	Assignee   PersonRef // Nobody, Anyone or a member
	DateAdded  time.Time
	DateStart  string
	DateEnd    string
	DateClosed time.Time
	Project    ProjectRef
	Children   []Task
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
}

// CanAddSubtask reports whether a subtask may be added under parent.
func CanAddSubtask(parent Task) error {
	if parent.ParentID != 0 {
		return Invalid("parent", "Subtasks cannot have subtasks")
	}
	if parent.Status == StatusDone {
		return Conflict(ReasonTaskClosed, "parent", "Task is closed")
	}
	return nil
}

// CanComplete reports whether t may be completed, given how many of its
// subtasks are still active.
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
// ("" for a top-level task).
func CanReopen(t Task, parentStatus string) error {
	if t.Status == StatusActive {
		return Conflict(ReasonAlreadyInState, "task", "Task is already active")
	}
	if parentStatus == StatusDone {
		return Conflict(ReasonParentDone, "task", "Parent task is done")
	}
	return nil
}

// BuildTree nests subtasks under their parents, keeping the order of tasks.
// Subtasks whose parent is not in tasks are returned at the top level.
func BuildTree(tasks []Task) []Task {
	index := make(map[int64]int, len(tasks))
	var top []Task
	children := make(map[int64][]Task)
	for _, t := range tasks {
		if t.ParentID == 0 {
			index[t.ID] = len(top)
			top = append(top, t)
		} else {
			children[t.ParentID] = append(children[t.ParentID], t)
		}
	}
	for pid, kids := range children {
		if i, ok := index[pid]; ok {
			top[i].Children = kids
			delete(children, pid)
		}
	}
	for _, t := range tasks {
		if kids, ok := children[t.ParentID]; ok && t.ParentID != 0 {
			top = append(top, kids...)
			delete(children, t.ParentID)
		}
	}
	return top
}
