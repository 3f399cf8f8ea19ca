package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/taskd/taskd"
)

// ExecForTest runs a statement on the write connection, for benchmarks
// that fill a database faster than the store's methods do.
func (db *DB) ExecForTest(ctx context.Context, query string, args ...any) error {
	_, err := db.write.ExecContext(ctx, db.d.q(query), args...)
	return err
}

// PlanForTest returns SQLite's query plan of the task list a query makes.
func (db *DB) PlanForTest(ctx context.Context, q taskd.TaskQuery) ([]string, error) {
	query, args := db.tasksSQL(q)
	return db.plan(ctx, query, args)
}

// CostPlanForTest returns SQLite's query plan of a CostSums query.
func (db *DB) CostPlanForTest(ctx context.Context, q taskd.CostQuery, group string) ([]string, error) {
	g := costGroups[group]
	query, args := db.costSumsSQL(q, g.key, g.by)
	return db.plan(ctx, db.d.q(query), args)
}

// plan is SQLite's query plan of a query, a line per step.
func (db *DB) plan(ctx context.Context, query string, args []any) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return nil, err
		}
		out = append(out, detail)
	}
	return out, rows.Err()
}

// PlainSearchForTest returns the ids of the account's tasks whose name
// (or, with text, name or text) holds part, by the plain LIKE scan that
// the trigram indexes only narrow (store/search.go).
func (db *DB) PlainSearchForTest(ctx context.Context, accountID int64, part string, text bool) ([]int64, error) {
	pattern := "%" + escapeLike(part) + "%"
	cond := `name ` + db.d.ilike + ` ? ESCAPE '\'`
	args := []any{accountID, pattern}
	if text {
		cond = `(` + cond + ` OR text ` + db.d.ilike + ` ? ESCAPE '\')`
		args = append(args, pattern)
	}
	return db.idsForTest(ctx, `SELECT id FROM tasks WHERE account_id = ? AND `+cond+` ORDER BY id`, args...)
}

// IndexSearchForTest returns the ids of Tasks(q) where PostgreSQL is kept
// off sequential scans, so that it reads the trigram indexes (and
// rechecks) rather than the table; on SQLite, the ids of Tasks(q).
func (db *DB) IndexSearchForTest(ctx context.Context, q taskd.TaskQuery) ([]int64, error) {
	query, args := db.tasksSQL(q)
	if db.d.name != "postgres" {
		return db.idsForTest(ctx, `SELECT id FROM (`+query+`) x ORDER BY id`, args...)
	}
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT id FROM (`+query+`) x ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	return scanIDsForTest(rows)
}

func (db *DB) idsForTest(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := db.read.QueryContext(ctx, db.d.q(query), args...)
	if err != nil {
		return nil, err
	}
	return scanIDsForTest(rows)
}

func scanIDsForTest(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// ChangeForTest runs fn as a change made by by, queued with the changes
// made at the same time as every change is (group commit).
func (db *DB) ChangeForTest(ctx context.Context, by taskd.Actor, fn func() error) error {
	return db.change(ctx, by, "test change", func(querier) error { return fn() })
}

// QueuedForTest returns how many changes wait for a batch, not counting
// those of the batch running.
func (db *DB) QueuedForTest() int {
	db.batches.mu.Lock()
	defer db.batches.mu.Unlock()
	return len(db.batches.queue)
}

// MuteForTest makes the changes and mail committed through db wake no one,
// in this process or (PostgreSQL) any other: their signals are lost, as
// when a notification is. Call it before anything subscribes.
func (db *DB) MuteForTest() {
	old := db.sig
	db.sig = newSignals("")
	old.close()
}

// ReadsInUseForTest is how many of the read pool's connections are in use
// (a cursor holds one until it is closed).
func (db *DB) ReadsInUseForTest() int { return db.read.Stats().InUse }

// WaitingForTest lists what an import keeps for invited people in the
// account, as "email role object", in order.
func (db *DB) WaitingForTest(ctx context.Context, accountID int64) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, db.d.q(`SELECT email, role, object_id FROM import_waiting
		WHERE account_id = ? ORDER BY email, role, object_id`), accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var email, role string
		var id int64
		if err := rows.Scan(&email, &role, &id); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%s %s %d", email, role, id))
	}
	return out, rows.Err()
}

// SyncForTest is how a write connection commits: PostgreSQL's
// synchronous_commit ("on", "off"), or SQLite's PRAGMA synchronous ("1"
// for NORMAL).
func (db *DB) SyncForTest(ctx context.Context) (string, error) {
	query := `SELECT current_setting('synchronous_commit')`
	if db.d.name == "sqlite" {
		query = `PRAGMA synchronous`
	}
	var v string
	err := db.write.QueryRowContext(ctx, query).Scan(&v)
	return v, err
}

// OpenAtSchemaForTest opens the database as Open does, applying the
// migrations up to the version only: a database as an older taskd left
// it, for the test of a newer migration.
func OpenAtSchemaForTest(ctx context.Context, o Options, version int) (*DB, error) {
	o.schema = version
	return Open(ctx, o)
}

// ApplyWithoutForeignKeysForTest applies body as a SQLite migration of the
// version marked with foreignKeysOff is applied.
func (db *DB) ApplyWithoutForeignKeysForTest(ctx context.Context, version int, body string) error {
	return db.applyWithoutForeignKeys(ctx, "test", version, body)
}

// ForeignKeysForTest is PRAGMA foreign_keys on the write connection.
func (db *DB) ForeignKeysForTest(ctx context.Context) (int, error) {
	var on int
	err := db.write.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on)
	return on, err
}

// QueryRowForTest reads one row of a query on the write connection.
func (db *DB) QueryRowForTest(ctx context.Context, query string, dest ...any) error {
	return db.write.QueryRowContext(ctx, db.d.q(query)).Scan(dest...)
}

// PauseSearchIndexForTest keeps the search index where it is: the tasks
// made from now on stay above its mark until CatchUpSearchForTest.
func (db *DB) PauseSearchIndexForTest() { db.search.paused.Store(true) }

// CatchUpSearchForTest indexes the tasks above the search index's mark
// now (SQLite; nothing on PostgreSQL).
func (db *DB) CatchUpSearchForTest(ctx context.Context) error {
	if db.d.name != "sqlite" {
		return nil
	}
	return db.catchUpSearch(ctx)
}

// SearchBehindForTest is how many tasks are above the search index's mark
// (SQLite; 0 on PostgreSQL).
func (db *DB) SearchBehindForTest(ctx context.Context) (int, error) {
	if db.d.name != "sqlite" {
		return 0, nil
	}
	var n int
	err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM tasks WHERE id > (SELECT indexed_upto FROM search_state)`).Scan(&n)
	return n, err
}
