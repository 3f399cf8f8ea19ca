package work

import (
	"context"

	"github.com/taskd/taskd"
)

// MaxShiftDays bounds how far ShiftDependents moves dates, either way.
const MaxShiftDays = 3650

// AddRelation makes r.To depend on r.From (issue 35): refused when it
// would close a cycle, relate a task to itself or a second time.
func (s *Tasks) AddRelation(ctx context.Context, by taskd.Actor, r taskd.Relation) error {
	return s.store.AddRelation(ctx, by, r)
}

// DeleteRelation removes the relation from one task to another.
func (s *Tasks) DeleteRelation(ctx context.Context, by taskd.Actor, fromID, toID int64) error {
	return s.store.DeleteRelation(ctx, by, fromID, toID)
}

// ShiftDependents moves the dates of the tasks that depend on a task,
// transitively, by days (at most MaxShiftDays either way), each an
// update_task, and returns them.
func (s *Tasks) ShiftDependents(ctx context.Context, by taskd.Actor, taskID int64, days int) ([]taskd.Task, error) {
	if days > MaxShiftDays || days < -MaxShiftDays {
		return nil, taskd.Invalid("days", "Shift by at most %d days", MaxShiftDays)
	}
	return s.store.ShiftDependents(ctx, by, taskID, days)
}
