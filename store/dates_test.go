package store_test

import (
	"context"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
)

// TestEveryDateWriteKeepsTheRule (issue 46): on both databases, the store
// applies taskd.CheckDate to every date it writes, whoever calls it: a
// task's and a project's start and due dates on creation and update, and
// a cost line's date. The first and last days are taken; a day beyond
// either, a year such as -0009 and no day at all are refused (invalid,
// naming the field), and nothing is written.
func TestEveryDateWriteKeepsTheRule(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		f := newRelFixture(t, d)
		task := f.task["a"]
		for _, day := range []string{"1900-01-01", "2999-12-31"} {
			if _, err := f.db.UpdateTask(ctx, f.by, task.ID, taskd.TaskInput{DateStart: &day, DateEnd: &day}); err != nil {
				t.Errorf("UpdateTask to %s: %v", day, err)
			}
		}
		writes := []struct {
			name, field string
			write       func(day string) error
		}{
			{"CreateTask start", "datestart", func(day string) error {
				_, err := f.db.CreateTask(ctx, f.by, f.project.ID, 0, taskd.TaskInput{Name: new("x"), DateStart: &day})
				return err
			}},
			{"CreateTask due", "dateend", func(day string) error {
				_, err := f.db.CreateTask(ctx, f.by, f.project.ID, 0, taskd.TaskInput{Name: new("x"), DateEnd: &day})
				return err
			}},
			{"UpdateTask start", "datestart", func(day string) error {
				_, err := f.db.UpdateTask(ctx, f.by, task.ID, taskd.TaskInput{DateStart: &day})
				return err
			}},
			{"UpdateTask due", "dateend", func(day string) error {
				_, err := f.db.UpdateTask(ctx, f.by, task.ID, taskd.TaskInput{DateEnd: &day})
				return err
			}},
			{"CreateProject start", "datestart", func(day string) error {
				_, err := f.db.CreateProject(ctx, f.by, taskd.ProjectInput{Name: new("x"), DateStart: &day})
				return err
			}},
			{"UpdateProject due", "dateend", func(day string) error {
				_, err := f.db.UpdateProject(ctx, f.by, f.project.ID, taskd.ProjectInput{DateEnd: &day})
				return err
			}},
			{"AddCost", "date", func(day string) error {
				_, err := f.db.AddCost(ctx, f.by, task.ID, taskd.CostInput{Minutes: new(int64(30)), Date: &day})
				return err
			}},
		}
		tasks, _ := f.db.Tasks(ctx, taskd.TaskQuery{Viewer: f.by.Viewer(), ProjectID: f.project.ID})
		for _, w := range writes {
			for _, day := range []string{"3000-01-01", "1899-12-31", "3009-06-28", "-0009-03-02", "2026-02-30", "26-02-03"} {
				err := w.write(day)
				if e := taskd.AsError(err); err == nil || e.Kind != taskd.KindInvalid || e.Field != w.field {
					t.Errorf("%s of %q: %v, want invalid on %s", w.name, day, err, w.field)
				}
			}
		}
		if got, _ := f.db.Tasks(ctx, taskd.TaskQuery{Viewer: f.by.Viewer(), ProjectID: f.project.ID}); len(got) != len(tasks) {
			t.Errorf("%d tasks after the refusals, want %d", len(got), len(tasks))
		}
		if got, _ := f.db.Task(ctx, f.by.Viewer(), task.ID); got.DateStart != "2999-12-31" || got.DateEnd != "2999-12-31" {
			t.Errorf("the task's dates after the refusals: %s..%s", got.DateStart, got.DateEnd)
		}
	})
}
