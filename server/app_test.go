package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// signedIn returns a browser signed in as email.
func (s *oauthSite) signedIn(email string) *browser {
	s.t.Helper()
	b := s.browser()
	f := b.get(s.base+"/login").form(s.t, "", "")
	f.Set("email", email)
	f.Set("password", password)
	b.post(s.base+"/login", f).location(s.t)
	return b
}

// submit posts a form of page p (the first whose hidden fields match
// name=value, or the first with the action) with extra fields set, and
// returns the answer.
func (b *browser) submit(base string, p page, action string, set url.Values) page {
	b.t.Helper()
	for _, f := range p.forms() {
		if f.action == action {
			for k, v := range set {
				f.fields[k] = v
			}
			return b.post(base+action, f.fields)
		}
	}
	b.t.Fatalf("no form posting to %s in:\n%s", action, p.body)
	return page{}
}

var taskLinkRE = regexp.MustCompile(`href="(/a/[^"]+/project/\d+/(?:\d+/)?\d+/)">([^<]+)</a>`)

// taskLink finds the link to the task named name on a page.
func taskLink(t *testing.T, p page, name string) string {
	t.Helper()
	for _, m := range taskLinkRE.FindAllStringSubmatch(p.body, -1) {
		if m[2] == name {
			return m[1]
		}
	}
	t.Fatalf("no link to task %q in:\n%s", name, p.body)
	return ""
}

