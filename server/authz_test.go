package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testsite"
)

// authzMatrix is who may call each account-API action, written out by hand
// so that it pins the rules instead of repeating the code's table: the scope
// a token needs ("*": any token) and the roles allowed. The administrative
// key acts as the owner.
var authzMatrix = []struct {
	op, scope, roles string
}{
	{"get_projects", "projects_read", "owner admin user"},
	{"get_project", "projects_read", "owner admin user"},
	{"post_project", "projects_write", "owner admin user"},
	{"update_project", "projects_write", "owner admin user"},
	{"close_project", "projects_write", "owner admin user"},
	{"activate_project", "projects_write", "owner admin user"},
	{"get_all_tasks", "tasks_read", "owner admin user"},
	{"get_tasks", "tasks_read", "owner admin user"},
	{"get_task", "tasks_read", "owner admin user"},
	{"search_tasks", "tasks_read", "owner admin user"},
	{"post_task", "tasks_write", "owner admin user"},
	{"update_task", "tasks_write", "owner admin user"},
	{"complete_task", "tasks_write", "owner admin user"},
	{"reopen_task", "tasks_write", "owner admin user"},
	{"delete_task", "tasks_write", "owner admin user"},
	{"get_comments", "comments_read", "owner admin user"},
	{"post_comment", "comments_write", "owner admin user"},
	{"update_comment own", "comments_write", "owner admin user"},
	{"delete_comment own", "comments_write", "owner admin user"},
	{"update_comment another's", "comments_write", "owner admin"},
	{"delete_comment another's", "comments_write", "owner admin"},
	{"get_users", "users_read", "owner admin user"},
	{"get_task_custom_fields", "tasks_read", "owner admin user"},
	{"get_project_custom_fields", "projects_read", "owner admin user"},
	{"get_users_schedule", "users_read", "owner admin user"},
	{"update_users_schedule", "users_write", "owner admin"},
	{"get_events", "administrative", "owner admin"},
	{"get_webhooks", "administrative", "owner admin"},
	{"add_webhook", "administrative", "owner admin"},
	{"delete_webhook", "administrative", "owner admin"},
	{"enable_webhook", "administrative", "owner admin"},
	{"disable_webhook", "administrative", "owner admin"},
	{"me", "*", "owner admin user"},
}

// pageMatrix is who may open each page of an account; people outside the
// account get 404 on all of them.
var pageMatrix = []struct {
	path, roles string
}{
	{"/", "owner admin user"},
	{"/project/{pid}/", "owner admin user"},
	{"/people", "owner admin user"},
	{"/tags", "owner admin user"},
	{"/project/{pid}/board", "owner admin user"},
	{"/people/{owner}/schedule", "owner admin user"},
	{"/settings/api", "owner admin"},
	{"/settings/webhooks", "owner admin"},
	{"/settings/apikey", "owner admin"},
	{"/settings/fields", "owner admin"},
}

const (
	adminEmail    = "admin@acme.example"
	demotedEmail  = "demoted@acme.example"
	writerEmail   = "writer@acme.example"
	strangerEmail = "stranger@elsewhere.example"
)

// authzFixture makes the objects each call works on, fresh for every call,
// through the administrative key.
type authzFixture struct {
	t       *testing.T
	s       *testsite.Site
	pid     string
	hookURL string
}

func (f *authzFixture) create(q string) string {
	f.t.Helper()
	status, body := testsite.APICall(f.t, f.s.AccountURL(), f.s.Key, q)
	if status != 200 || body["status"] != "ok" {
		f.t.Fatalf("fixture %s: %d %v", q, status, body)
	}
	if d, ok := body["data"].(map[string]any); ok {
		return fmt.Sprint(d["id"])
	}
	return fmt.Sprint(body["id"]) // add_webhook
}

func (f *authzFixture) task() string {
	return f.create("action=post_task&id_project=" + f.pid + "&title=Fixture")
}

func (f *authzFixture) comment(by string) string {
	return f.create("action=post_comment&id_task=" + f.task() + "&text=Note&email_user_from=" + url.QueryEscape(by))
}

func (f *authzFixture) webhook() string {
	return f.create("action=add_webhook&url=" + url.QueryEscape(f.hookURL) + "&events=post_task")
}

