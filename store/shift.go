package store

import (
	"context"
	"strings"

	"github.com/taskd/taskd"
)

// Dependents returns the tasks that depend on a task, directly or through
// others, by relations of either type, in the order they are reached:
// those the viewer sees, reached by relations the viewer sees (a task
// hidden from them ends the walk there). Not found ("task") unless the
// viewer sees the task.
func (db *DB) Dependents(ctx context.Context, v taskd.Viewer, taskID int64) ([]taskd.Task, error) {
	if _, err := db.Task(ctx, v, taskID); err != nil {
		return nil, err
	}
	ids, err := db.dependents(ctx, db.reader, v, taskID)
	if err != nil || len(ids) == 0 {
		return []taskd.Task{}, err
	}
	return db.tasksByID(ctx, db.reader, v, ids)
}

// dependents walks the relations from taskID breadth first, as Dependents.
func (db *DB) dependents(ctx context.Context, q querier, v taskd.Viewer, taskID int64) ([]int64, error) {
	seen := relationsSeen(v)
	reached := map[int64]bool{taskID: true}
	var out []int64
	for frontier := []int64{taskID}; len(frontier) > 0; {
		args := []any{v.AccountID}
		for _, id := range frontier {
			args = append(args, id)
		}
		next, err := all(ctx, q, "dependents", db.d.q(`SELECT DISTINCT r.to_task_id`+relationsFrom+`
			WHERE r.account_id = ? AND r.from_task_id IN (?`+strings.Repeat(`, ?`, len(frontier)-1)+`)`+seen.where()+
			` ORDER BY r.to_task_id`), scanID, append(args, seen.args...)...)
		if err != nil {
			return nil, err
		}
		frontier = frontier[:0]
		for _, id := range next {
			if !reached[id] {
				reached[id] = true
				out = append(out, id)
				frontier = append(frontier, id)
			}
		}
	}
	return out, nil
}

// tasksByID reads the tasks with the ids that the viewer sees, in the
// ids' order.
func (db *DB) tasksByID(ctx context.Context, q querier, v taskd.Viewer, ids []int64) ([]taskd.Task, error) {
	out := make([]taskd.Task, 0, len(ids))
	for _, id := range ids {
		t, err := db.task(ctx, q, v, id, false)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// ShiftDependents moves the start and due dates of the tasks that depend
// on a task (Dependents, as by sees them) by days, in one transaction,
// each an ordinary update_task; a task without dates is left as it is.
// It returns the tasks it moved. Every date lands where update_task would
// take it (taskd.ShiftTaskDates): when any would not, the shift is refused
// as a whole, invalid on "days" naming that task, before anything moved.
// Beyond taskd.MaxShiftDays either way it is refused before any read.
func (db *DB) ShiftDependents(ctx context.Context, by taskd.Actor, taskID int64, days int) ([]taskd.Task, error) {
	if err := taskd.CheckShiftDays(days); err != nil {
		return nil, err
	}
	var moved []taskd.Task
	err := db.change(ctx, by, "shift dependents", func(tx querier) error {
		moved = nil // a retried transaction starts again
		if _, err := db.task(ctx, tx, by.Viewer(), taskID, false); err != nil {
			return err
		}
		if days == 0 {
			return nil
		}
		ids, err := db.dependents(ctx, tx, by.Viewer(), taskID)
		if err != nil {
			return err
		}
		shifts, err := db.shifts(ctx, tx, by.Viewer(), ids, days)
		if err != nil {
			return err
		}
		for _, sh := range shifts {
			t, err := db.updateTask(ctx, tx, by, sh.id, taskd.TaskInput{DateStart: &sh.start, DateEnd: &sh.end})
			if err != nil {
				return err
			}
			moved = append(moved, t)
		}
		return nil
	})
	return moved, err
}

// shift is where one dependent's dates go.
type shift struct {
	id         int64
	start, end string
}

// shifts reads the tasks with the ids and places each one's dates days
// later, skipping those without dates; the first that would leave the
// dates update_task takes refuses them all.
func (db *DB) shifts(ctx context.Context, tx querier, v taskd.Viewer, ids []int64, days int) ([]shift, error) {
	var out []shift
	for _, id := range ids {
		t, err := db.task(ctx, tx, v, id, false)
		if err != nil {
			return nil, err
		}
		if t.DateStart == "" && t.DateEnd == "" {
			continue
		}
		start, end, err := taskd.ShiftTaskDates(t, days)
		if err != nil {
			return nil, err
		}
		out = append(out, shift{id: id, start: start, end: end})
	}
	return out, nil
}
