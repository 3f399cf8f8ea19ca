package api_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
)

// TestGetCostsRefusesBeyondTheLimit (issue 47): docs/api.md "Lists are
// whole": get_costs answers 10,000 matching lines whole, with their total,
// and refuses 10,001 with 11 on dateend rather than cut them short. One
// line is logged through the API and copied by SQL in one statement
// (10,000 add_costs take minutes under the race detector); the 10,001st
// is logged through the API again.
func TestGetCostsRefusesBeyondTheLimit(t *testing.T) {
	d := testdb.New(t, "sqlite")
	a := newServer(t, d).newAccount(t)
	pid := a.id("action", "post_project", "title", "Hours")
	tid := a.id("action", "post_task", "id_project", pid, "title", "Work")
	line := []string{"action", "add_costs", "id_task", tid, "email_user_from", a.Owner.Email, "time", "0:01", "money", "0.01", "date", "2026-03-02"}
	a.ok(line...)
	raw, err := sql.Open("sqlite", filepath.Join(d.Dir, "taskd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?)
		INSERT INTO costs (account_id, project_id, task_id, top_task_id, person_id, minutes, cents, comment, day, is_timer, created_at)
		SELECT x.account_id, x.project_id, x.task_id, x.top_task_id, x.person_id, x.minutes, x.cents, x.comment, x.day, x.is_timer, x.created_at
		FROM costs x, c WHERE x.task_id = ?`, taskd.MaxCostLines-1, tid); err != nil {
		t.Fatal(err)
	}

	r := a.ok("action", "get_costs", "id_project", pid)
	total, _ := r.Body["total"].(map[string]any)
	if got := len(r.list()); got != taskd.MaxCostLines || total["time"] != "166:40" {
		t.Fatalf("get_costs of exactly %d lines: %d lines, total %v; want them all, 166:40 in all", taskd.MaxCostLines, got, total)
	}

	a.ok(line...)
	r = a.call("action", "get_costs", "id_project", pid)
	if r.code() != int(api.CodeInvalidValue) || r.Body["message_details"] != "dateend" ||
		!strings.Contains(fmt.Sprint(r.Body["message"]), fmt.Sprintf("More than %d cost lines match", taskd.MaxCostLines)) {
		t.Fatalf("get_costs of %d lines: %d lines, %v; want refused with 11 on dateend", taskd.MaxCostLines+1, len(r.list()), r.Body["message"])
	}
}
