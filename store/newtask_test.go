package store_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// TestNewTaskSubscribersAndEventViewers: a new task is followed by its
// author and its assignee (the project's default, or one given), once
// each, written by one statement; and its event is hidden exactly when the
// task or a task above it lists viewers, whether or not the viewers'
// check is skipped for it (a new task at the top with none listed).
func TestNewTaskSubscribersAndEventViewers(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, by := storetest.NewAccount(t, db, "newtask")
		bob, err := db.AddMember(ctx, acct.ID, taskd.NewPerson{Email: "bob-" + acct.Slug + "@example.com", PasswordHash: "x", FirstName: "Bob"}, taskd.RoleUser)
		if err != nil {
			t.Fatal(err)
		}
		name := func(s string) *string { return &s }
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: name("P"), AssigneeEmail: name(bob.Email)})
		if err != nil {
			t.Fatal(err)
		}
		subscribers := func(id int64) []int64 {
			refs, err := db.Subscribers(ctx, acct.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, r := range refs {
				ids = append(ids, r.ID)
			}
			slices.Sort(ids)
			return ids
		}
		both := []int64{min(by.Person.ID, bob.ID), max(by.Person.ID, bob.ID)}
		open, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: name("default assignee")})
		if err != nil {
			t.Fatal(err)
		}
		if got := subscribers(open.ID); !slices.Equal(got, both) || open.Assignee.ID != bob.ID {
			t.Errorf("default assignee: subscribers %v, assignee %d; want %v, %d", got, open.Assignee.ID, both, bob.ID)
		}
		self, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: name("self"), AssigneeEmail: name(by.Person.Email)})
		if err != nil {
			t.Fatal(err)
		}
		if got := subscribers(self.ID); !slices.Equal(got, []int64{by.Person.ID}) {
			t.Errorf("assigned to its author: subscribers %v, want [%d]", got, by.Person.ID)
		}
		hidden, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: name("secret-parent-q7"), Hidden: []string{by.Person.Email}})
		if err != nil {
			t.Fatal(err)
		}
		sub, err := db.CreateTask(ctx, by, p.ID, hidden.ID, taskd.TaskInput{Name: name("secret-child-q7")})
		if err != nil {
			t.Fatal(err)
		}
		// Once the tasks are gone, who sees their events is told by the
		// events' own hidden flag, written with them.
		for _, id := range []int64{sub.ID, hidden.ID} {
			if err := db.DeleteTask(ctx, by, id); err != nil {
				t.Fatal(err)
			}
		}
		// Bob sees the project (its default assignee) but not the hidden
		// tasks' events: the new tasks' events he sees are the open ones.
		evs, err := db.Events(ctx, taskd.PersonViewer(acct.ID, bob.ID, taskd.RoleUser), time.Time{}, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		all, err := db.Events(ctx, taskd.AccountViewer(acct.ID), time.Time{}, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(all)-len(evs) != 4 {
			t.Errorf("events: the key sees %d, bob %d; want 4 hidden from bob (the hidden task's and its subtask's, made and deleted)", len(all), len(evs))
		}
		for _, e := range evs {
			if bytes.Contains(e.Body, []byte("secret-")) {
				t.Errorf("bob sees an event of a hidden task: %s", e.Body)
			}
		}
	})
}
