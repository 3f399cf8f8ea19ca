package api_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
)

// specScopes is the scope that guards each action, written out from
// spec/account-api.md §16 and DESIGN.md (delete_task, the comment edits,
// the webhook switches and the tag renames, orders and deletions follow
// their family). It is this test's own list: an action added to the table
// without a line here fails the test.
var specScopes = map[string]string{
	"get_projects": "projects_read", "get_project": "projects_read",
	"post_project": "projects_write", "update_project": "projects_write", "close_project": "projects_write", "activate_project": "projects_write",
	"get_all_tasks": "tasks_read", "get_tasks": "tasks_read", "get_task": "tasks_read", "search_tasks": "tasks_read",
	"post_task": "tasks_write", "update_task": "tasks_write", "complete_task": "tasks_write", "reopen_task": "tasks_write", "delete_task": "tasks_write",
	"get_comments": "comments_read",
	"post_comment": "comments_write", "update_comment": "comments_write", "delete_comment": "comments_write",
	"get_users": "users_read", "get_user_groups": "users_read", "get_users_schedule": "users_read",
	"add_user": "users_write", "add_user_group": "users_write", "update_users_schedule": "users_write",
	"get_contacts": "contacts_read", "get_contact_groups": "contacts_read",
	"add_contact": "contacts_write", "add_contact_group": "contacts_write",
	"get_project_groups":     "projects_read",
	"get_task_custom_fields": "tasks_read", "get_project_custom_fields": "projects_read", // INF in §14 and §16
	"add_project_group": "projects_write", "add_project_members": "projects_write", "delete_project_members": "projects_write",
	"subscribe": "tasks_write", "unsubscribe": "tasks_write",
	// Task relations (issue 35; not in the spec: docs/decisions.md).
	"add_task_relation": "tasks_write", "delete_task_relation": "tasks_write", "shift_dependent_tasks": "tasks_write",
	"get_task_tag_groups": "tags_read", "get_project_tag_groups": "tags_read", "get_task_tags": "tags_read", "get_project_tags": "tags_read",
	"add_task_tag_groups": "tags_write", "add_project_tag_groups": "tags_write", "add_task_tags": "tags_write", "add_project_tags": "tags_write",
	"update_task_tags": "tags_write", "update_project_tags": "tags_write",
	// taskd's extensions for the tags themselves (issue 33), in their family.
	"update_task_tag_group": "tags_write", "update_project_tag_group": "tags_write", "update_task_tag": "tags_write", "update_project_tag": "tags_write",
	"sort_task_tag_groups": "tags_write", "sort_project_tag_groups": "tags_write", "sort_task_tags": "tags_write", "sort_project_tags": "tags_write",
	"delete_task_tag": "tags_write", "delete_project_tag": "tags_write", "delete_task_tag_group": "tags_write", "delete_project_tag_group": "tags_write",
	"get_costs": "costs_read", "get_costs_total": "costs_read", "get_timers": "costs_read", "get_my_timer": "costs_read",
	"add_costs": "costs_write", "update_costs": "costs_write", "delete_costs": "costs_write", "stop_timer": "costs_write",
	"start_my_timer": "costs_write", "stop_my_timer": "costs_write", "delete_my_timer": "costs_write",
	"get_files": "files_read", "download": "files_read", "upload_files": "files_write",
	"get_events": "administrative", "get_webhooks": "administrative", "add_webhook": "administrative",
	"delete_webhook": "administrative", "enable_webhook": "administrative", "disable_webhook": "administrative",
	"me": "*", // any token
}

// TestEveryActionHasItsScope: the action table guards every action with
// the scope the spec gives it, and nothing else.
func TestEveryActionHasItsScope(t *testing.T) {
	t.Parallel()
	table := api.ActionScopes()
	for name, scope := range table {
		if want, ok := specScopes[name]; !ok {
			t.Errorf("action %s is not in the spec's scope list of this test: add it", name)
		} else if scope != want {
			t.Errorf("action %s is guarded by %q, the spec says %q", name, scope, want)
		}
	}
	for name := range specScopes {
		if _, ok := table[name]; !ok {
			t.Errorf("action %s of the spec is missing from the access-token API", name)
		}
	}
	for _, name := range api.AdminActions() {
		if _, ok := table[name]; !ok {
			t.Errorf("administrative action %s cannot be called with a token", name)
		}
	}
}

// TestEveryActionRefusesOtherScopes calls every action with a token that
// holds every scope but the action's own, and expects code 20 naming the
// missing scope; with the action's scope alone, the scope is no obstacle.
func TestEveryActionRefusesOtherScopes(t *testing.T) {
	t.Parallel()
	s := newServer(t, testdb.New(t, "sqlite"))
	a := s.newAccount(t)
	scopes := map[string]bool{}
	for _, sc := range specScopes {
		if sc != "*" {
			scopes[sc] = true
		}
	}
	allBut := map[string]string{}
	only := map[string]string{}
	for sc := range scopes {
		var others []string
		for o := range scopes {
			if o != sc {
				others = append(others, o)
			}
		}
		allBut[sc] = accessToken(t, s, a, others...)
		only[sc] = accessToken(t, s, a, sc)
	}
	names := make([]string, 0, len(specScopes))
	for name := range specScopes {
		names = append(names, name)
	}
	sort.Strings(names)
	call := func(token, action string) response {
		t.Helper()
		return a.do(http.MethodGet, a.URL+"/a/"+a.Slug+"/api/oauth2?action="+action, "", "", http.Header{"Authorization": {"Bearer " + token}})
	}
	for _, name := range names {
		scope := specScopes[name]
		if scope == "*" {
			for sc, token := range only {
				if r := call(token, name); r.code() == 20 {
					t.Errorf("%s refused to a token with only %s: %v", name, sc, r)
				}
			}
			continue
		}
		if r := call(allBut[scope], name); r.HTTP != 403 || r.code() != 20 || r.Body["message_details"] != scope {
			t.Errorf("%s with every scope but %s: %v", name, scope, r)
		}
		if r := call(only[scope], name); r.code() == 20 && strings.Contains(r.Raw, "scope") {
			t.Errorf("%s refused to a token with %s: %v", name, scope, r)
		}
	}
}
