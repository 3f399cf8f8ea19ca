package taskd

import "context"

// Types of task relations (spec/account-api.md §2.1): the task a relation
// comes from must finish (finish-to-start) or start (start-to-start)
// before the task it goes to can start.
const (
	RelationFinishToStart = "finish-to-start"
	RelationStartToStart  = "start-to-start"
)

// RelationTypes lists the types, the default first.
var RelationTypes = []string{RelationFinishToStart, RelationStartToStart}

// ValidRelationType reports whether s names a type of relation.
func ValidRelationType(s string) bool {
	return s == RelationFinishToStart || s == RelationStartToStart
}

// RelationStore keeps the relations between the tasks of an account
// (docs/api.md "Task relations"). A relation is read only where the viewer
// sees both of its tasks; a change to one is a change of the dependent
// task (To): an update_task whose event names the other task, so that it
// too is seen only by those who see both. Deleting a task deletes its
// relations, with no event of theirs.
type RelationStore interface {
	// Relations returns the relations of the tasks with the ids, by task:
	// each task's From (the tasks it depends on) and To (those that
	// depend on it), in the order of the other task's id. A task without
	// relations the viewer sees has no entry.
	Relations(ctx context.Context, v Viewer, taskIDs []int64) (map[int64]TaskRelations, error)
	// RelatedTasks returns the tasks a task depends on (from) and those
	// that depend on it (to), with their types, in the order of their
	// ids; none for a task the viewer does not see.
	RelatedTasks(ctx context.Context, v Viewer, taskID int64) (from, to []RelatedTask, err error)
	// Dependents returns the tasks that depend on a task, directly or
	// through others, by relations of either type, each once, in the
	// order they are reached; the walk follows only relations the viewer
	// sees, so a task hidden from them ends it there. Not found ("task")
	// unless the viewer sees the task.
	Dependents(ctx context.Context, v Viewer, taskID int64) ([]Task, error)
	// AddRelation makes r.To depend on r.From, if by may work (forbidden
	// otherwise), and writes update_task of r.To with relation_from in
	// "new". Not found ("task_from", "task_to") for a task by does not
	// see. Invalid: an unknown type ("type"), a task related to itself
	// and a relation that would close a cycle ("id_task_to",
	// ErrRelationCycle): a cycle of any length and types, through tasks
	// by does not see too, refused with words that name only r's tasks.
	// A conflict ("id_task_to", ErrRelationExists) when the two tasks
	// are related already, either way and of either type. A refused
	// relation writes nothing.
	AddRelation(ctx context.Context, by Actor, r Relation) error
	// DeleteRelation removes the relation from one task to another, if by
	// may work, and writes update_task of the dependent task with
	// relation_from null in "new" and the relation in "old". Not found:
	// "task_from", "task_to" as AddRelation, "relation" when there is no
	// relation that way.
	DeleteRelation(ctx context.Context, by Actor, fromID, toID int64) error
	// ShiftDependents moves the start and due dates of a task's
	// Dependents (as by sees them) by days, in one transaction, each an
	// ordinary update_task, and returns the tasks it moved; tasks with
	// neither date stay. Every date lands where update_task would take
	// it (ShiftTaskDates), or the shift is refused as a whole: invalid on
	// "days", naming the first task that would leave the range, with
	// nothing moved. Forbidden unless by may work; not found ("task")
	// unless by sees the task.
	ShiftDependents(ctx context.Context, by Actor, taskID int64, days int) ([]Task, error)
}

// Relation is a dependency between two tasks of an account: To depends
// on From.
type Relation struct {
	From, To int64
	Type     string
}

// RelatedTask is the other end of one of a task's relations, as a page
// shows it: the task with its name and page.
type RelatedTask struct {
	Type string
	Task Task
}

// TaskRelations are one task's relations: From are those that come to it
// (the tasks it depends on, "blocked by"), To those that go from it (the
// tasks that depend on it, "blocks").
type TaskRelations struct {
	From, To []Relation
}

// CheckRelation checks what a relation must be by itself: a known type
// between two tasks. Codes: the type, a task related to itself.
func CheckRelation(r Relation) error {
	if !ValidRelationType(r.Type) {
		return Invalid("type", "Relation type must be %s or %s", RelationFinishToStart, RelationStartToStart)
	}
	if r.From == r.To {
		return Invalid("id_task_to", "A task cannot depend on itself")
	}
	return nil
}

// MaxShiftDays bounds how far a shift of dependents moves dates, either
// way.
const MaxShiftDays = 3650

// CheckShiftDays refuses a shift of dependents beyond MaxShiftDays.
func CheckShiftDays(days int) error {
	if days > MaxShiftDays || days < -MaxShiftDays {
		return Invalid("days", "Shift by at most %d days", MaxShiftDays)
	}
	return nil
}

// ErrRelationCycle is the error of a relation that would close a cycle.
func ErrRelationCycle(r Relation) *Error {
	return Invalid("id_task_to", "Task %d already depends on task %d, directly or through others: the relation would make a cycle", r.From, r.To)
}

// ErrRelationExists is the error of a second relation between two tasks.
func ErrRelationExists(r Relation) *Error {
	return Conflict(ReasonNone, "id_task_to", "Tasks %d and %d are already related", r.From, r.To)
}

// NoticeRelation is what followers of the dependent task are told of a
// relation added or removed. The other task is not named: a follower may
// not see it.
func NoticeRelation(by Actor, added bool) string {
	if added {
		return by.Person.Name + " made the task depend on another task"
	}
	return by.Person.Name + " removed a dependency of the task"
}
