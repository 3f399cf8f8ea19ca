package api_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
)

// TestCosts: the cost actions of spec §8 and the budgets of §2, as the
// PHP SDK (GET with the hash) and the Python SDK (JSON)
// send them: the time formats (C8), money, is_rate, dates, the documented
// shapes (get_costs' total beside data, get_costs_total at the top level
// with projects keyed by id, C25), every filter (id= and task=, C9), and
// the errors, each naming its field.
func TestCosts(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		s := a.server
		acct := mustAccount(t, s, a)
		owner := a.Owner.Email
		var (
			pid, tid, sub, other string
			nine                 []string
			ninety, rated        string
		)
		// add logs a line by the key for the owner and returns its id.
		add := func(a *account, pairs ...string) string {
			a.t.Helper()
			r := a.ok(append([]string{"action", "add_costs", "email_user_from", owner}, pairs...)...)
			if keys(r.Body) != "id,status" {
				a.t.Fatalf("add_costs answers %v, want {status, id}", r)
			}
			return r.Body["id"].(string)
		}

		if !t.Run("projects and tasks take budgets", func(t *testing.T) {
			a := a.in(t)
			project := a.ok("action", "post_project", "title", "Site", "max_time", "20", "max_money", "50,5").data()
			if project["max_time"] != float64(20) || project["max_money"] != 50.5 {
				t.Fatalf("a project's budget: %v / %v", project["max_time"], project["max_money"])
			}
			pid = project["id"].(string)
			task := a.ok("action", "post_task", "id_project", pid, "title", "Design", "max_time", "1:30").data()
			if task["max_time"] != 1.5 || task["max_money"] != nil {
				t.Fatalf("a task's budget: %v", task)
			}
			tid = task["id"].(string)
			if r := a.ok("action", "update_task", "id_task", tid, "max_time", "", "max_money", "99.99"); r.data()["max_time"] != nil || r.data()["max_money"] != 99.99 {
				t.Fatalf("a changed task budget: %v", r)
			}
			a.fails(api.CodeInvalidValue, "action", "update_project", "id_project", pid, "max_time", "lots")
			// Events carry budgets as the objects do, bare numbers; a
			// cleared one is null.
			var got [][2]any
			for _, e := range a.ok("action", "get_events", "period", "1h", "id_project", pid).list() {
				e := e.(map[string]any)
				nw, old := e["new"].(map[string]any), e["old"].(map[string]any)
				got = append(got, [2]any{nw["max_time"], nw["max_money"]}, [2]any{old["max_time"], old["max_money"]})
			}
			want := [][2]any{{float64(20), 50.5}, {nil, nil}, {1.5, nil}, {nil, nil}, {nil, 99.99}, {1.5, nil}}
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
				t.Fatalf("budgets in events (new, old of each): %#v, want %#v", got, want)
			}
			events := a.ok("action", "get_events", "period", "1h", "id_project", pid).Raw
			if !strings.Contains(events, `"new":{"max_money":99.99,"max_time":null}`) {
				t.Fatalf("a cleared budget in an event: %s", events)
			}
			sub = a.id("action", "post_task", "id_project", pid, "id_parent", tid, "title", "Logo")
			other = a.id("action", "post_task", "id_project", pid, "title", "Copy")
		}) {
			return
		}

		// add_costs: the docs' three spellings of nine minutes, a whole
		// number as hours (C8), money, a date.
		if !t.Run("add_costs takes the documented spellings of time, money and dates", func(t *testing.T) {
			a := a.in(t)
			r := a.fails(api.CodeFieldRequired, "action", "add_costs", "id_task", tid, "time", "1")
			if r.Body["message_details"] != "email_user_from" {
				t.Fatalf("add_costs by the key without email_user_from: %v", r)
			}
			nine = []string{add(a, "id_task", tid, "time", "0.15", "date", "01.03.2026", "comment", "sketch"),
				add(a, "id_task", tid, "time", "0,15", "date", "2026-03-01"), add(a, "id_task", sub, "time", "0:09", "money", "100", "date", "02.03.2026")}
			ninety = add(a, "id_task", other, "time", "90", "money", "0,5", "date", "15.04.2026", "comment", "Taxi to the client")

			lines := a.ok("action", "get_costs").Body
			data := lines["data"].([]any)
			if len(data) != 4 || lines["total"].(map[string]any)["time"] != "90:27" || lines["total"].(map[string]any)["money"] != "100.50" {
				t.Fatalf("get_costs: %v", lines)
			}
			first := data[0].(map[string]any)
			if keys(first) != "comment,date,id,is_timer,money,task,time,user_from" || first["id"] != nine[0] || first["time"] != "0:09" ||
				first["money"] != "0.00" || first["date"] != "2026-03-01" || first["is_timer"] != false || first["comment"] != "sketch" ||
				first["user_from"].(map[string]any)["email"] != owner {
				t.Fatalf("a cost line: %v", first)
			}
			if tk := first["task"].(map[string]any); tk["id"] != tid || tk["name"] != "Design" || tk["project"].(map[string]any)["id"] != pid {
				t.Fatalf("a cost line's task: %v", tk)
			}
			if l := data[3].(map[string]any); l["id"] != ninety || l["time"] != "90:00" || l["money"] != "0.50" {
				t.Fatalf("time 90 is 90 hours (C8): %v", l)
			}
		}) {
			return
		}

		t.Run("get_costs keeps to every filter", func(t *testing.T) {
			a := a.in(t)
			count := func(pairs ...string) int {
				t.Helper()
				return len(a.ok(append([]string{"action", "get_costs"}, pairs...)...).list())
			}
			for _, c := range []struct {
				pairs []string
				want  int
			}{
				{[]string{"id_project", pid}, 4},
				{[]string{"id_task", tid}, 3}, // with its subtask
				{[]string{"id_task", sub}, 1},
				{[]string{"datestart", "01.03.2026", "dateend", "01.03.2026"}, 2},
				{[]string{"datestart", "02.03.2026"}, 2},
				{[]string{"is_timer", "0"}, 4},
				{[]string{"is_timer", "1"}, 0},
				{[]string{"filter", "id=" + other}, 1},   // the docs' spelling
				{[]string{"filter", "task{=}" + sub}, 1}, // the PHP SDK's
				{[]string{"filter", "project in (" + pid + ")"}, 4},
				{[]string{"filter", "comment has 'taxi'"}, 1},
				{[]string{"filter", "dateadd>='02.03.2026' and dateadd<'15.04.2026'"}, 1},
			} {
				if got := count(c.pairs...); got != c.want {
					t.Errorf("get_costs %v: %d lines, want %d", c.pairs, got, c.want)
				}
			}
		})

		t.Run("every bad parameter fails naming its field", func(t *testing.T) {
			a := a.in(t)
			for _, bad := range []struct {
				code  api.Code
				field string
				pairs []string
			}{
				{api.CodeInvalidValue, "name", []string{"action", "get_costs", "filter", "name has 'x'"}}, // the offending part, as search_tasks names it
				{api.CodeInvalidValue, "is_timer", []string{"action", "get_costs", "is_timer", "yes"}},
				{api.CodeInvalidValue, "dateend", []string{"action", "get_costs", "datestart", "02.03.2026", "dateend", "01.03.2026"}},
				{api.CodeProjectInvalid, "id_project", []string{"action", "get_costs", "id_project", "999999"}},
				{api.CodeInvalidValue, "time", []string{"action", "add_costs", "id_task", tid, "time", "1:75", "email_user_from", owner}},
				{api.CodeInvalidValue, "time", []string{"action", "add_costs", "id_task", tid, "time", "0:00", "email_user_from", owner}},
				{api.CodeInvalidValue, "money", []string{"action", "add_costs", "id_task", tid, "money", "-5", "email_user_from", owner}},
				{api.CodeInvalidValue, "money", []string{"action", "add_costs", "id_task", tid, "money", "1.005", "email_user_from", owner}},
				{api.CodeFieldRequired, "time", []string{"action", "add_costs", "id_task", tid, "comment", "nothing", "email_user_from", owner}},
				{api.CodeInvalidValue, "date", []string{"action", "add_costs", "id_task", tid, "time", "1", "date", "31.02.2026", "email_user_from", owner}},
				{api.CodeInvalidValue, "is_rate", []string{"action", "add_costs", "id_task", tid, "time", "1", "is_rate", "1", "email_user_from", owner}},
				{api.CodeTaskInvalid, "id_task", []string{"action", "add_costs", "id_task", "999999", "time", "1", "email_user_from", owner}},
				{api.CodeUserInvalid, "nobody@example.com", []string{"action", "add_costs", "id_task", tid, "time", "1", "email_user_from", "nobody@example.com"}},
				{api.CodeNotFound, "id_costs", []string{"action", "update_costs", "id_costs", "999999", "time", "1"}},
				{api.CodeNotFound, "id_costs", []string{"action", "delete_costs", "id_costs", "x"}},
				{api.CodeUnknownParam, "email_user_from", []string{"action", "update_costs", "id_costs", nine[0], "email_user_from", owner}},
			} {
				if r := a.fails(bad.code, bad.pairs...); r.Body["message_details"] != bad.field {
					t.Errorf("%v: details %v, want %s", bad.pairs, r.Body["message_details"], bad.field)
				}
			}
		})

		// is_rate: money from the person's hourly rate, on add and on a
		// new time.
		if !t.Run("is_rate prices the time at the person's hourly rate", func(t *testing.T) {
			a := a.in(t)
			ctx := context.Background()
			ownerActor := taskd.Actor{AccountID: acct.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}
			rate := int64(4000)
			if err := s.DB.SetRate(ctx, ownerActor, a.Owner.ID, &rate); err != nil {
				t.Fatal(err)
			}
			rated = add(a, "id_task", other, "time", "1:30", "money", "1", "is_rate", "1", "date", "16.04.2026")
			a.ok("action", "update_costs", "id_costs", nine[0], "time", "2", "is_rate", "1", "comment", "sketches")
			a.ok("action", "update_costs", "id_costs", nine[1], "money", "12.30")
			byID := map[string]map[string]any{}
			for _, l := range a.ok("action", "get_costs").list() {
				byID[l.(map[string]any)["id"].(string)] = l.(map[string]any)
			}
			if l := byID[rated]; l["money"] != "60.00" || l["time"] != "1:30" {
				t.Fatalf("1:30 at 40.00 an hour: %v", l)
			}
			if l := byID[nine[0]]; l["money"] != "80.00" || l["time"] != "2:00" || l["comment"] != "sketches" || l["date"] != "2026-03-01" {
				t.Fatalf("updated with is_rate: %v", l)
			}
			if l := byID[nine[1]]; l["money"] != "12.30" || l["time"] != "0:09" {
				t.Fatalf("updated money: %v", l)
			}
		}) {
			return
		}

		// get_costs_total: the top level, without data; projects keyed by
		// id with months; tasks, and top-level tasks with their subtasks'.
		t.Run("get_costs_total sums at the top level, by project, month and task", func(t *testing.T) {
			a := a.in(t)
			total := a.ok("action", "get_costs_total").Body
			if keys(total) != "status,total" || total["total"].(map[string]any)["time"] != "93:48" || total["total"].(map[string]any)["money"] != "252.80" {
				t.Fatalf("get_costs_total: %v", total)
			}
			withProjects := a.ok("action", "get_costs_total", "extra", "projects").Body
			proj := withProjects["projects"].(map[string]any)[pid].(map[string]any)
			monthly := proj["monthly"].(map[string]any)
			if proj["id"] != pid || proj["name"] != "Site" || proj["page"] != "/project/"+pid+"/" || proj["time"] != "93:48" ||
				monthly["2026-03"].(map[string]any)["time"] != "2:18" || monthly["2026-04"].(map[string]any)["money"] != "60.50" || proj["tasks"] != nil {
				t.Fatalf("extra=projects: %v", proj)
			}
			tasks := func(extra string) map[string]string {
				t.Helper()
				p := a.ok("action", "get_costs_total", "extra", extra).Body["projects"].(map[string]any)[pid].(map[string]any)
				out := map[string]string{}
				for _, x := range p["tasks"].([]any) {
					x := x.(map[string]any)
					if keys(x) != "id,money,name,page,priority,status,time" {
						t.Fatalf("a task's total: %v", x)
					}
					out[x["name"].(string)] = x["time"].(string)
				}
				return out
			}
			if got := tasks("projects,tasks"); len(got) != 3 || got["Design"] != "2:09" || got["Logo"] != "0:09" || got["Copy"] != "91:30" {
				t.Fatalf("extra=projects,tasks: %v", got)
			}
			if got := tasks("projects,tasks_top_level"); len(got) != 2 || got["Design"] != "2:18" {
				t.Fatalf("extra=projects,tasks_top_level: %v", got)
			}
			if r := a.ok("action", "get_costs_total", "id_task", tid, "extra", "projects"); r.Body["projects"] != nil || r.Body["total"].(map[string]any)["time"] != "2:18" {
				t.Fatalf("extra=projects is ignored for one task: %v", r)
			}
			if r := a.ok("action", "get_costs_total", "filter", "project=999999"); r.Body["total"].(map[string]any)["time"] != "0:00" {
				t.Fatalf("a total of nothing: %v", r)
			}
		})

		if !t.Run("the Python SDK sends JSON numbers and lists", func(t *testing.T) {
			a := a.in(t)
			if r := a.python("add_costs", map[string]any{"id_task": tid, "time": 2.5, "money": 10, "email_user_from": owner, "date": "2026-05-01"}); r.code() != -1 {
				t.Fatalf("add_costs from the Python SDK: %v", r)
			}
			if r := a.python("get_costs_total", map[string]any{"id_project": pid, "datestart": "01.05.2026", "extra": []string{"projects", "tasks"}}); r.code() != -1 ||
				r.Body["total"].(map[string]any)["time"] != "2:30" || r.Body["projects"].(map[string]any)[pid] == nil {
				t.Fatalf("get_costs_total from the Python SDK: %v", r)
			}
		}) {
			return
		}

		t.Run("delete_costs deletes once, and an archived project takes no lines", func(t *testing.T) {
			a := a.in(t)
			a.ok("action", "delete_costs", "id_costs", ninety)
			a.fails(api.CodeNotFound, "action", "delete_costs", "id_costs", ninety)
			a.ok("action", "close_project", "id_project", pid)
			a.fails(api.CodeProjectArchived, "action", "add_costs", "id_task", tid, "time", "1", "email_user_from", owner)
			a.fails(api.CodeProjectArchived, "action", "update_costs", "id_costs", rated, "time", "1")
		})
	})
}

