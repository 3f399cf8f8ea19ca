package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

// TestPeoplePages: teams, contacts with folders, project folders and
// teams, subscribing on the task page, a member removed with their tasks
// kept; a guest sees only the projects whose team they are on, a reader
// sees no forms and changes nothing; times show in the person's zone.
func TestPeoplePages(t *testing.T) {
	s := newSite(t)
	acct := "/a/" + s.slug
	const guest, reader = "guest@acme.example", "reader@acme.example"
	s.addMember(s.slug, guest, "Gus", "Guest", taskd.RoleGuest)
	s.addMember(s.slug, reader, "Rea", "Reader", taskd.RoleReader)
	o := s.signedIn(ownerEmail)

	// A team, and a contact in a new folder.
	people := o.get(s.base + acct + "/people")
	o.submit(s.base, people, acct+"/teams", url.Values{"title": {"Clients"}, "client": {"1"}}).location(t)
	if p := o.get(s.base + acct + "/people"); !strings.Contains(p.body, "Clients <span class=\"muted\">· client team</span>") {
		t.Fatalf("teams:\n%s", p.body)
	}
	// A refused team comes back with its error, and the invite form on the
	// same page keeps none of its values (both forms have a "title").
	if p := o.submit(s.base, people, acct+"/teams", url.Values{"title": {"   "}}); p.status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.body, `id="person-title" type="text" name="title" value=""`) || strings.Contains(p.body, `<details class="more" open>`) {
		t.Fatalf("a blank team's name: HTTP %d\n%s", p.status, p.body)
	}
	contacts := o.get(s.base + acct + "/contacts")
	o.submit(s.base, contacts, acct+"/contacts", url.Values{"email": {"ann@supplier.example"}, "first_name": {"Ann"}, "folder": {"Suppliers"}}).location(t)
	if p := o.submit(s.base, contacts, acct+"/contacts", url.Values{"email": {"ann@supplier.example"}}); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("a second contact with one e-mail: %d", p.status)
	}
	if p := o.get(s.base + acct + "/contacts"); !strings.Contains(p.body, "<h2>Suppliers</h2>") || !strings.Contains(p.body, "ann@supplier.example") {
		t.Fatalf("contacts:\n%s", p.body)
	}

	// Two projects in folders; the guest and the reader are on one team.
	home := o.get(s.base + acct + "/")
	shared := o.submit(s.base, home, acct+"/projects", url.Values{"title": {"Shared"}, "company": {"Clients"}}).location(t).Path
	hidden := o.submit(s.base, home, acct+"/projects", url.Values{"title": {"Hidden"}}).location(t).Path
	if p := o.get(s.base + acct + "/"); !strings.Contains(p.body, `<h3 class="folder">Clients</h3>`) {
		t.Fatalf("project folders:\n%s", p.body)
	}
	page := o.get(s.base + shared)
	for _, email := range []string{guest, reader} {
		o.submit(s.base, page, shared+"members", url.Values{"email": {email}}).location(t)
	}
	page = o.get(s.base + shared)
	if !strings.Contains(page.body, "Remove Gus Guest from the team") || !strings.Contains(page.body, "Remove Rea Reader from the team") {
		t.Fatalf("project team:\n%s", page.body)
	}
	task := o.submit(s.base, page, shared+"tasks", url.Values{"title": {"Logo"}, "email_user_to": {userEmail}}).location(t)
	tid := strings.TrimPrefix(task.Fragment, "task")
	taskPath := shared + tid + "/"
	hiddenTask := o.submit(s.base, o.get(s.base+hidden), hidden+"tasks", url.Values{"title": {"Secret"}}).location(t)

	// Subscribing on the task page; deleting it asks first.
	tp := o.get(s.base + taskPath)
	if !strings.Contains(tp.body, "<summary>Delete task…</summary>") {
		t.Fatalf("deleting a task does not ask for confirmation:\n%s", tp.body)
	}
	if !strings.Contains(tp.body, "Uma User") || !strings.Contains(tp.body, "Unsubscribe me") {
		t.Fatalf("the author and the assignee are subscribed:\n%s", tp.body)
	}
	o.submit(s.base, tp, acct+"/tasks/"+tid+"/subscribers", url.Values{"on": {"0"}}).location(t)
	if p := o.get(s.base + taskPath); !strings.Contains(p.body, "Subscribe me") {
		t.Fatalf("after unsubscribing:\n%s", p.body)
	}

	// The guest.
	g := s.signedIn(guest)
	if p := g.get(s.base + acct + "/"); !strings.Contains(p.body, "Shared") || strings.Contains(p.body, "Hidden") {
		t.Fatalf("the guest's projects:\n%s", p.body)
	}
	if p := g.get(s.base + hidden); p.status != http.StatusNotFound {
		t.Fatalf("the guest on another project: %d", p.status)
	}
	if p := g.get(s.base + hiddenTask.Path + strings.TrimPrefix(hiddenTask.Fragment, "task") + "/"); p.status != http.StatusNotFound {
		t.Fatalf("the guest on another project's task: %d", p.status)
	}
	csrf := g.get(s.base+acct+"/").form(t, "", "").Get("csrf")
	if p := g.post(s.base+hidden+"tasks", url.Values{"csrf": {csrf}, "title": {"sneaky"}}); p.status != http.StatusNotFound {
		t.Fatalf("the guest adding a task to another project: %d", p.status)
	}
	// A parent named in the form is checked as one in the path is.
	hiddenTID := strings.TrimPrefix(hiddenTask.Fragment, "task")
	if p := g.post(s.base+shared+"tasks", url.Values{"csrf": {csrf}, "id_parent": {hiddenTID}}); p.status != http.StatusNotFound || strings.Contains(p.body, "Secret") {
		t.Fatalf("the guest naming another project's task as parent: %d\n%s", p.status, p.body)
	}
	if p := g.get(s.base + taskPath); p.status != http.StatusOK || !strings.Contains(p.body, "Add a comment") {
		t.Fatalf("the guest on their project's task: %d", p.status)
	}

	// The reader: no forms, and a change is refused.
	r := s.signedIn(reader)
	p := r.get(s.base + taskPath)
	if p.status != http.StatusOK || strings.Contains(p.body, "Add a comment") || strings.Contains(p.body, "Delete task") || strings.Contains(p.body, "Subscribe me") {
		t.Fatalf("the reader's task page:\n%s", p.body)
	}
	csrf = r.get(s.base+acct+"/").form(t, "", "").Get("csrf")
	if p := r.post(s.base+acct+"/tasks/"+tid+"/comments", url.Values{"csrf": {csrf}, "text": {"hi"}}); p.status != http.StatusForbidden {
		t.Fatalf("the reader commenting: %d", p.status)
	}

	// Times in the person's zone, else the account's.
	if p := o.get(s.base + taskPath); !strings.Contains(p.body, " UTC") {
		t.Fatalf("times without a zone set:\n%s", p.body)
	}
	settings := o.get(s.base + acct + "/settings/account")
	if p := o.submit(s.base, settings, acct+"/settings/account", url.Values{"time_zone": {"Nowhere/Else"}}); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("an unknown account zone: %d", p.status)
	}
	o.submit(s.base, settings, acct+"/settings/account", url.Values{"time_zone": {"Europe/Kyiv"}}).location(t)
	if p := o.get(s.base + taskPath); !strings.Contains(p.body, " EET") && !strings.Contains(p.body, " EEST") {
		t.Fatalf("times in the account's zone:\n%s", p.body)
	}
	if p := g.get(s.base + acct + "/settings/account"); p.status != http.StatusForbidden {
		t.Fatalf("a guest on the account settings: %d", p.status)
	}
	prof := o.get(s.base + "/profile")
	if p := o.submit(s.base, prof, "/profile", url.Values{"time_zone": {"Mars/Olympus"}}); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("an unknown zone: %d", p.status)
	}
	o.submit(s.base, prof, "/profile", url.Values{"first_name": {"Olga"}, "last_name": {"Owner"}, "time_zone": {"Asia/Tokyo"}, "notify": {"1"}}).location(t)
	if p := o.get(s.base + taskPath); !strings.Contains(p.body, " JST") {
		t.Fatalf("times in Asia/Tokyo:\n%s", p.body)
	}

	// Removing a member keeps their task, assigned to nobody.
	people = o.get(s.base + acct + "/people")
	uma, err := s.setup.PersonByEmail(context.Background(), userEmail)
	if err != nil {
		t.Fatal(err)
	}
	o.submit(s.base, people, fmt.Sprintf("%s/people/%d/remove", acct, uma.ID), nil).location(t)
	if p := o.get(s.base + taskPath); !strings.Contains(p.body, "<dt>Assignee</dt><dd>nobody</dd>") {
		t.Fatalf("the removed member's task:\n%s", p.body)
	}
	if p := s.signedIn(userEmail).get(s.base + acct + "/"); p.status != http.StatusNotFound {
		t.Fatalf("a removed member's account page: %d", p.status)
	}
}
