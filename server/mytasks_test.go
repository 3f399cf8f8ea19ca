package server

import (
	"fmt"
	"slices"

	"strings"
	"testing"

	"github.com/taskd/taskd"
)

// TestMyTasks: a member's tasks, assigned, created or subscribed, newest
// first, 50 to a page, by status; tasks of others are not listed.
func TestMyTasks(t *testing.T) {
	s := newSite(t)
	url := s.accountURL()
	acct := "/a/" + s.slug
	_, p := apiCall(t, url, s.key, "action=post_project&title=Site")
	pid := p["data"].(map[string]any)["id"].(string)
	var first string
	for i := range 60 {
		_, task := apiCall(t, url, s.key, fmt.Sprintf("action=post_task&id_project=%s&title=Job+%02d&email_user_to=%s", pid, i, userEmail))
		if i == 0 {
			first = task["data"].(map[string]any)["id"].(string)
		}
	}
	apiCall(t, url, s.key, "action=post_task&id_project="+pid+"&title=Owner+only")
	apiCall(t, url, s.key, "action=complete_task&id_task="+first)

	u := s.signedIn(userEmail)
	page := u.get(s.base + acct + "/my")
	if n := strings.Count(page.body, "/project/"+pid+"/"); n != 50 || !strings.Contains(page.body, "Job 59") || strings.Contains(page.body, "Job 09") {
		t.Fatalf("first page: %d tasks\n%s", n, page.body)
	}
	if strings.Contains(page.body, "Owner only") || strings.Contains(page.body, "Job 00") {
		t.Fatalf("the first page lists another's task or a done one:\n%s", page.body)
	}
	older := u.get(s.base + acct + "/my?show=assigned&status=active&page=2")
	if n := strings.Count(older.body, "/project/"+pid+"/"); n != 9 || !strings.Contains(older.body, "Job 01") || !strings.Contains(older.body, "Previous") {
		t.Fatalf("second page: %d tasks\n%s", n, older.body)
	}
	if done := u.get(s.base + acct + "/my?status=done"); !strings.Contains(done.body, "Job 00") || strings.Contains(done.body, "Job 01") {
		t.Fatalf("done tasks:\n%s", done.body)
	}
	if subs := u.get(s.base + acct + "/my?show=subscribed&status="); strings.Count(subs.body, "/project/"+pid+"/") != 50 {
		t.Fatalf("subscribed tasks:\n%s", subs.body)
	}
	if created := u.get(s.base + acct + "/my?show=created"); !strings.Contains(created.body, "No tasks here.") {
		t.Fatalf("created by the user:\n%s", created.body)
	}
	if got := rowNames(u.get(s.base + acct + "/my?q=job+05")); !slices.Equal(got, []string{"Job 05"}) {
		t.Errorf("a search of my tasks: %q", got)
	}
	if got := rowNames(u.get(s.base + acct + "/my?sort=name&assignee=" + ownerEmail)); len(got) != 50 || got[0] != "Job 01" {
		t.Errorf("the assignee filter must not widen \"assigned to me\", and sort=name orders by name: %q", got)
	}

	// A guest sees their tasks only in the projects whose team they are on.
	const guest = "guest@acme.example"
	s.addMember(s.slug, guest, "Gus", "Guest", taskd.RoleGuest)
	_, open := apiCall(t, url, s.key, "action=post_project&title=Open&members="+guest)
	apiCall(t, url, s.key, "action=post_task&id_project="+open["data"].(map[string]any)["id"].(string)+"&title=Visible&email_user_to="+guest)
	apiCall(t, url, s.key, "action=post_task&id_project="+pid+"&title=Not+on+the+team&email_user_to="+guest)
	g := s.signedIn(guest)
	for _, q := range []string{"", "?due=none", "?status=all&sort=due"} {
		if got := rowNames(g.get(s.base + acct + "/my" + q)); !slices.Equal(got, []string{"Visible"}) {
			t.Errorf("a guest's tasks%s: %q", q, got)
		}
	}
}
