package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestPeoplePages: teams, contacts with folders, project folders and
// teams, subscribing on the task page, a member removed with their tasks
// kept; a guest sees only the projects whose team they are on, a reader
// sees no forms and changes nothing; times show in the person's zone.
func TestPeoplePages(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	acct := "/a/" + s.Slug
	const guest, reader = "guest@acme.example", "reader@acme.example"
	s.AddMember(s.Slug, guest, "Gus", "Guest", taskd.RoleGuest)
	s.AddMember(s.Slug, reader, "Rea", "Reader", taskd.RoleReader)
	o := s.SignedIn(testsite.OwnerEmail)

	var (
		shared, hidden, tid, taskPath string
		hiddenTask                    *url.URL
		g                             *testsite.Browser
	)

	if !t.Run("the owner makes a team, and a refused team leaves the invite form's values alone", func(t *testing.T) {
		s, o := s.In(t), o.In(t)
		people := o.Get(s.Base + acct + "/people")
		o.Submit(s.Base, people, acct+"/teams", url.Values{"title": {"Clients"}, "client": {"1"}}).Location(t)
		if p := o.Get(s.Base + acct + "/people"); !strings.Contains(p.Body, "Clients <span class=\"muted\">· client team</span>") {
			t.Fatalf("teams:\n%s", p.Body)
		}
		// A refused team comes back with its error, and the invite form on the
		// same page keeps none of its values (both forms have a "title").
		if p := o.Submit(s.Base, people, acct+"/teams", url.Values{"title": {"   "}}); p.Status != http.StatusUnprocessableEntity ||
			!strings.Contains(p.Body, `id="person-title" type="text" name="title" value=""`) || strings.Contains(p.Body, `<details class="more" open>`) {
			t.Fatalf("a blank team's name: HTTP %d\n%s", p.Status, p.Body)
		}
	}) {
		return
	}

	if !t.Run("the owner adds a contact in a new folder, once per address", func(t *testing.T) {
		s, o := s.In(t), o.In(t)
		contacts := o.Get(s.Base + acct + "/contacts")
		o.Submit(s.Base, contacts, acct+"/contacts", url.Values{"email": {"ann@supplier.example"}, "first_name": {"Ann"}, "folder": {"Suppliers"}}).Location(t)
		if p := o.Submit(s.Base, contacts, acct+"/contacts", url.Values{"email": {"ann@supplier.example"}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a second contact with one e-mail: %d", p.Status)
		}
		if p := o.Get(s.Base + acct + "/contacts"); !strings.Contains(p.Body, "<h2>Suppliers</h2>") || !strings.Contains(p.Body, "ann@supplier.example") {
			t.Fatalf("contacts:\n%s", p.Body)
		}
	}) {
		return
	}

	if !t.Run("the owner files two projects in folders, with the guest and the reader on one's team", func(t *testing.T) {
		s, o := s.In(t), o.In(t)
		home := o.Get(s.Base + acct + "/")
		shared = o.Submit(s.Base, home, acct+"/projects", url.Values{"title": {"Shared"}, "company": {"Clients"}}).Location(t).Path
		hidden = o.Submit(s.Base, home, acct+"/projects", url.Values{"title": {"Hidden"}}).Location(t).Path
		if p := o.Get(s.Base + acct + "/"); !strings.Contains(p.Body, `<h3 class="folder">Clients</h3>`) {
			t.Fatalf("project folders:\n%s", p.Body)
		}
		page := o.Get(s.Base + shared)
		for _, email := range []string{guest, reader} {
			o.Submit(s.Base, page, shared+"members", url.Values{"email": {email}}).Location(t)
		}
		page = o.Get(s.Base + shared)
		if !strings.Contains(page.Body, "Remove Gus Guest from the team") || !strings.Contains(page.Body, "Remove Rea Reader from the team") {
			t.Fatalf("project team:\n%s", page.Body)
		}
		task := o.Submit(s.Base, page, shared+"tasks", url.Values{"title": {"Logo"}, "email_user_to": {testsite.UserEmail}}).Location(t)
		tid = strings.TrimPrefix(task.Fragment, "task")
		taskPath = shared + tid + "/"
		hiddenTask = o.Submit(s.Base, o.Get(s.Base+hidden), hidden+"tasks", url.Values{"title": {"Secret"}}).Location(t)
	}) {
		return
	}

	if !t.Run("the task page subscribes and unsubscribes, and asks before deleting the task", func(t *testing.T) {
		s, o := s.In(t), o.In(t)
		tp := o.Get(s.Base + taskPath)
		if !strings.Contains(tp.Body, "<summary>Delete task…</summary>") {
			t.Fatalf("deleting a task does not ask for confirmation:\n%s", tp.Body)
		}
		if !strings.Contains(tp.Body, "Uma User") || !strings.Contains(tp.Body, "Unsubscribe me") {
			t.Fatalf("the author and the assignee are subscribed:\n%s", tp.Body)
		}
		o.Submit(s.Base, tp, acct+"/tasks/"+tid+"/subscribers", url.Values{"on": {"0"}}).Location(t)
		if p := o.Get(s.Base + taskPath); !strings.Contains(p.Body, "Subscribe me") {
			t.Fatalf("after unsubscribing:\n%s", p.Body)
		}
	}) {
		return
	}

	if !t.Run("a guest sees only the projects whose team they are on", func(t *testing.T) {
		s := s.In(t)
		g = s.SignedIn(guest)
		if p := g.Get(s.Base + acct + "/"); !strings.Contains(p.Body, "Shared") || strings.Contains(p.Body, "Hidden") {
			t.Fatalf("the guest's projects:\n%s", p.Body)
		}
		if p := g.Get(s.Base + hidden); p.Status != http.StatusNotFound {
			t.Fatalf("the guest on another project: %d", p.Status)
		}
		if p := g.Get(s.Base + hiddenTask.Path + strings.TrimPrefix(hiddenTask.Fragment, "task") + "/"); p.Status != http.StatusNotFound {
			t.Fatalf("the guest on another project's task: %d", p.Status)
		}
		csrf := g.Get(s.Base+acct+"/").Form(t, "", "").Get("csrf")
		if p := g.Post(s.Base+hidden+"tasks", url.Values{"csrf": {csrf}, "title": {"sneaky"}}); p.Status != http.StatusNotFound {
			t.Fatalf("the guest adding a task to another project: %d", p.Status)
		}
		// A parent named in the form is checked as one in the path is.
		hiddenTID := strings.TrimPrefix(hiddenTask.Fragment, "task")
		if p := g.Post(s.Base+shared+"tasks", url.Values{"csrf": {csrf}, "id_parent": {hiddenTID}}); p.Status != http.StatusNotFound || strings.Contains(p.Body, "Secret") {
			t.Fatalf("the guest naming another project's task as parent: %d\n%s", p.Status, p.Body)
		}
		if p := g.Get(s.Base + taskPath); p.Status != http.StatusOK || !strings.Contains(p.Body, "Add a comment") {
			t.Fatalf("the guest on their project's task: %d", p.Status)
		}
	}) {
		return
	}

	if !t.Run("a reader sees no forms and changes nothing", func(t *testing.T) {
		s := s.In(t)
		r := s.SignedIn(reader)
		p := r.Get(s.Base + taskPath)
		if p.Status != http.StatusOK || strings.Contains(p.Body, "Add a comment") || strings.Contains(p.Body, "Delete task") || strings.Contains(p.Body, "Subscribe me") {
			t.Fatalf("the reader's task page:\n%s", p.Body)
		}
		csrf := r.Get(s.Base+acct+"/").Form(t, "", "").Get("csrf")
		if p := r.Post(s.Base+acct+"/tasks/"+tid+"/comments", url.Values{"csrf": {csrf}, "text": {"hi"}}); p.Status != http.StatusForbidden {
			t.Fatalf("the reader commenting: %d", p.Status)
		}
	}) {
		return
	}

	if !t.Run("times show in the person's zone, else the account's", func(t *testing.T) {
		s, o, g := s.In(t), o.In(t), g.In(t)
		if p := o.Get(s.Base + taskPath); !strings.Contains(p.Body, " UTC") {
			t.Fatalf("times without a zone set:\n%s", p.Body)
		}
		settings := o.Get(s.Base + acct + "/settings/account")
		if p := o.Submit(s.Base, settings, acct+"/settings/account", url.Values{"time_zone": {"Nowhere/Else"}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("an unknown account zone: %d", p.Status)
		}
		o.Submit(s.Base, settings, acct+"/settings/account", url.Values{"time_zone": {"Europe/Kyiv"}}).Location(t)
		if p := o.Get(s.Base + taskPath); !strings.Contains(p.Body, " EET") && !strings.Contains(p.Body, " EEST") {
			t.Fatalf("times in the account's zone:\n%s", p.Body)
		}
		// The account's currency: three letters, in either case; shown beside
		// money on the pages, and unchanged by a refused form.
		for _, bad := range []string{"EURO", "eu", "E1R", "€"} {
			// A refused form changes nothing: not the currency, nor the zone sent with it.
			if p := o.Submit(s.Base, settings, acct+"/settings/account", url.Values{"time_zone": {"Asia/Tokyo"}, "currency": {bad}}); p.Status != http.StatusUnprocessableEntity ||
				!strings.Contains(p.Body, "A currency is a three-letter code such as USD, EUR or UAH") {
				t.Fatalf("the currency %q: %d\n%s", bad, p.Status, p.Body)
			}
		}
		if p := o.Get(s.Base + taskPath); !strings.Contains(p.Body, "Budget: money (USD)") || (!strings.Contains(p.Body, " EET") && !strings.Contains(p.Body, " EEST")) {
			t.Fatalf("the default currency is not shown, or a refused form changed the zone:\n%s", p.Body)
		}
		o.Submit(s.Base, settings, acct+"/settings/account", url.Values{"time_zone": {"Europe/Kyiv"}, "currency": {"eur"}}).Location(t)
		if p := o.Get(s.Base + acct + "/settings/account"); !strings.Contains(p.Body, "its currency EUR.") || !strings.Contains(p.Body, `name="currency" value="EUR"`) {
			t.Fatalf("the account page after choosing eur:\n%s", p.Body)
		}
		for page, wants := range map[string][]string{
			taskPath:            {"Budget: money (EUR)", `<label for="cost-money">Money (EUR)</label>`}, // the task's budget and its cost form
			shared:              {`<label for="budget-money">Money (EUR)`},                              // the project's budget form
			acct + "/timesheet": {" EUR</strong>"},                                                      // the total
		} {
			p := o.Get(s.Base + page)
			for _, want := range wants {
				if !strings.Contains(p.Body, want) {
					t.Fatalf("%s does not show the account's currency (%q):\n%s", page, want, p.Body)
				}
			}
		}
		if p := g.Get(s.Base + acct + "/settings/account"); p.Status != http.StatusForbidden {
			t.Fatalf("a guest on the account settings: %d", p.Status)
		}
		prof := o.Get(s.Base + "/profile")
		if p := o.Submit(s.Base, prof, "/profile", url.Values{"time_zone": {"Mars/Olympus"}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("an unknown zone: %d", p.Status)
		}
		o.Submit(s.Base, prof, "/profile", url.Values{"first_name": {"Olga"}, "last_name": {"Owner"}, "time_zone": {"Asia/Tokyo"}, "notify": {"1"}}).Location(t)
		if p := o.Get(s.Base + taskPath); !strings.Contains(p.Body, " JST") {
			t.Fatalf("times in Asia/Tokyo:\n%s", p.Body)
		}
	}) {
		return
	}

	t.Run("a removed member's task is kept, assigned to nobody", func(t *testing.T) {
		s, o := s.In(t), o.In(t)
		people := o.Get(s.Base + acct + "/people")
		uma, err := s.Store.PersonByEmail(context.Background(), testsite.UserEmail)
		if err != nil {
			t.Fatal(err)
		}
		o.Submit(s.Base, people, fmt.Sprintf("%s/people/%d/remove", acct, uma.ID), nil).Location(t)
		if p := o.Get(s.Base + taskPath); !strings.Contains(p.Body, "<dt>Assignee</dt><dd>Unassigned</dd>") {
			t.Fatalf("the removed member's task:\n%s", p.Body)
		}
		if p := s.SignedIn(testsite.UserEmail).Get(s.Base + acct + "/"); p.Status != http.StatusNotFound {
			t.Fatalf("a removed member's account page: %d", p.Status)
		}
	})
}

// TestContactPageRefusesLoneBreaks: the contacts page's fields are one
// line each (testing.md): a lone CR and a lone LF are refused, as is the
// CR LF pair, and no contact is stored; the page is the only check on
// that path.
func TestContactPageRefusesLoneBreaks(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	acct := "/a/" + s.Slug
	o := s.SignedIn(testsite.OwnerEmail)
	contacts := func() string {
		b, _ := json.Marshal(s.APIOK("action=get_contacts"))
		return string(b)
	}
	for _, field := range []string{"first_name", "folder"} {
		for _, br := range []string{"\r", "\n"} {
			email := "break-" + field + map[string]string{"\r": "-cr", "\n": "-lf"}[br] + "@supplier.example"
			page := o.Get(s.Base + acct + "/contacts")
			set := url.Values{"email": {email}, "first_name": {"Ann"}, "folder": {"Suppliers"}}
			set.Set(field, "Ann"+br+"Other")
			p := o.Submit(s.Base, page, acct+"/contacts", set)
			if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "one line") {
				t.Errorf("%s with a lone %q: HTTP %d, want 422 and the form with its error\n%s", field, br, p.Status, p.Body)
			}
			if got := contacts(); strings.Contains(got, email) {
				t.Errorf("%s with a lone %q: the contact was stored: %s", field, br, got)
			}
		}
	}
	// The control: the same form with one-line values is taken.
	page := o.Get(s.Base + acct + "/contacts")
	o.Submit(s.Base, page, acct+"/contacts", url.Values{"email": {"ann@supplier.example"}, "first_name": {"Ann"}, "folder": {"Suppliers"}}).Location(t)
	if got := contacts(); !strings.Contains(got, "ann@supplier.example") {
		t.Fatalf("a one-line contact was not stored: %s", got)
	}
}
