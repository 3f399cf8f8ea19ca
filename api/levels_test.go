package api_test

import (
	"slices"
	"testing"

	"github.com/taskd/taskd/api"
)

// TestThreeLevelsOfTasks: post_task makes a sub-subtask under a subtask
// (spec §2.1, C6) and refuses one under a sub-subtask (code 5); every
// list nests sub-subtasks in their subtask's child; search_tasks finds
// them flat, by parent and by their top-level task; their events name
// their parent as a subtask's do; their cost lines count for the tasks
// above them; delete_task takes the whole subtree.
func TestThreeLevelsOfTasks(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "Levels")
		top := a.id("action", "post_task", "id_project", pid, "title", "Plan")
		sub := a.id("action", "post_task", "id_project", pid, "id_parent", top, "title", "Outline")
		leaf := a.ok("action", "post_task", "id_project", pid, "id_parent", sub, "title", "Intro", "datestart", "01.03.2026").data()
		if leaf["page"] != "/project/"+pid+"/"+sub+"/"+leaf["id"].(string)+"/" {
			t.Fatalf("the sub-subtask's page: %v", leaf["page"])
		}
		if leaf["date_start"] != "2026-03-01" { // on the admin path, as a subtask's when set (TestSubtaskDates)
			t.Errorf("a sub-subtask's date_start: %v", leaf)
		}
		id := leaf["id"].(string)
		r := a.fails(api.CodeTaskInvalid, "action", "post_task", "id_project", pid, "id_parent", id, "title", "Too deep")
		if r.Body["message_details"] != "id_parent" {
			t.Errorf("a sub-subtask as parent: %s", r.Raw)
		}
		other := a.id("action", "post_project", "title", "Other")
		a.fails(api.CodeTaskInvalid, "action", "post_task", "id_project", other, "id_parent", sub, "title", "Elsewhere")
		a.ok("action", "update_task", "id_task", id, "title", "Introduction")

		// nested returns the names of a list's tasks, each with its
		// children's in brackets.
		var nested func(tasks []any) []string
		nested = func(tasks []any) []string {
			var out []string
			for _, x := range tasks {
				m := x.(map[string]any)
				out = append(out, m["name"].(string))
				if kids, ok := m["child"].([]any); ok {
					out = append(out, "[")
					out = append(out, nested(kids)...)
					out = append(out, "]")
				}
			}
			return out
		}
		want := []string{"Plan", "[", "Outline", "[", "Introduction", "]", "]"}
		for _, q := range [][]string{{"action", "get_tasks", "id_project", pid}, {"action", "get_tasks", "id_project", pid, "extra", "files"},
			{"action", "get_all_tasks", "extra", "subtasks"}} {
			if got := nested(a.ok(q...).list()); !slices.Equal(got, want) {
				t.Errorf("%v: %q, want %q", q, got, want)
			}
		}
		if got := nested([]any{a.ok("action", "get_task", "id_task", top).data()}); !slices.Equal(got, want) {
			t.Errorf("get_task of the task: %q, want %q", got, want)
		}
		if got := nested([]any{a.ok("action", "get_task", "id_task", sub).data()}); !slices.Equal(got, want[2:6]) {
			t.Errorf("get_task of the subtask: %q, want %q", got, want[2:6])
		}
		for _, c := range []struct {
			q    []string
			want []string
		}{
			{[]string{"filter", "parent{=}" + sub}, []string{"Introduction"}},
			{[]string{"filter", "parent in (" + top + ", " + sub + ")"}, []string{"Outline", "Introduction"}},
			{[]string{"id_task", top}, []string{"Plan", "Outline", "Introduction"}},
			{[]string{"id_task", sub}, []string{"Outline", "Introduction"}},
		} {
			if got := nested(a.ok(append([]string{"action", "search_tasks"}, c.q...)...).list()); !slices.Equal(got, c.want) {
				t.Errorf("search_tasks %v: %q, want %q", c.q, got, c.want)
			}
		}

		// Events carry the sub-subtask's parent.
		var posted bool
		for _, e := range a.ok("action", "get_events", "period", "1h", "id_project", pid).list() {
			m := e.(map[string]any)
			if m["action"] == "post" && m["object"].(map[string]any)["id"] == id {
				posted = true
				if parent := m["new"].(map[string]any)["id_parent"]; parent != sub {
					t.Errorf("the sub-subtask's post event names parent %v, want %s", parent, sub)
				}
			}
		}
		if !posted {
			t.Error("no post event for the sub-subtask")
		}

		// A sub-subtask's lines are its subtask's and its task's.
		a.ok("action", "add_costs", "id_task", id, "time", "1", "email_user_from", a.Owner.Email)
		for _, task := range []string{top, sub, id} {
			if lines := a.ok("action", "get_costs", "id_task", task).list(); len(lines) != 1 {
				t.Errorf("get_costs of task %s: %d lines, want the sub-subtask's", task, len(lines))
			}
		}
		total := a.ok("action", "get_costs_total", "id_project", pid, "extra", "projects,tasks_top_level")
		if !containsKey(total.Body["projects"], top) || containsKey(total.Body["projects"], sub) || containsKey(total.Body["projects"], id) {
			t.Errorf("get_costs_total by top-level task: %s, want the line under %s alone", total.Raw, top)
		}

		// Completing and reopening go level by level.
		a.fails(api.CodeTaskHasChildren, "action", "complete_task", "id_task", top)
		a.fails(api.CodeTaskHasChildren, "action", "complete_task", "id_task", sub)
		a.ok("action", "complete_task", "id_task", id)
		a.ok("action", "complete_task", "id_task", sub)
		a.ok("action", "complete_task", "id_task", top)
		a.fails(api.CodeParentDone, "action", "reopen_task", "id_task", id)
		a.fails(api.CodeTaskClosed, "action", "post_task", "id_project", pid, "id_parent", sub, "title", "Late")

		a.ok("action", "delete_task", "id_task", top)
		for _, task := range []string{sub, id} {
			a.fails(api.CodeTaskInvalid, "action", "get_task", "id_task", task)
		}
	})
}

// containsKey reports whether v, decoded JSON, holds key anywhere as an
// object's key or an "id".
func containsKey(v any, key string) bool {
	switch v := v.(type) {
	case map[string]any:
		if v["id"] == key {
			return true
		}
		for k, x := range v {
			if k == key || containsKey(x, key) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if containsKey(x, key) {
				return true
			}
		}
	}
	return false
}
