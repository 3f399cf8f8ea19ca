package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
)

// Task relations (issue 35): task_relations holds, per pair of tasks of an
// account, that to_task_id depends on from_task_id (taskd.Relation). A
// relation is read only where the viewer sees both of its tasks, by the
// rule of store/viewer.go; a change to one is an update_task of the
// dependent task, its event naming the other task (subject.related).

// relationsSeen is the condition that the viewer sees both tasks of the
// relation r: f is its from task, o its to task.
func relationsSeen(v taskd.Viewer) cond {
	return and(taskSeen(v, "f"), taskSeen(v, "o"))
}

// relationsFrom selects relations r with both tasks, f and o, joined.
const relationsFrom = ` FROM task_relations r JOIN tasks f ON f.id = r.from_task_id JOIN tasks o ON o.id = r.to_task_id`

// Relations returns the relations of the tasks whose ids are given, by
// task: each task's From (the tasks it depends on) and To (those that
// depend on it), only those whose both tasks the viewer sees. A task with
// none has no entry. The timeline and extra=relations read it.
func (db *DB) Relations(ctx context.Context, v taskd.Viewer, taskIDs []int64) (map[int64]taskd.TaskRelations, error) {
	out := map[int64]taskd.TaskRelations{}
	want := make(map[int64]bool, len(taskIDs))
	for _, id := range taskIDs {
		want[id] = true
	}
	seen := relationsSeen(v)
	got := map[[2]int64]bool{}
	for from := 0; from < len(taskIDs); from += queuePage {
		chunk := taskIDs[from:min(from+queuePage, len(taskIDs))]
		in := `(?` + strings.Repeat(`, ?`, len(chunk)-1) + `)`
		args := []any{v.AccountID}
		for range 2 {
			for _, id := range chunk {
				args = append(args, id)
			}
		}
		rels, err := all(ctx, db.reader, "relations", db.d.q(`SELECT r.from_task_id, r.to_task_id, r.type`+relationsFrom+`
			WHERE r.account_id = ? AND (r.from_task_id IN `+in+` OR r.to_task_id IN `+in+`)`+seen.where()+
			` ORDER BY r.from_task_id, r.to_task_id`), scanRelation, append(args, seen.args...)...)
		if err != nil {
			return nil, err
		}
		for _, r := range rels {
			key := [2]int64{r.From, r.To}
			if got[key] { // both tasks in the list, in two chunks
				continue
			}
			got[key] = true
			if want[r.To] {
				tr := out[r.To]
				tr.From = append(tr.From, r)
				out[r.To] = tr
			}
			if want[r.From] {
				tr := out[r.From]
				tr.To = append(tr.To, r)
				out[r.From] = tr
			}
		}
	}
	return out, nil
}

func scanRelation(s scanner) (taskd.Relation, error) {
	var r taskd.Relation
	return r, s.Scan(&r.From, &r.To, &r.Type)
}

// RelatedTasks returns the tasks a task depends on (from) and those that
// depend on it (to), with their types, in the order of their ids: only
// relations whose both tasks the viewer sees, so none for a task the
// viewer does not see. One query, for the task page.
func (db *DB) RelatedTasks(ctx context.Context, v taskd.Viewer, taskID int64) (from, to []taskd.RelatedTask, err error) {
	type related struct {
		rt       taskd.RelatedTask
		incoming bool
	}
	seen := relationsSeen(v)
	rows, err := all(ctx, db.reader, "related tasks", db.d.q(`SELECT r.type, r.to_task_id = ?, `+taskFields+relationsFrom+`
		JOIN tasks t ON t.id = CASE WHEN r.to_task_id = ? THEN r.from_task_id ELSE r.to_task_id END `+taskJoins+`
		WHERE r.account_id = ? AND (r.from_task_id = ? OR r.to_task_id = ?)`+seen.where()+` ORDER BY t.id`), func(s scanner) (related, error) {
		var x related
		var row taskRow
		err := s.Scan(append([]any{&x.rt.Type, &x.incoming}, row.dest()...)...)
		x.rt.Task = row.task()
		return x, err
	}, append([]any{taskID, taskID, v.AccountID, taskID, taskID}, seen.args...)...)
	if err != nil {
		return nil, nil, err
	}
	for _, x := range rows {
		if x.incoming {
			from = append(from, x.rt)
		} else {
			to = append(to, x.rt)
		}
	}
	return from, to, nil
}

// AddRelation makes r.To depend on r.From, and writes update_task of
// r.To with the relation as its field relation_from. Both tasks must be
// ones by sees (not found: "task_from", "task_to"). Refused: an unknown
// type, a task related to itself, a second relation between the two
// tasks (either way), one that would close a cycle.
func (db *DB) AddRelation(ctx context.Context, by taskd.Actor, r taskd.Relation) error {
	return db.addRelation(ctx, by, r, nil)
}

