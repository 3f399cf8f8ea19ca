package taskd

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