// TestTimersAndCostsWithTokens: the timer actions with
// the credentials each takes (every person's timers: the administrative
// key; "my timer": a token), and costs through a token: its person logs
// and changes their own lines only, a guest sees the lines of their
// projects only, and a token without costs_write cannot log.
func TestTimersAndCostsWithTokens(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		s := a.server
		acct := mustAccount(t, s, a)
		ctx := context.Background()
		person := func(name string, role taskd.Role) taskd.Person {
			p, err := s.DB.AddMember(ctx, acct.ID, taskd.NewPerson{Email: name + "-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: name}, role)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		uma, gus := person("uma", taskd.RoleUser), person("gus", taskd.RoleGuest)
		umaToken := tokenFor(t, s, a, uma, taskd.RoleUser, "costs_read", "costs_write")
		readOnly := tokenFor(t, s, a, uma, taskd.RoleUser, "costs_read")
		gusToken := tokenFor(t, s, a, gus, taskd.RoleGuest, "costs_read", "costs_write")
		pid := a.id("action", "post_project", "title", "P", "members", gus.Email)
		secret := a.id("action", "post_project", "title", "Secret")
		tid := a.id("action", "post_task", "id_project", pid, "title", "T")
		hidden := a.id("action", "post_task", "id_project", secret, "title", "H")

		if !t.Run("a token runs the timer of its person", func(t *testing.T) {
			a := a.in(t)
			if r := a.as(umaToken, "action", "get_my_timer"); r.code() != -1 || len(r.list()) != 0 {
				t.Fatalf("get_my_timer with none running: %v", r)
			}
			if r := a.as(umaToken, "action", "stop_my_timer", "comment", ""); r.code() != int(api.CodeNotFound) || r.Body["message_details"] != "timer" {
				t.Fatalf("stop_my_timer with none running: %v", r)
			}
			if r := a.as(umaToken, "action", "start_my_timer", "id_task", tid); r.code() != -1 {
				t.Fatalf("start_my_timer: %v", r)
			}
			mine := a.as(umaToken, "action", "get_my_timer").list()
			if len(mine) != 1 {
				t.Fatalf("get_my_timer: %v", mine)
			}
			if m := mine[0].(map[string]any); keys(m) != "date_started,task,time" || m["task"].(map[string]any)["id"] != tid {
				t.Fatalf("get_my_timer's element (no id, no user_from): %v", m)
			} else if _, bare := m["time"].(float64); !bare {
				t.Fatalf("get_my_timer's time is a bare number of seconds: %v", m["time"])
			}
			all := a.ok("action", "get_timers").list()
			if len(all) != 1 {
				t.Fatalf("get_timers: %v", all)
			}
			timer := all[0].(map[string]any)
			if keys(timer) != "date_started,id,task,time,user_from" || len(timer["time"].(string)) != 8 || timer["user_from"].(map[string]any)["email"] != uma.Email {
				t.Fatalf("a timer: %v", timer)
			}
		}) {
			return
		}

		if !t.Run("each credential keeps to its own timer actions", func(t *testing.T) {
			a := a.in(t)
			for _, name := range []string{"get_my_timer", "start_my_timer", "stop_my_timer", "delete_my_timer"} {
				if r := a.call("action", name); r.code() != int(api.CodeForbidden) || !strings.Contains(r.Raw, "access token") {
					t.Errorf("%s with the administrative key: %v", name, r)
				}
			}
			for _, name := range []string{"get_timers", "stop_timer"} {
				if r := a.as(umaToken, "action", name); r.code() != int(api.CodeForbidden) || !strings.Contains(r.Raw, "administrative key") {
					t.Errorf("%s with a token: %v", name, r)
				}
			}
			if r := a.as(readOnly, "action", "start_my_timer", "id_task", tid); r.code() != int(api.CodeForbidden) {
				t.Fatalf("start_my_timer without costs_write: %v", r)
			}
		}) {
			return
		}

		// Stopping records a line from the timer; a second start on
		// another task records the first.
		if !t.Run("a stopped timer records a line and a deleted one none", func(t *testing.T) {
			a := a.in(t)
			r := a.as(umaToken, "action", "stop_my_timer", "comment", "wireframes")
			if r.code() != -1 || r.Body["id"] == nil {
				t.Fatalf("stop_my_timer: %v", r)
			}
			lines := a.as(umaToken, "action", "get_costs", "is_timer", "1").list()
			if len(lines) != 1 || lines[0].(map[string]any)["is_timer"] != true || lines[0].(map[string]any)["time"] != "0:01" ||
				lines[0].(map[string]any)["comment"] != "wireframes" || lines[0].(map[string]any)["user_from"].(map[string]any)["email"] != uma.Email {
				t.Fatalf("the timer's line: %v", lines)
			}
			a.as(umaToken, "action", "start_my_timer", "id_task", tid)
			if r := a.as(umaToken, "action", "delete_my_timer"); r.code() != -1 {
				t.Fatalf("delete_my_timer: %v", r)
			}
			if n := len(a.as(umaToken, "action", "get_costs").list()); n != 1 {
				t.Fatalf("a discarded timer logged a line: %d lines", n)
			}
			a.as(gusToken, "action", "start_my_timer", "id_task", tid)
			gusTimer := a.ok("action", "get_timers").list()[0].(map[string]any)["id"].(string)
			if r := a.ok("action", "stop_timer", "timer", gusTimer); r.Body["id"] == nil {
				t.Fatalf("stop_timer: %v", r)
			}
			a.fails(api.CodeNotFound, "action", "stop_timer", "timer", gusTimer)
		}) {
			return
		}

		// A person logs as themselves; email_user_from naming someone else
		// is refused; their own lines only change.
		if !t.Run("a token logs and changes its person's own lines only", func(t *testing.T) {
			a := a.in(t)
			if r := a.as(umaToken, "action", "add_costs", "id_task", tid, "time", "1", "email_user_from", a.Owner.Email); r.code() != int(api.CodeForbidden) {
				t.Fatalf("a token logging for another person: %v", r)
			}
			own := a.as(umaToken, "action", "add_costs", "id_task", tid, "time", "1").Body["id"].(string)
			ownerLine := a.ok("action", "add_costs", "id_task", tid, "time", "2", "email_user_from", a.Owner.Email).Body["id"].(string)
			if r := a.as(umaToken, "action", "update_costs", "id_costs", ownerLine, "time", "3"); r.code() != int(api.CodeForbidden) {
				t.Fatalf("a user changed the owner's line: %v", r)
			}
			if r := a.as(umaToken, "action", "update_costs", "id_costs", own, "time", "3"); r.code() != -1 {
				t.Fatalf("a user changing their line: %v", r)
			}
			if r := a.as(umaToken, "action", "delete_costs", "id_costs", ownerLine); r.code() != int(api.CodeForbidden) {
				t.Fatalf("a user deleted the owner's line: %v", r)
			}
			spare := a.as(umaToken, "action", "add_costs", "id_task", tid, "money", "7").Body["id"].(string)
			if r := a.as(umaToken, "action", "delete_costs", "id_costs", spare); r.code() != -1 {
				t.Fatalf("a user deleting their line: %v", r)
			}
			a.ok("action", "add_costs", "id_task", hidden, "time", "5", "email_user_from", a.Owner.Email)
		}) {
			return
		}

		t.Run("a guest sees the lines and totals of their projects only", func(t *testing.T) {
			a := a.in(t)
			if n := len(a.as(gusToken, "action", "get_costs").list()); n != 4 {
				t.Fatalf("a guest's lines: %d, want 4", n)
			}
			if r := a.as(gusToken, "action", "get_costs", "id_project", secret); r.code() != int(api.CodeProjectInvalid) {
				t.Fatalf("a guest reading another project's lines: %v", r)
			}
			if r := a.as(gusToken, "action", "get_costs_total"); r.Body["total"].(map[string]any)["time"] != "5:02" {
				t.Fatalf("a guest's total: %v", r)
			}
			if r := a.ok("action", "get_costs_total"); r.Body["total"].(map[string]any)["time"] != "10:02" {
				t.Fatalf("the key's total: %v", r)
			}
			if r := a.as(gusToken, "action", "delete_costs", "id_costs", strconv.Quote("x")); r.code() != int(api.CodeNotFound) {
				t.Fatalf("a bad cost id: %v", r)
			}
		})
	})
}