// AddImportedRelation adds a relation as AddRelation does, with an
// import's record (taskd.ImportStore).
func (db *DB) AddImportedRelation(ctx context.Context, by taskd.Actor, r taskd.Relation, rec taskd.ImportRecord) error {
	return db.addRelation(ctx, by, r, &rec)
}

// addRelation adds a relation with the record of its import, if any.
func (db *DB) addRelation(ctx context.Context, by taskd.Actor, r taskd.Relation, rec *taskd.ImportRecord) error {
	if err := taskd.CheckRelation(r); err != nil {
		return err
	}
	return db.change(ctx, by, "add relation", func(tx querier) error {
		from, to, err := db.relationTasks(ctx, tx, by, r)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM task_relations
			WHERE (from_task_id = ? AND to_task_id = ?) OR (from_task_id = ? AND to_task_id = ?)`),
			r.From, r.To, r.To, r.From).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return taskd.ErrRelationExists(r)
		}
		if err := db.checkNoCycle(ctx, tx, r); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO task_relations (account_id, from_task_id, to_task_id, type, created_at)
			VALUES (?, ?, ?, ?, ?)`), by.AccountID, r.From, r.To, r.Type, ms(db.now())); err != nil {
			return err
		}
		if err := db.writeImported(ctx, tx, by, taskd.ImportRelation, r.To, rec); err != nil {
			return err
		}
		if err := db.notify(ctx, tx, by, to, taskd.NoticeRelation(by, true), nil); err != nil {
			return err
		}
		return db.emitRelation(ctx, tx, by, to, from, nil, relationField(r))
	})
}

// DeleteRelation removes the relation from one task to another; not
// found ("relation") when there is none, and writes update_task of the
// dependent task with relation_from null.
func (db *DB) DeleteRelation(ctx context.Context, by taskd.Actor, fromID, toID int64) error {
	return db.change(ctx, by, "delete relation", func(tx querier) error {
		r := taskd.Relation{From: fromID, To: toID}
		from, to, err := db.relationTasks(ctx, tx, by, r)
		if err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx, db.d.q(`SELECT type FROM task_relations WHERE from_task_id = ? AND to_task_id = ? AND account_id = ?`),
			fromID, toID, by.AccountID).Scan(&r.Type)
		if errors.Is(err, sql.ErrNoRows) {
			return taskd.NotFound("relation")
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM task_relations WHERE from_task_id = ? AND to_task_id = ?`), fromID, toID); err != nil {
			return err
		}
		if err := db.notify(ctx, tx, by, to, taskd.NoticeRelation(by, false), nil); err != nil {
			return err
		}
		return db.emitRelation(ctx, tx, by, to, from, relationField(r), nil)
	})
}

// relationTasks reads a relation's two tasks as by sees them, having
// taken the account's lock on relations (PostgreSQL), so that two
// relations added at once cannot close a cycle between them.
func (db *DB) relationTasks(ctx context.Context, tx querier, by taskd.Actor, r taskd.Relation) (from, to taskd.Task, err error) {
	if db.d.name == "postgres" {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(35, CAST($1 % 2147483647 AS INTEGER))`, by.AccountID); err != nil {
			return from, to, err
		}
	}
	if from, err = db.task(ctx, tx, by.Viewer(), r.From, false); err != nil {
		return from, to, taskd.NotFound("task_from")
	}
	if to, err = db.task(ctx, tx, by.Viewer(), r.To, false); err != nil {
		return from, to, taskd.NotFound("task_to")
	}
	return from, to, nil
}

// checkNoCycle refuses r when r.From depends on r.To already, directly or
// through other tasks, by relations of either type: whoever sees them,
// since a cycle is one for everyone.
func (db *DB) checkNoCycle(ctx context.Context, tx querier, r taskd.Relation) error {
	var n int
	err := tx.QueryRowContext(ctx, db.d.q(`WITH RECURSIVE down (id) AS (SELECT CAST(? AS BIGINT)
		UNION SELECT x.to_task_id FROM task_relations x JOIN down ON x.from_task_id = down.id)
		SELECT COUNT(*) FROM down WHERE id = ?`), r.To, r.From).Scan(&n)
	if err != nil {
		return err
	}
	if n > 0 {
		return taskd.ErrRelationCycle(r)
	}
	return nil
}

// relationField is a relation as the field relation_from of its event:
// {"type", "task"} with the task it comes from.
func relationField(r taskd.Relation) map[string]any {
	return map[string]any{"relation_from": jsonObject(map[string]string{"type": r.Type, "task": strconv.FormatInt(r.From, 10)})}
}

// emitRelation writes update_task of the dependent task to, naming from.
func (db *DB) emitRelation(ctx context.Context, tx querier, by taskd.Actor, to, from taskd.Task, before, after map[string]any) error {
	if before == nil {
		before = map[string]any{}
	}
	if after == nil {
		after = map[string]any{}
	}
	return db.emitChange(ctx, tx, by, taskd.ActionUpdate, taskd.ObjectTask, to.ID, to.Page(), to.Project,
		subject{task: to.ID, related: from.ID}, before, after)
}
