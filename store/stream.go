package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// Long lists (get_all_tasks, get_events) are read here a part at a time,
// so that the server holds one part, not the whole answer: the caller
// writes each part out before the next is read.

// treeBatch is about how many tasks TaskTrees hands over at a time, and
// the number of ids each of its queries looks up.
const treeBatch = 500

// TaskTrees calls fn with the tasks of q nested as taskd.BuildTree nests
// them, in its order, a few top-level trees at a time (about 500 tasks):
// the concatenation of the calls is BuildTree(Tasks(q)). Its reads share
// one snapshot, so the parts agree with each other whatever commits
// meanwhile. It holds the ids and parents of the tasks, not the tasks.
// q's Sort, Limit and Offset are not used (ids in order, the whole list).
// An error of fn ends the reading and is returned as is.
func (db *DB) TaskTrees(ctx context.Context, q taskd.TaskQuery, fn func([]taskd.Task) error) error {
	tx, err := db.snapshot(ctx)
	if err != nil {
		return taskd.Internal("task trees", err)
	}
	defer tx.Rollback()
	where, args := db.taskWhere(q)
	if q.Status != "" {
		where += ` AND t.status = ?`
		args = append(args, q.Status)
	}
	ids, parents, err := taskParents(ctx, tx, db.d.q(`SELECT t.id, COALESCE(t.parent_id, 0) FROM tasks t`+where+` ORDER BY t.id`), args)
	if err != nil {
		return taskd.Internal("task trees", err)
	}
	shape := taskd.ShapeTree(ids, parents)
	// One query text whatever the batch: the ids are padded with 0, no task's id.
	// Prepared once: each part runs it again.
	byIDs, err := tx.PrepareContext(ctx, db.d.q(`SELECT `+taskColumnsOf(`(SELECT t.* FROM tasks t`+where+` AND t.id IN (?`+strings.Repeat(", ?", treeBatch-1)+`))`)+` ORDER BY t.id`))
	if err != nil {
		return taskd.Internal("task trees", err)
	}
	defer byIDs.Close()
	var batch []int // indexes of the batch's tasks, each tree whole
	var tops []int
	var under func(i int)
	under = func(i int) {
		batch = append(batch, i)
		for _, k := range shape.Children[ids[i]] {
			under(k)
		}
	}
	flush := func() error {
		got := make(map[int64]taskd.Task, len(batch))
		for start := 0; start < len(batch); start += treeBatch {
			part := batch[start:min(start+treeBatch, len(batch))]
			a := append([]any{}, args...)
			for j := range treeBatch {
				var id int64
				if j < len(part) {
					id = ids[part[j]]
				}
				a = append(a, id)
			}
			if err := tasksByID(ctx, byIDs, a, got); err != nil {
				return taskd.Internal("task trees", err)
			}
		}
		var nest func(i int) (taskd.Task, bool)
		nest = func(i int) (taskd.Task, bool) {
			t, ok := got[ids[i]]
			if !ok { // not in the snapshot's list: cannot be, but never shown unread
				return t, false
			}
			for _, k := range shape.Children[t.ID] {
				if c, ok := nest(k); ok {
					t.Children = append(t.Children, c)
				}
			}
			return t, true
		}
		out := make([]taskd.Task, 0, len(tops))
		for _, i := range tops {
			if t, ok := nest(i); ok {
				out = append(out, t)
			}
		}
		batch, tops = batch[:0], tops[:0]
		return fn(out)
	}
	for _, i := range shape.Top {
		tops = append(tops, i)
		under(i)
		if len(batch) >= treeBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if len(tops) > 0 {
		return flush()
	}
	return nil
}

// tasksByID runs the prepared query of a part's tasks into got.
func tasksByID(ctx context.Context, st *sql.Stmt, args []any, got map[int64]taskd.Task) error {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return err
		}
		got[t.ID] = t
	}
	return rows.Err()
}

// taskParents reads the ids and parent ids of a query's tasks.
func taskParents(ctx context.Context, tx *sql.Tx, query string, args []any) (ids, parents []int64, err error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent int64
		if err := rows.Scan(&id, &parent); err != nil {
			return nil, nil, err
		}
		ids, parents = append(ids, id), append(parents, parent)
	}
	return ids, parents, rows.Err()
}

// snapshot begins a read-only transaction whose reads all see the same
// committed state: SQLite's read transaction (WAL), PostgreSQL's
// REPEATABLE READ.
func (db *DB) snapshot(ctx context.Context) (*sql.Tx, error) {
	opts := &sql.TxOptions{ReadOnly: true}
	if db.d.name == "postgres" {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.read.BeginTx(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("begin snapshot: %w", err)
	}
	return tx, nil
}

// EachEvent calls fn with every event since the given time that the viewer
// sees, oldest first, optionally of one project only: Events one row at a
// time, read from the cursor as fn takes them. An error of fn ends the
// reading and is returned as is.
func (db *DB) EachEvent(ctx context.Context, v taskd.Viewer, since time.Time, projectID int64, fn func(taskd.StoredEvent) error) error {
	query, args := db.eventsSQL(v, since, projectID)
	rows, err := db.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return taskd.Internal("events", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEvent(rows, v.AccountID)
		if err != nil {
			return taskd.Internal("events", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return taskd.Internal("events", err)
	}
	return nil
}
