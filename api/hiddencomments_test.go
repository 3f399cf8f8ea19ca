package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
)

// TestPlainCommentsOfAHiddenTask: a task hidden for Bob carries comments
// that are not hidden themselves (one by the owner, one by Bob). To Carl
// and to Ada, an admin, neither of them listed, the comments are as the
// task is: get_comments, a change or a deletion of one answers exactly as
// for an id of nothing, search and the event list show neither, and the
// comments survive; a plain comment on a plain subtask of the hidden task
// is the same. Bob, listed, sees both.
func TestPlainCommentsOfAHiddenTask(t *testing.T) {
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
