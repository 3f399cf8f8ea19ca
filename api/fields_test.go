package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/wire"
)

// TestCustomFields: spec §14. get_task_custom_fields and
// get_project_custom_fields list the account's fields; values are set
// with custom_fields[ID] as the PHP SDK signs them (GET with hash) and as
// an object in a JSON body (the Python SDK's way), read back with
// extra=custom_fields on every task and project read, refused with 11
// when they do not fit, and filtered by in search_tasks.
func TestCustomFields(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		ctx := context.Background()
		acct := mustAccount(t, a.server, a)
		owner := taskd.Actor{AccountID: acct.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}
		define := func(of, name, typ string, options ...string) string {
			f, err := a.DB.AddCustomField(ctx, owner, taskd.CustomField{Of: of, Name: name, Type: typ, Descr: name + "!", Options: options})
			if err != nil {
				t.Fatal(err)
			}
			return jsonID(f.ID)
		}
		client := define(taskd.ObjectTask, "Client", taskd.CustomText)
		hours := define(taskd.ObjectTask, "Hours", taskd.CustomNumber)
		stage := define(taskd.ObjectTask, "Stage", taskd.CustomList, "Draft", "Final")
		code := define(taskd.ObjectProject, "Code", taskd.CustomText)
		due := define(taskd.ObjectProject, "Due by", taskd.CustomDate)
		param := func(id string) string { return "custom_fields[" + id + "]" }
		var pid, tid string

		t.Run("the definitions, each kind apart", func(t *testing.T) {
			a := a.in(t)
			got := a.ok("action", "get_task_custom_fields").Raw
			want := `{"status":"ok","data":[{"id":"` + client + `","type":"text","name":"Client","descr":"Client!","options":[]},` +
				`{"id":"` + hours + `","type":"number","name":"Hours","descr":"Hours!","options":[]},` +
				`{"id":"` + stage + `","type":"list","name":"Stage","descr":"Stage!","options":["Draft","Final"]}]}`
			if strings.TrimSpace(got) != want {
				t.Errorf("get_task_custom_fields =\n%s\nwant\n%s", got, want)
			}
			if l := a.ok("action", "get_project_custom_fields").list(); len(l) != 2 || l[0].(map[string]any)["name"] != "Code" || l[1].(map[string]any)["type"] != "date" {
				t.Errorf("get_project_custom_fields = %v", l)
			}
		})

		if !t.Run("values are set on creation and update, in their stored form, and answered", func(t *testing.T) {
			a := a.in(t)
			p := a.ok("action", "post_project", "title", "Site", param(code), " ACME-1 ", param(due), "31.03.2026").data()
			pid = p["id"].(string)
			if got := values(p); got != "Code=ACME-1 Due by=2026-03-31" {
				t.Fatalf("post_project's custom_fields: %s (%v)", got, p)
			}
			task := a.ok("action", "post_task", "id_project", pid, "title", "Logo", param(client), "Acme", param(hours), "1,50").data()
			tid = task["id"].(string)
			if got := values(task); got != "Client=Acme Hours=1.5" {
				t.Fatalf("post_task's custom_fields: %s", got)
			}
			if _, shown := a.ok("action", "post_task", "id_project", pid, "title", "Plain").data()["custom_fields"]; shown {
				t.Fatal("post_task without values answers custom_fields")
			}
			a.id("action", "post_task", "id_project", pid, "id_parent", tid, "title", "Sketch", param(stage), "Draft")
			upd := a.ok("action", "update_task", "id_task", tid, param(stage), "Final", param(hours), "").data()
			if got := values(upd); got != "Client=Acme Stage=Final" {
				t.Fatalf("update_task's custom_fields: %s", got)
			}
			if got := values(upd["child"].([]any)[0].(map[string]any)); got != "Stage=Draft" {
				t.Fatalf("the subtask's custom_fields in update_task: %s", got)
			}
			v := upd["custom_fields"].([]any)[0].(map[string]any)
			if keys(v) != "id,name,type,value" || v["id"] != client || v["type"] != "text" {
				t.Fatalf("a value is %v", v)
			}
			// The Python SDK's way: an object in a JSON body.
			r := a.python("update_project", map[string]any{"id_project": pid, "custom_fields": map[string]any{code: "ACME-2", due: nil}})
			if got := values(r.data()); r.code() != -1 || got != "Code=ACME-2 Due by=2026-03-31" {
				t.Fatalf("update_project with a JSON object: %s %v", got, r)
			}
			r = a.python("update_task", map[string]any{"id_task": tid, "custom_fields": map[string]any{hours: 2.25}})
			if got := values(r.data()); got != "Client=Acme Hours=2.25 Stage=Final" {
				t.Fatalf("update_task with a JSON number: %s %v", got, r)
			}
		}) {
			return
		}

		t.Run("extra=custom_fields on every read; [] for none", func(t *testing.T) {
			a := a.in(t)
			if _, shown := a.ok("action", "get_task", "id_task", tid).data()["custom_fields"]; shown {
				t.Error("get_task without the extra answers custom_fields")
			}
			if got := values(a.ok("action", "get_task", "id_task", tid, "extra", "custom_fields").data()); got != "Client=Acme Hours=2.25 Stage=Final" {
				t.Errorf("get_task: %s", got)
			}
			for _, call := range [][]string{
				{"action", "get_tasks", "id_project", pid, "extra", "custom_fields"},
				{"action", "get_all_tasks", "extra", "text,custom_fields"},
			} {
				list := a.ok(call...).list()
				byName := map[string]string{}
				for _, x := range list {
					task := x.(map[string]any)
					byName[task["name"].(string)] = values(task)
					for _, c := range asList(task["child"]) {
						byName[c.(map[string]any)["name"].(string)] = values(c.(map[string]any))
					}
					if task["name"] == "Plain" && string(mustJSON(t, task["custom_fields"])) != "[]" {
						t.Errorf("%s: a task without values has %v", call[1], task["custom_fields"])
					}
				}
				if byName["Logo"] != "Client=Acme Hours=2.25 Stage=Final" || byName["Sketch"] != "Stage=Draft" || byName["Plain"] != "" {
					t.Errorf("%s: %v", call[1], byName)
				}
			}
			// get_tasks without the extra is the cached list: no values.
			if strings.Contains(a.ok("action", "get_tasks", "id_project", pid).Raw, "custom_fields") {
				t.Error("get_tasks without the extra answers custom_fields")
			}
			if got := values(a.ok("action", "get_project", "id_project", pid, "extra", "custom_fields").data()); got != "Code=ACME-2 Due by=2026-03-31" {
				t.Errorf("get_project: %s", got)
			}
			if got := values(a.ok("action", "get_projects", "extra", "custom_fields").list()[0].(map[string]any)); got != "Code=ACME-2 Due by=2026-03-31" {
				t.Errorf("get_projects: %s", got)
			}
		})

		t.Run("search_tasks filters by custom fields, by id or name", func(t *testing.T) {
			a := a.in(t)
			for filter, want := range map[string]string{
				"custom_fields[" + client + "] = 'Acme'":                        "Logo",
				"custom_fields['Client'] has 'ac'":                              "Logo",
				"custom_fields['Hours'] > 2 and custom_fields['Hours'] < '2,5'": "Logo",
				"custom_fields['Stage'] = 'Draft'":                              "Sketch",
				"custom_fields['Stage'] = ''":                                   "Plain",
				"custom_fields['Stage'] != '' and parent = 0":                   "Logo",
			} {
				var names []string
				for _, x := range a.ok("action", "search_tasks", "filter", filter, "extra", "custom_fields").list() {
					names = append(names, x.(map[string]any)["name"].(string))
				}
				sort.Strings(names)
				if got := strings.Join(names, " "); got != want {
					t.Errorf("filter %q: %q, want %q", filter, got, want)
				}
			}
			for filter, part := range map[string]string{
				"custom_fields['Nope'] = 'x'":      "custom_fields['Nope']",
				"custom_fields['Hours'] = 'many'":  "many",
				"custom_fields['Stage'] > 'Draft'": "custom_fields['Stage'] >",
				"custom_fields[x] = 1":             "x",
				"custom_fields['Code'] = 'ACME-2'": "custom_fields['Code']", // a field of projects
			} {
				if r := a.fails(api.CodeInvalidValue, "action", "search_tasks", "filter", filter); r.Body["message_details"] != part {
					t.Errorf("filter %q: details %v, want %q", filter, r.Body["message_details"], part)
				}
			}
		})

		t.Run("values that do not fit are 11, naming the parameter, and change nothing", func(t *testing.T) {
			a := a.in(t)
			for _, c := range []struct{ name, value, details string }{
				{param(hours), "two", param(hours)},
				{param(stage), "final", "final"},
				{param(code), "x", param(code)}, // a field of projects on a task
				{"custom_fields[999999]", "x", "custom_fields[999999]"},
				{"custom_fields[x]", "1", "custom_fields[x]"},
				{"custom_fields[]", "1", "custom_fields[]"},
			} {
				r := a.fails(api.CodeInvalidValue, "action", "update_task", "id_task", tid, "title", "Renamed", c.name, c.value)
				if r.Body["message_details"] != c.details {
					t.Errorf("%s=%s: details %v, want %s", c.name, c.value, r.Body["message_details"], c.details)
				}
			}
			if d := a.ok("action", "get_task", "id_task", tid, "extra", "custom_fields").data(); d["name"] != "Logo" || values(d) != "Client=Acme Hours=2.25 Stage=Final" {
				t.Errorf("a refused update changed the task: %v", d)
			}
			// Actions that set no values do not take them.
			a.fails(api.CodeUnknownParam, "action", "get_task", "id_task", tid, param(client), "x")
			a.fails(api.CodeUnknownParam, "action", "complete_task", "id_task", tid, param(client), "x")
			for body, details := range map[string]string{
				`{"id_task":"` + tid + `","custom_fields":{"` + client + `":{"a":1}}}`:                                 "custom_fields",
				`{"id_task":"` + tid + `","custom_fields":{"` + client + `":["a"]}}`:                                   "custom_fields",
				`{"id_task":"` + tid + `","custom_fields[` + client + `]":"a","custom_fields":{"` + client + `":"b"}}`: param(client),
			} {
				r := a.do(http.MethodPost, strings.TrimSuffix(a.endpoint(), "/")+"?action=update_task", "application/json", body,
					http.Header{"Authorization": {wire.AdminHeader(a.Key, "update_task", time.Now())}})
				if r.code() != int(api.CodeMalformed) || r.Body["message_details"] != details {
					t.Errorf("%s: %v, want 17 naming %s", body, r, details)
				}
			}
		})

		t.Run("changes of values are update events with them", func(t *testing.T) {
			a := a.in(t)
			evs := a.ok("action", "get_events", "period", "1h").list()
			var n int
			for _, e := range evs {
				ev := e.(map[string]any)
				if ev["event"] == "update_task" && ev["new"].(map[string]any)["custom_fields"] != nil {
					n++
				}
			}
			if n != 2 {
				t.Errorf("%d update_task events carry custom_fields, want 2", n)
			}
		})
	})
}

