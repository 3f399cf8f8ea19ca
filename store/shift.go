package store

import (
	"context"
	"strings"
	"time"

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
// It returns the tasks it moved.
func (db *DB) ShiftDependents(ctx context.Context, by taskd.Actor, taskID int64, days int) ([]taskd.Task, error) {
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
		for _, id := range ids {
			t, err := db.task(ctx, tx, by.Viewer(), id, false)
			if err != nil {
				return err
			}
			if t.DateStart == "" && t.DateEnd == "" {
				continue
			}
			start, end := shiftDate(t.DateStart, days), shiftDate(t.DateEnd, days)
			t, err = db.updateTask(ctx, tx, by, id, taskd.TaskInput{DateStart: &start, DateEnd: &end})
			if err != nil {
				return err
			}
			moved = append(moved, t)
		}
		return nil
	})
	return moved, err
}

// shiftDate moves a stored date (YYYY-MM-DD) by days; "" stays "".
func shiftDate(d string, days int) string {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return d
	}
	return t.AddDate(0, 0, days).Format(time.DateOnly)
}
