package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testsite"
)

var taskLinkRE = regexp.MustCompile(`href="(/a/[^"]+/project/\d+/(?:\d+/)?\d+/)">([^<]+)</a>`)

// taskLink finds the link to the task named name on a page.
func taskLink(t *testing.T, p testsite.Page, name string) string {
	t.Helper()
	for _, m := range taskLinkRE.FindAllStringSubmatch(p.Body, -1) {
		if m[2] == name {
			return m[1]
		}
	}
	t.Fatalf("no link to task %q in:\n%s", name, p.Body)
	return ""
}

// TestWebWorkflow drives the pages without a browser: every change goes
// through the same domain code as the API, so the API sees it, its events
// are written, and a webhook fires; rule violations show their message.
func TestWebWorkflow(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var mu sync.Mutex
	var delivered []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var evs []map[string]any
		testsite.DecodeJSON(r, &evs)
		mu.Lock()
		for _, e := range evs {
			delivered = append(delivered, e["event"].(string))
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(recv.Close)
	_, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=add_webhook&url="+recv.URL+"&events=post_task,close_task,post_comment,update_comment,delete_comment,delete_task,post_project")
	testsite.APICall(t, s.AccountURL(), s.Key, "action=enable_webhook&id="+testsite.JSONNumber(body["id"]))

	b := s.SignedIn(testsite.OwnerEmail)
	acct := "/a/" + s.Slug
	var (
		proj, task                          testsite.Page
		projURL, pid, newTask, taskURL, tid string
		subURL, sid, cid                    string
	)

	if !t.Run("the empty projects page makes a project and refuses a blank name", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		home := b.Get(s.Base + acct + "/")
		if home.Status != 200 || !strings.Contains(home.Body, "No active projects yet") {
			t.Fatalf("empty projects page: %d\n%s", home.Status, home.Body)
		}
		if p := b.Submit(s.Base, home, acct+"/projects", url.Values{"title": {"  "}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "Name is required") {
			t.Fatalf("blank project name: %d\n%s", p.Status, p.Body)
		}
		projURL = b.Submit(s.Base, home, acct+"/projects", url.Values{"title": {"Launch"}}).Location(t).Path
		proj = b.Get(s.Base + projURL)
		if !strings.Contains(proj.Body, "No tasks yet") {
			t.Fatalf("new project page:\n%s", proj.Body)
		}
		pid = strings.Split(strings.TrimSuffix(projURL, "/"), "/")[4]
		newTask = acct + "/project/" + pid + "/tasks"
	}) {
		return
	}

	if !t.Run("the project page makes a task with its fields and refuses priority 11", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		if p := b.Submit(s.Base, proj, newTask, url.Values{"title": {"Bad"}, "priority": {"11"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "Priority must be an integer from 0 to 10") {
			t.Fatalf("priority 11: %d\n%s", p.Status, p.Body)
		}
		if loc := b.Submit(s.Base, proj, newTask, url.Values{"title": {"Write copy"}, "priority": {"7"}, "email_user_to": {testsite.UserEmail}, "dateend": {"2030-01-31"}}).Location(t); loc.Path != projURL || !strings.HasPrefix(loc.Fragment, "task") {
			t.Fatalf("adding a task went to %s, not to its row on the project's page", loc)
		}
		proj = b.Get(s.Base + projURL)
		taskURL = taskLink(t, proj, "Write copy")
		if !strings.Contains(proj.Body, `role="status">Added “Write copy”. <a href="`+taskURL+`">Open it</a>`) {
			t.Fatalf("no notice of the added task:\n%s", proj.Body)
		}
		task = b.Get(s.Base + taskURL)
		if !strings.Contains(task.Body, ">P7<") || !strings.Contains(task.Body, "<dd>Uma User</dd>") || !strings.Contains(task.Body, "<dt>Due</dt><dd>2030-01-31</dd>") {
			t.Fatalf("task page:\n%s", task.Body)
		}
		tid = strings.Split(strings.TrimSuffix(taskURL, "/"), "/")[5]
	}) {
		return
	}

	if !t.Run("the task page makes a subtask, whose page is under the task's", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		b.Submit(s.Base, task, newTask, url.Values{"title": {"Outline"}}).Location(t)
		task = b.Get(s.Base + taskURL)
		subURL = taskLink(t, task, "Outline")
		if !strings.HasPrefix(subURL, taskURL) {
			t.Fatalf("subtask page %s is not under %s", subURL, taskURL)
		}
	}) {
		return
	}

	if !t.Run("a task completes only after its subtask, which reopens only under an open task", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		// Completing a task with an active subtask breaks rule 13.
		if p := b.Submit(s.Base, task, acct+"/tasks/"+tid+"/complete", nil); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "Task has children") {
			t.Fatalf("complete with an active subtask: %d\n%s", p.Status, p.Body)
		}
		sub := b.Get(s.Base + subURL)
		sid = strings.Split(strings.TrimSuffix(subURL, "/"), "/")[6]
		b.Submit(s.Base, sub, acct+"/tasks/"+sid+"/complete", nil).Location(t)
		b.Submit(s.Base, task, acct+"/tasks/"+tid+"/complete", nil).Location(t)
		task = b.Get(s.Base + taskURL)
		if !strings.Contains(task.Body, ">Reopen<") {
			t.Fatalf("completed task:\n%s", task.Body)
		}
		// Reopening a subtask of a done task breaks rule 14.
		sub = b.Get(s.Base + subURL)
		if p := b.Submit(s.Base, sub, acct+"/tasks/"+sid+"/reopen", nil); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "Parent task is done") {
			t.Fatalf("reopen under a done parent: %d\n%s", p.Status, p.Body)
		}
		b.Submit(s.Base, task, acct+"/tasks/"+tid+"/reopen", nil).Location(t)
	}) {
		return
	}

	if !t.Run("the owner adds a comment and edits it", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		task = b.Get(s.Base + taskURL)
		to := b.Submit(s.Base, task, acct+"/tasks/"+tid+"/comments", url.Values{"text": {"First draft is up"}}).Location(t)
		if !strings.HasPrefix(to.Fragment, "com") {
			t.Fatalf("after commenting: %s", to)
		}
		task = b.Get(s.Base + taskURL)
		cid = strings.TrimPrefix(to.Fragment, "com")
		b.Submit(s.Base, task, acct+"/comments/"+cid+"/update", url.Values{"text": {"Second draft is up"}}).Location(t)
		task = b.Get(s.Base + taskURL)
		if !strings.Contains(task.Body, "Second draft is up") {
			t.Fatalf("edited comment:\n%s", task.Body)
		}
	}) {
		return
	}

	if !t.Run("a plain user may not edit the owner's comment, even by posting directly", func(t *testing.T) {
		s := s.In(t)
		u := s.SignedIn(testsite.UserEmail)
		ut := u.Get(s.Base + taskURL)
		if strings.Contains(ut.Body, acct+"/comments/"+cid+"/update") {
			t.Fatal("the edit form is offered to a user who may not edit")
		}
		csrf := ut.Form(t, "", "").Get("csrf")
		if p := u.Post(s.Base+acct+"/comments/"+cid+"/update", url.Values{"csrf": {csrf}, "text": {"hijacked"}}); p.Status != http.StatusForbidden {
			t.Fatalf("user editing the owner's comment: %d", p.Status)
		}
	}) {
		return
	}

	if !t.Run("the owner deletes the comment", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		b.Submit(s.Base, task, acct+"/comments/"+cid+"/delete", nil).Location(t)
	}) {
		return
	}

	t.Run("the API sees what the pages did, with the same shapes and events", func(t *testing.T) {
		s := s.In(t)
		_, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task&id_task="+tid)
		data := body["data"].(map[string]any)
		if data["name"] != "Write copy" || data["priority"] != "7" || data["status"] != "active" || len(data["child"].([]any)) != 1 {
			t.Fatalf("get_task after the pages: %v", data)
		}
		_, body = testsite.APICall(t, s.AccountURL(), s.Key, "action=get_events&period=1h")
		var names []string
		for _, e := range body["data"].([]any) {
			ev := e.(map[string]any)
			names = append(names, ev["event"].(string))
			if ev["user_from"].(map[string]any)["email"] != testsite.OwnerEmail {
				t.Errorf("event %v made in the pages is not the owner's", ev)
			}
		}
		want := "post_project post_task post_task close_task close_task reopen_task post_comment update_comment delete_comment"
		if strings.Join(names, " ") != want {
			t.Fatalf("events of the page changes:\n got %s\nwant %s", strings.Join(names, " "), want)
		}
	})

	t.Run("the webhook fired for the page changes", func(t *testing.T) {
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
	})

	if !t.Run("a deleted task leaves the project's list", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		b.Submit(s.Base, b.Get(s.Base+taskURL), acct+"/tasks/"+tid+"/delete", nil).Location(t)
		if strings.Contains(b.Get(s.Base+projURL).Body, "Write copy") {
			t.Fatal("deleted task still listed")
		}
	}) {
		return
	}

	t.Run("the project is archived and activated", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		home := b.Get(s.Base + acct + "/")
		b.Submit(s.Base, home, acct+"/project/"+pid+"/archive", nil).Location(t)
		home = b.Get(s.Base + acct + "/")
		if !strings.Contains(home.Body, "Archived") {
			t.Fatalf("archived project:\n%s", home.Body)
		}
		b.Submit(s.Base, home, acct+"/project/"+pid+"/activate", nil).Location(t)
	})
}

