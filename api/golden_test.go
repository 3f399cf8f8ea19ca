package api_test

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenTimeRE matches the times an answer carries, which change per run.
var goldenTimeRE = regexp.MustCompile(`\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?([+-]\d\d:\d\d|Z)?`)

// TestGoldenAnswers replays a fixed conversation with the API on a fresh
// database and compares every answer (status, the headers clients read, and
// the body byte for byte, times aside) with testdata/golden/answers.txt. It
// pins the wire format: a refactoring that changes one code, message or
// field order fails here. Run with -update to accept a deliberate change.
func TestGoldenAnswers(t *testing.T) {
	t.Parallel()
	s := newServer(t, testdb.New(t, "sqlite"))
	g := testaccount.New(t, s.DB, testaccount.Options{Slug: "golden", Name: "Golden",
		Owner: testaccount.Person{Email: "olga@example.com"}, Sealer: s.Sealer})
	key, owner := g.Key, g.Owner
	a := &account{server: s, Slug: "golden", Key: key, Owner: owner, t: t}
	readOnly := accessToken(t, s, a, "projects_read", "tasks_read")

	var out strings.Builder
	record := func(name string, res *http.Response, body string) {
		fmt.Fprintf(&out, "### %s\nHTTP %d", name, res.StatusCode)
		for _, h := range []string{"Content-Type", "Retry-After", "Allow", "WWW-Authenticate"} {
			if v := res.Header.Get(h); v != "" {
				fmt.Fprintf(&out, "\n%s: %s", h, v)
			}
		}
		fmt.Fprintf(&out, "\n%s\n", goldenTimeRE.ReplaceAllString(body, "<time>"))
	}
	send := func(name string, req *http.Request) {
		t.Helper()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		record(name, res, string(body))
	}
	signed := func(name string, pairs ...string) {
		t.Helper()
		q := query(pairs...)
		req, _ := http.NewRequest(http.MethodGet, a.endpoint()+"?"+q+"&hash="+wire.Hash(q, key), nil)
		send(name, req)
	}
	bearer := func(name, token string, pairs ...string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/a/golden/api/oauth2?"+query(pairs...), nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		send(name, req)
	}

	signed("post_project", "action", "post_project", "title", "Launch", "text", "Plan the launch", "datestart", "01.03.2026")
	signed("post_task", "action", "post_task", "id_project", "1", "title", "Write copy", "priority", "5", "email_user_to", "olga@example.com", "dateend", "31.03.2026")
	signed("post_subtask", "action", "post_task", "id_project", "1", "id_parent", "1", "title", "First draft")
	signed("post_comment", "action", "post_comment", "id_task", "1", "text", "Started")
	signed("get_task", "action", "get_task", "id_task", "1", "extra", "subtasks")
	signed("get_tasks", "action", "get_tasks", "id_project", "1")
	signed("get_projects", "action", "get_projects")
	signed("get_comments", "action", "get_comments", "id_task", "1")
	signed("get_users", "action", "get_users")
	signed("get_webhooks", "action", "get_webhooks")
	signed("add_costs", "action", "add_costs", "id_task", "2", "time", "1:30", "money", "25,5", "comment", "Copy", "date", "02.03.2026",
		"email_user_from", "olga@example.com")
	signed("add_costs by hours", "action", "add_costs", "id_task", "1", "time", "0.15", "date", "2026-04-01", "email_user_from", "olga@example.com")
	signed("update_costs", "action", "update_costs", "id_costs", "1", "time", "2", "comment", "Copy and layout")
	signed("get_costs", "action", "get_costs", "id_project", "1")
	signed("get_costs_total", "action", "get_costs_total", "extra", "projects,tasks_top_level")
	signed("get_timers", "action", "get_timers")
	signed("update_project budget", "action", "update_project", "id_project", "1", "max_time", "20", "max_money", "50.5")
	signed("delete_costs", "action", "delete_costs", "id_costs", "2")
	signed("10 no time or money", "action", "add_costs", "id_task", "1", "comment", "x", "email_user_from", "olga@example.com")
	signed("10 no person for the line", "action", "add_costs", "id_task", "1", "time", "1")
	signed("11 bad time", "action", "add_costs", "id_task", "1", "time", "1:75", "email_user_from", "olga@example.com")
	signed("11 bad cost filter", "action", "get_costs", "filter", "name has 'x'")
	signed("20 my timer with the key", "action", "get_my_timer")
	signed("25 unknown cost line", "action", "delete_costs", "id_costs", "999")
	signed("25 no timer", "action", "stop_timer", "timer", "999")

	signed("0 unknown action", "action", "drop_tables")
	signed("1 no action", "id_project", "1")
	send("2 bad hash", mustRequest(t, http.MethodGet, a.endpoint()+"?action=get_projects&hash=00", ""))
	signed("4 unknown project", "action", "get_tasks", "id_project", "999")
	signed("4 malformed project id", "action", "get_tasks", "id_project", "01")
	signed("5 unknown task", "action", "get_task", "id_task", "999")
	signed("5 unknown parent", "action", "post_task", "id_project", "1", "id_parent", "999", "title", "x")
	signed("10 missing title", "action", "post_task", "id_project", "1")
	signed("10 missing id", "action", "get_task")
	signed("10 webhook not found", "action", "delete_webhook", "id", "999")
	signed("11 bad priority", "action", "update_task", "id_task", "1", "priority", "11")
	signed("11 bad date", "action", "post_task", "id_project", "1", "title", "x", "dateend", "31.02.2026")
	signed("11 end before start", "action", "update_task", "id_task", "1", "datestart", "10.01.2026", "dateend", "09.01.2026")
	signed("11 bad period", "action", "get_events", "period", "31d")
	signed("11 bad webhook url", "action", "add_webhook", "url", "ftp://example.com/", "events", "post_task")
	signed("13 open subtasks", "action", "complete_task", "id_task", "1")
	signed("complete subtask", "action", "complete_task", "id_task", "2")
	signed("12 already closed", "action", "complete_task", "id_task", "2")
	signed("complete task", "action", "complete_task", "id_task", "1")
	signed("14 parent done", "action", "reopen_task", "id_task", "2")
	signed("8 task closed", "action", "post_task", "id_project", "1", "id_parent", "1", "title", "x")
	signed("15 unknown comment", "action", "update_comment", "id_comment", "999", "text", "x")
	signed("16 unknown parameter", "action", "get_projects", "colour", "red")
	send("17 malformed body", mustRequest(t, http.MethodPost, a.endpoint(), "{"))
	send("19 method", mustRequest(t, http.MethodDelete, a.endpoint(), ""))
	bearer("20 scope missing", readOnly, "action", "post_project", "title", "x")
	bearer("2 no token", "", "action", "get_projects")
	bearer("2 bad token", "not-a-token", "action", "get_projects")
	signed("22 not a member", "action", "post_task", "id_project", "1", "title", "x", "email_user_to", "stranger@example.com")
	signed("22 author not a member", "action", "post_task", "id_project", "1", "title", "x", "email_user_from", "stranger@example.com")
	signed("22 author malformed", "action", "post_comment", "id_task", "1", "text", "x", "email_user_from", "stranger")
	signed("4 webhook for an unknown project", "action", "add_webhook", "url", "https://example.com/", "events", "post_task", "projects", "1,x")
	signed("close project", "action", "close_project", "id_project", "1")
	signed("12 already archived", "action", "close_project", "id_project", "1")
	signed("21 archived project", "action", "post_task", "id_project", "1", "title", "x")
	signed("11 bad e-mail", "action", "search_tasks", "email_user_to", "not-an-email")
	signed("delete comment", "action", "delete_comment", "id_comment", "1")
	signed("15 deleted comment", "action", "delete_comment", "id_comment", "1")

	// Three levels of tasks (spec §2.1, C6).
	signed("post_project for levels", "action", "post_project", "title", "Levels")
	signed("post_task for levels", "action", "post_task", "id_project", "2", "title", "Plan")
	signed("post_subtask for levels", "action", "post_task", "id_project", "2", "id_parent", "3", "title", "Outline")
	signed("post_sub-subtask", "action", "post_task", "id_project", "2", "id_parent", "4", "title", "Intro")
	signed("5 sub-subtask as parent", "action", "post_task", "id_project", "2", "id_parent", "5", "title", "x")
	signed("get_task with sub-subtasks", "action", "get_task", "id_task", "3", "extra", "subtasks")
	signed("get_task of a subtask", "action", "get_task", "id_task", "4")
	signed("get_tasks with sub-subtasks", "action", "get_tasks", "id_project", "2")
	// The lists written as they are read (stream.go): the same bytes as before.
	signed("get_all_tasks", "action", "get_all_tasks")
	signed("get_all_tasks active with text", "action", "get_all_tasks", "filter", "active", "extra", "text")
	bearer("get_all_tasks with a token", readOnly, "action", "get_all_tasks")
	signed("get_events", "action", "get_events", "period", "1h")
	signed("get_events of a project", "action", "get_events", "period", "1h", "id_project", "2")
	signed("13 open sub-subtasks", "action", "complete_task", "id_task", "4")
	signed("complete sub-subtask", "action", "complete_task", "id_task", "5")
	signed("get_all_tasks done, a sub-subtask without its parent", "action", "get_all_tasks", "filter", "done")
	signed("complete subtask with its sub-subtask done", "action", "complete_task", "id_task", "4")
	signed("14 subtask done", "action", "reopen_task", "id_task", "5")
	signed("delete task with its subtree", "action", "delete_task", "id_task", "3")
	signed("5 sub-subtask deleted with its task", "action", "get_task", "id_task", "5")

	path := filepath.Join("testdata", "golden", "answers.txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := out.String(); got != string(want) {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		for i := range min(len(wl), len(gl)) {
			if wl[i] != gl[i] {
				t.Fatalf("answers differ from %s at line %d:\nwant %s\ngot  %s", path, i+1, wl[i], gl[i])
			}
		}
		t.Fatalf("answers differ from %s in length: want %d lines, got %d", path, len(wl), len(gl))
	}
}

func mustRequest(t *testing.T, method, target, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}