// TestWebWorkflow drives the pages without a browser: every change goes
// through the same domain code as the API, so the API sees it, its events
// are written, and a webhook fires; rule violations show their message.
func TestWebWorkflow(t *testing.T) {
	s := newSite(t)
	var mu sync.Mutex
	var delivered []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var evs []map[string]any
		decodeJSON(r, &evs)
		mu.Lock()
		for _, e := range evs {
			delivered = append(delivered, e["event"].(string))
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(recv.Close)
	_, body := apiCall(t, s.accountURL(), s.key, "action=add_webhook&url="+recv.URL+"&events=post_task,close_task,post_comment,update_comment,delete_comment,delete_task,post_project")
	apiCall(t, s.accountURL(), s.key, "action=enable_webhook&id="+jsonNumber(body["id"]))

	b := s.signedIn(ownerEmail)
	acct := "/a/" + s.slug
	home := b.get(s.base + acct + "/")
	if home.status != 200 || !strings.Contains(home.body, "No active projects yet") {
		t.Fatalf("empty projects page: %d\n%s", home.status, home.body)
	}
	if p := b.submit(s.base, home, acct+"/projects", url.Values{"title": {"  "}}); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "Name is required") {
		t.Fatalf("blank project name: %d\n%s", p.status, p.body)
	}
	projURL := b.submit(s.base, home, acct+"/projects", url.Values{"title": {"Launch"}}).location(t).Path
	proj := b.get(s.base + projURL)
	if !strings.Contains(proj.body, "No tasks yet") {
		t.Fatalf("new project page:\n%s", proj.body)
	}
	pid := strings.Split(strings.TrimSuffix(projURL, "/"), "/")[4]
	newTask := acct + "/project/" + pid + "/tasks"
	if p := b.submit(s.base, proj, newTask, url.Values{"title": {"Bad"}, "priority": {"11"}}); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "Priority must be an integer from 0 to 10") {
		t.Fatalf("priority 11: %d\n%s", p.status, p.body)
	}
	b.submit(s.base, proj, newTask, url.Values{"title": {"Write copy"}, "priority": {"7"}, "email_user_to": {userEmail}, "dateend": {"2030-01-31"}}).location(t)
	proj = b.get(s.base + projURL)
	taskURL := taskLink(t, proj, "Write copy")
	task := b.get(s.base + taskURL)
	if !strings.Contains(task.body, ">P7<") || !strings.Contains(task.body, "<dd>Uma User</dd>") || !strings.Contains(task.body, "<dt>Due</dt><dd>2030-01-31</dd>") {
		t.Fatalf("task page:\n%s", task.body)
	}
	tid := strings.Split(strings.TrimSuffix(taskURL, "/"), "/")[5]
	b.submit(s.base, task, newTask, url.Values{"title": {"Outline"}}).location(t)
	task = b.get(s.base + taskURL)
	subURL := taskLink(t, task, "Outline")
	if !strings.HasPrefix(subURL, taskURL) {
		t.Fatalf("subtask page %s is not under %s", subURL, taskURL)
	}
	// Completing a task with an active subtask breaks rule 13.
	if p := b.submit(s.base, task, acct+"/tasks/"+tid+"/complete", nil); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "Task has children") {
		t.Fatalf("complete with an active subtask: %d\n%s", p.status, p.body)
	}
	sub := b.get(s.base + subURL)
	sid := strings.Split(strings.TrimSuffix(subURL, "/"), "/")[6]
	b.submit(s.base, sub, acct+"/tasks/"+sid+"/complete", nil).location(t)
	b.submit(s.base, task, acct+"/tasks/"+tid+"/complete", nil).location(t)
	task = b.get(s.base + taskURL)
	if !strings.Contains(task.body, ">Reopen<") {
		t.Fatalf("completed task:\n%s", task.body)
	}
	// Reopening a subtask of a done task breaks rule 14.
	sub = b.get(s.base + subURL)
	if p := b.submit(s.base, sub, acct+"/tasks/"+sid+"/reopen", nil); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "Parent task is done") {
		t.Fatalf("reopen under a done parent: %d\n%s", p.status, p.body)
	}
	b.submit(s.base, task, acct+"/tasks/"+tid+"/reopen", nil).location(t)

	// Comments: add, edit, delete.
	task = b.get(s.base + taskURL)
	to := b.submit(s.base, task, acct+"/tasks/"+tid+"/comments", url.Values{"text": {"First draft is up"}}).location(t)
	if !strings.HasPrefix(to.Fragment, "com") {
		t.Fatalf("after commenting: %s", to)
	}
	task = b.get(s.base + taskURL)
	cid := strings.TrimPrefix(to.Fragment, "com")
	b.submit(s.base, task, acct+"/comments/"+cid+"/update", url.Values{"text": {"Second draft is up"}}).location(t)
	task = b.get(s.base + taskURL)
	if !strings.Contains(task.body, "Second draft is up") {
		t.Fatalf("edited comment:\n%s", task.body)
	}
	// A plain user may not edit the owner's comment, even by posting directly.
	u := s.signedIn(userEmail)
	ut := u.get(s.base + taskURL)
	if strings.Contains(ut.body, acct+"/comments/"+cid+"/update") {
		t.Fatal("the edit form is offered to a user who may not edit")
	}
	csrf := ut.form(t, "", "").Get("csrf")
	if p := u.post(s.base+acct+"/comments/"+cid+"/update", url.Values{"csrf": {csrf}, "text": {"hijacked"}}); p.status != http.StatusForbidden {
		t.Fatalf("user editing the owner's comment: %d", p.status)
	}
	b.submit(s.base, task, acct+"/comments/"+cid+"/delete", nil).location(t)

	// The API sees what the pages did, with the same shapes.
	_, body = apiCall(t, s.accountURL(), s.key, "action=get_task&id_task="+tid)
	data := body["data"].(map[string]any)
	if data["name"] != "Write copy" || data["priority"] != "7" || data["status"] != "active" || len(data["child"].([]any)) != 1 {
		t.Fatalf("get_task after the pages: %v", data)
	}
	_, body = apiCall(t, s.accountURL(), s.key, "action=get_events&period=1h")
	var names []string
	for _, e := range body["data"].([]any) {
		ev := e.(map[string]any)
		names = append(names, ev["event"].(string))
		if ev["user_from"].(map[string]any)["email"] != ownerEmail {
			t.Errorf("event %v made in the pages is not the owner's", ev)
		}
	}
	want := "post_project post_task post_task close_task close_task reopen_task post_comment update_comment delete_comment"
	if strings.Join(names, " ") != want {
		t.Fatalf("events of the page changes:\n got %s\nwant %s", strings.Join(names, " "), want)
	}
	// The webhook fired for the page changes.
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		got := strings.Join(delivered, " ")
		mu.Unlock()
		if got == "post_project post_task post_task close_task close_task post_comment update_comment delete_comment" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook deliveries: %s", got)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Delete the task: back to the project, which no longer lists it.
	b.submit(s.base, b.get(s.base+taskURL), acct+"/tasks/"+tid+"/delete", nil).location(t)
	if strings.Contains(b.get(s.base+projURL).body, "Write copy") {
		t.Fatal("deleted task still listed")
	}
	// Archive and activate the project.
	home = b.get(s.base + acct + "/")
	b.submit(s.base, home, acct+"/project/"+pid+"/archive", nil).location(t)
	home = b.get(s.base + acct + "/")
	if !strings.Contains(home.body, "Archived") {
		t.Fatalf("archived project:\n%s", home.body)
	}
	b.submit(s.base, home, acct+"/project/"+pid+"/activate", nil).location(t)
}