// TestWebPeopleAndKeys: owners add people and set roles; users may not; a
// rotated API key replaces the old one; strangers find nothing.
func TestWebPeopleAndKeys(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	acct := "/a/" + s.Slug
	b := s.SignedIn(testsite.OwnerEmail)
	var roleAction string

	if !t.Run("the owner invites a person by e-mail, and a bad address is refused", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		people := b.Get(s.Base + acct + "/people")
		if p := b.Submit(s.Base, people, acct+"/people", url.Values{"email": {"not an address"}, "role": {"user"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "E-mail address is invalid") {
			t.Fatalf("bad address: %d\n%s", p.Status, p.Body)
		}
		b.Submit(s.Base, people, acct+"/people", url.Values{"email": {"new@acme.example"}, "first_name": {"Nia"}, "last_name": {"Nowak"}, "role": {"user"}}).Location(t)
		people = b.Get(s.Base + acct + "/people")
		if !strings.Contains(people.Body, "An invitation was sent to new@acme.example. They join as user when they accept it.") || strings.Contains(people.Body, "Nia New") {
			t.Fatalf("invited person:\n%s", people.Body)
		}
	}) {
		return
	}

	// The new person follows the e-mail's link, chooses a password and is
	// in: signed in, a member.
	if !t.Run("the invited person joins through the e-mail's link", func(t *testing.T) {
		s := s.In(t)
		msg := s.MailTo(t, "new@acme.example")
		if msg.Subject != "You are invited to join a team on taskd" || !strings.Contains(msg.Text, "Olga Owner invited you to Acme on taskd") {
			t.Fatalf("invitation mail: %q\n%s", msg.Subject, msg.Text)
		}
		link := s.LinkIn(t, msg)
		n := s.Browser()
		join := n.Get(s.Base + link)
		if !strings.Contains(join.Body, "<strong>Olga Owner</strong> invited you to join <strong>Acme</strong> as user.") || !strings.Contains(join.Body, `name="first_name" value="Nia"`) || !strings.Contains(join.Body, `name="last_name" value="Nowak"`) {
			t.Fatalf("join page:\n%s", join.Body)
		}
		if p := n.Submit(s.Base, join, "/join", url.Values{"last_name": {"New"}, "password": {"short"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "at least 8") {
			t.Fatalf("short password: %d\n%s", p.Status, p.Body)
		}
		if to := n.Submit(s.Base, join, "/join", url.Values{"first_name": {"Nia"}, "last_name": {"New"}, "password": {"a new password"}}).Location(t); to.Path != acct+"/" {
			t.Fatalf("joining led to %s", to)
		}
		if p := n.Get(s.Base + acct + "/"); p.Status != http.StatusOK {
			t.Fatalf("the new member's account page: %d", p.Status)
		}
		if p := s.Browser().Get(s.Base + link); p.Status != http.StatusNotFound || !strings.Contains(p.Body, "used already") {
			t.Fatalf("a used link: %d\n%s", p.Status, p.Body)
		}
	}) {
		return
	}

	// Uma is a user of Acme only; Other invites her.
	if !t.Run("someone registered accepts an invitation after signing in", func(t *testing.T) {
		s := s.In(t)
		o := s.SignedIn(testsite.OwnerEmail)
		otherPeople := o.Get(s.Base + "/a/" + s.Other + "/people")
		o.Submit(s.Base, otherPeople, "/a/"+s.Other+"/people", url.Values{"email": {testsite.UserEmail}, "role": {"user"}}).Location(t)
		s.MailTo(t, testsite.UserEmail)
		n := s.Browser()
		f := n.Get(s.Base+"/login").Form(t, "", "")
		f.Set("email", testsite.UserEmail)
		f.Set("password", testsite.Password)
		if to := n.Post(s.Base+"/login", f).Location(t); to.Path != "/invitations" {
			t.Fatalf("signed in with an invitation waiting: sent to %s", to)
		}
		inv := n.Get(s.Base + "/invitations")
		if !strings.Contains(inv.Body, "<strong>Olga Owner</strong> invited you to join <strong>Other</strong> as user.") {
			t.Fatalf("invitations page:\n%s", inv.Body)
		}
		accept := ""
		for _, f := range inv.Forms() {
			if strings.HasSuffix(f.Action, "/accept") {
				accept = f.Action
			}
		}
		if to := n.Submit(s.Base, inv, accept, nil).Location(t); to.Path != "/a/"+s.Other+"/" {
			t.Fatalf("accepting led to %s", to)
		}
	}) {
		return
	}

	if !t.Run("the owner sees the new member and changes their role", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		people := b.Get(s.Base + acct + "/people")
		if !strings.Contains(people.Body, "Nia New") || strings.Contains(people.Body, "the invitation of") {
			t.Fatalf("after accepting:\n%s", people.Body)
		}
		for _, f := range people.Forms() {
			if strings.HasSuffix(f.Action, "/role") && strings.Contains(people.Body, `id="role-`) {
				roleAction = f.Action
			}
		}
		b.Submit(s.Base, people, roleAction, url.Values{"role": {"admin"}}).Location(t)
		if after := b.Get(s.Base + acct + "/people").Body; !strings.Contains(after, `class="badge role">admin<`) || !strings.Contains(after, "Nia New is now admin.") {
			t.Fatal("role not changed")
		}
	}) {
		return
	}

	if !t.Run("a user cannot add people, change roles, or reach the key page", func(t *testing.T) {
		s := s.In(t)
		u := s.SignedIn(testsite.UserEmail)
		csrf := u.Get(s.Base+acct+"/people").Form(t, "", "").Get("csrf")
		if p := u.Post(s.Base+acct+"/people", url.Values{"csrf": {csrf}, "email": {"x@acme.example"}, "password": {"whatever1"}, "role": {"admin"}}); p.Status != http.StatusForbidden {
			t.Fatalf("user adding a person: %d", p.Status)
		}
		if p := u.Post(s.Base+roleAction, url.Values{"csrf": {csrf}, "role": {"user"}}); p.Status != http.StatusForbidden {
			t.Fatalf("user changing a role: %d", p.Status)
		}
		if p := u.Get(s.Base + acct + "/settings/apikey"); p.Status != http.StatusForbidden {
			t.Fatalf("user on the key page: %d", p.Status)
		}
	}) {
		return
	}

	if !t.Run("a rotated key is shown once, and the old one stops working", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		keyPage := b.Get(s.Base + acct + "/settings/apikey")
		b.Submit(s.Base, keyPage, acct+"/settings/apikey", nil).Location(t)
		m := testsite.SecretRE.FindStringSubmatch(b.Get(s.Base + acct + "/settings/apikey").Body)
		if m == nil {
			t.Fatal("new key not shown")
		}
		if status, _ := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_projects"); status != 401 {
			t.Fatalf("old key after rotation: %d", status)
		}
		if status, _ := testsite.APICall(t, s.AccountURL(), m[1], "action=get_projects"); status != 200 {
			t.Fatalf("new key: %d", status)
		}
	}) {
		return
	}

	t.Run("a stranger finds none of the account's pages", func(t *testing.T) {
		s := s.In(t)
		s.CreateAccount("stranger", "S", "s@example.com", "", "")
		st := s.SignedIn("s@example.com")
		for _, path := range []string{"/", "/people", "/project/1/", "/project/1/2/", "/settings/apikey", "/settings/webhooks", "/settings/api"} {
			if p := st.Get(s.Base + acct + path); p.Status != http.StatusNotFound {
				t.Errorf("stranger on %s: %d", path, p.Status)
			}
		}
	})
}

