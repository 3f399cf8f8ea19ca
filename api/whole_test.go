package api_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/taskd/taskd/internal/testdb"
)

// TestListsAreWhole: no list answers ok with part of what was asked. A
// project of 12,000 tasks comes back whole from get_tasks, get_all_tasks
// and get_events (until issue 31 they stopped at 10,000, silently).
//
// One task and its event are made through the API; the other 11,999 are
// copies of them written by SQL in one statement each, since making them
// one by one takes minutes under the race detector.
func TestListsAreWhole(t *testing.T) {
	t.Parallel()
	const n = 12_000
	d := testdb.New(t, "sqlite")
	s := newServer(t, d)
	a := s.newAccount(t)
	pid := a.id("action", "post_project", "title", "Big")
	a.ok("action", "post_task", "id_project", pid, "title", "Task")
	raw, err := sql.Open("sqlite", filepath.Join(d.Dir, "taskd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	const copies = `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?) `
	for _, q := range []string{
		copies + `INSERT INTO tasks (account_id, project_id, name, status, priority, author_id, created_at)
			SELECT t.account_id, t.project_id, t.name || ' ' || c.n, t.status, t.priority, t.author_id, t.created_at
			FROM tasks t, c WHERE t.project_id = ?`,
		copies + `INSERT INTO events (account_id, project_id, name, created_at, body, fanned)
			SELECT e.account_id, e.project_id, e.name, e.created_at, e.body, 1
			FROM events e, c WHERE e.project_id = ? AND e.name = 'post_task'`,
	} {
		if _, err := raw.Exec(q, n-1, pid); err != nil {
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