// TestWebPeopleAndKeys: owners add people and set roles; users may not; a
// rotated API key replaces the old one; strangers find nothing.
func TestWebPeopleAndKeys(t *testing.T) {
	s := newSite(t)
	acct := "/a/" + s.slug
	b := s.signedIn(ownerEmail)
	people := b.get(s.base + acct + "/people")
	if p := b.submit(s.base, people, acct+"/people", url.Values{"email": {"not an address"}, "role": {"user"}}); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "E-mail address is invalid") {
		t.Fatalf("bad address: %d\n%s", p.status, p.body)
	}
	b.submit(s.base, people, acct+"/people", url.Values{"email": {"new@acme.example"}, "first_name": {"Nia"}, "last_name": {"Nowak"}, "role": {"user"}}).location(t)
	people = b.get(s.base + acct + "/people")
	if !strings.Contains(people.body, "An invitation was sent to new@acme.example. They join as user when they accept it.") || strings.Contains(people.body, "Nia New") {
		t.Fatalf("invited person:\n%s", people.body)
	}
	// The new person follows the e-mail's link, chooses a password and is
	// in: signed in, a member.
	msg := s.mailTo(t, "new@acme.example")
	if msg.Subject != "You are invited to join a team on taskd" || !strings.Contains(msg.Text, "Olga Owner invited you to Acme on taskd") {
		t.Fatalf("invitation mail: %q\n%s", msg.Subject, msg.Text)
	}
	link := s.linkIn(t, msg)
	n := s.browser()
	join := n.get(s.base + link)
	if !strings.Contains(join.body, "<strong>Olga Owner</strong> invited you to join <strong>Acme</strong> as user.") || !strings.Contains(join.body, `name="first_name" value="Nia"`) || !strings.Contains(join.body, `name="last_name" value="Nowak"`) {
		t.Fatalf("join page:\n%s", join.body)
	}
	if p := n.submit(s.base, join, "/join", url.Values{"last_name": {"New"}, "password": {"short"}}); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "at least 8") {
		t.Fatalf("short password: %d\n%s", p.status, p.body)
	}
	if to := n.submit(s.base, join, "/join", url.Values{"first_name": {"Nia"}, "last_name": {"New"}, "password": {"a new password"}}).location(t); to.Path != acct+"/" {
		t.Fatalf("joining led to %s", to)
	}
	if p := n.get(s.base + acct + "/"); p.status != http.StatusOK {
		t.Fatalf("the new member's account page: %d", p.status)
	}
	if p := s.browser().get(s.base + link); p.status != http.StatusNotFound || !strings.Contains(p.body, "used already") {
		t.Fatalf("a used link: %d\n%s", p.status, p.body)
	}
	// Someone registered accepts after signing in: Uma is a user of Acme
	// only; Other invites her.
	o := s.signedIn(ownerEmail)
	otherPeople := o.get(s.base + "/a/" + s.other + "/people")
	o.submit(s.base, otherPeople, "/a/"+s.other+"/people", url.Values{"email": {userEmail}, "role": {"user"}}).location(t)
	s.mailTo(t, userEmail)
	n = s.browser()
	f := n.get(s.base+"/login").form(t, "", "")
	f.Set("email", userEmail)
	f.Set("password", password)
	if to := n.post(s.base+"/login", f).location(t); to.Path != "/invitations" {
		t.Fatalf("signed in with an invitation waiting: sent to %s", to)
	}
	inv := n.get(s.base + "/invitations")
	if !strings.Contains(inv.body, "<strong>Olga Owner</strong> invited you to join <strong>Other</strong> as user.") {
		t.Fatalf("invitations page:\n%s", inv.body)
	}
	accept := ""
	for _, f := range inv.forms() {
		if strings.HasSuffix(f.action, "/accept") {
			accept = f.action
		}
	}
	if to := n.submit(s.base, inv, accept, nil).location(t); to.Path != "/a/"+s.other+"/" {
		t.Fatalf("accepting led to %s", to)
	}
	people = b.get(s.base + acct + "/people")
	if !strings.Contains(people.body, "Nia New") || strings.Contains(people.body, "the invitation of") {
		t.Fatalf("after accepting:\n%s", people.body)
	}
	var roleAction string
	for _, f := range people.forms() {
		if strings.HasSuffix(f.action, "/role") && strings.Contains(people.body, `id="role-`) {
			roleAction = f.action
		}
	}
	b.submit(s.base, people, roleAction, url.Values{"role": {"admin"}}).location(t)
	if after := b.get(s.base + acct + "/people").body; !strings.Contains(after, `class="badge role">admin<`) || !strings.Contains(after, "Nia New is now admin.") {
		t.Fatal("role not changed")
	}
	// A user cannot add people, change roles, or reach the key page.
	u := s.signedIn(userEmail)
	csrf := u.get(s.base+acct+"/people").form(t, "", "").Get("csrf")
	if p := u.post(s.base+acct+"/people", url.Values{"csrf": {csrf}, "email": {"x@acme.example"}, "password": {"whatever1"}, "role": {"admin"}}); p.status != http.StatusForbidden {
		t.Fatalf("user adding a person: %d", p.status)
	}
	if p := u.post(s.base+roleAction, url.Values{"csrf": {csrf}, "role": {"user"}}); p.status != http.StatusForbidden {
		t.Fatalf("user changing a role: %d", p.status)
	}
	if p := u.get(s.base + acct + "/settings/apikey"); p.status != http.StatusForbidden {
		t.Fatalf("user on the key page: %d", p.status)
	}

	// Rotate the key: shown once; the old one stops working.
	keyPage := b.get(s.base + acct + "/settings/apikey")
	b.submit(s.base, keyPage, acct+"/settings/apikey", nil).location(t)
	m := secretRE.FindStringSubmatch(b.get(s.base + acct + "/settings/apikey").body)
	if m == nil {
		t.Fatal("new key not shown")
	}
	if status, _ := apiCall(t, s.accountURL(), s.key, "action=get_projects"); status != 401 {
		t.Fatalf("old key after rotation: %d", status)
	}
	if status, _ := apiCall(t, s.accountURL(), m[1], "action=get_projects"); status != 200 {
		t.Fatalf("new key: %d", status)
	}

	// A stranger finds none of the account's pages.
	s.createAccount("stranger", "S", "s@example.com", "", "")
	st := s.signedIn("s@example.com")
	for _, path := range []string{"/", "/people", "/project/1/", "/project/1/2/", "/settings/apikey", "/settings/webhooks", "/settings/api"} {
		if p := st.get(s.base + acct + path); p.status != http.StatusNotFound {
			t.Errorf("stranger on %s: %d", path, p.status)
		}
	}
}

