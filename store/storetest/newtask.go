package storetest

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// testNewTaskSubscribersAndEventViewers: a new task is followed by its
// author and its assignee (the project's default, or one given), once
// each; and its event is hidden exactly when the task or a task above it
// lists viewers, whether or not the viewers' check is skipped for it (a
// new task at the top with none listed).
func testNewTaskSubscribersAndEventViewers(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	bob := member(t, f, "bob", taskd.RoleUser)
	p := must(s.CreateProject(ctx, by, taskd.ProjectInput{Name: new("P"), AssigneeEmail: new(bob.Person.Email)}))(t)
	subscribers := func(id int64) []int64 {
		t.Helper()
		var ids []int64
		for _, r := range must(s.Subscribers(ctx, f.Account.ID, id))(t) {
			ids = append(ids, r.ID)
		}
		slices.Sort(ids)
		return ids
	}
	both := []int64{min(by.Person.ID, bob.Person.ID), max(by.Person.ID, bob.Person.ID)}
	open := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("default assignee")}))(t)
	if got := subscribers(open.ID); !slices.Equal(got, both) || open.Assignee.ID != bob.Person.ID {
		t.Errorf("default assignee: subscribers %v, assignee %d; want %v, %d", got, open.Assignee.ID, both, bob.Person.ID)
	}
	self := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("self"), AssigneeEmail: new(by.Person.Email)}))(t)
	if got := subscribers(self.ID); !slices.Equal(got, []int64{by.Person.ID}) {
		t.Errorf("assigned to its author: subscribers %v, want [%d]", got, by.Person.ID)
	}
	hidden := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("secret-parent-q7"), Hidden: []string{by.Person.Email}}))(t)
	sub := must(s.CreateTask(ctx, by, p.ID, hidden.ID, taskd.TaskInput{Name: new("secret-child-q7")}))(t)
	// Once the tasks are gone, who sees their events is told by the
	// events' own hidden flag, written with them.
	for _, id := range []int64{sub.ID, hidden.ID} {
		noErr(t, s.DeleteTask(ctx, by, id))
	}
	// Bob sees the project (its default assignee) but not the hidden
	// tasks' events: the new tasks' events he sees are the open ones.
	evs := must(s.Events(ctx, bob.Viewer(), time.Time{}, p.ID))(t)
	all := must(s.Events(ctx, taskd.AccountViewer(f.Account.ID), time.Time{}, p.ID))(t)
	if len(all)-len(evs) != 4 {
		t.Errorf("events: the key sees %d, bob %d; want 4 hidden from bob (the hidden task's and its subtask's, made and deleted)", len(all), len(evs))
	}
	for _, e := range evs {
		if bytes.Contains(e.Body, []byte("secret-")) {
			t.Errorf("bob sees an event of a hidden task: %s", e.Body)
		}
	}
}
