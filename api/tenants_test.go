package api_test

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
)

// idParams are the parameters that name an object of the account.
var idParams = map[string]bool{"id_project": true, "id_task": true, "id_parent": true, "id_comment": true, "id": true, "projects": true,
	"id_costs": true, "timer": true, "id_file": true, "id_task_from": true, "id_task_to": true}

// accountWide are the actions that name no object: they read or create in
// the caller's own account only (TestTenantIsolation checks the lists).
var accountWide = map[string]bool{
	"get_projects": true, "get_all_tasks": true, "search_tasks": true, "get_users": true,
	"get_events": true, "get_webhooks": true, "post_project": true, "add_webhook": true,
	"get_user_groups": true, "add_user_group": true, "add_user": true, "get_contacts": true, "add_contact": true,
	"get_contact_groups": true, "add_contact_group": true, "get_project_groups": true, "add_project_group": true,
	"get_task_tag_groups": true, "get_project_tag_groups": true, "add_task_tag_groups": true, "add_project_tag_groups": true,
	"get_task_tags": true, "get_project_tags": true, "add_task_tags": true, "add_project_tags": true,
	"get_task_custom_fields": true, "get_project_custom_fields": true,
	"get_timers": true, "get_my_timer": true, "stop_my_timer": true, "delete_my_timer": true, "upload_files": true,
	// A tag or group is named by id or title within the caller's account,
	// as add_task_tags names its group (TestTags tries another account's).
	"update_task_tag_group": true, "update_project_tag_group": true, "update_task_tag": true, "update_project_tag": true,
	"sort_task_tag_groups": true, "sort_project_tag_groups": true, "sort_task_tags": true, "sort_project_tags": true,
	"delete_task_tag": true, "delete_project_tag": true, "delete_task_tag_group": true, "delete_project_tag_group": true,
	"get_users_schedule": true, "update_users_schedule": true, // people by e-mail: TestSchedulesStayInTheirAccount
}

// TestEveryActionStaysInItsAccount calls every action of the table with
// each object id it takes set to another account's object (and the other
// ids to the caller's own), and expects exactly the answer an id that
// names nothing gets: another account's objects are not there. The other
// account's data is unchanged afterwards. An action added to the table is
// tried without being listed here.
func TestEveryActionStaysInItsAccount(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		s := newServer(t, d)
		url := okReceiver(t)
		owned := func(a *account) map[string]string { return ownedObjects(t, s, a, url) }
		victim, intruder := s.newAccount(t), s.newAccount(t)
		theirs, mine := owned(victim), owned(intruder)
		sample := map[string]string{"title": "x", "text": "x", "period": "1h", "url": url, "events": "post_task",
			"members": "x@example.com", "email_user": "x@example.com", "plus": "x", "group": "g",
			"time": "2", "days": "1", "email_user_from": intruder.Owner.Email}
		before := snapshot(victim, theirs)

		names := api.AdminActions()
		sort.Strings(names)
		for _, name := range names {
			params := api.ActionParams(name)
			var ids []string
			for _, p := range params {
				if idParams[p] {
					ids = append(ids, p)
				}
			}
			if len(ids) == 0 {
				if !accountWide[name] {
					t.Errorf("action %s takes no object id and is not listed as account-wide: which account's data does it reach?", name)
				}
				continue
			}
			for _, foreign := range ids {
				with := func(id string) []string {
					pairs := []string{"action", name}
					for _, p := range params {
						switch {
						case p == foreign:
							pairs = append(pairs, p, id)
						case p == "id_parent" || p == "projects":
							// optional: left out unless under test
						case idParams[p]:
							pairs = append(pairs, p, mine[p])
						case sample[p] != "":
							pairs = append(pairs, p, sample[p])
						}
					}
					return pairs
				}
				got, nothing := intruder.call(with(theirs[foreign])...), intruder.call(with("987654321")...)
				if got.Raw != nothing.Raw || got.HTTP != nothing.HTTP {
					t.Errorf("%s with another account's %s: %v; with an id of nothing: %v", name, foreign, got, nothing)
				}
			}
		}
		if after := snapshot(victim, theirs); after != before {
			t.Fatalf("the other account's data changed:\nbefore %s\nafter  %s", before, after)
		}
	})
}