// TestProjectPageTree: subtasks are created, and tasks completed and
// reopened, from the project page too; a broken rule shows there.
func TestProjectPageTree(t *testing.T) {
	s := newSite(t)
	b := s.signedIn(ownerEmail)
	acct := "/a/" + s.slug
	projURL := b.submit(s.base, b.get(s.base+acct+"/"), acct+"/projects", url.Values{"title": {"Tree"}}).location(t).Path
	pid := strings.Split(strings.TrimSuffix(projURL, "/"), "/")[4]
	newTask := acct + "/project/" + pid + "/tasks"
	b.submit(s.base, b.get(s.base+projURL), newTask, url.Values{"title": {"Parent"}}).location(t)
	proj := b.get(s.base + projURL)
	parentURL := taskLink(t, proj, "Parent")
	tid := strings.Split(strings.TrimSuffix(parentURL, "/"), "/")[5]
	to := b.submit(s.base, proj, newTask, url.Values{"title": {"Child"}, "id_parent": {tid}}).location(t)
	if to.Path != projURL {
		t.Fatalf("a subtask made on the project page returns to %s", to)
	}
	proj = b.get(s.base + projURL)
	if child := taskLink(t, proj, "Child"); !strings.HasPrefix(child, parentURL) {
		t.Fatalf("subtask link %s", child)
	}
	p := b.submit(s.base, proj, acct+"/tasks/"+tid+"/complete", nil)
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "Task has children") || !strings.Contains(p.body, "Tree") {
		t.Fatalf("completing a parent from the tree: %d\n%s", p.status, p.body)
	}
	childID := strings.Split(strings.TrimSuffix(taskLink(t, proj, "Child"), "/"), "/")[6]
	if to := b.submit(s.base, proj, acct+"/tasks/"+childID+"/complete", nil).location(t); to.Path != projURL {
		t.Fatalf("completing from the tree returns to %s", to)
	}
	b.submit(s.base, b.get(s.base+projURL), acct+"/tasks/"+tid+"/complete", nil).location(t)
	proj = b.get(s.base + projURL)
	if !strings.Contains(proj.body, "all 2 are done") || strings.Contains(proj.body, `class="task`) {
		t.Fatalf("the active list after completing:\n%s", proj.body)
	}
	done := b.get(s.base + projURL + "?status=done")
	if !regexp.MustCompile(`(?s)class="task done">.*?<span class="title"><a[^>]*>Parent</a>.*class="task done sub">.*?<span class="title"><a[^>]*>Child</a>`).MatchString(done.body) ||
		!strings.Contains(done.body, `aria-label="Reopen Parent"`) {
		t.Fatalf("the done list: the subtask is not under its parent, or no Reopen:\n%s", done.body)
	}
}