// query returns the parameters of a call of op made by the member me.
func (f *authzFixture) query(op, me string) string {
	name, whose, _ := strings.Cut(op, " ")
	switch whose {
	case "own":
		return "action=" + name + "&id_comment=" + f.comment(me) + withText(name)
	case "another's":
		return "action=" + name + "&id_comment=" + f.comment(writerEmail) + withText(name)
	}
	switch name {
	case "get_projects", "get_all_tasks", "get_users", "get_webhooks", "me", "get_task_custom_fields", "get_project_custom_fields":
		return "action=" + name
	case "get_project":
		return "action=get_project&id_project=" + f.pid
	case "close_project":
		return "action=close_project&id_project=" + f.create("action=post_project&title=Open")
	case "activate_project":
		id := f.create("action=post_project&title=Closed")
		f.create("action=close_project&id_project=" + id)
		return "action=activate_project&id_project=" + id
	case "post_project":
		return "action=post_project&title=Fresh"
	case "update_project":
		return "action=update_project&id_project=" + f.pid + "&title=Renamed"
	case "get_tasks", "search_tasks":
		return "action=" + name + "&id_project=" + f.pid
	case "post_task":
		return "action=post_task&id_project=" + f.pid + "&title=Fresh"
	case "reopen_task":
		id := f.task()
		f.create("action=complete_task&id_task=" + id)
		return "action=reopen_task&id_task=" + id
	case "get_task", "complete_task", "delete_task", "get_comments":
		return "action=" + name + "&id_task=" + f.task()
	case "update_task":
		return "action=update_task&id_task=" + f.task() + "&title=Renamed"
	case "post_comment":
		return "action=post_comment&id_task=" + f.task() + "&text=Hello"
	case "get_events":
		return "action=get_events&period=1h"
	case "get_users_schedule":
		return "action=get_users_schedule&users=" + url.QueryEscape(me)
	case "update_users_schedule":
		return "action=update_users_schedule&data=" + url.QueryEscape(`{"`+writerEmail+`":{"fri":6}}`)
	case "add_webhook":
		return "action=add_webhook&url=" + url.QueryEscape(f.hookURL) + "&events=post_task"
	case "delete_webhook", "enable_webhook", "disable_webhook":
		return "action=" + name + "&id=" + f.webhook()
	}
	f.t.Fatalf("no query for %s", op)
	return ""
}

func withText(action string) string {
	if action == "update_comment" {
		return "&text=Edited"
	}
	return ""
}

