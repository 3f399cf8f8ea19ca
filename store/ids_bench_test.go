package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// BenchmarkIDsMigration times migration 0036 (ids never reused) on a
// SQLite database of one account with 20 projects, 100,000 tasks, a
// comment on each, two cost lines on each and 200,000 events, all of
// whose tables it rebuilds: the time an upgrade takes to start
// (docs/operations.md). go test ./store -run '^$' -bench IDsMigration
// -benchtime 1x
func BenchmarkIDsMigration(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		d := testdb.New(b, "sqlite")
		old, err := store.OpenAtSchemaForTest(ctx, d.Options(), beforeIDs)
		if err != nil {
			b.Fatal(err)
		}
		fillOldAccount(b, old)
		old.Close()
		b.StartTimer()
		db, err := store.Open(ctx, d.Options())
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
	}
}

// fillOldAccount fills an account as BenchmarkIDsMigration says; the
// events are written after the projects were made, as they are (their
// tasks, made by fillTasks, are dated in 2021).
func fillOldAccount(b *testing.B, db *store.DB) {
	b.Helper()
	ctx := context.Background()
	acct, owner := storetest.NewAccount(b, db, "ids")
	var first int64
	for i := range 20 {
		p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new(fmt.Sprintf("P%d", i))})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			first = p.ID
		}
	}
	fillTasks(b, db, acct.ID, first, owner.Person.ID, 100_000)
	for _, q := range []string{
		`INSERT INTO comments (account_id, task_id, author_id, text, created_at)
			SELECT account_id, id, author_id, 'A comment on ' || name, created_at + 1000 FROM tasks WHERE account_id = ?`,
		`INSERT INTO costs (account_id, project_id, task_id, top_task_id, person_id, minutes, cents, day, created_at)
			SELECT account_id, project_id, id, id, author_id, 30, 0, '2021-01-01', created_at FROM tasks WHERE account_id = ?
			UNION ALL SELECT account_id, project_id, id, id, author_id, 60, 100, '2021-01-02', created_at FROM tasks WHERE account_id = ?`,
		`INSERT INTO events (account_id, project_id, name, created_at, body, task_id, hidden, fanned)
			SELECT t.account_id, t.project_id, e.name, CAST(strftime('%s', 'now') AS INTEGER) * 1000 + t.id * 10 + e.k,
				'{"event":"' || e.name || '","object":{"type":"task","id":"' || t.id || '","page":"/tasks/' || t.id || '"},'
				|| '"new":{"name":"' || t.name || '","priority":' || t.priority || '},"old":{}}', t.id, 0, 1
			FROM tasks t, (SELECT 'post_task' AS name, 0 AS k UNION ALL SELECT 'update_task', 1) e WHERE t.account_id = ? ORDER BY t.id, e.k`,
	} {
		args := []any{acct.ID}
		if q[12:17] == "costs" {
			args = append(args, acct.ID)
		}
		if err := db.ExecForTest(ctx, q, args...); err != nil {
			b.Fatal(err)
		}
	}
}
