package api_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/wire"
)

// TestGoldenRelations replays a conversation about task relations (issue
// 35) and compares every answer with testdata/golden/relations.txt, as
// TestGoldenAnswers does: extra=relations on get_task, get_tasks and
// get_all_tasks, add_task_relation, delete_task_relation,
// shift_dependent_tasks and their errors. Run with -update to accept a
// deliberate change.
func TestGoldenRelations(t *testing.T) {
	t.Parallel()
	s := newServer(t, testdb.New(t, "sqlite"))
	g := testaccount.New(t, s.DB, testaccount.Options{Slug: "golden-rel", Name: "Golden",
		Owner: testaccount.Person{Email: "olga@example.com"}, Sealer: s.Sealer})
	a := &account{server: s, Slug: "golden-rel", Key: g.Key, Owner: g.Owner, t: t}
	var out strings.Builder
	signed := func(name string, pairs ...string) {
		t.Helper()
		q := query(pairs...)
		res, err := http.Get(a.endpoint() + "?" + q + "&hash=" + wire.Hash(q, a.Key))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		fmt.Fprintf(&out, "### %s\nHTTP %d\n%s\n", name, res.StatusCode, goldenTimeRE.ReplaceAllString(string(body), "<time>"))
	}
	signed("post_project", "action", "post_project", "title", "Launch")
	signed("post_task 1", "action", "post_task", "id_project", "1", "title", "Design", "datestart", "02.03.2026", "dateend", "04.03.2026")
	signed("post_task 2", "action", "post_task", "id_project", "1", "title", "Build", "datestart", "05.03.2026", "dateend", "09.03.2026")
	signed("post_task 3", "action", "post_task", "id_project", "1", "title", "Test", "dateend", "12.03.2026")
	signed("post_subtask 4", "action", "post_task", "id_project", "1", "id_parent", "2", "title", "Wire up")
	signed("add_task_relation", "action", "add_task_relation", "id_task_from", "1", "id_task_to", "2")
	signed("add_task_relation start-to-start", "action", "add_task_relation", "id_task_from", "2", "id_task_to", "3", "type", "start-to-start")
	signed("add_task_relation to a subtask", "action", "add_task_relation", "id_task_from", "1", "id_task_to", "4")
	signed("get_task extra=relations", "action", "get_task", "id_task", "2", "extra", "relations,subtasks")
	signed("get_task without extra", "action", "get_task", "id_task", "2")
	signed("get_tasks extra=relations", "action", "get_tasks", "id_project", "1", "extra", "relations")
	signed("get_all_tasks extra=relations", "action", "get_all_tasks", "extra", "relations")
	signed("11 cycle", "action", "add_task_relation", "id_task_from", "3", "id_task_to", "1")
	signed("11 self", "action", "add_task_relation", "id_task_from", "3", "id_task_to", "3")
	signed("11 bad type", "action", "add_task_relation", "id_task_from", "1", "id_task_to", "3", "type", "finish-to-finish")
	signed("23 duplicate", "action", "add_task_relation", "id_task_from", "2", "id_task_to", "1")
	signed("5 unknown task", "action", "add_task_relation", "id_task_from", "999", "id_task_to", "1")
	signed("5 malformed task", "action", "add_task_relation", "id_task_from", "1", "id_task_to", "x")
	signed("10 missing id_task_to", "action", "add_task_relation", "id_task_from", "1")
	signed("shift_dependent_tasks", "action", "shift_dependent_tasks", "id_task", "1", "days", "2")
	signed("11 bad days", "action", "shift_dependent_tasks", "id_task", "1", "days", "two")
	signed("11 too many days", "action", "shift_dependent_tasks", "id_task", "1", "days", "4000")
	signed("get_events", "action", "get_events", "period", "1h", "id_project", "1")
	signed("delete_task_relation", "action", "delete_task_relation", "id_task_from", "1", "id_task_to", "2")
	signed("25 relation not found", "action", "delete_task_relation", "id_task_from", "1", "id_task_to", "2")

	path := filepath.Join("testdata", "golden", "relations.txt")
	if *update {
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

// TestRelationsHiddenFromToken: on both databases, a relation with a
// task hidden from Bob, an admin, never reaches Bob's token (extra=relations on
// get_task, get_tasks and get_all_tasks, nor get_events), while the key
// sees it; Bob cannot relate to the hidden task (5) and a token without
// tasks_write cannot relate at all (20).
func TestRelationsHiddenFromToken(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		acct, err := a.DB.AccountBySlug(context.Background(), a.Slug)
		if err != nil {
			t.Fatal(err)
		}
		bob, err := a.DB.AddMember(context.Background(), acct.ID,
			taskd.NewPerson{Email: "bob-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: "Bob"}, taskd.RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		pid := a.id("action", "post_project", "title", "P")
		open1 := a.id("action", "post_task", "id_project", pid, "title", "open one")
		open2 := a.id("action", "post_task", "id_project", pid, "title", "open two")
		secret := a.id("action", "post_task", "id_project", pid, "title", "secret-rel-t9", "hidden", a.Owner.Email)
		a.ok("action", "add_task_relation", "id_task_from", secret, "id_task_to", open1)
		a.ok("action", "add_task_relation", "id_task_from", open1, "id_task_to", open2)

		token := tokenFor(t, a.server, a, bob, taskd.RoleAdmin, "tasks_read", "tasks_write", "administrative")
		for _, q := range [][]string{
			{"action", "get_task", "id_task", open1, "extra", "relations"},
			{"action", "get_tasks", "id_project", pid, "extra", "relations"},
			{"action", "get_all_tasks", "extra", "relations"},
			{"action", "get_events", "period", "1h"},
		} {
			r := a.as(token, q...)
			if r.Body["status"] != "ok" {
				t.Fatalf("%v: %v", q, r)
			}
			if strings.Contains(r.Raw, `"task":"`+secret+`"`) || strings.Contains(r.Raw, "secret-rel") {
				t.Errorf("%v shows Bob the hidden task: %s", q, r.Raw)
			}
		}
		r := a.as(token, "action", "get_task", "id_task", open1, "extra", "relations")
		if want := `"relations":{"from":[],"to":[{"type":"finish-to-start","task":"` + open2 + `"}]}`; !strings.Contains(r.Raw, want) {
			t.Errorf("Bob's get_task: %s, want %s", r.Raw, want)
		}
		r = a.ok("action", "get_task", "id_task", open1, "extra", "relations")
		if want := `"relations":{"from":[{"type":"finish-to-start","task":"` + secret + `"}]`; !strings.Contains(r.Raw, want) {
			t.Errorf("the key's get_task: %s, want %s", r.Raw, want)
		}
		if r := a.as(token, "action", "add_task_relation", "id_task_from", secret, "id_task_to", open2); r.code() != int(api.CodeTaskInvalid) {
			t.Errorf("Bob relating to the hidden task: %v, want 5", r)
		}
		readOnly := tokenFor(t, a.server, a, bob, taskd.RoleAdmin, "tasks_read")
		if r := a.as(readOnly, "action", "add_task_relation", "id_task_from", open2, "id_task_to", open1); r.code() != int(api.CodeForbidden) {
			t.Errorf("a token without tasks_write: %v, want 20", r)
		}
	})
}

// TestRelationCycleThroughHiddenTask (issue 47): on both databases, Bob,
// an admin from whom task H is hidden, relates B to A where A → H → B
// already (the key made them): docs/api.md refuses a cycle "including
// through tasks the caller does not see", with 11 on id_task_to, "the
// message names only the two tasks given", and nothing is written. At the
// edge beside it, A → B (the same direction as the path through H) is no
// cycle, and is taken.
func TestRelationCycleThroughHiddenTask(t *testing.T) {
	eachAccount(t, func(t *testing.T, a *account) {
		acct, err := a.DB.AccountBySlug(context.Background(), a.Slug)
		if err != nil {
			t.Fatal(err)
		}
		bob, err := a.DB.AddMember(context.Background(), acct.ID,
			taskd.NewPerson{Email: "bob-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: "Bob"}, taskd.RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		pid := a.id("action", "post_project", "title", "P")
		taskA := a.id("action", "post_task", "id_project", pid, "title", "A")
		taskB := a.id("action", "post_task", "id_project", pid, "title", "B")
		hidden := a.id("action", "post_task", "id_project", pid, "title", "secret-cycle-h", "hidden", a.Owner.Email)
		a.ok("action", "add_task_relation", "id_task_from", taskA, "id_task_to", hidden)
		a.ok("action", "add_task_relation", "id_task_from", hidden, "id_task_to", taskB)
		token := tokenFor(t, a.server, a, bob, taskd.RoleAdmin, "tasks_read", "tasks_write")

		r := a.as(token, "action", "add_task_relation", "id_task_from", taskB, "id_task_to", taskA)
		if r.code() != int(api.CodeInvalidValue) || r.Body["message_details"] != "id_task_to" {
			t.Fatalf("Bob closing A → H → B → A through the task hidden from him: %v, want 11 on id_task_to", r)
		}
		msg, _ := r.Body["message"].(string)
		if !strings.Contains(msg, "would make a cycle") {
			t.Errorf("the refusal %q does not say it is a cycle", msg)
		}
		for _, n := range regexp.MustCompile(`[0-9]+`).FindAllString(msg, -1) {
			if n != taskA && n != taskB {
				t.Errorf("the refusal %q names %s, not one of the two tasks given (%s, %s)", msg, n, taskB, taskA)
			}
		}
		if strings.Contains(r.Raw, "secret-cycle") {
			t.Errorf("the refusal shows Bob the hidden task: %s", r.Raw)
		}
		got := a.ok("action", "get_task", "id_task", taskA, "extra", "relations").Raw
		if want := `"relations":{"from":[],"to":[{"type":"finish-to-start","task":"` + hidden + `"}]}`; !strings.Contains(got, want) {
			t.Errorf("A's relations after the refusal: %s, want only %s", got, want)
		}

		// The same direction as the hidden path is no cycle.
		if r := a.as(token, "action", "add_task_relation", "id_task_from", taskA, "id_task_to", taskB); r.Body["status"] != "ok" {
			t.Errorf("Bob making B depend on A, which it does through H already: %v, want ok", r)
		}
	})
}

// TestRelationShiftLimits: shift_dependent_tasks moves
// dates by up to 3650 days either way; 3651 either way is refused (11,
// details days) and moves nothing.
func TestRelationShiftLimits(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "P")
		first := a.id("action", "post_task", "id_project", pid, "title", "first", "datestart", "02.03.2026", "dateend", "04.03.2026")
		next := a.id("action", "post_task", "id_project", pid, "title", "next", "datestart", "05.03.2026", "dateend", "09.03.2026")
		a.ok("action", "add_task_relation", "id_task_from", first, "id_task_to", next)
		start := time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)
		end := time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)
		dates := func() (string, string) {
			t.Helper()
			task, _ := a.ok("action", "get_task", "id_task", next).Body["data"].(map[string]any)
			s, _ := task["date_start"].(string)
			e, _ := task["date_end"].(string)
			return s, e
		}
		moved := 0
		for _, c := range []struct {
			days    int
			refused bool
		}{{3651, true}, {-3651, true}, {3650, false}, {-3650, false}, {-3650, false}, {3650, false}} {
			r := a.call("action", "shift_dependent_tasks", "id_task", first, "days", strconv.Itoa(c.days))
			if c.refused {
				if r.code() != int(api.CodeInvalidValue) || r.Body["message_details"] != "days" {
					t.Errorf("shifting by %d: %v, want 11 on days", c.days, r)
				}
			} else {
				if data, _ := r.Body["data"].([]any); r.Body["status"] != "ok" || len(data) != 1 {
					t.Errorf("shifting by %d: %v, want the one task moved", c.days, r)
				}
				moved += c.days
			}
			ws, we := start.AddDate(0, 0, moved).Format("2006-01-02"), end.AddDate(0, 0, moved).Format("2006-01-02")
			if s, e := dates(); s != ws || e != we {
				t.Errorf("after shifting by %d: %s..%s, want %s..%s", c.days, s, e, ws, we)
			}
		}
	})
}