// TestPageLinksWork: every page the API returns (project, task, subtask,
// comment) opens in the browser under the account URL.
func TestPageLinksWork(t *testing.T) {
	s := newSite(t)
	b := s.signedIn(ownerEmail)
	data := func(q string) map[string]any {
		t.Helper()
		_, body := apiCall(t, s.accountURL(), s.key, q)
		d, ok := body["data"].(map[string]any)
		if !ok {
			t.Fatalf("%s: %v", q, body)
		}
		return d
	}
	p := data("action=post_project&title=Links")
	tk := data("action=post_task&id_project=" + p["id"].(string) + "&title=Parent")
	sub := data("action=post_task&id_project=" + p["id"].(string) + "&id_parent=" + tk["id"].(string) + "&title=Child")
	c := data("action=post_comment&id_task=" + sub["id"].(string) + "&text=Hello")
	for _, obj := range []map[string]any{p, tk, sub, c} {
		u, err := url.Parse(s.accountURL() + obj["page"].(string))
		if err != nil {
			t.Fatal(err)
		}
		page := b.get(u.String())
		if page.status != http.StatusOK {
			t.Errorf("page %s: HTTP %d", obj["page"], page.status)
		}
		if u.Fragment != "" && !strings.Contains(page.body, `id="`+u.Fragment+`"`) {
			t.Errorf("page %s has no element #%s", obj["page"], u.Fragment)
		}
	}
	// A task's page under the wrong project or parent is not found.
	wrong := "/project/" + p["id"].(string) + "/999999/" + sub["id"].(string) + "/"
	if page := b.get(s.accountURL() + wrong); page.status != http.StatusNotFound {
		t.Errorf("%s: HTTP %d", wrong, page.status)
	}
}