// TestAuthorizationMatrix runs every action of the account API for each
// role with a token of each single scope and of all scopes, and with the
// administrative key, and opens the account's pages as each role, and
// compares what happens with the matrices above. Nobody outside the account
// gets in with a token, a key or a session.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	s := testsite.New(t)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(recv.Close)
	for _, p := range []struct{ email, role string }{{adminEmail, "admin"}, {demotedEmail, "admin"}, {writerEmail, "user"}} {
		s.AddMember(s.Slug, p.email, "A", "B", taskd.Role(p.role))
	}
	f := &authzFixture{t: t, s: s, hookURL: recv.URL + "/hook"}
	f.pid = f.create("action=post_project&title=Matrix")

	// Tokens of each role for each single scope and for all scopes. The
	// plain user's are granted while the person is an admin, before the
	// owner demotes them: the role at the time of the call decides, and
	// the demotion ended those that carry administrative (taskd.TrustEnded).
	scopeSets := append(append([]string{}, taskd.Scopes...), strings.Join(taskd.Scopes, " "))
	members := map[string]string{"owner": testsite.OwnerEmail, "admin": adminEmail, "user": demotedEmail}
	tokens := map[string]map[string]string{}
	for role, email := range members {
		b := s.Browser()
		tokens[role] = map[string]string{}
		for _, sc := range scopeSets {
			u := s.Consent(b, s.AuthorizeURL("scope", sc), email, s.Slug, "allow")
			tok := s.Exchange(u.Query().Get("code"))
			if tok["scope"] != sc {
				t.Fatalf("%s asked for %q and was granted %v", role, sc, tok["scope"])
			}
			tokens[role][sc] = tok["access_token"].(string)
		}
	}
	owner := s.SignedIn(testsite.OwnerEmail)
	people := owner.Get(s.AccountURL() + "/people")
	demoted := testsite.RoleForm(t, people, demotedEmail)
	owner.Submit(s.Base, people, demoted, url.Values{"role": {"user"}}).Location(t)

	for _, row := range authzMatrix {
		allowed := strings.Fields(row.roles)
		for role, email := range members {
			for _, sc := range scopeSets {
				want := slices.Contains(allowed, role) && (row.scope == "*" || taskd.HasScope(strings.Fields(sc), row.scope))
				q := f.query(row.op, email)
				status, body, _ := s.API(s.AccountURL(), tokens[role][sc], q)
				revoked := role == "user" && taskd.HasScope(strings.Fields(sc), taskd.ScopeAdministrative)
				switch {
				case revoked && (status != 401 || body["status_code"] != float64(2)):
					t.Errorf("%s as %s with scope %q, granted before a demotion: want revoked, got %d %v", row.op, role, sc, status, body)
				case revoked:
				case want && (status != 200 || body["status"] != "ok"):
					t.Errorf("%s as %s with scope %q: want allowed, got %d %v", row.op, role, sc, status, body)
				case !want && (status != 403 || body["status_code"] != float64(20)):
					t.Errorf("%s as %s with scope %q: want refused with code 20, got %d %v", row.op, role, sc, status, body)
				}
			}
		}
		if row.op == "me" {
			continue // not an administrative action
		}
		if status, body := testsite.APICall(t, s.AccountURL(), s.Key, f.query(row.op, testsite.OwnerEmail)); status != 200 || body["status"] != "ok" {
			t.Errorf("%s with the administrative key: %d %v", row.op, status, body)
		}
	}

	// Outside the account: the other account's key, a token the owner
	// granted for the other account, and a stranger's session.
	otherKey := s.CreateAccount(testaccount.UniqueSlug("third"), "Third", strangerEmail, "", "")
	u := s.Consent(s.Browser(), s.AuthorizeURL("scope", strings.Join(taskd.Scopes, " ")), testsite.OwnerEmail, s.Other, "allow")
	otherToken := s.Exchange(u.Query().Get("code"))["access_token"].(string)
	for _, row := range authzMatrix {
		if row.op == "me" {
			continue
		}
		q := f.query(row.op, testsite.OwnerEmail)
		if status, body := testsite.APICall(t, s.AccountURL(), otherKey, q); status == 200 {
			t.Errorf("%s with another account's key: %d %v", row.op, status, body)
		}
		if status, body, _ := s.API(s.AccountURL(), otherToken, q); status != 401 && status != 403 {
			t.Errorf("%s with a token for another account: %d %v", row.op, status, body)
		}
	}

	ownerPerson, err := s.Store.PersonByEmail(t.Context(), testsite.OwnerEmail)
	if err != nil {
		t.Fatal(err)
	}
	ownerID := fmt.Sprint(ownerPerson.ID)
	sessions := map[string]*testsite.Browser{"owner": owner, "admin": s.SignedIn(adminEmail), "user": s.SignedIn(demotedEmail),
		"stranger": s.SignedIn(strangerEmail)}
	for _, row := range pageMatrix {
		path := s.AccountURL() + strings.NewReplacer("{pid}", f.pid, "{owner}", ownerID).Replace(row.path)
		for who, b := range sessions {
			want := http.StatusOK
			switch {
			case who == "stranger":
				want = http.StatusNotFound
			case !slices.Contains(strings.Fields(row.roles), who):
				want = http.StatusForbidden
			}
			if p := b.Get(path); p.Status != want {
				t.Errorf("GET %s as %s: %d, want %d", row.path, who, p.Status, want)
			}
		}
	}
	// Setting a schedule in the pages follows the same rule as the API.
	for who, b := range sessions {
		csrf := b.Get(s.Base+"/settings/applications").Form(t, "", "").Get("csrf")
		want := map[string]int{"owner": http.StatusSeeOther, "admin": http.StatusSeeOther, "user": http.StatusForbidden,
			"stranger": http.StatusNotFound}[who]
		if p := b.Post(s.AccountURL()+"/people/"+ownerID+"/schedule", url.Values{"csrf": {csrf}, "date": {"2030-01-07"}, "hours": {"0"}}); p.Status != want {
			t.Errorf("setting a schedule in the pages as %s: %d, want %d", who, p.Status, want)
		}
	}
	// Editing comments in the pages follows the same rule as the API.
	for who, b := range sessions {
		csrf := b.Get(s.Base+"/settings/applications").Form(t, "", "").Get("csrf")
		for _, whose := range []string{"own", "another's"} {
			author := writerEmail
			if whose == "own" {
				author = members[who]
			}
			if who == "stranger" {
				author = testsite.OwnerEmail
			}
			cid := f.comment(author)
			want := http.StatusSeeOther
			switch {
			case who == "stranger":
				want = http.StatusNotFound
			case whose == "another's" && who == "user":
				want = http.StatusForbidden
			}
			if p := b.Post(s.AccountURL()+"/comments/"+cid+"/update", url.Values{"csrf": {csrf}, "text": {"Edited"}}); p.Status != want {
				t.Errorf("editing %s comment in the pages as %s: %d, want %d", whose, who, p.Status, want)
			}
		}
	}
}
