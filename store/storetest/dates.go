package storetest

import (
	"maps"
	"testing"

	"github.com/taskd/taskd"
)

// testEveryDateWriteKeepsTheRule (issue 46): the store applies
// taskd.CheckDate to every date it writes, whoever calls it: a task's and a project's start and due dates on creation and update, a
// cost line's date, a schedule's day, and the value of a custom field of
// type date of a task or a project, on creation and update. The first and
// last days are taken; a day beyond either, a year such as -0009 and no
// day at all are refused (invalid, naming the field: a schedule's day
// names itself, a custom field its parameter), and nothing is written.
func testEveryDateWriteKeepsTheRule(t *testing.T, f0 *Fixture) {
	ctx := t.Context()
	f := newRelFixture(t, f0)
	task := f.task["a"]
	for _, day := range []string{"1900-01-01", "2999-12-31"} {
		if _, err := f.Store.UpdateTask(ctx, f.Owner, task.ID, taskd.TaskInput{DateStart: &day, DateEnd: &day}); err != nil {
			t.Errorf("UpdateTask to %s: %v", day, err)
		}
	}
	taskDue := must(f.Store.AddCustomField(ctx, f.Owner, taskd.CustomField{Of: taskd.ObjectTask, Name: "Review", Type: taskd.CustomDate}))(t)
	projectDue := must(f.Store.AddCustomField(ctx, f.Owner, taskd.CustomField{Of: taskd.ObjectProject, Name: "Audit", Type: taskd.CustomDate}))(t)
	for _, day := range []string{"1900-01-01", "2999-12-31"} {
		if _, err := f.Store.UpdateTask(ctx, f.Owner, task.ID, taskd.TaskInput{Fields: map[int64]string{taskDue.ID: day}}); err != nil {
			t.Errorf("UpdateTask's date field to %s: %v", day, err)
		}
		if _, err := f.Store.UpdateProject(ctx, f.Owner, f.project.ID, taskd.ProjectInput{Fields: map[int64]string{projectDue.ID: day}}); err != nil {
			t.Errorf("UpdateProject's date field to %s: %v", day, err)
		}
		if err := f.Store.SetSchedules(ctx, f.Owner, []taskd.ScheduleChange{{Email: f.Owner.Person.Email, Days: map[string]*int64{day: new(int64(60))}}}); err != nil {
			t.Errorf("SetSchedules of %s: %v", day, err)
		}
	}
	schedule := func() map[string]int64 {
		t.Helper()
		all := must(f.Store.Schedules(ctx, f.Owner.AccountID, "", "~"))(t)
		return all[f.Owner.Person.ID].Days
	}
	days := schedule()
	writes := []struct {
		name, field string
		write       func(day string) error
	}{
		{"CreateTask start", "datestart", func(day string) error {
			_, err := f.Store.CreateTask(ctx, f.Owner, f.project.ID, 0, taskd.TaskInput{Name: new("x"), DateStart: &day})
			return err
		}},
		{"CreateTask due", "dateend", func(day string) error {
			_, err := f.Store.CreateTask(ctx, f.Owner, f.project.ID, 0, taskd.TaskInput{Name: new("x"), DateEnd: &day})
			return err
		}},
		{"UpdateTask start", "datestart", func(day string) error {
			_, err := f.Store.UpdateTask(ctx, f.Owner, task.ID, taskd.TaskInput{DateStart: &day})
			return err
		}},
		{"UpdateTask due", "dateend", func(day string) error {
			_, err := f.Store.UpdateTask(ctx, f.Owner, task.ID, taskd.TaskInput{DateEnd: &day})
			return err
		}},
		{"CreateProject start", "datestart", func(day string) error {
			_, err := f.Store.CreateProject(ctx, f.Owner, taskd.ProjectInput{Name: new("x"), DateStart: &day})
			return err
		}},
		{"UpdateProject due", "dateend", func(day string) error {
			_, err := f.Store.UpdateProject(ctx, f.Owner, f.project.ID, taskd.ProjectInput{DateEnd: &day})
			return err
		}},
		{"AddCost", "date", func(day string) error {
			_, err := f.Store.AddCost(ctx, f.Owner, task.ID, taskd.CostInput{Minutes: new(int64(30)), Date: &day})
			return err
		}},
		{"SetSchedules day", "", func(day string) error {
			return f.Store.SetSchedules(ctx, f.Owner, []taskd.ScheduleChange{{Email: f.Owner.Person.Email, Days: map[string]*int64{day: new(int64(60))}}})
		}},
		{"CreateTask date field", taskd.FieldParam(taskDue.ID), func(day string) error {
			_, err := f.Store.CreateTask(ctx, f.Owner, f.project.ID, 0, taskd.TaskInput{Name: new("x"), Fields: map[int64]string{taskDue.ID: day}})
			return err
		}},
		{"UpdateTask date field", taskd.FieldParam(taskDue.ID), func(day string) error {
			_, err := f.Store.UpdateTask(ctx, f.Owner, task.ID, taskd.TaskInput{Fields: map[int64]string{taskDue.ID: day}})
			return err
		}},
		{"CreateProject date field", taskd.FieldParam(projectDue.ID), func(day string) error {
			_, err := f.Store.CreateProject(ctx, f.Owner, taskd.ProjectInput{Name: new("x"), Fields: map[int64]string{projectDue.ID: day}})
			return err
		}},
		{"UpdateProject date field", taskd.FieldParam(projectDue.ID), func(day string) error {
			_, err := f.Store.UpdateProject(ctx, f.Owner, f.project.ID, taskd.ProjectInput{Fields: map[int64]string{projectDue.ID: day}})
			return err
		}},
	}
	projects := must(f.Store.Projects(ctx, f.Owner.Viewer(), ""))(t)
	tasks, _ := f.Store.Tasks(ctx, taskd.TaskQuery{Viewer: f.Owner.Viewer(), ProjectID: f.project.ID})
	for _, w := range writes {
		for _, day := range []string{"3000-01-01", "1899-12-31", "3009-06-28", "-0009-03-02", "2026-02-30", "26-02-03"} {
			field := w.field
			if field == "" {
				field = day
			}
			err := w.write(day)
			if e := taskd.AsError(err); err == nil || e.Kind != taskd.KindInvalid || e.Field != field {
				t.Errorf("%s of %q: %v, want invalid on %s", w.name, day, err, field)
			}
		}
	}
	if got, _ := f.Store.Tasks(ctx, taskd.TaskQuery{Viewer: f.Owner.Viewer(), ProjectID: f.project.ID}); len(got) != len(tasks) {
		t.Errorf("%d tasks after the refusals, want %d", len(got), len(tasks))
	}
	if got, _ := f.Store.Task(ctx, f.Owner.Viewer(), task.ID); got.DateStart != "2999-12-31" || got.DateEnd != "2999-12-31" {
		t.Errorf("the task's dates after the refusals: %s..%s", got.DateStart, got.DateEnd)
	}
	if got := must(f.Store.Projects(ctx, f.Owner.Viewer(), ""))(t); len(got) != len(projects) {
		t.Errorf("%d projects after the refusals, want %d", len(got), len(projects))
	}
	if got := schedule(); !maps.Equal(got, days) {
		t.Errorf("the schedule's days after the refusals: %v, want %v", got, days)
	}
	for of, v := range map[string]struct {
		id    int64
		field taskd.CustomField
	}{taskd.ObjectTask: {task.ID, taskDue}, taskd.ObjectProject: {f.project.ID, projectDue}} {
		values := must(f.Store.FieldValues(ctx, f.Owner.Viewer(), of, []int64{v.id}))(t)[v.id]
		if len(values) != 1 || values[0].Field.ID != v.field.ID || values[0].Value != "2999-12-31" {
			t.Errorf("the %s's date field after the refusals: %+v, want 2999-12-31", of, values)
		}
	}
}
