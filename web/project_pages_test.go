package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestProjectEditPage: on both databases, the project page renames a
// project and edits its description through the API's update_project
// path: the page shows the change with a notice, the update_project event
// holds the old and new values, a blank name is refused next to the form,
// and saving unchanged text writes no event. A guest on the team may edit
// (the API's rule: guests work on their projects); a reader on the team
// gets no form and is refused, and a guest outside the team finds no
// project.
func TestProjectEditPage(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		ctx := context.Background()
		const guest, outsider, reader = "guest@acme.example", "outsider@acme.example", "reader@acme.example"
		s.AddMember(s.Slug, guest, "Gus", "Guest", taskd.RoleGuest)
		s.AddMember(s.Slug, outsider, "Otto", "Outside", taskd.RoleGuest)
		s.AddMember(s.Slug, reader, "Rea", "Reader", taskd.RoleReader)
		acct, by := s.Owner()
		p, err := s.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Launch"), Text: new("The first plan"),
			Members: &[]string{guest, reader}})
		if err != nil {
			t.Fatal(err)
		}
		projectURL := s.AccountURL() + p.Page()
		action := "/a/" + s.Slug + p.Page() + "update"

		b := s.SignedIn(testsite.OwnerEmail)
		var pg testsite.Page

		if !t.Run("the project page offers an edit form filled with the project", func(t *testing.T) {
			b := b.In(t)
			pg = b.Get(projectURL)
			if !strings.Contains(pg.Body, `action="`+action+`"`) || !strings.Contains(pg.Body, `value="Launch"`) ||
				!strings.Contains(pg.Body, ">The first plan</textarea>") {
				t.Fatalf("the project page offers no edit form filled with the project:\n%s", pg.Body)
			}
		}) {
			return
		}

		if !t.Run("the form renames the project and edits its description, with a notice", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			// A browser sends a textarea's line breaks as CR LF.
			loc := b.Submit(s.Base, pg, action, url.Values{"title": {"Launch v2"}, "text": {"Ship <b>it</b>\r\nthen rest"}}).Location(t)
			if loc.Path != "/a/"+s.Slug+p.Page() {
				t.Fatalf("after saving: %v", loc)
			}
			pg = b.Get(projectURL)
			for _, want := range []string{"<title>Launch v2 · taskd</title>", "<h1>Launch v2</h1>", "Project saved.",
				`<p class="text">Ship &lt;b&gt;it&lt;/b&gt;` + "\nthen rest</p>"} {
				if !strings.Contains(pg.Body, want) {
					t.Fatalf("the project page after the edit lacks %q:\n%s", want, pg.Body)
				}
			}
		}) {
			return
		}

		if !t.Run("the API sees the change, and its update_project event holds the old and new values", func(t *testing.T) {
			s := s.In(t)
			if _, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_project&id_project="+strconv.FormatInt(p.ID, 10)); body["data"].(map[string]any)["name"] != "Launch v2" {
				t.Fatalf("get_project after the page's edit: %v", body)
			}
			updates := projectUpdates(t, s)
			if len(updates) != 1 {
				t.Fatalf("update_project events = %v, want one", updates)
			}
			ev := updates[0]
			newV, oldV := ev["new"].(map[string]any), ev["old"].(map[string]any)
			if newV["name"] != "Launch v2" || oldV["name"] != "Launch" || newV["text"] != "Ship <b>it</b>\nthen rest" || oldV["text"] != "The first plan" {
				t.Fatalf("update_project event: new %v, old %v", newV, oldV)
			}
			if ev["user_from"].(map[string]any)["email"] != testsite.OwnerEmail {
				t.Fatalf("update_project event is not the owner's: %v", ev)
			}
		}) {
			return
		}

		if !t.Run("a blank name is refused beside the form, which keeps what was typed", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			bad := b.Submit(s.Base, pg, action, url.Values{"title": {"   "}, "text": {"Typed text"}})
			if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, `<p class="error" role="alert">Name is required</p>`) ||
				!strings.Contains(bad.Body, ">Typed text</textarea>") || !strings.Contains(bad.Body, `id="edit" open`) {
				t.Fatalf("a blank name: HTTP %d\n%s", bad.Status, bad.Body)
			}
		}) {
			return
		}

		if !t.Run("saving the form as shown changes nothing and writes no event", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			b.Submit(s.Base, b.Get(projectURL), action, url.Values{"title": {"Launch v2"}, "text": {"Ship <b>it</b>\r\nthen rest"}}).Location(t)
			if n := len(projectUpdates(t, s)); n != 1 {
				t.Fatalf("an unchanged save or a refused one wrote events: %d update_project events", n)
			}
		}) {
			return
		}

		if !t.Run("a guest on the team may edit, as update_project allows", func(t *testing.T) {
			s := s.In(t)
			g := s.SignedIn(guest)
			g.Submit(s.Base, g.Get(projectURL), action, url.Values{"title": {"Launch v3"}, "text": {"By the guest"}}).Location(t)
			if !strings.Contains(g.Get(projectURL).Body, "<h1>Launch v3</h1>") {
				t.Fatal("the guest's edit did not show")
			}
		}) {
			return
		}

		if !t.Run("a reader on the team sees no form and is refused", func(t *testing.T) {
			s := s.In(t)
			r := s.SignedIn(reader)
			rp := r.Get(projectURL)
			if rp.Status != http.StatusOK || strings.Contains(rp.Body, action) {
				t.Fatalf("a reader's project page: HTTP %d, offers the edit form: %t", rp.Status, strings.Contains(rp.Body, action))
			}
			csrf := rp.Form(t, "", "").Get("csrf")
			if got := r.Post(s.Base+action, url.Values{"csrf": {csrf}, "title": {"By the reader"}, "text": {""}}); got.Status != http.StatusForbidden {
				t.Fatalf("a reader renaming the project: HTTP %d", got.Status)
			}
		}) {
			return
		}

		if !t.Run("a guest outside the team finds no such project", func(t *testing.T) {
			s := s.In(t)
			o := s.SignedIn(outsider)
			csrf := o.Get(s.AccountURL()+"/").Form(t, "", "").Get("csrf")
			if got := o.Post(s.Base+action, url.Values{"csrf": {csrf}, "title": {"By the outsider"}}); got.Status != http.StatusNotFound {
				t.Fatalf("a guest outside the team renaming the project: HTTP %d", got.Status)
			}
		}) {
			return
		}

		t.Run("the refused edits leave the guest's, with the owner's and the guest's events only", func(t *testing.T) {
			s := s.In(t)
			if got, err := s.Store.Project(ctx, taskd.AccountViewer(acct.ID), p.ID); err != nil || got.Name != "Launch v3" || got.Text != "By the guest" {
				t.Fatalf("the project after the refused edits: %+v %v", got, err)
			}
			if n := len(projectUpdates(t, s)); n != 2 {
				t.Fatalf("%d update_project events, want the owner's and the guest's", n)
			}
		})
	})
}

// projectUpdates returns the account's update_project events.
func projectUpdates(t *testing.T, s *testsite.Site) []map[string]any {
	t.Helper()
	_, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_events&period=1h")
	var out []map[string]any
	for _, e := range body["data"].([]any) {
		if ev := e.(map[string]any); ev["event"] == "update_project" {
			out = append(out, ev)
		}
	}
	return out
}
