package api_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
)

// hiddenOf is the "hidden" of the object with the id in a list (at every
// level of "child") as id/email pairs, and whether the key was there.
func hiddenOf(t *testing.T, list []any, id string) (got []string, present, found bool) {
	t.Helper()
	for _, o := range list {
		m, _ := o.(map[string]any)
		if m["id"] == id {
			h, present := m["hidden"]
			if !present {
				return nil, false, true
			}
			got = []string{}
			for _, p := range h.([]any) {
				pm := p.(map[string]any)
				got = append(got, pm["id"].(string)+" "+pm["email"].(string)+" "+pm["name"].(string))
			}
			return got, true, true
		}
		if child, ok := m["child"].([]any); ok {
			if got, present, found := hiddenOf(t, child, id); found {
				return got, present, found
			}
		}
	}
	return nil, false, false
}

// TestHiddenListsExtra: on both databases, extra=hidden shows each task's
// and comment's own hidden list (the members who alone, with its author,
// see it; [] for one that lists nobody, a subtask of a hidden task
// included) on get_task, get_tasks, get_all_tasks and get_comments, to
// the key and to the token of a listed member; without the extra no
// answer has a "hidden" key; a member not listed sees neither the hidden
// task nor the hidden comment, with or without the extra (issue 36).
func TestHiddenListsExtra(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		ctx := context.Background()
		acct, err := a.DB.AccountBySlug(ctx, a.Slug)
		if err != nil {
			t.Fatal(err)
		}
		add := func(name string) taskd.Person {
			p, err := a.DB.AddMember(ctx, acct.ID, taskd.NewPerson{Email: strings.ToLower(name) + "-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: name}, taskd.RoleUser)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		nina, uma := add("Nina"), add("Uma")
		pid := a.id("action", "post_project", "title", "P")
		open := a.id("action", "post_task", "id_project", pid, "title", "open task")
		secret := a.id("action", "post_task", "id_project", pid, "title", "secret-t36", "hidden", nina.Email)
		sub := a.id("action", "post_task", "id_project", pid, "id_parent", secret, "title", "secret-sub-t36")
		plain := a.id("action", "post_comment", "id_task", open, "text", "plain words")
		hiddenC := a.id("action", "post_comment", "id_task", open, "text", "secret-c36", "hidden", nina.Email)

		ninaRef := []string{strconv.FormatInt(nina.ID, 10) + " " + nina.Email + " Nina"}
		none := []string{}
		want := map[string][]string{open: none, secret: ninaRef, sub: none, plain: none, hiddenC: ninaRef}
		reads := []struct {
			q   []string
			ids []string
		}{
			{[]string{"action", "get_task", "id_task", secret}, []string{secret, sub}},
			{[]string{"action", "get_tasks", "id_project", pid}, []string{open, secret, sub}},
			{[]string{"action", "get_all_tasks"}, []string{open, secret, sub}},
			{[]string{"action", "get_comments", "id_task", open}, []string{plain, hiddenC}},
		}
		listOf := func(r response) []any {
			if d, ok := r.Body["data"].([]any); ok {
				return d
			}
			return []any{r.data()}
		}
		ninaToken := tokenFor(t, a.server, a, nina, taskd.RoleUser, "tasks_read", "comments_read")
		umaToken := tokenFor(t, a.server, a, uma, taskd.RoleUser, "tasks_read", "comments_read")
		callers := map[string]func(...string) response{
			"key":  a.call,
			"nina": func(q ...string) response { return a.as(ninaToken, q...) },
		}
		for who, call := range callers {
			for _, rd := range reads {
				r := call(append(rd.q, "extra", "text,hidden")...)
				if r.Body["status"] != "ok" {
					t.Fatalf("%s %v: %v", who, rd.q, r)
				}
				for _, id := range rd.ids {
					got, present, found := hiddenOf(t, listOf(r), id)
					if !found || !present {
						t.Errorf("%s %v: object %s found %v, hidden present %v: %s", who, rd.q, id, found, present, r.Raw)
						continue
					}
					if strings.Join(got, "|") != strings.Join(want[id], "|") || len(got) != len(want[id]) {
						t.Errorf("%s %v: hidden of %s = %q, want %q", who, rd.q, id, got, want[id])
					}
				}
				if r := call(rd.q...); r.Body["status"] != "ok" || strings.Contains(r.Raw, `"hidden"`) {
					t.Errorf("%s %v without the extra: %s", who, rd.q, r.Raw)
				}
			}
		}

		// Uma is no listed member: the hidden task and comment stay out of
		// her answers, and asking for the lists shows her nothing more.
		if r := a.as(umaToken, "action", "get_task", "id_task", secret, "extra", "hidden"); r.code() != int(api.CodeTaskInvalid) {
			t.Errorf("uma's get_task of the hidden task: %v, want %d", r, api.CodeTaskInvalid)
		}
		for _, rd := range reads[1:] {
			r := a.as(umaToken, append(rd.q, "extra", "hidden")...)
			if r.Body["status"] != "ok" {
				t.Fatalf("uma %v: %v", rd.q, r)
			}
			if strings.Contains(r.Raw, "t36") || strings.Contains(r.Raw, nina.Email) {
				t.Errorf("uma %v shows what is hidden from her: %s", rd.q, r.Raw)
			}
			var shown []any
			if err := json.Unmarshal([]byte(r.Raw), &struct{ Data *[]any }{&shown}); err != nil {
				t.Fatal(err)
			}
			if len(shown) != 1 {
				t.Errorf("uma %v: %d objects, want the 1 open one: %s", rd.q, len(shown), r.Raw)
			}
		}
	})
}
