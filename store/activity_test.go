package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// TestActivityProjects: a project's activity is that project's events
// only; the account's holds both projects'.
func TestActivityProjects(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		_, by := storetest.NewAccount(t, db, "actp")
		var projects [2]taskd.Project
		for i, name := range []string{"A", "B"} {
			p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: &name})
			if err != nil {
				t.Fatal(err)
			}
			projects[i] = p
			for j := range 3 {
				task := fmt.Sprintf("%s task %d", name, j)
				if _, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: &task}); err != nil {
					t.Fatal(err)
				}
			}
		}
		all, err := db.Activity(ctx, taskd.ActivityQuery{Viewer: by.Viewer()})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 8 {
			t.Errorf("the account's activity has %d events, want 8 (two projects, six tasks)", len(all))
		}
		for _, p := range projects {
			evs, err := db.Activity(ctx, taskd.ActivityQuery{Viewer: by.Viewer(), ProjectID: p.ID})
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 4 {
				t.Errorf("project %s's activity has %d events, want 4", p.Name, len(evs))
			}
			for _, e := range evs {
				if e.ProjectID != p.ID {
					t.Errorf("project %s's activity holds an event of project %d: %s", p.Name, e.ProjectID, e.Body)
				}
			}
		}
	})
}

// TestActivityPages: pages of 50, newest first; the page before the last
// event shown starts after it, so that no event is on two pages and
// together they hold each once.
func TestActivityPages(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		_, by := storetest.NewAccount(t, db, "actpg")
		name := "P"
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 60 {
			task := fmt.Sprintf("Bulk %02d", i)
			if _, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: &task}); err != nil {
				t.Fatal(err)
			}
		}
		q := taskd.ActivityQuery{Viewer: by.Viewer(), ProjectID: p.ID, Limit: 50}
		first, err := db.Activity(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(first) != 50 {
			t.Fatalf("the first page has %d events, want 50", len(first))
		}
		q.Before = first[len(first)-1].ID
		second, err := db.Activity(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]int{}
		var last int64
		for i, e := range append(first, second...) {
			seen[e.ID]++
			if i > 0 && e.ID >= last {
				t.Errorf("event %d after %d: not newest first", e.ID, last)
			}
			last = e.ID
		}
		if len(second) != 11 || len(seen) != 61 {
			t.Errorf("the second page has %d events, %d events in all; want 11 and 61 (60 tasks and the project), each once", len(second), len(seen))
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("event %d is on both pages", id)
			}
		}
	})
}
