package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
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