// TestProjectPageTree: subtasks are created, and tasks completed and
// reopened, from the project page too; a broken rule shows there.
func TestProjectPageTree(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	b := s.SignedIn(testsite.OwnerEmail)
	acct := "/a/" + s.Slug
	projURL := b.Submit(s.Base, b.Get(s.Base+acct+"/"), acct+"/projects", url.Values{"title": {"Tree"}}).Location(t).Path
	pid := strings.Split(strings.TrimSuffix(projURL, "/"), "/")[4]
	newTask := acct + "/project/" + pid + "/tasks"
	b.Submit(s.Base, b.Get(s.Base+projURL), newTask, url.Values{"title": {"Parent"}}).Location(t)
	proj := b.Get(s.Base + projURL)
	parentURL := taskLink(t, proj, "Parent")
	tid := strings.Split(strings.TrimSuffix(parentURL, "/"), "/")[5]
	to := b.Submit(s.Base, proj, newTask, url.Values{"title": {"Child"}, "id_parent": {tid}}).Location(t)
	if to.Path != projURL {
		t.Fatalf("a subtask made on the project page returns to %s", to)
	}
	proj = b.Get(s.Base + projURL)
	if child := taskLink(t, proj, "Child"); !strings.HasPrefix(child, parentURL) {
		t.Fatalf("subtask link %s", child)
	}
	p := b.Submit(s.Base, proj, acct+"/tasks/"+tid+"/complete", nil)
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "Task has children") || !strings.Contains(p.Body, "Tree") {
		t.Fatalf("completing a parent from the tree: %d\n%s", p.Status, p.Body)
	}
	childID := strings.Split(strings.TrimSuffix(taskLink(t, proj, "Child"), "/"), "/")[6]
	if to := b.Submit(s.Base, proj, acct+"/tasks/"+childID+"/complete", nil).Location(t); to.Path != projURL {
		t.Fatalf("completing from the tree returns to %s", to)
	}
	b.Submit(s.Base, b.Get(s.Base+projURL), acct+"/tasks/"+tid+"/complete", nil).Location(t)
	proj = b.Get(s.Base + projURL)
	if !strings.Contains(proj.Body, "all 2 are done") || strings.Contains(proj.Body, `class="task`) {
		t.Fatalf("the active list after completing:\n%s", proj.Body)
	}
	done := b.Get(s.Base + projURL + "?status=done")
	if !regexp.MustCompile(`(?s)class="task done">.*?<span class="title"><a[^>]*>Parent</a>.*class="task done sub">.*?<span class="title"><a[^>]*>Child</a>`).MatchString(done.Body) ||
		!strings.Contains(done.Body, `aria-label="Reopen Parent"`) {
		t.Fatalf("the done list: the subtask is not under its parent, or no Reopen:\n%s", done.Body)
	}
}

// TestPageLinksWork: every page the API returns (project, task, subtask,
// comment) opens in the browser under the account URL.
func TestPageLinksWork(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	b := s.SignedIn(testsite.OwnerEmail)
	data := func(q string) map[string]any {
		t.Helper()
		_, body := testsite.APICall(t, s.AccountURL(), s.Key, q)
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
		u, err := url.Parse(s.AccountURL() + obj["page"].(string))
		if err != nil {
			t.Fatal(err)
		}
		page := b.Get(u.String())
		if page.Status != http.StatusOK {
			t.Errorf("page %s: HTTP %d", obj["page"], page.Status)
		}
		if u.Fragment != "" && !strings.Contains(page.Body, `id="`+u.Fragment+`"`) {
			t.Errorf("page %s has no element #%s", obj["page"], u.Fragment)
		}
	}
	// A task's page under the wrong project or parent is not found.
	wrong := "/project/" + p["id"].(string) + "/999999/" + sub["id"].(string) + "/"
	if page := b.Get(s.AccountURL() + wrong); page.Status != http.StatusNotFound {
		t.Errorf("%s: HTTP %d", wrong, page.Status)
	}
}
