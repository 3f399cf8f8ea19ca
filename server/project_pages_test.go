package server

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
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
	for name, d := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := newOAuthSite(t, d)
			ctx := context.Background()
			const guest, outsider, reader = "guest@acme.example", "outsider@acme.example", "reader@acme.example"
			s.addMember(s.slug, guest, "Gus", "Guest", taskd.RoleGuest)
			s.addMember(s.slug, outsider, "Otto", "Outside", taskd.RoleGuest)
			s.addMember(s.slug, reader, "Rea", "Reader", taskd.RoleReader)
			acct, by := s.owner()
			p, err := s.setup.CreateProject(ctx, by, taskd.ProjectInput{Name: ptr("Launch"), Text: ptr("The first plan"),
				Members: &[]string{guest, reader}})
			if err != nil {
				t.Fatal(err)
			}
			projectURL := s.accountURL() + p.Page()
			action := "/a/" + s.slug + p.Page() + "update"

			b := s.signedIn(ownerEmail)
			pg := b.get(projectURL)
			if !strings.Contains(pg.body, `action="`+action+`"`) || !strings.Contains(pg.body, `value="Launch"`) ||
				!strings.Contains(pg.body, ">The first plan</textarea>") {
				t.Fatalf("the project page offers no edit form filled with the project:\n%s", pg.body)
			}
			// A browser sends a textarea's line breaks as CR LF.
			loc := b.submit(s.base, pg, action, url.Values{"title": {"Launch v2"}, "text": {"Ship <b>it</b>\r\nthen rest"}}).location(t)
			if loc.Path != "/a/"+s.slug+p.Page() {
				t.Fatalf("after saving: %v", loc)
			}
			pg = b.get(projectURL)
			for _, want := range []string{"<title>Launch v2 · taskd</title>", "<h1>Launch v2</h1>", "Project saved.",
				`<p class="text">Ship &lt;b&gt;it&lt;/b&gt;` + "\nthen rest</p>"} {
				if !strings.Contains(pg.body, want) {
					t.Fatalf("the project page after the edit lacks %q:\n%s", want, pg.body)
				}
			}
			// The API sees the change, and the event is update_project
			// with old and new values, as the API's update writes it.
			if _, body := apiCall(t, s.accountURL(), s.key, "action=get_project&id_project="+strconv.FormatInt(p.ID, 10)); body["data"].(map[string]any)["name"] != "Launch v2" {
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
			if ev["user_from"].(map[string]any)["email"] != ownerEmail {
				t.Fatalf("update_project event is not the owner's: %v", ev)
			}

			// A blank name is refused beside the form, which keeps what
			// was typed; nothing changes.
			bad := b.submit(s.base, pg, action, url.Values{"title": {"   "}, "text": {"Typed text"}})
			if bad.status != http.StatusUnprocessableEntity || !strings.Contains(bad.body, `<p class="error" role="alert">Name is required</p>`) ||
				!strings.Contains(bad.body, ">Typed text</textarea>") || !strings.Contains(bad.body, `id="edit" open`) {
				t.Fatalf("a blank name: HTTP %d\n%s", bad.status, bad.body)
			}
			// Saving the form as shown changes nothing and writes no event.
			b.submit(s.base, b.get(projectURL), action, url.Values{"title": {"Launch v2"}, "text": {"Ship <b>it</b>\r\nthen rest"}}).location(t)
			if n := len(projectUpdates(t, s)); n != 1 {
				t.Fatalf("an unchanged save or a refused one wrote events: %d update_project events", n)
			}

			// A guest on the team may edit, as update_project allows.
			g := s.signedIn(guest)
			g.submit(s.base, g.get(projectURL), action, url.Values{"title": {"Launch v3"}, "text": {"By the guest"}}).location(t)
			if !strings.Contains(g.get(projectURL).body, "<h1>Launch v3</h1>") {
				t.Fatal("the guest's edit did not show")
			}
			// A reader on the team sees no form and is refused.
			r := s.signedIn(reader)
			rp := r.get(projectURL)
			if rp.status != http.StatusOK || strings.Contains(rp.body, action) {
				t.Fatalf("a reader's project page: HTTP %d, offers the edit form: %t", rp.status, strings.Contains(rp.body, action))
			}
			csrf := rp.form(t, "", "").Get("csrf")
			if got := r.post(s.base+action, url.Values{"csrf": {csrf}, "title": {"By the reader"}, "text": {""}}); got.status != http.StatusForbidden {
				t.Fatalf("a reader renaming the project: HTTP %d", got.status)
			}
			// A guest outside the team finds no such project.
			o := s.signedIn(outsider)
			csrf = o.get(s.accountURL()+"/").form(t, "", "").Get("csrf")
			if got := o.post(s.base+action, url.Values{"csrf": {csrf}, "title": {"By the outsider"}}); got.status != http.StatusNotFound {
				t.Fatalf("a guest outside the team renaming the project: HTTP %d", got.status)
			}
			if got, err := s.setup.Project(ctx, taskd.AccountViewer(acct.ID), p.ID); err != nil || got.Name != "Launch v3" || got.Text != "By the guest" {
				t.Fatalf("the project after the refused edits: %+v %v", got, err)
			}
			if n := len(projectUpdates(t, s)); n != 2 {
				t.Fatalf("%d update_project events, want the owner's and the guest's", n)
			}
		})
	}
}

// projectUpdates returns the account's update_project events.
func projectUpdates(t *testing.T, s *oauthSite) []map[string]any {
	t.Helper()
	_, body := apiCall(t, s.accountURL(), s.key, "action=get_events&period=1h")
	var out []map[string]any
	for _, e := range body["data"].([]any) {
		if ev := e.(map[string]any); ev["event"] == "update_project" {
			out = append(out, ev)
		}
	}
	return out
}
