package storetest

import (
	"fmt"
	"testing"

	"github.com/taskd/taskd"
)

// testActivityProjects: a project's activity is that project's events
// only; the account's holds both projects'.
func testActivityProjects(t *testing.T, f *Fixture) {
	ctx, by := t.Context(), f.Owner
	s, ok := f.Store.(calendarStore)
	if !ok {
		t.Skip("the store keeps no activity")
	}
	var projects [2]taskd.Project
	for i, name := range []string{"A", "B"} {
		projects[i] = must(f.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new(name)}))(t)
		for j := range 3 {
			must(f.Store.CreateTask(ctx, by, projects[i].ID, 0, taskd.TaskInput{Name: new(fmt.Sprintf("%s task %d", name, j))}))(t)
		}
	}
	if all := must(s.Activity(ctx, taskd.ActivityQuery{Viewer: by.Viewer()}))(t); len(all) != 8 {
		t.Errorf("the account's activity has %d events, want 8 (two projects, six tasks)", len(all))
	}
	for _, p := range projects {
		evs := must(s.Activity(ctx, taskd.ActivityQuery{Viewer: by.Viewer(), ProjectID: p.ID}))(t)
		if len(evs) != 4 {
			t.Errorf("project %s's activity has %d events, want 4", p.Name, len(evs))
		}
		for _, e := range evs {
			if e.ProjectID != p.ID {
				t.Errorf("project %s's activity holds an event of project %d: %s", p.Name, e.ProjectID, e.Body)
			}
		}
	}
}

// testActivityPages: pages of 50, newest first; the page before the last
// event shown starts after it, so that no event is on two pages and
// together they hold each once.
func testActivityPages(t *testing.T, f *Fixture) {
	ctx, by := t.Context(), f.Owner
	s, ok := f.Store.(calendarStore)
	if !ok {
		t.Skip("the store keeps no activity")
	}
	p := newProject(t, f)
	for i := range 60 {
		must(f.Store.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new(fmt.Sprintf("Bulk %02d", i))}))(t)
	}
	q := taskd.ActivityQuery{Viewer: by.Viewer(), ProjectID: p.ID, Limit: 50}
	first := must(s.Activity(ctx, q))(t)
	if len(first) != 50 {
		t.Fatalf("the first page has %d events, want 50", len(first))
	}
	q.Before = first[len(first)-1].ID
	second := must(s.Activity(ctx, q))(t)
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
}
