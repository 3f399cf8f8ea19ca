package web_test

import (
	"fmt"
	"slices"

	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestMyTasks: a member's tasks, assigned, created or subscribed, newest
// first, 50 to a page, by status; tasks of others are not listed.
func TestMyTasks(t *testing.T) {
	s := testsite.New(t)
	url := s.AccountURL()
	acct := "/a/" + s.Slug
	pid := s.APIID("action=post_project&title=Site")
	var first string
	for i := range 60 {
		_, task := testsite.APICall(t, url, s.Key, fmt.Sprintf("action=post_task&id_project=%s&title=Job+%02d&email_user_to=%s", pid, i, testsite.UserEmail))
		if i == 0 {
			first = task["data"].(map[string]any)["id"].(string)
		}
	}
	testsite.APICall(t, url, s.Key, "action=post_task&id_project="+pid+"&title=Owner+only")
	testsite.APICall(t, url, s.Key, "action=complete_task&id_task="+first)

	u := s.SignedIn(testsite.UserEmail)
	page := u.Get(s.Base + acct + "/my")
	if n := strings.Count(page.Body, "/project/"+pid+"/"); n != 50 || !strings.Contains(page.Body, "Job 59") || strings.Contains(page.Body, "Job 09") {
		t.Fatalf("first page: %d tasks\n%s", n, page.Body)
	}
	if strings.Contains(page.Body, "Owner only") || strings.Contains(page.Body, "Job 00") {
		t.Fatalf("the first page lists another's task or a done one:\n%s", page.Body)
	}
	older := u.Get(s.Base + acct + "/my?show=assigned&status=active&page=2")
	if n := strings.Count(older.Body, "/project/"+pid+"/"); n != 9 || !strings.Contains(older.Body, "Job 01") || !strings.Contains(older.Body, "Previous") {
		t.Fatalf("second page: %d tasks\n%s", n, older.Body)
	}
	if done := u.Get(s.Base + acct + "/my?status=done"); !strings.Contains(done.Body, "Job 00") || strings.Contains(done.Body, "Job 01") {
		t.Fatalf("done tasks:\n%s", done.Body)
	}
	if subs := u.Get(s.Base + acct + "/my?show=subscribed&status="); strings.Count(subs.Body, "/project/"+pid+"/") != 50 {
		t.Fatalf("subscribed tasks:\n%s", subs.Body)
	}
	if created := u.Get(s.Base + acct + "/my?show=created"); !strings.Contains(created.Body, "No tasks here.") {
		t.Fatalf("created by the user:\n%s", created.Body)
	}
	if got := rowNames(u.Get(s.Base + acct + "/my?q=job+05")); !slices.Equal(got, []string{"Job 05"}) {
		t.Errorf("a search of my tasks: %q", got)
	}
	if got := rowNames(u.Get(s.Base + acct + "/my?sort=name&assignee=" + testsite.OwnerEmail)); len(got) != 50 || got[0] != "Job 01" {
		t.Errorf("the assignee filter must not widen \"assigned to me\", and sort=name orders by name: %q", got)
	}

	// A guest sees their tasks only in the projects whose team they are on.
	const guest = "guest@acme.example"
	s.AddMember(s.Slug, guest, "Gus", "Guest", taskd.RoleGuest)
	_, open := testsite.APICall(t, url, s.Key, "action=post_project&title=Open&members="+guest)
	testsite.APICall(t, url, s.Key, "action=post_task&id_project="+open["data"].(map[string]any)["id"].(string)+"&title=Visible&email_user_to="+guest)
	testsite.APICall(t, url, s.Key, "action=post_task&id_project="+pid+"&title=Not+on+the+team&email_user_to="+guest)
	g := s.SignedIn(guest)
	for _, q := range []string{"", "?due=none", "?status=all&sort=due"} {
		if got := rowNames(g.Get(s.Base + acct + "/my" + q)); !slices.Equal(got, []string{"Visible"}) {
			t.Errorf("a guest's tasks%s: %q", q, got)
		}
	}
}
