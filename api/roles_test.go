package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/oauth"
)

// tokenFor runs the authorization-code grant in process for a member of
// the account with the role and returns an access token with the scopes.
func tokenFor(t testing.TB, s *server, a *account, p taskd.Person, role taskd.Role, scopes ...string) string {
	t.Helper()
	ctx := context.Background()
	auth := s.oauth(t)
	c, _, err := oauth.NewClient(0, "Role app", []string{"https://app.example/cb"})
	if err != nil {
		t.Fatal(err)
	}
	acct, err := s.DB.AccountBySlug(ctx, a.Slug)
	if err != nil {
		t.Fatal(err)
	}
	c.AccountID = acct.ID
	if c, err = s.DB.CreateClient(ctx, c); err != nil {
		t.Fatal(err)
	}
	to, err := auth.Approve(ctx, oauth.Request{Client: c, RedirectURI: "https://app.example/cb", State: "s", Scopes: scopes},
		p, taskd.Membership{Account: acct, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(to)
	set, err := auth.Exchange(ctx, c, u.Query().Get("code"), "https://app.example/cb", "")
	if err != nil {
		t.Fatal(err)
	}
	return set.AccessToken
}

// The rule, written out apart from the action table: every member may
// read; readers change nothing; only owners and admins manage people and
// hold the administrative scope.
var (
	managingPeople = []string{"add_user", "add_user_group", "update_users_schedule"}
	administrative = []string{"get_events", "get_webhooks", "add_webhook", "delete_webhook", "enable_webhook", "disable_webhook"}
	// changingTags rename, reorder and delete the account's tags, which
	// guests may add but not change: a tag is the whole account's.
	changingTags = []string{"update_task_tag_group", "update_project_tag_group", "update_task_tag", "update_project_tag",
		"sort_task_tag_groups", "sort_project_tag_groups", "sort_task_tags", "sort_project_tags",
		"delete_task_tag", "delete_project_tag", "delete_task_tag_group", "delete_project_tag_group"}
)

func isRead(action string) bool {
	return strings.HasPrefix(action, "get_") || action == "search_tasks" || action == "me" || action == "download"
}

func roleMayCall(role taskd.Role, action string) bool {
	switch {
	case api.KeyOnly(action): // every person's timers: the administrative key alone
		return false
	case role == taskd.RoleOwner || role == taskd.RoleAdmin:
		return true
	case slices.Contains(administrative, action) || slices.Contains(managingPeople, action):
		return false
	case role == taskd.RoleReader:
		return isRead(action)
	case role == taskd.RoleGuest && slices.Contains(changingTags, action):
		return false
	}
	return true // users and guests
}

// TestRoleActionMatrix calls every action of the access-token API as a
// member of each role, on objects of a project the member is on the team
// of: an action the role may not call is refused with 403 and code 20, any
// other is never refused for the role.
func TestRoleActionMatrix(t *testing.T) {
	t.Parallel()
	s := newServer(t, testdb.New(t, "sqlite"))
	a := s.newAccount(t)
	ctx := context.Background()
	acct := mustAccount(t, s, a)
	hook := okReceiver(t)
	names := make([]string, 0, len(specScopes))
	for name := range specScopes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, role := range []taskd.Role{taskd.RoleOwner, taskd.RoleAdmin, taskd.RoleUser, taskd.RoleGuest, taskd.RoleReader} {
		p := a.Owner
		if role != taskd.RoleOwner {
			var err error
			p, err = s.DB.AddMember(ctx, acct.ID, taskd.NewPerson{Email: fmt.Sprintf("%s-%s@example.com", role, a.Slug), PasswordHash: "x",
				FirstName: string(role)}, role)
			if err != nil {
				t.Fatal(err)
			}
		}
		scopes := slices.DeleteFunc(slices.Clone(taskd.Scopes), func(s string) bool {
			return s == taskd.ScopeAdministrative && role != taskd.RoleOwner && role != taskd.RoleAdmin
		})
		token := tokenFor(t, s, a, p, role, scopes...)
		for i, name := range names {
			// Fresh objects for each call, made by the owner, with the
			// member on the project's team.
			owner := taskd.Actor{AccountID: acct.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}
			pr, err := s.DB.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("P"), Members: &[]string{p.Email}})
			if err != nil {
				t.Fatal(err)
			}
			tk, _ := s.DB.CreateTask(ctx, owner, pr.ID, 0, taskd.TaskInput{Name: new("T")})
			author := taskd.Actor{AccountID: acct.ID, Person: p.Ref(), Role: role} // their own comment, which they may edit
			if role == taskd.RoleReader {
				author = owner
			}
			cm, _ := s.DB.CreateComment(ctx, author, tk.ID, "C")
			wh, _ := s.DB.CreateWebhook(ctx, taskd.Webhook{AccountID: acct.ID, URL: hook, Events: []string{"post_task"}, Secret: []byte("s")})
			kind := taskd.TagsOfTasks
			if strings.Contains(name, "project_tag") {
				kind = taskd.TagsOfProjects
			}
			group := fmt.Sprintf("G%s%d", role, i)
			s.DB.AddTagGroups(ctx, owner, kind, "label", "public", []string{group})
			tags, _ := s.DB.AddTags(ctx, owner, kind, group, []string{"L"})
			params := map[string]string{"group": group, "tag": fmt.Sprint(tags[0].ID), "order": fmt.Sprint(tags[0].ID),
				"id_project": fmt.Sprint(pr.ID), "id_task": fmt.Sprint(tk.ID), "id_comment": fmt.Sprint(cm.ID),
				"id": fmt.Sprint(wh.ID), "title": "x", "text": "x", "period": "1h", "url": hook, "events": "post_task",
				"members": p.Email, "email_user": p.Email, "email": fmt.Sprintf("new-%s-%d@example.com", role, i), "name": "N"}
			q := url.Values{"action": {name}}
			for _, k := range api.ActionParams(name) {
				if v, ok := params[k]; ok && k != "id_parent" && k != "email_user_from" && k != "projects" {
					q.Set(k, v)
				}
			}
			r := a.do(http.MethodGet, a.URL+"/a/"+a.Slug+"/api/oauth2?"+q.Encode(), "", "", http.Header{"Authorization": {"Bearer " + token}})
			refused := r.HTTP == http.StatusForbidden && r.code() == int(api.CodeForbidden)
			if want := !roleMayCall(role, name); refused != want {
				t.Errorf("%s calling %s: refused %v, want %v: %v", role, name, refused, want, r)
			}
		}
	}
}

