package api_test

import (
	"testing"
)

// TestSubtaskDates: on the administrative path a subtask carries its
// date_start and date_end when set, wherever it appears (its own answer,
// get_task, child entries, search_tasks), as spec/account-api.md §2.1 gives
// subtasks the task's format; one without dates has neither. On the token
// path a subtask has neither (spec/interface.md's Task shape).
func TestSubtaskDates(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "P")
		tid := a.id("action", "post_task", "id_project", pid, "title", "Parent")
		dated := a.ok("action", "post_task", "id_project", pid, "id_parent", tid, "title", "Dated",
			"datestart", "02.03.2026", "dateend", "31.03.2026").data()
		sid := dated["id"].(string)
		bare := a.id("action", "post_task", "id_project", pid, "id_parent", tid, "title", "Bare", "dateend", "")
		check := func(where string, task map[string]any, start, end any) {
			t.Helper()
			if task["date_start"] != start || task["date_end"] != end {
				t.Errorf("%s: date_start %v, date_end %v; want %v, %v", where, task["date_start"], task["date_end"], start, end)
			}
		}
		check("post_task's answer", dated, "2026-03-02", "2026-03-31")
		check("get_task", a.ok("action", "get_task", "id_task", sid).data(), "2026-03-02", "2026-03-31")
		check("a subtask without dates", a.ok("action", "get_task", "id_task", bare).data(), nil, nil)
		for _, c := range a.ok("action", "get_task", "id_task", tid).data()["child"].([]any) {
			c := c.(map[string]any)
			if c["id"] == sid {
				check("a child entry", c, "2026-03-02", "2026-03-31")
			} else {
				check("a child entry without dates", c, nil, nil)
			}
		}
		for _, f := range a.ok("action", "search_tasks", "id_task", tid).list() {
			if f := f.(map[string]any); f["id"] == sid {
				check("search_tasks", f, "2026-03-02", "2026-03-31")
			}
		}
		a.ok("action", "update_task", "id_task", sid, "datestart", "")
		check("a subtask whose start is cleared", a.ok("action", "get_task", "id_task", sid).data(), nil, "2026-03-31")

		token := accessToken(t, a.server, a, "tasks_read")
		for _, c := range a.as(token, "action", "get_task", "id_task", tid).data()["child"].([]any) {
			check("a child entry on the token path", c.(map[string]any), nil, nil)
		}
	})
}