// TestHiddenTaskValues: the values of a task hidden from a person are as
// hidden as the task: out of every list they read, and no filter on them
// finds the task.
func TestHiddenTaskValues(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		ctx := context.Background()
		acct := mustAccount(t, a.server, a)
		owner := taskd.Actor{AccountID: acct.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}
		f, err := a.DB.AddCustomField(ctx, owner, taskd.CustomField{Of: taskd.ObjectTask, Name: "Client", Type: taskd.CustomText})
		if err != nil {
			t.Fatal(err)
		}
		bob, err := a.DB.AddMember(ctx, acct.ID, taskd.NewPerson{Email: "bob-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: "Bob"}, taskd.RoleUser)
		if err != nil {
			t.Fatal(err)
		}
		token := tokenFor(t, a.server, a, bob, taskd.RoleUser, "projects_read", "tasks_read")
		pid := a.id("action", "post_project", "title", "P")
		a.ok("action", "post_task", "id_project", pid, "title", "Open", "custom_fields["+jsonID(f.ID)+"]", "Public Ltd")
		secret := a.id("action", "post_task", "id_project", pid, "title", "Secret", "hidden", a.Owner.Email, "custom_fields["+jsonID(f.ID)+"]", "Hush Ltd")
		for _, call := range [][]string{
			{"action", "get_all_tasks", "extra", "custom_fields"},
			{"action", "get_tasks", "id_project", pid, "extra", "custom_fields"},
			{"action", "search_tasks", "filter", "custom_fields['Client'] has 'Ltd'", "extra", "custom_fields"},
		} {
			r := a.as(token, call...)
			if r.code() != -1 || strings.Contains(r.Raw, "Hush") || strings.Contains(r.Raw, "Secret") || !strings.Contains(r.Raw, "Public Ltd") {
				t.Errorf("%v as Bob: %s", call, r.Raw)
			}
		}
		if r := a.as(token, "action", "search_tasks", "filter", "custom_fields['Client'] = 'Hush Ltd'"); r.code() != -1 || len(r.list()) != 0 {
			t.Errorf("Bob's filter on the hidden value: %s", r.Raw)
		}
		if r := a.as(token, "action", "get_task", "id_task", secret, "extra", "custom_fields"); r.code() != int(api.CodeTaskInvalid) {
			t.Errorf("Bob's get_task of the hidden task: %s", r.Raw)
		}
		if r := a.ok("action", "get_task", "id_task", secret, "extra", "custom_fields"); values(r.data()) != "Client=Hush Ltd" {
			t.Errorf("the key reads %s", r.Raw)
		}
	})
}

// values is an object's custom_fields as "Name=value …", in order.
func values(obj map[string]any) string {
	var out []string
	for _, x := range asList(obj["custom_fields"]) {
		v := x.(map[string]any)
		out = append(out, v["name"].(string)+"="+v["value"].(string))
	}
	return strings.Join(out, " ")
}

func jsonID(id int64) string { return strconv.FormatInt(id, 10) }

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
