package api_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
)

// TestListsAreWhole: no list answers ok with part of what was asked. A
// project of 12,000 tasks comes back whole from get_tasks, get_all_tasks
// and get_events (until issue 31 they stopped at 10,000, silently).
func TestListsAreWhole(t *testing.T) {
	const n = 12_000
	s := newServer(t, testdb.New(t, "sqlite"))
	a := s.newAccount(t)
	ctx := context.Background()
	pid := a.ok("action", "post_project", "title", "Big").data()["id"].(string)
	id, err := taskd.ParseID(pid, "id_project")
	if err != nil {
		t.Fatal(err)
	}
	acct, err := s.DB.AccountBySlug(ctx, a.Slug)
	if err != nil {
		t.Fatal(err)
	}
	by := taskd.Actor{AccountID: acct.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}
	for i := range n {
		if _, err := s.DB.CreateTask(ctx, by, id, 0, taskd.TaskInput{Name: ptr(fmt.Sprintf("Task %d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		pairs []string
		want  int
	}{
		{"get_tasks", []string{"action", "get_tasks", "id_project", pid}, n},
		{"get_all_tasks", []string{"action", "get_all_tasks"}, n},
		{"get_events", []string{"action", "get_events", "period", "1d"}, n + 1}, // and post_project
	} {
		if got := len(a.ok(c.pairs...).list()); got != c.want {
			t.Errorf("%s: %d items, want %d", c.name, got, c.want)
		}
	}
}
