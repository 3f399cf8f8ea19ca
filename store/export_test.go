package store

import (
	"context"

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

// MuteForTest makes the changes and mail committed through db wake no one,
// in this process or (PostgreSQL) any other: their signals are lost, as
// when a notification is. Call it before anything subscribes.
func (db *DB) MuteForTest() {
	old := db.sig
	db.sig = newSignals("")
	old.close()
}