// TestGuestsAndReadersSeeTheirProjects: a guest's or reader's token sees
// only the projects whose team they are on, in lists and by id, exactly as
// if the others did not exist.
func TestGuestsAndReadersSeeTheirProjects(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		s := a.server
		ctx := context.Background()
		acct := mustAccount(t, s, a)
		owner := taskd.Actor{AccountID: acct.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}
		for _, role := range []taskd.Role{taskd.RoleGuest, taskd.RoleReader} {
			p, err := s.DB.AddMember(ctx, acct.ID, taskd.NewPerson{Email: fmt.Sprintf("%s-%s@example.com", role, a.Slug), PasswordHash: "x"}, role)
			if err != nil {
				t.Fatal(err)
			}
			mine, _ := s.DB.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Mine " + string(role)), Members: &[]string{p.Email}})
			theirs, _ := s.DB.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Theirs " + string(role))})
			myTask, _ := s.DB.CreateTask(ctx, owner, mine.ID, 0, taskd.TaskInput{Name: new("My task")})
			theirTask, _ := s.DB.CreateTask(ctx, owner, theirs.ID, 0, taskd.TaskInput{Name: new("Their task")})
			theirComment, _ := s.DB.CreateComment(ctx, owner, theirTask.ID, "secret")
			token := tokenFor(t, s, a, p, role, "projects_read", "tasks_read", "tasks_write", "comments_read", "comments_write")
			call := func(pairs ...string) response {
				q := url.Values{}
				for i := 0; i < len(pairs); i += 2 {
					q.Set(pairs[i], pairs[i+1])
				}
				return a.do(http.MethodGet, a.URL+"/a/"+a.Slug+"/api/oauth2?"+q.Encode(), "", "", http.Header{"Authorization": {"Bearer " + token}})
			}
			for _, list := range []response{call("action", "get_projects"), call("action", "get_all_tasks"), call("action", "search_tasks", "filter", "name has 'task'")} {
				if raw := list.Raw; !strings.Contains(raw, "Mine "+string(role)) && !strings.Contains(raw, "My task") || strings.Contains(raw, "Their") {
					t.Errorf("%s list: %s", role, raw)
				}
			}
			none := fmt.Sprint(1 << 40)
			for _, tc := range [][2][]string{
				{{"action", "get_project", "id_project", fmt.Sprint(theirs.ID)}, {"action", "get_project", "id_project", none}},
				{{"action", "get_tasks", "id_project", fmt.Sprint(theirs.ID)}, {"action", "get_tasks", "id_project", none}},
				{{"action", "get_task", "id_task", fmt.Sprint(theirTask.ID)}, {"action", "get_task", "id_task", none}},
				{{"action", "get_comments", "id_task", fmt.Sprint(theirTask.ID)}, {"action", "get_comments", "id_task", none}},
				{{"action", "post_task", "id_project", fmt.Sprint(theirs.ID), "title", "x"}, {"action", "post_task", "id_project", none, "title", "x"}},
				{{"action", "update_comment", "id_comment", fmt.Sprint(theirComment.ID), "text", "x"}, {"action", "update_comment", "id_comment", none, "text", "x"}},
			} {
				if got, want := call(tc[0]...), call(tc[1]...); got.Raw != want.Raw || got.HTTP != want.HTTP {
					t.Errorf("%s %v: %v, an id of nothing: %v", role, tc[0], got, want)
				}
			}
			if r := call("action", "get_task", "id_task", fmt.Sprint(myTask.ID)); r.code() != -1 {
				t.Errorf("%s reading their own project's task: %v", role, r)
			}
			r := call("action", "post_task", "id_project", fmt.Sprint(mine.ID), "title", "mine")
			if role == taskd.RoleGuest && r.code() != -1 || role == taskd.RoleReader && r.code() != int(api.CodeForbidden) {
				t.Errorf("%s writing in their own project: %v", role, r)
			}
		}
	})
}