// ownedObjects makes one object of every kind an id parameter names in
// the account, and returns their ids by parameter.
func ownedObjects(t *testing.T, s *server, a *account, url string) map[string]string {
	t.Helper()
	pid := a.id("action", "post_project", "title", "P")
	tid := a.id("action", "post_task", "id_project", pid, "title", "T")
	cid := a.id("action", "post_comment", "id_task", tid, "text", "C")
	wid := strconv.Itoa(int(a.ok("action", "add_webhook", "url", url, "events", "post_task").Body["id"].(float64)))
	costID := a.ok("action", "add_costs", "id_task", tid, "time", "1:30", "email_user_from", a.Owner.Email).Body["id"].(string)
	acct := mustAccount(t, s, a)
	id, _ := strconv.ParseInt(tid, 10, 64)
	timer, _, err := s.DB.StartTimer(context.Background(), taskd.Actor{AccountID: acct.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	ownerActor := taskd.Actor{AccountID: acct.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}
	file, err := s.DB.CreateFile(context.Background(), ownerActor, "f.txt", "text/plain", strings.NewReader("secret"), taskd.DefaultFileLimits)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DB.AttachFiles(context.Background(), ownerActor, []int64{file.ID}, taskd.OwnerTask, id); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"id_project": pid, "id_task": tid, "id_parent": tid, "id_comment": cid, "id": wid, "projects": pid,
		"id_costs": costID, "timer": strconv.FormatInt(timer.ID, 10), "id_file": strconv.FormatInt(file.ID, 10),
		"id_task_from": tid, "id_task_to": tid}
}

// TestMalformedIDs: an id parameter of any action that is not an id (a
// sign, a leading zero, a non-digit, more than 18 digits) gets exactly the
// answer of an id that names nothing: the object's code and message,
// naming the parameter (docs/api.md, Formats). search_tasks is the one
// exception the reference states: an unknown id there matches nothing.
// add_webhook's projects, a list, names a malformed element by its value
// (the golden answers pin it).
func TestMalformedIDs(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		s := newServer(t, d)
		url := okReceiver(t)
		a := s.newAccount(t)
		mine := ownedObjects(t, s, a, url)
		sample := map[string]string{"title": "x", "text": "x", "period": "1h", "url": url, "events": "post_task",
			"members": a.Owner.Email, "email_user": a.Owner.Email, "plus": "x", "group": "g", "time": "2", "days": "1", "email_user_from": a.Owner.Email}
		names := api.AdminActions()
		sort.Strings(names)
		for _, name := range names {
			if name == "search_tasks" {
				continue
			}
			params := api.ActionParams(name)
			for _, tried := range params {
				if !idParams[tried] || tried == "projects" {
					continue
				}
				with := func(id string) []string {
					pairs := []string{"action", name}
					for _, p := range params {
						switch {
						case p == tried:
							pairs = append(pairs, p, id)
						case p == "id_parent" || p == "projects":
						case idParams[p]:
							pairs = append(pairs, p, mine[p])
						case sample[p] != "":
							pairs = append(pairs, p, sample[p])
						}
					}
					return pairs
				}
				nothing := a.call(with("987654321")...)
				for _, bad := range []string{"abc", "01", "-1", "+1", "1.0", "1234567890123456789"} {
					if got := a.call(with(bad)...); got.Raw != nothing.Raw || got.HTTP != nothing.HTTP {
						t.Errorf("%s with %s=%s: %v; with an id of nothing: %v", name, tried, bad, got, nothing)
					}
				}
			}
		}
	})
}

// snapshot renders an account's objects, to compare before and after.
func snapshot(a *account, ids map[string]string) string {
	return a.ok("action", "get_project", "id_project", ids["id_project"]).Raw +
		a.ok("action", "get_task", "id_task", ids["id_task"]).Raw +
		a.ok("action", "get_comments", "id_task", ids["id_task"]).Raw +
		a.ok("action", "get_webhooks").Raw +
		a.ok("action", "get_costs", "id_project", ids["id_project"]).Raw +
		timers(a) +
		a.ok("action", "get_files", "id_project", ids["id_project"]).Raw
}

// timers lists the account's running timers by id, task and start, and
// not their running time, which changes by itself.
func timers(a *account) string {
	var out []string
	for _, tm := range a.ok("action", "get_timers").list() {
		tm := tm.(map[string]any)
		out = append(out, tm["id"].(string)+":"+tm["task"].(map[string]any)["id"].(string)+":"+tm["date_started"].(string))
	}
	return strings.Join(out, ",")
}
