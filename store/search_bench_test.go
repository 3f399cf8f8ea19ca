package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/filter"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// fillTasks adds n tasks to the account, spread over its projects (ids
// first .. first+19), with due dates over 2021, one in 97 named "Report".
func fillTasks(b *testing.B, db *store.DB, accountID, first, author int64, n int) {
	b.Helper()
	series, pad := `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?) `, `substr('0' || (%s), -2)`
	if db.Dialect() == "postgres" {
		series, pad = `WITH s(i) AS (SELECT generate_series(1, ?::bigint)) `, `right('0' || (%s)::text, 2)`
	}
	q := series + `INSERT INTO tasks (account_id, project_id, name, text, status, priority, author_id, assignee_id, date_start, date_end, created_at)
		SELECT ?, ? + (i % 20), 'Task ' || i || CASE WHEN i % 97 = 0 THEN ' Report' ELSE '' END, '',
			CASE WHEN i % 3 = 0 THEN 'done' ELSE 'active' END, i % 11, ?, 1, '',
			'2021-' || ` + fmt.Sprintf(pad, "1 + i % 12") + ` || '-' || ` + fmt.Sprintf(pad, "1 + i % 28") + `, 1600000000000 + i * 60000 FROM s`
	if err := db.ExecForTest(context.Background(), q, n, accountID, first, author); err != nil {
		b.Fatal(err)
	}
}

// fillAccount makes an account of 20 projects and 100,000 tasks
// (fillTasks) and returns it, its owner and its first project's id.
func fillAccount(b *testing.B, db *store.DB, prefix string) (taskd.Account, taskd.Actor, int64) {
	b.Helper()
	acct, owner := storetest.NewAccount(b, db, prefix)
	var first int64
	for i := range 20 {
		p, err := db.CreateProject(context.Background(), owner, taskd.ProjectInput{Name: new(fmt.Sprintf("P%d", i))})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			first = p.ID
		}
	}
	fillTasks(b, db, acct.ID, first, owner.Person.ID, 100_000)
	return acct, owner, first
}

// BenchmarkSearchTasks runs filters of the query language over 100,000
// tasks of one account (20 projects), as search_tasks does.
func BenchmarkSearchTasks(b *testing.B) {
	for _, backend := range testdb.Backends() {
		b.Run(backend, func(b *testing.B) {
			db := testdb.New(b, backend).Open(b)
			ctx := context.Background()
			acct, _, first := fillAccount(b, db, "search")
			if err := db.ExecForTest(ctx, `ANALYZE`); err != nil {
				b.Fatal(err)
			}
			for _, f := range []string{
				"name has 'Report'",
				fmt.Sprintf("project = %d and dateend > '01.06.2021'", first+3),
				"id in (100, 2000, 30000, 40000, 55555, 60001, 77777, 88888, 99999, 12345)",
				"dateend >= '01.03.2021' and dateend < '08.03.2021'",
				"dateadd = '14.09.2020'",
				"(name has 'Report' or name has 'Approval') and dateend > '25.12.2021'",
			} {
				q, err := filter.ParseTasks(f)
				if err != nil {
					b.Fatal(err)
				}
				if backend == "sqlite" { // go test -v shows how SQLite runs each filter
					plan, err := db.PlanForTest(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), Filter: q, ActiveProjects: true, Limit: 200})
					b.Logf("%s: %v %v", f, plan, err)
				}
				b.Run(f, func(b *testing.B) {
					n := 0
					for b.Loop() {
						tasks, err := db.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), Filter: q, ActiveProjects: true, Limit: 200})
						if err != nil {
							b.Fatal(err)
						}
						n = len(tasks)
					}
					b.ReportMetric(float64(n), "tasks")
				})
			}
		})
	}
}