// TestPlainCommentsOfAHiddenTask: a task hidden for Bob carries comments
// that are not hidden themselves (one by the owner, one by Bob). To Carl
// and to Ada, an admin, neither of them listed, the comments are as the
// task is: get_comments, a change or a deletion of one answers exactly as
// for an id of nothing, search and the event list show neither, and the
// comments survive; a plain comment on a plain subtask of the hidden task
// is the same. Bob, listed, sees both.
func TestPlainCommentsOfAHiddenTask(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		s := newServer(t, d)
		a := s.newAccount(t)
		ctx := context.Background()
		acct := mustAccount(t, s, a)
		scopes := []string{"tasks_read", "comments_read", "comments_write", "administrative"}
		member := func(name string, role taskd.Role) (taskd.Person, string) {
			p, err := s.DB.AddMember(ctx, acct.ID, taskd.NewPerson{Email: name + "-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: name}, role)
			if err != nil {
				t.Fatal(err)
			}
			granted := scopes[:3]
			if role == taskd.RoleAdmin {
				granted = scopes
			}
			return p, tokenFor(t, s, a, p, role, granted...)
		}
		bob, bobToken := member("bob", taskd.RoleUser)
		_, carlToken := member("carl", taskd.RoleUser)
		_, adaToken := member("ada", taskd.RoleAdmin)
		as := func(token string, pairs ...string) response {
			q := query(pairs...)
			return a.do(http.MethodGet, a.URL+"/a/"+a.Slug+"/api/oauth2?"+q, "", "", http.Header{"Authorization": {"Bearer " + token}})
		}
		pid := a.ok("action", "post_project", "title", "P").data()["id"].(string)
		secret := a.ok("action", "post_task", "id_project", pid, "title", "Secret", "hidden", bob.Email).data()["id"].(string)
		ownerComment := a.ok("action", "post_comment", "id_task", secret, "text", "Plain words on the secret").data()["id"].(string)
		bobComment := as(bobToken, "action", "post_comment", "id_task", secret, "text", "Bob's plain reply").data()["id"].(string)
		// A subtask of the hidden task, not hidden itself, is as hidden as
		// its parent, and so is a plain comment on it.
		child := a.ok("action", "post_task", "id_project", pid, "id_parent", secret, "title", "Child").data()["id"].(string)
		childComment := as(bobToken, "action", "post_comment", "id_task", child, "text", "A note on the child").data()["id"].(string)

		for who, token := range map[string]string{"carl": carlToken, "ada": adaToken} {
			got, want := as(token, "action", "get_comments", "id_task", secret), as(token, "action", "get_comments", "id_task", "999999999")
			if got.Raw != want.Raw {
				t.Errorf("%s get_comments of the hidden task: %s; an id of nothing: %s", who, got.Raw, want.Raw)
			}
			for _, id := range []string{ownerComment, bobComment, childComment} {
				for _, q := range [][]string{{"action", "update_comment", "id_comment", id, "text", "changed"}, {"action", "delete_comment", "id_comment", id}} {
					nothing := append([]string{}, q...)
					nothing[3] = "999999999"
					if got, want := as(token, q...), as(token, nothing...); got.Raw != want.Raw {
						t.Errorf("%s %s of a plain comment on the hidden task: %s; an id of nothing: %s", who, q[1], got.Raw, want.Raw)
					}
				}
			}
			for _, q := range [][]string{{"action", "search_tasks", "filter", "name has 'Secret'"}, {"action", "get_all_tasks", "extra", "comments"}} {
				if r := as(token, q...); strings.Contains(r.Raw, "plain") {
					t.Errorf("%s %v shows a comment of the hidden task: %s", who, q, r.Raw)
				}
			}
		}
		if r := as(adaToken, "action", "get_events", "period", "1d"); r.code() != -1 || strings.Contains(r.Raw, `"post_comment"`) || strings.Contains(r.Raw, "Secret") {
			t.Errorf("ada's events tell of the hidden task's comments: %s", r.Raw)
		}
		if r := a.ok("action", "get_events", "period", "1d"); strings.Count(r.Raw, `"post_comment"`) != 3 {
			t.Errorf("the key's events lack the comments (the control): %s", r.Raw)
		}
		if r := as(bobToken, "action", "get_comments", "id_task", secret); !strings.Contains(r.Raw, "Plain words") || !strings.Contains(r.Raw, "Bob's plain reply") {
			t.Errorf("bob, listed, does not see the comments: %s", r.Raw)
		}
		if r := a.ok("action", "get_comments", "id_task", secret); len(r.list()) != 2 {
			t.Errorf("the comments did not survive the others' tries: %s", r.Raw)
		}
		if r := a.ok("action", "get_comments", "id_task", child); len(r.list()) != 1 || !strings.Contains(r.Raw, "A note on the child") {
			t.Errorf("the child's comment did not survive the others' tries: %s", r.Raw)
		}
	})
}
