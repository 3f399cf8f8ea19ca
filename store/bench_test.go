package store_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/filter"
	"github.com/taskd/taskd/internal/memstat"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// BenchmarkCostSums reads 200,000 cost lines of one account (100,000
// tasks in 20 projects, two lines each, over 2021) as get_costs_total, its
// extras, the timesheet and a task's page do. "lines of a day" is the
// baseline: an indexed read of a few lines.
func BenchmarkCostSums(b *testing.B) {
	for _, backend := range testdb.Backends() {
		b.Run(backend, func(b *testing.B) {
			db := testdb.New(b, backend).Open(b)
			ctx := context.Background()
			acct, owner, first := fillAccount(b, db, "costs")
			for _, offset := range []int{0, 1} {
				// Each task's lines: minutes and cents from its id, on a day of
				// 2021 (its due date, moved by offset months for the second).
				month := "substr(t.date_end, 6, 2)"
				if db.Dialect() == "postgres" {
					month = "substring(t.date_end from 6 for 2)"
				}
				q := fmt.Sprintf(`INSERT INTO costs (account_id, project_id, task_id, top_task_id, person_id, minutes, cents, comment, day, is_timer, created_at)
					SELECT t.account_id, t.project_id, t.id, t.id, ?, 1 + t.id %% 480, t.id %% 100000, '', '2021-' || %s || '-' || substr(t.date_end, 9, 2), %d, 1
					FROM tasks t WHERE t.account_id = ?`, month, offset)
				if err := db.ExecForTest(ctx, q, owner.Person.ID, acct.ID); err != nil {
					b.Fatal(err)
				}
			}
			if err := db.ExecForTest(ctx, `ANALYZE`); err != nil {
				b.Fatal(err)
			}
			tasks, err := db.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), ProjectID: first + 7, Limit: 1})
			if err != nil || len(tasks) == 0 {
				b.Fatal(err)
			}
			all := taskd.CostQuery{Viewer: taskd.AccountViewer(acct.ID)}
			fourWeeks := taskd.CostQuery{Viewer: taskd.AccountViewer(acct.ID), From: "2021-06-01", To: "2021-06-28"}
			project := taskd.CostQuery{Viewer: taskd.AccountViewer(acct.ID), ProjectID: first + 7}
			for _, c := range []struct {
				name string
				run  func() (int, error)
				plan *planOf
			}{
				{"lines of a day", lines(db, taskd.CostQuery{Viewer: taskd.AccountViewer(acct.ID), From: "2021-06-02", To: "2021-06-02", Limit: 100}), nil},
				{"total of the account", sums(db, all, taskd.CostByTotal), &planOf{all, taskd.CostByTotal}},
				{"projects by month", sums(db, all, taskd.CostByProjectMonth), &planOf{all, taskd.CostByProjectMonth}},
				{"a project's top-level tasks", sums(db, project, taskd.CostByTopTask), &planOf{project, taskd.CostByTopTask}},
				{"four weeks by person", sums(db, fourWeeks, taskd.CostByPerson), &planOf{fourWeeks, taskd.CostByPerson}},
				{"four weeks by day", sums(db, fourWeeks, taskd.CostByDay), &planOf{fourWeeks, taskd.CostByDay}},
				{"four weeks, newest 100 lines", lines(db, taskd.CostQuery{Viewer: taskd.AccountViewer(acct.ID), From: "2021-06-01", To: "2021-06-28", Newest: true, Limit: 100}), nil},
				{"a task's lines", lines(db, taskd.CostQuery{Viewer: taskd.AccountViewer(acct.ID), TaskID: tasks[0].ID, Newest: true}), nil},
			} {
				if c.plan != nil && db.Dialect() == "sqlite" {
					plan, err := db.CostPlanForTest(ctx, c.plan.q, c.plan.group)
					b.Logf("%s: %v %v", c.name, plan, err)
				}
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						if n, err := c.run(); err != nil || n == 0 {
							b.Fatalf("%d rows, %v", n, err)
						}
					}
				})
			}
		})
	}
}

func sums(db interface {
	CostSums(context.Context, taskd.CostQuery, string) ([]taskd.CostGroup, error)
}, q taskd.CostQuery, group string) func() (int, error) {
	return func() (int, error) {
		g, err := db.CostSums(context.Background(), q, group)
		return len(g), err
	}
}

func lines(db interface {
	Costs(context.Context, taskd.CostQuery) ([]taskd.Cost, error)
}, q taskd.CostQuery) func() (int, error) {
	return func() (int, error) {
		l, err := db.Costs(context.Background(), q)
		return len(l), err
	}
}

// planOf names a CostSums query whose plan the benchmark logs.
type planOf struct {
	q     taskd.CostQuery
	group string
}

// BenchmarkFileStream stores a 200 MB file and reads it back through the
// store, reporting the throughput each way and how much the process's
// peak resident memory (VmHWM) grew: a file streamed in chunks should
// leave it flat, whatever its size.
func BenchmarkFileStream(b *testing.B) {
	const size = 200 << 20
	for _, backend := range testdb.Backends() {
		b.Run(backend, func(b *testing.B) {
			db := testdb.New(b, backend).Open(b)
			ctx := context.Background()
			_, owner := storetest.NewAccount(b, db, "files")
			limits := taskd.FileLimits{MaxFileBytes: 1 << 30, MaxAccountBytes: 100 << 30}
			before := memstat.Peak(b)
			var writing, reading time.Duration
			b.SetBytes(size)
			for b.Loop() {
				start := time.Now()
				f, err := db.CreateFile(ctx, owner, "big.bin", "application/octet-stream", io.LimitReader(memstat.Pattern{}, size), limits)
				if err != nil {
					b.Fatal(err)
				}
				writing += time.Since(start)
				start = time.Now()
				n, err := io.Copy(io.Discard, db.OpenFile(ctx, f))
				if err != nil || n != size {
					b.Fatalf("read %d bytes: %v", n, err)
				}
				reading += time.Since(start)
				if err := db.DeleteFile(ctx, owner, f.ID); err != nil {
					b.Fatal(err)
				}
			}
			mb := float64(size) / (1 << 20) * float64(b.N)
			b.ReportMetric(mb/writing.Seconds(), "write-MB/s")
			b.ReportMetric(mb/reading.Seconds(), "read-MB/s")
			b.ReportMetric(float64(memstat.Peak(b)-before)/(1<<20), "peak-RSS-growth-MB")
		})
	}
}

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
