package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/wire"
)

// python calls an action as the Python SDK does: POST, the action in the
// query, an Admin header, the parameters as a JSON body.
func (a *account) python(action string, params map[string]any) response {
	a.t.Helper()
	body, err := json.Marshal(params)
	if err != nil {
		a.t.Fatal(err)
	}
	return a.do("POST", strings.TrimSuffix(a.endpoint(), "/")+"?action="+action, "application/json; charset=utf-8", string(body),
		http.Header{"Authorization": {wire.AdminHeader(a.Key, action, time.Now())}, "Accept": {"application/json"}})
}

// TestPeopleActions: every action of the people families (spec §3-§6) in
// the documented shapes, with their rules and errors, as the PHP SDK
// (GET with hash) and the Python SDK (JSON lists) send them.
func TestPeopleActions(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		s := a.server
		ctx := context.Background()
		var (
			bob  taskd.Person
			pid  string
			task map[string]any
		)

		if !t.Run("add_user invites by e-mail and tells nothing of a registered address", func(t *testing.T) {
			a := a.in(t)
			a.fails(api.CodeFieldRequired, "action", "add_user")
			a.fails(api.CodeInvalidValue, "action", "add_user", "email", "not-an-address")
			a.fails(api.CodeInvalidValue, "action", "add_user", "email", "x@example.com", "role", "manager")
			u := a.ok("action", "add_user", "email", "Nia@Example.com", "first_name", "Nia", "last_name", "New", "title", "Designer",
				"group", "Studio", "department", "Brand", "role", "guest").data()
			if keys(u) != "address,address2,department,email,first_name,group,id,last_name,name,phone,phone2,phone3,phone4,role,title" ||
				u["email"] != "nia@example.com" || u["name"] != "Nia New" || u["role"] != "guest" || u["group"] != "Studio" || u["title"] != "Designer" {
				t.Fatalf("add_user = %v", u)
			}
			a.fails(api.CodeConflict, "action", "add_user", "email", "nia@example.com") // invited already
			a.fails(api.CodeConflict, "action", "add_user", "email", a.Owner.Email)     // a member
			mails, _ := s.DB.Mail(ctx, 10)
			if len(mails) != 1 || mails[0].To != "nia@example.com" || mails[0].Kind != "invitation" {
				t.Fatalf("outbox after add_user: %+v", mails)
			}
			// Someone registered elsewhere: nothing about them comes back.
			other := s.newAccount(t)
			r := a.ok("action", "add_user", "email", other.Owner.Email, "first_name", "Given").data()
			if r["name"] != "Given" || r["last_name"] != "" || r["title"] != "" {
				t.Fatalf("add_user of a registered person revealed them: %v", r)
			}
			// Nor does the id: a known address's would be its old, lower one.
			fresh := a.ok("action", "add_user", "email", "fresh-"+a.Slug+"@example.com", "first_name", "Given").data()
			if r["id"] != "0" || fresh["id"] != "0" || u["id"] != "0" {
				t.Fatalf("add_user answers ids before the person is a member: %v, %v, %v", r["id"], fresh["id"], u["id"])
			}
			delete(r, "email")
			delete(fresh, "email")
			if fmt.Sprint(r) != fmt.Sprint(fresh) {
				t.Fatalf("add_user answers a registered and a new address differently:\n%v\n%v", r, fresh)
			}
			users := a.ok("action", "get_users").list()
			if len(users) != 1 {
				t.Fatalf("invited people are listed before joining: %v", users)
			}
			owner := users[0].(map[string]any)
			if owner["role"] != "owner" || !dateTimeRE.MatchString(owner["date_added"].(string)) || owner["email"] != a.Owner.Email {
				t.Fatalf("get_users = %v", owner)
			}
		}) {
			return
		}

		if !t.Run("a team is made once per title", func(t *testing.T) {
			a := a.in(t)
			a.fails(api.CodeFieldRequired, "action", "add_user_group")
			a.fails(api.CodeInvalidValue, "action", "add_user_group", "title", "X", "client", "2")
			g := a.ok("action", "add_user_group", "title", "Acme Client", "client", "1").data()
			if g["title"] != "Acme Client" || g["type"] != "company" || g["client"] != float64(1) || !idRE.MatchString(g["id"].(string)) {
				t.Fatalf("add_user_group = %v", g)
			}
			if again := a.ok("action", "add_user_group", "title", "Acme Client").data(); again["id"] != g["id"] {
				t.Fatal("add_user_group made a second team of one title")
			}
			if groups := a.ok("action", "get_user_groups").list(); len(groups) != 2 { // and Studio, from add_user
				t.Fatalf("get_user_groups = %v", groups)
			}
		}) {
			return
		}

		if !t.Run("contacts go in folders, one per address", func(t *testing.T) {
			a := a.in(t)
			folder := a.ok("action", "add_contact_group", "title", "Suppliers").data()
			if folder["type"] != "folder" || folder["title"] != "Suppliers" {
				t.Fatalf("add_contact_group = %v", folder)
			}
			a.fails(api.CodeFieldRequired, "action", "add_contact", "email", "ann@client.example")
			ct := a.python("add_contact", map[string]any{"email": "ann@client.example", "name": "Ann Van Lee", "group": folder["id"],
				"phone3": "+380", "address2": "Kyiv"})
			if ct.code() != -1 {
				t.Fatalf("add_contact: %v", ct)
			}
			c := ct.Body["data"].(map[string]any)
			if c["first_name"] != "Ann" || c["last_name"] != "Van Lee" || c["group"] != "Suppliers" || c["phone3"] != "+380" || c["address2"] != "Kyiv" {
				t.Fatalf("add_contact = %v", c)
			}
			a.fails(api.CodeConflict, "action", "add_contact", "email", "ann@client.example", "name", "Ann")
			if list := a.ok("action", "get_contacts").list(); len(list) != 1 {
				t.Fatalf("get_contacts = %v", list)
			}
			if list := a.ok("action", "get_contact_groups").list(); len(list) != 1 {
				t.Fatalf("get_contact_groups = %v", list)
			}
		}) {
			return
		}

		if !t.Run("a project takes a folder, members and a default assignee", func(t *testing.T) {
			a := a.in(t)
			pf := a.ok("action", "add_project_group", "title", "Internal").data()
			var err error
			bob, err = s.DB.AddMember(ctx, mustAccount(t, s, a).ID, taskd.NewPerson{Email: "bob-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: "Bob"}, taskd.RoleUser)
			if err != nil {
				t.Fatal(err)
			}
			p := a.ok("action", "post_project", "title", "Site", "company", "Internal", "members", bob.Email+","+a.Owner.Email,
				"email_user_to", bob.Email, "extra", "users").data()
			if p["company"] != "Internal" || len(p["users"].([]any)) != 2 {
				t.Fatalf("post_project with a folder and members = %v", p)
			}
			if groups := a.ok("action", "get_project_groups").list(); len(groups) != 1 || groups[0].(map[string]any)["id"] != pf["id"] {
				t.Fatalf("get_project_groups = %v", groups)
			}
			pid = p["id"].(string)
			a.fails(api.CodeUserInvalid, "action", "add_project_members", "id_project", pid, "members", "stranger@example.com")
			a.fails(api.CodeInvalidValue, "action", "add_project_members", "id_project", pid, "members", "not an address")
			a.fails(api.CodeFieldRequired, "action", "add_project_members", "id_project", pid)
			a.ok("action", "delete_project_members", "id_project", pid, "members", a.Owner.Email)
			if r := a.python("add_project_members", map[string]any{"id_project": pid, "members": []string{a.Owner.Email}}); r.code() != -1 {
				t.Fatalf("add_project_members with a JSON list: %v", r)
			}
			if got := a.ok("action", "get_project", "id_project", pid, "extra", "users").data(); len(got["users"].([]any)) != 2 {
				t.Fatalf("project team = %v", got["users"])
			}
			task = a.ok("action", "post_task", "id_project", pid, "title", "Logo").data()
			if task["user_to"].(map[string]any)["email"] != bob.Email {
				t.Fatalf("the default assignee: %v", task["user_to"])
			}
		}) {
			return
		}

		if !t.Run("subscribe and unsubscribe change a task's subscribers", func(t *testing.T) {
			a := a.in(t)
			tid := task["id"].(string)
			a.ok("action", "unsubscribe", "id_task", tid, "email_user", bob.Email)
			a.ok("action", "unsubscribe", "id_task", tid, "email_user", bob.Email)
			a.fails(api.CodeUserInvalid, "action", "subscribe", "id_task", tid, "email_user", "stranger@example.com")
			a.fails(api.CodeTaskInvalid, "action", "subscribe", "id_task", "999999", "email_user", bob.Email)
			got := a.ok("action", "get_task", "id_task", tid, "extra", "subscribers").data()
			subs := got["subscribers"].([]any)
			if len(subs) != 1 || subs[0].(map[string]any)["email"] != a.Owner.Email {
				t.Fatalf("subscribers = %v", subs)
			}
			a.ok("action", "subscribe", "id_task", tid, "email_user", bob.Email)
			list := a.ok("action", "get_tasks", "id_project", pid, "extra", "subscribers").list()
			if subs := list[0].(map[string]any)["subscribers"].([]any); len(subs) != 2 {
				t.Fatalf("get_tasks subscribers = %v", subs)
			}
			sub := a.ok("action", "post_task", "id_project", pid, "title", "Copy", "email_user_to", "NOONE", "subscribe", bob.Email).data()
			got = a.ok("action", "get_task", "id_task", sub["id"].(string), "extra", "subscribers").data()
			if len(got["subscribers"].([]any)) != 2 { // the author and Bob
				t.Fatalf("post_task subscribe = %v", got["subscribers"])
			}
			if r := a.python("post_task", map[string]any{"id_project": pid, "title": "Nested", "subscribe": []any{[]string{"x"}}}); r.code() != int(api.CodeMalformed) {
				t.Fatalf("a nested list: %v", r)
			}
		}) {
			return
		}

		t.Run("a removed member's tasks go to nobody, in cached lists too", func(t *testing.T) {
			a := a.in(t)
			if !strings.Contains(a.ok("action", "get_tasks", "id_project", pid).Raw, bob.Email) {
				t.Fatal("the list does not show Bob's task")
			}
			if _, err := s.DB.RemoveMember(ctx, taskd.Actor{AccountID: mustAccount(t, s, a).ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}, bob.ID); err != nil {
				t.Fatal(err)
			}
			if raw := a.ok("action", "get_tasks", "id_project", pid).Raw; strings.Contains(raw, bob.Email) {
				t.Fatalf("a removed member in the list: %s", raw)
			}
			if task := a.ok("action", "post_task", "id_project", pid, "title", "After Bob").data(); task["user_to"].(map[string]any)["email"] != "NOONE" {
				t.Fatalf("the removed default assignee: %v", task["user_to"])
			}
		})
	})
}

