package storetest

import (
	"slices"
	"testing"

	"github.com/taskd/taskd"
)

// testTaskListing: the orders, the tag and due-date filters and the counts
// the pages' task lists use.
func testTaskListing(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	p := newProject(t, f)
	task := func(parent int64, name string, prio int, due string) taskd.Task {
		in := taskd.TaskInput{Name: new(name), Priority: new(prio)}
		if due != "" {
			in.DateEnd = new(due)
		}
		return must(s.CreateTask(ctx, by, p.ID, parent, in))(t)
	}
	a := task(0, "banana", 1, "2026-05-01")
	b := task(0, "Apple", 9, "")
	task(a.ID, "cherry", 5, "2026-04-01")
	c := task(0, "date", 3, "2026-04-15")
	must(s.CompleteTask(ctx, by, c.ID))(t)
	groups := must(s.AddTagGroups(ctx, by, taskd.TagsOfTasks, "status", "public", []string{"Stage"}))(t)
	tags := must(s.AddTags(ctx, by, taskd.TagsOfTasks, groups[0].Title, []string{"Doing"}))(t)
	noErr(t, s.SetTags(ctx, by, taskd.TagsOfTasks, b.ID, []string{tags[0].Title}, nil))

	names := func(q taskd.TaskQuery) []string {
		t.Helper()
		q.Viewer, q.ProjectID = taskd.AccountViewer(by.AccountID), p.ID
		var out []string
		for _, t := range must(s.Tasks(ctx, q))(t) {
			out = append(out, t.Name)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		q    taskd.TaskQuery
		want []string
	}{
		{"id", taskd.TaskQuery{}, []string{"banana", "Apple", "cherry", "date"}},
		{"newest", taskd.TaskQuery{Sort: taskd.SortNewest}, []string{"date", "cherry", "Apple", "banana"}},
		{"tree", taskd.TaskQuery{Sort: taskd.SortTree}, []string{"banana", "cherry", "Apple", "date"}},
		{"due", taskd.TaskQuery{Sort: taskd.SortDue}, []string{"cherry", "date", "banana", "Apple"}},
		{"priority", taskd.TaskQuery{Sort: taskd.SortPriority}, []string{"Apple", "cherry", "date", "banana"}},
		{"name, any case", taskd.TaskQuery{Sort: taskd.SortName}, []string{"Apple", "banana", "cherry", "date"}},
		{"tag", taskd.TaskQuery{TagID: tags[0].ID}, []string{"Apple"}},
		{"untagged in the group", taskd.TaskQuery{UntaggedIn: groups[0].ID}, []string{"banana", "cherry", "date"}},
		{"untagged in another group", taskd.TaskQuery{UntaggedIn: groups[0].ID + 1000}, []string{"banana", "Apple", "cherry", "date"}},
		{"no due date", taskd.TaskQuery{NoDateEnd: true}, []string{"Apple"}},
		{"page", taskd.TaskQuery{Sort: taskd.SortTree, Limit: 2, Offset: 1}, []string{"cherry", "Apple"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(tc.q); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}

	count := func(q taskd.TaskQuery) taskd.TaskCounts {
		t.Helper()
		q.Viewer, q.ProjectID = taskd.AccountViewer(by.AccountID), p.ID
		return must(s.CountTasks(ctx, q))(t)
	}
	if got := count(taskd.TaskQuery{Status: taskd.StatusActive, Limit: 1, Offset: 3}); got != (taskd.TaskCounts{Active: 3, Done: 1}) {
		t.Errorf("counts = %+v, want 3 active and 1 done whatever the status, limit and offset", got)
	}
	if got := count(taskd.TaskQuery{Text: "an"}); got != (taskd.TaskCounts{Active: 1}) {
		t.Errorf("counts of a search = %+v, want 1 active", got)
	}
	other, _ := NewAccount(t, s, "other")
	if got := must(s.CountTasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(other.ID), ProjectID: p.ID}))(t); got != (taskd.TaskCounts{}) {
		t.Errorf("another account counts %+v of this project's tasks", got)
	}
}
