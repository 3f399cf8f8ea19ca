package api_test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
)

var (
	dateTimeRE = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d$`)
	idRE       = regexp.MustCompile(`^[1-9][0-9]*$`)
)

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// checkTaskShape asserts the Task shape of the administrative path:
// exactly these fields, people as {id, email, name} objects (DESIGN §4;
// the token path's names and from_me/to_me are checked in oauth tests).
func checkTaskShape(t *testing.T, task map[string]any, top bool, extra ...string) {
	t.Helper()
	want := []string{"id", "name", "page", "status", "priority", "user_from", "user_to", "date_added"}
	if top {
		want = append(want, "date_start", "date_end")
	}
	if _, ok := task["child"]; ok {
		want = append(want, "child")
	}
	want = append(want, extra...)
	sort.Strings(want)
	if got := keys(task); got != strings.Join(want, ",") {
		t.Fatalf("task fields\n got %s\nwant %s\n%v", got, strings.Join(want, ","), task)
	}
	for _, f := range []string{"id", "name", "page", "status", "priority", "date_added"} {
		if _, ok := task[f].(string); !ok {
			t.Fatalf("task field %s is not a string: %v", f, task[f])
		}
	}
	for _, f := range []string{"user_from", "user_to"} {
		p, ok := task[f].(map[string]any)
		if !ok || keys(p) != "email,id,name" || !idRE.MatchString(p["id"].(string)) {
			t.Fatalf("task field %s is not a person: %v", f, task[f])
		}
	}
	if !idRE.MatchString(task["id"].(string)) || !dateTimeRE.MatchString(task["date_added"].(string)) {
		t.Fatalf("task id/date_added: %v", task)
	}
}

// name is the name of a person object of a task.
func name(p any) any { return p.(map[string]any)["name"] }

// TestWorkflow walks everything a script does with the admin API alone.
func TestWorkflow(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		owner := a.Owner.Email
		var pid, tid, sid string

		if !t.Run("a project is made, changed and read", func(t *testing.T) {
			a := a.in(t)
			p := a.ok("action", "post_project", "title", "Launch", "text", "Plan", "datestart", "01.03.2026", "dateend", "2026-04-30").data()
			pid = p["id"].(string)
			if p["name"] != "Launch" || p["page"] != "/project/"+pid+"/" || p["status"] != "active" || p["date_start"] != "2026-03-01" ||
				p["date_end"] != "2026-04-30" || p["text"] != "Plan" {
				t.Fatalf("post_project = %v", p)
			}
			if uf := p["user_from"].(map[string]any); uf["email"] != owner || uf["name"] != "Olga Owner" || !idRE.MatchString(uf["id"].(string)) {
				t.Fatalf("project user_from = %v", uf)
			}
			if ut := p["user_to"].(map[string]any); ut["id"] != "1" || ut["email"] != "NOONE" {
				t.Fatalf("project user_to = %v", ut)
			}
			a.ok("action", "update_project", "id_project", pid, "title", "Launch v2", "email_manager", owner)
			if got := a.ok("action", "get_project", "id_project", pid).data(); got["name"] != "Launch v2" || got["user_to"].(map[string]any)["email"] != owner {
				t.Fatalf("get_project = %v", got)
			}
		}) {
			return
		}

		if !t.Run("a task and its subtask are made and listed as a tree", func(t *testing.T) {
			a := a.in(t)
			task := a.ok("action", "post_task", "id_project", pid, "title", "Write copy", "text", "Body", "priority", "7",
				"email_user_to", owner, "datestart", "02.03.2026", "dateend", "10.03.2026").data()
			checkTaskShape(t, task, true, "text", "project")
			tid = task["id"].(string)
			if task["priority"] != "7" || name(task["user_to"]) != "Olga Owner" || name(task["user_from"]) != "Olga Owner" ||
				task["date_start"] != "2026-03-02" || task["page"] != fmt.Sprintf("/project/%s/%s/", pid, tid) {
				t.Fatalf("post_task = %v", task)
			}
			sub := a.ok("action", "post_task", "id_project", pid, "id_parent", tid, "title", "Proofread", "email_user_to", "ANY").data()
			sid = sub["id"].(string)
			checkTaskShape(t, sub, false, "text", "project")
			if sub["page"] != fmt.Sprintf("/project/%s/%s/%s/", pid, tid, sid) || name(sub["user_to"]) != "Anyone" {
				t.Fatalf("subtask = %v", sub)
			}

			list := a.ok("action", "get_tasks", "id_project", pid).list()
			if len(list) != 1 {
				t.Fatalf("get_tasks = %v", list)
			}
			top := list[0].(map[string]any)
			checkTaskShape(t, top, true)
			child := top["child"].([]any)
			if len(child) != 1 {
				t.Fatalf("child = %v", child)
			}
			checkTaskShape(t, child[0].(map[string]any), false)
		}) {
			return
		}

		if !t.Run("a parent completes after its subtask, and reopens before it", func(t *testing.T) {
			a := a.in(t)
			a.fails(api.CodeTaskHasChildren, "action", "complete_task", "id_task", tid)
			a.ok("action", "complete_task", "id_task", sid)
			a.fails(api.CodeAlreadyInState, "action", "complete_task", "id_task", sid)
			if got := a.ok("action", "complete_task", "id_task", tid).data(); got["status"] != "done" {
				t.Fatalf("complete_task = %v", got)
			}
			a.fails(api.CodeParentDone, "action", "reopen_task", "id_task", sid)
			a.fails(api.CodeTaskClosed, "action", "post_task", "id_project", pid, "id_parent", tid, "title", "late")
			a.ok("action", "reopen_task", "id_task", tid)
			a.fails(api.CodeAlreadyInState, "action", "reopen_task", "id_task", tid)
			a.ok("action", "reopen_task", "id_task", sid)
			if got := a.ok("action", "get_tasks", "id_project", pid, "filter", "done").list(); len(got) != 0 {
				t.Fatalf("done tasks = %v", got)
			}
		}) {
			return
		}

		if !t.Run("a changed task reads, lists and is found as changed", func(t *testing.T) {
			a := a.in(t)
			upd := a.ok("action", "update_task", "id_task", tid, "title", "Write the copy", "priority", "2", "email_user_to", "NOONE", "dateend", "").data()
			if upd["name"] != "Write the copy" || upd["priority"] != "2" || name(upd["user_to"]) != "Executive isn't assigned" || upd["date_end"] != "" {
				t.Fatalf("update_task = %v", upd)
			}
			got := a.ok("action", "get_task", "id_task", tid).data()
			checkTaskShape(t, got, true, "text", "project")
			if got["text"] != "Body" || len(got["child"].([]any)) != 1 {
				t.Fatalf("get_task = %v", got)
			}
			if all := a.ok("action", "get_all_tasks").list(); len(all) != 1 || all[0].(map[string]any)["project"].(map[string]any)["id"] != pid {
				t.Fatalf("get_all_tasks = %v", all)
			}
			if found := a.ok("action", "search_tasks", "filter", "name has 'proof'").list(); len(found) != 1 || found[0].(map[string]any)["id"] != sid {
				t.Fatalf("search_tasks = %v", found)
			}
		}) {
			return
		}

		if !t.Run("a comment is posted, edited and deleted once", func(t *testing.T) {
			a := a.in(t)
			cm := a.ok("action", "post_comment", "id_task", tid, "text", "Looks good").data()
			cid := cm["id"].(string)
			if cm["page"] != fmt.Sprintf("/project/%s/%s/#com%s", pid, tid, cid) || cm["text"] != "Looks good" ||
				!dateTimeRE.MatchString(cm["date_added"].(string)) || cm["user_from"].(map[string]any)["email"] != owner {
				t.Fatalf("post_comment = %v", cm)
			}
			a.ok("action", "update_comment", "id_comment", cid, "text", "Looks great")
			if cs := a.ok("action", "get_comments", "id_task", tid).list(); len(cs) != 1 || cs[0].(map[string]any)["text"] != "Looks great" {
				t.Fatalf("get_comments = %v", cs)
			}
			a.ok("action", "delete_comment", "id_comment", cid)
			a.fails(api.CodeCommentInvalid, "action", "delete_comment", "id_comment", cid)
		}) {
			return
		}

		if !t.Run("the owner is the one user, and a closed project takes no tasks until activated", func(t *testing.T) {
			a := a.in(t)
			if us := a.ok("action", "get_users").list(); len(us) != 1 || us[0].(map[string]any)["email"] != owner || us[0].(map[string]any)["role"] != "owner" {
				t.Fatalf("get_users = %v", us)
			}
			a.ok("action", "close_project", "id_project", pid)
			if ps := a.ok("action", "get_projects", "filter", "archive").list(); len(ps) != 1 {
				t.Fatalf("archived projects = %v", ps)
			}
			a.fails(api.CodeProjectArchived, "action", "post_task", "id_project", pid, "title", "x")
			a.ok("action", "activate_project", "id_project", pid)
		}) {
			return
		}

		t.Run("a deleted task takes its subtask, and every change reads back as an event", func(t *testing.T) {
			a := a.in(t)
			a.ok("action", "delete_task", "id_task", tid)
			a.fails(api.CodeTaskInvalid, "action", "get_task", "id_task", sid)
			evs := a.ok("action", "get_events", "period", "1h").list()
			var names []string
			for _, e := range evs {
				ev := e.(map[string]any)
				names = append(names, ev["event"].(string))
				for _, f := range []string{"id", "action", "object", "date_added", "user_from", "new", "old", "project"} {
					if _, ok := ev[f]; !ok {
						t.Fatalf("event lacks %s: %v", f, ev)
					}
				}
			}
			want := "post_project update_project post_task post_task close_task close_task reopen_task reopen_task update_task " +
				"post_comment update_comment delete_comment close_project reopen_project delete_task delete_task"
			if strings.Join(names, " ") != want {
				t.Fatalf("events\n got %s\nwant %s", strings.Join(names, " "), want)
			}
			if evs := a.ok("action", "get_events", "period", "5m", "id_project", pid).list(); len(evs) != len(names) {
				t.Fatalf("events of the project: %d", len(evs))
			}
		})
	})
}

// TestTenantIsolation tries every action of account B on account A's ids.
func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		s := newServer(t, d)
		a, b := s.newAccount(t), s.newAccount(t)
		pid := a.id("action", "post_project", "title", "Secret")
		tid := a.id("action", "post_task", "id_project", pid, "title", "Secret task")
		cid := a.id("action", "post_comment", "id_task", tid, "text", "Secret comment")

		b.fails(api.CodeProjectInvalid, "action", "get_project", "id_project", pid)
		b.fails(api.CodeProjectInvalid, "action", "get_tasks", "id_project", pid)
		b.fails(api.CodeProjectInvalid, "action", "update_project", "id_project", pid, "title", "x")
		b.fails(api.CodeProjectInvalid, "action", "close_project", "id_project", pid)
		b.fails(api.CodeProjectInvalid, "action", "post_task", "id_project", pid, "title", "x")
		b.fails(api.CodeProjectInvalid, "action", "get_events", "period", "1h", "id_project", pid)
		b.fails(api.CodeTaskInvalid, "action", "get_task", "id_task", tid)
		b.fails(api.CodeTaskInvalid, "action", "update_task", "id_task", tid, "title", "x")
		b.fails(api.CodeTaskInvalid, "action", "complete_task", "id_task", tid)
		b.fails(api.CodeTaskInvalid, "action", "delete_task", "id_task", tid)
		b.fails(api.CodeTaskInvalid, "action", "get_comments", "id_task", tid)
		b.fails(api.CodeTaskInvalid, "action", "post_comment", "id_task", tid, "text", "x")
		b.fails(api.CodeCommentInvalid, "action", "update_comment", "id_comment", cid, "text", "x")
		b.fails(api.CodeCommentInvalid, "action", "delete_comment", "id_comment", cid)
		b.fails(api.CodeUserInvalid, "action", "post_project", "title", "x", "email_user_from", a.Owner.Email)
		for _, call := range [][]string{{"action", "get_all_tasks"}, {"action", "get_projects"},
			{"action", "search_tasks", "filter", "id = " + tid + " or project = " + pid}} {
			if l := b.ok(call...).list(); len(l) != 0 {
				t.Fatalf("%v shows another account's data: %v", call, l)
			}
		}
		if l := b.ok("action", "get_events", "period", "1d").list(); len(l) != 0 {
			t.Fatalf("get_events shows another account's events: %v", l)
		}
		// B's key does not open A's URL.
		q := query("action", "get_projects")
		r := a.do("GET", a.endpoint()+"?"+q+"&hash="+hashWith(q, b.Key), "", "", nil)
		if r.HTTP != 401 || r.code() != int(api.CodeAuth) {
			t.Fatalf("B's key on A's URL: %v", r)
		}
		if got := a.ok("action", "get_task", "id_task", tid).data(); got["name"] != "Secret task" {
			t.Fatalf("task changed: %v", got)
		}
	})
}

// TestConcurrentRequests sends parallel writes and reads over HTTP;
// nothing is lost. scripts/test.sh runs it under -race, the package's
// test of its shared caches (the rest of api runs without).
func TestConcurrentRequests(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "Busy")
		const workers, each = 8, 12
		var wg sync.WaitGroup
		var mu sync.Mutex
		ids := map[string]bool{}
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					r := a.call("action", "post_task", "id_project", pid, "title", fmt.Sprintf("w%d-%d", w, i))
					if r.code() != -1 {
						t.Errorf("post_task: %v", r)
						return
					}
					id := r.data()["id"].(string)
					a.call("action", "post_comment", "id_task", id, "text", "c")
					// Reads among the writes: the rendered lists' cache and
					// the verified signatures' cache are shared by them all.
					if l := a.call("action", "get_tasks", "id_project", pid); l.code() != -1 {
						t.Errorf("get_tasks: %v", l)
					}
					mu.Lock()
					ids[id] = true
					mu.Unlock()
				}
			}(w)
		}
		wg.Wait()
		list := a.ok("action", "get_tasks", "id_project", pid).list()
		if len(list) != workers*each || len(ids) != workers*each {
			t.Fatalf("%d tasks listed, %d distinct ids, want %d", len(list), len(ids), workers*each)
		}
		evs := a.ok("action", "get_events", "period", "1h", "id_project", pid).list()
		if len(evs) != 1+2*workers*each {
			t.Fatalf("%d events, want %d", len(evs), 1+2*workers*each)
		}
	})
}

// TestTaskListNeverStale reads a project's list through one server, changes
// its tasks through another on the same database (a second replica), and
// reads again: every change shows at once.
func TestTaskListNeverStale(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		b := &account{server: a.server.replica(), Slug: a.Slug, Key: a.Key, Owner: a.Owner, t: t}

		pid := a.id("action", "post_project", "title", "P")
		tid := a.id("action", "post_task", "id_project", pid, "title", "one")
		names := func() string {
			var out []string
			for _, x := range a.ok("action", "get_tasks", "id_project", pid).list() {
				task := x.(map[string]any)
				s := task["name"].(string) + ":" + task["status"].(string)
				for _, c := range asList(task["child"]) {
					s += "/" + c.(map[string]any)["name"].(string)
				}
				out = append(out, s)
			}
			return strings.Join(out, ",")
		}
		for _, step := range []struct {
			change []string
			want   string
		}{
			{nil, "one:active"},
			{[]string{"action", "update_task", "id_task", tid, "title", "uno"}, "uno:active"},
			{[]string{"action", "post_task", "id_project", pid, "id_parent", tid, "title", "sub"}, "uno:active/sub"},
			{[]string{"action", "post_task", "id_project", pid, "title", "two"}, "uno:active/sub,two:active"},
		} {
			if step.change != nil {
				b.ok(step.change...)
			}
			if got := names(); got != step.want {
				t.Fatalf("after %v: list %q, want %q", step.change, got, step.want)
			}
		}
		sub := a.ok("action", "get_task", "id_task", tid).data()["child"].([]any)[0].(map[string]any)["id"].(string)
		for _, step := range []struct {
			change []string
			want   string
		}{
			{[]string{"action", "complete_task", "id_task", sub}, "uno:active/sub,two:active"},
			{[]string{"action", "complete_task", "id_task", tid}, "uno:done/sub,two:active"},
			{[]string{"action", "reopen_task", "id_task", tid}, "uno:active/sub,two:active"},
			{[]string{"action", "delete_task", "id_task", tid}, "two:active"},
		} {
			b.ok(step.change...)
			if got := names(); got != step.want {
				t.Fatalf("after %v: list %q, want %q", step.change, got, step.want)
			}
		}
	})
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestSearchLanguage: search_tasks answers the query language of spec §4
// on both databases: every field and operator, braced and bare, and/or
// and parentheses; archived projects only when named; a malformed filter
// is code 11 naming the offending part.
func TestSearchLanguage(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		p1 := a.id("action", "post_project", "title", "Site")
		p2 := a.id("action", "post_project", "title", "Old")
		post := func(pid, name string, pairs ...string) string {
			return a.ok(append([]string{"action", "post_task", "id_project", pid, "title", name}, pairs...)...).data()["id"].(string)
		}
		report := post(p1, "Monthly Report", "datestart", "01.05.2021", "dateend", "28.05.2021")
		approval := post(p1, "Approval of budget", "dateend", "31.05.2021")
		post(p1, "Report", "dateend", "10.06.2021")
		child := post(p1, "Report appendix", "id_parent", report)
		post(p1, "100% done_item")
		post(p2, "Archived report")
		a.ok("action", "complete_task", "id_task", child)
		a.ok("action", "close_project", "id_project", p2)

		names := func(pairs ...string) string {
			t.Helper()
			var out []string
			for _, x := range a.ok(append([]string{"action", "search_tasks"}, pairs...)...).list() {
				out = append(out, x.(map[string]any)["name"].(string))
			}
			sort.Strings(out)
			return strings.Join(out, "|")
		}
		today := strings.Split(a.ok("action", "get_task", "id_task", report).data()["date_added"].(string), " ")[0]
		parts := strings.Split(today, "-")
		todayIn := parts[2] + "." + parts[1] + "." + parts[0]
		for filter, want := range map[string]string{
			"name {has} 'Report'": "Monthly Report|Report|Report appendix",
			"name has 'report'":   "Monthly Report|Report|Report appendix", // case-insensitive; archived project left out
			"name{=}'Report'":     "Report",
			"name = 'report'":     "",
			"name has '100%'":     "100% done_item",
			"name has '_'":        "100% done_item",
			"id {in} (" + report + ", " + approval + ")": "Approval of budget|Monthly Report",
			"id=" + report:                     "Monthly Report",
			"parent = " + report:               "Report appendix",
			"parent = 0 and name has 'Report'": "Monthly Report|Report",
			"project{=}" + p1 + " and dateend>'25.05.2021' and dateend<'31.05.2021'":                          "Monthly Report",
			"(name has 'Report' or name has 'Approval') and (dateend>'25.05.2021' and dateend<='31.05.2021')": "Approval of budget|Monthly Report",
			"datestart = '01.05.2021'":                        "Monthly Report",
			"date_start != '01.05.2021'":                      "",
			"dateend >= '2021-06-10'":                         "Report",
			"dateadd = '" + todayIn + "'":                     "100% done_item|Approval of budget|Monthly Report|Report|Report appendix",
			"dateadd > '" + todayIn + "'":                     "",
			"dateadd <= '" + todayIn + "' and name has 'app'": "Approval of budget|Report appendix",
			"dateclose = '" + todayIn + "'":                   "Report appendix",
			"dateclose < '" + todayIn + "'":                   "",
		} {
			if got := names("filter", filter); got != want {
				t.Errorf("filter %q: %q, want %q", filter, got, want)
			}
		}
		if got := names("id_project", p2, "filter", "name has 'report'"); got != "Archived report" {
			t.Errorf("a named archived project: %q", got)
		}
		if got := names("id_task", report); got != "Monthly Report|Report appendix" {
			t.Errorf("id_task: %q", got)
		}
		a.fails(api.CodeFieldRequired, "action", "search_tasks", "status", "active")
		for filter, part := range map[string]string{
			"report":                "report",
			"name has 'x' or":       "filter",
			"project = 'abc'":       "abc",
			"dateend > 'tomorrow'":  "tomorrow",
			"name > 'x'":            "name >",
			"name has 'x'; drop it": ";",
			"id in (1, 2":           "filter",
		} {
			r := a.fails(api.CodeInvalidValue, "action", "search_tasks", "filter", filter)
			if r.Body["message_details"] != part {
				t.Errorf("filter %q: details %v, want %q", filter, r.Body["message_details"], part)
			}
		}
	})
}