// mustAccount returns the account row of a test account.
func mustAccount(t *testing.T, s *server, a *account) taskd.Account {
	t.Helper()
	acct, err := s.DB.AccountBySlug(context.Background(), a.Slug)
	if err != nil {
		t.Fatal(err)
	}
	return acct
}

// TestHiddenTasksAndComments: a task or comment made with hidden is seen
// by the people listed and its author only (and the administrative key):
// the others' lists leave it out, with its subtasks, and its id answers as
// an id of nothing.
func TestHiddenTasksAndComments(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		s := a.server
		ctx := context.Background()
		acct := mustAccount(t, s, a)
		member := func(name string) (taskd.Person, string) {
			p, err := s.DB.AddMember(ctx, acct.ID, taskd.NewPerson{Email: name + "-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: name}, taskd.RoleUser)
			if err != nil {
				t.Fatal(err)
			}
			return p, tokenFor(t, s, a, p, taskd.RoleUser, "tasks_read", "tasks_write", "comments_read", "comments_write")
		}
		bob, bobToken := member("bob")
		_, carlToken := member("carl")
		pid := a.id("action", "post_project", "title", "P")
		open := a.id("action", "post_task", "id_project", pid, "title", "Open")
		secret := a.id("action", "post_task", "id_project", pid, "title", "Secret", "hidden", bob.Email)
		sub := a.id("action", "post_task", "id_project", pid, "id_parent", secret, "title", "Secret child")
		// A sub-subtask, hidden by its grandparent alone.
		leaf := a.id("action", "post_task", "id_project", pid, "id_parent", sub, "title", "Secret grandchild")
		a.ok("action", "post_comment", "id_task", open, "text", "for everyone")
		a.ok("action", "post_comment", "id_task", open, "text", "for Bob", "hidden", bob.Email)
		a.fails(api.CodeInvalidValue, "action", "post_comment", "id_task", open, "text", "x", "hidden", "1")

		as := func(token string, pairs ...string) response {
			q := query(pairs...)
			return a.do(http.MethodGet, a.URL+"/a/"+a.Slug+"/api/oauth2?"+q, "", "", http.Header{"Authorization": {"Bearer " + token}})
		}
		for _, q := range [][]string{{"action", "get_tasks", "id_project", pid}, {"action", "get_all_tasks"}, {"action", "search_tasks", "filter", "name has 'Secret'"},
			{"action", "get_comments", "id_task", open}} {
			if r := as(carlToken, q...); strings.Contains(r.Raw, "Secret") || strings.Contains(r.Raw, "for Bob") {
				t.Errorf("carl %v: %s", q, r.Raw)
			}
		}
		for _, q := range [][]string{{"action", "search_tasks", "filter", "parent{=}" + sub}, {"action", "search_tasks", "id_task", sub}} {
			if r := as(carlToken, q...); strings.Contains(r.Raw, "Secret") {
				t.Errorf("carl %v: %s", q, r.Raw)
			}
			if r := as(bobToken, q...); !strings.Contains(r.Raw, "Secret grandchild") {
				t.Errorf("bob %v lacks the sub-subtask: %s", q, r.Raw)
			}
		}
		if r := as(bobToken, "action", "get_tasks", "id_project", pid); !strings.Contains(r.Raw, "Secret grandchild") {
			t.Errorf("bob's list lacks the task hidden for him: %s", r.Raw)
		}
		if r := as(bobToken, "action", "get_comments", "id_task", open); !strings.Contains(r.Raw, "for Bob") {
			t.Errorf("bob's comments: %s", r.Raw)
		}
		if r := a.ok("action", "get_tasks", "id_project", pid); !strings.Contains(r.Raw, "Secret child") {
			t.Errorf("the administrative key does not see every task: %s", r.Raw)
		}
		for _, id := range []string{secret, sub, leaf} {
			for _, action := range []string{"get_task", "complete_task", "get_comments"} {
				got, want := as(carlToken, "action", action, "id_task", id), as(carlToken, "action", action, "id_task", "999999999")
				if got.Raw != want.Raw {
					t.Errorf("carl %s %s: %s, an id of nothing: %s", action, id, got.Raw, want.Raw)
				}
			}
		}
		for _, parent := range []string{secret, sub} {
			if r := as(carlToken, "action", "post_task", "id_project", pid, "id_parent", parent, "title", "x"); r.code() != int(api.CodeTaskInvalid) {
				t.Errorf("carl adding a subtask to a hidden task (%s): %v", parent, r)
			}
		}
		// A timer is a change like any other: it does not reach a task
		// hidden from its person, and their timer stays empty.
		carlTimer := tokenFor(t, s, a, mustMember(t, s, acct, "carl-"+a.Slug+"@example.com"), taskd.RoleUser, "costs_read", "costs_write")
		for _, id := range []string{secret, sub, leaf} {
			got, want := as(carlTimer, "action", "start_my_timer", "id_task", id), as(carlTimer, "action", "start_my_timer", "id_task", "999999999")
			if got.Raw != want.Raw {
				t.Errorf("carl starting a timer on hidden task %s: %s, an id of nothing: %s", id, got.Raw, want.Raw)
			}
		}
		if r := as(carlTimer, "action", "get_my_timer"); strings.Contains(r.Raw, "Secret") {
			t.Errorf("carl's timer after starting it on a hidden task: %s", r.Raw)
		}
		// The event log: an admin's token sees only what its person may.
		dana, err := s.DB.AddMember(ctx, acct.ID, taskd.NewPerson{Email: "dana-" + a.Slug + "@example.com", PasswordHash: "x"}, taskd.RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		danaToken := tokenFor(t, s, a, dana, taskd.RoleAdmin, "administrative")
		if r := as(danaToken, "action", "get_events", "period", "1h"); r.code() != -1 || strings.Contains(r.Raw, "Secret") || strings.Contains(r.Raw, "for Bob") || !strings.Contains(r.Raw, "for everyone") {
			t.Errorf("an admin's token reads the event log: %s", r.Raw)
		}
		if r := a.ok("action", "get_events", "period", "1h"); !strings.Contains(r.Raw, "Secret grandchild") || !strings.Contains(r.Raw, "for Bob") {
			t.Errorf("the administrative key's event log: %s", r.Raw)
		}
	})
}

// mustMember is a member of the account by e-mail, as a person.
func mustMember(t *testing.T, s *server, acct taskd.Account, email string) taskd.Person {
	t.Helper()
	m, err := s.DB.MemberByEmail(context.Background(), acct.ID, email)
	if err != nil {
		t.Fatal(err)
	}
	return m.Person
}
