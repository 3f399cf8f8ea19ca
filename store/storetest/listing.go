package storetest

import (
	"maps"
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

// testProjectProgress: per project, the open and done tasks a viewer sees
// (subtasks too) and the nearest due date of the open ones; a task hidden
// from the viewer counts for nobody but those it is shown to, and a
// guest's sums leave out the projects whose team they are not on.
func testProjectProgress(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, owner := f.Store, f.Owner
	uma := member(t, f, "uma", taskd.RoleUser)
	ann := member(t, f, "ann", taskd.RoleUser)
	gus := member(t, f, "gus", taskd.RoleGuest)
	p, q := newProject(t, f), newProject(t, f)
	task := func(p taskd.Project, parent int64, due string, in taskd.TaskInput) taskd.Task {
		in.Name = new("T")
		if due != "" {
			in.DateEnd = &due
		}
		return must(s.CreateTask(ctx, owner, p.ID, parent, in))(t)
	}
	a := task(p, 0, "2030-05-01", taskd.TaskInput{})
	task(p, a.ID, "2030-04-01", taskd.TaskInput{})
	must(s.CompleteTask(ctx, owner, task(p, 0, "2030-01-01", taskd.TaskInput{}).ID))(t) // done: not the next due date
	task(p, 0, "2030-03-01", taskd.TaskInput{Hidden: []string{ann.Person.Email}})
	task(p, 0, "", taskd.TaskInput{})
	task(q, 0, "", taskd.TaskInput{})
	for _, c := range []struct {
		who  taskd.Actor
		want map[int64]taskd.Progress
	}{
		{owner, map[int64]taskd.Progress{p.ID: {Open: 4, Done: 1, NextDue: "2030-03-01"}, q.ID: {Open: 1}}},
		{ann, map[int64]taskd.Progress{p.ID: {Open: 4, Done: 1, NextDue: "2030-03-01"}, q.ID: {Open: 1}}},
		{uma, map[int64]taskd.Progress{p.ID: {Open: 3, Done: 1, NextDue: "2030-04-01"}, q.ID: {Open: 1}}},
		{gus, map[int64]taskd.Progress{}},
	} {
		got := must(s.ProjectProgress(ctx, viewerOf(t, f, c.who.Person.ID)))(t)
		if !maps.Equal(got, c.want) {
			t.Errorf("%s sees %+v, want %+v", c.who.Person.Email, got, c.want)
		}
	}
	if got := must(s.ProjectProgress(ctx, taskd.AccountViewer(f.Account.ID)))(t); got[p.ID].Open != 4 || got[p.ID].Percent() != 20 {
		t.Errorf("the key sees %+v", got)
	}
}
