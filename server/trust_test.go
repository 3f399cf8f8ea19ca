package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testsite"
)

const adaEmail = "ada@acme.example"

// notice is the status message of a page.
func notice(p testsite.Page) string {
	_, after, ok := strings.Cut(p.Body, `role="status">`)
	if !ok {
		return ""
	}
	msg, _, _ := strings.Cut(after, "</div>")
	return msg
}

// TestRemovalEndsWhatTheMembershipGave: an admin who is removed loses, in
// that moment, everything the membership gave them: the invitation of
// their own second address (today it let them join again as admin), their
// application's tokens, the webhook they made, and the administrative key
// they were shown. The owner is told what ended.
func TestRemovalEndsWhatTheMembershipGave(t *testing.T) {
	t.Parallel() // a site of its own
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		acct := "/a/" + s.Slug
		s.AddMember(s.Slug, adaEmail, "Ada", "Admin", taskd.RoleAdmin)
		ada := s.SignedIn(adaEmail)

		// Ada invites a second address of hers as admin.
		second := testaccount.UniqueSlug("ada-second") + "@example.com"
		people := ada.Get(s.Base + acct + "/people")
		if p := ada.Submit(s.Base, people, acct+"/people", url.Values{"email": {second}, "role": {"admin"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("invite: HTTP %d\n%s", p.Status, p.Body)
		}
		join := s.LinkIn(t, s.MailTo(t, second))

		// An application with the administrative scope, a webhook, the key.
		access, refresh := s.GrantOf(ada, adaEmail, "tasks_read administrative")
		if status, body, _ := s.API(s.AccountURL(), access, "action=get_webhooks"); status != 200 || body["status"] != "ok" {
			t.Fatalf("ada's token before: %d %v", status, body)
		}
		recv := testsite.OKReceiver(t)
		hooks := ada.Get(s.Base + acct + "/settings/webhooks")
		form := hooks.Form(t, "", "")
		form.Set("url", recv.URL+"/ada")
		form["events"] = []string{"post_task"}
		hookPage := ada.Post(s.Base+acct+"/settings/webhooks", form).Location(t).String()
		ada.Submit(s.Base, ada.Get(s.Base+hookPage), hookPage+"/enable", nil).Location(t)
		keyPage := ada.Get(s.Base + acct + "/settings/apikey")
		ada.Submit(s.Base, keyPage, acct+"/settings/apikey", nil).Location(t)
		key := testsite.SecretRE.FindStringSubmatch(ada.Get(s.Base + acct + "/settings/apikey").Body)[1]
		if status, _ := testsite.APICall(t, s.AccountURL(), key, "action=get_projects"); status != 200 {
			t.Fatalf("the key ada made: HTTP %d", status)
		}

		// The owner removes her.
		owner := s.SignedIn(testsite.OwnerEmail)
		people = owner.Get(s.Base + acct + "/people")
		owner.Submit(s.Base, people, testsite.RemoveForm(t, people, adaEmail), nil).Location(t)
		msg := notice(owner.Get(s.Base + acct + "/people"))
		for _, want := range []string{"Ada Admin was removed", "1 invitation they sent was cancelled", "1 authorization they gave an application was revoked",
			"1 webhook they made was disabled", "The API key they were shown was revoked"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the owner's notice lacks %q: %s", want, msg)
			}
		}

		// Everything ended at once.
		if p := s.Browser().Get(s.Base + join); p.Status != http.StatusNotFound {
			t.Errorf("the removed admin's invitation link: HTTP %d", p.Status)
		}
		if s.TokenWorks(access) || s.RefreshWorks(refresh) {
			t.Error("the removed admin's application keeps its access")
		}
		if status, body := testsite.APICall(t, s.AccountURL(), key, "action=get_projects"); status != 401 || body["status_code"] != float64(2) {
			t.Errorf("the key shown to the removed admin: HTTP %d %v", status, body)
		}
		// With no key, nothing can be signed: not even with an empty one.
		if status, _ := testsite.APICall(t, s.AccountURL(), "", "action=get_projects"); status != 401 {
			t.Errorf("a call signed with an empty key after the revocation: HTTP %d", status)
		}
		if p := owner.Get(s.Base + acct + "/settings/apikey"); !strings.Contains(p.Body, "There is no key now") || !strings.Contains(p.Body, "Make a key") {
			t.Errorf("the key page after the revocation:\n%s", p.Body)
		}
		hook := owner.Get(s.Base + hookPage)
		if !strings.Contains(hook.Body, "Its maker, Ada Admin, left the account") {
			t.Errorf("the removed admin's webhook page:\n%s", hook.Body)
		}
		if p := ada.Get(s.Base + acct + "/people"); p.Status != http.StatusNotFound {
			t.Errorf("the removed admin's session on the account: HTTP %d", p.Status)
		}
		// Even added again, nothing old comes back.
		s.AddMember(s.Slug, adaEmail, "Ada", "Admin", taskd.RoleAdmin)
		if s.TokenWorks(access) || s.RefreshWorks(refresh) {
			t.Error("an old token works again once its person is back")
		}
	})
}

// TestDemotionEndsWhatTheRoleGave: an admin made a user keeps their
// membership and what a user may have, and loses their pending
// invitations, the administrative scope of their applications, their
// webhooks and the key they were shown.
func TestDemotionEndsWhatTheRoleGave(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	acct := "/a/" + s.Slug
	s.AddMember(s.Slug, adaEmail, "Ada", "Admin", taskd.RoleAdmin)
	ada := s.SignedIn(adaEmail)
	people := ada.Get(s.Base + acct + "/people")
	ada.Submit(s.Base, people, acct+"/people", url.Values{"email": {"friend@example.com"}, "role": {"user"}}).Location(t)
	join := s.LinkIn(t, s.MailTo(t, "friend@example.com"))
	admin, _ := s.GrantOf(ada, adaEmail, "tasks_read administrative")
	reader, _ := s.GrantOf(s.Browser(), adaEmail, "tasks_read")

	owner := s.SignedIn(testsite.OwnerEmail)
	people = owner.Get(s.Base + acct + "/people")
	owner.Submit(s.Base, people, testsite.RoleForm(t, people, adaEmail), url.Values{"role": {"user"}}).Location(t)
	msg := notice(owner.Get(s.Base + acct + "/people"))
	if !strings.Contains(msg, "Ada Admin is now user. 1 invitation they sent was cancelled. 1 authorization they gave an application was revoked.") {
		t.Fatalf("the owner's notice: %s", msg)
	}
	if p := s.Browser().Get(s.Base + join); p.Status != http.StatusNotFound {
		t.Errorf("a demoted admin's invitation link: HTTP %d", p.Status)
	}
	if s.TokenWorks(admin) {
		t.Error("a token with the administrative scope outlives its person's demotion")
	}
	if !s.TokenWorks(reader) {
		t.Error("a token a user may hold ended with the demotion")
	}
	if p := ada.Get(s.Base + acct + "/"); p.Status != http.StatusOK {
		t.Errorf("a demoted admin's session: HTTP %d", p.Status)
	}
}

// TestCredentialChangesEndGrants: a password reset ends every application's
// access; a password change and an e-mail change do when the box, ticked
// by default, stays ticked, and do not when it is unticked.
func TestCredentialChangesEndGrants(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	b := s.SignedIn(testsite.UserEmail)
	profile := b.Get(s.Base + "/profile")
	for _, form := range []string{"/profile/password", "/profile/email"} {
		_, after, _ := strings.Cut(profile.Body, `action="`+form+`"`)
		box, _, _ := strings.Cut(after, "</form>")
		if !strings.Contains(box, `name="end_grants" value="1" aria-describedby=`) || !strings.Contains(box, " checked>") ||
			!strings.Contains(box, `href="/settings/applications"`) {
			t.Fatalf("the %s form has no ticked box to end applications' access:\n%s", form, box)
		}
	}

	// Unticked: the application keeps its access.
	access, refresh := s.GrantOf(b, testsite.UserEmail, "tasks_read")
	b.Submit(s.Base, profile, "/profile/password", url.Values{"password": {testsite.Password}, "new_password": {testsite.Password}}).Location(t)
	if !s.TokenWorks(access) {
		t.Fatal("a password change with the box unticked ended an application's access")
	}
	// Ticked: it ends, and the notice says so.
	profile = b.Get(s.Base + "/profile")
	b.Submit(s.Base, profile, "/profile/password", url.Values{"password": {testsite.Password}, "new_password": {testsite.Password}, "end_grants": {"1"}}).Location(t)
	if s.TokenWorks(access) || s.RefreshWorks(refresh) {
		t.Fatal("a password change with the box ticked left an application's access")
	}
	if msg := notice(b.Get(s.Base + "/profile")); !strings.Contains(msg, "1 application lost the access you had given") {
		t.Errorf("notice: %s", msg)
	}

	// An e-mail change ends them when the new address is confirmed.
	access, refresh = s.GrantOf(b, testsite.UserEmail, "tasks_read")
	moved := testaccount.UniqueSlug("moved") + "@example.com"
	b.Submit(s.Base, b.Get(s.Base+"/profile"), "/profile/email", url.Values{"password": {testsite.Password}, "email": {moved}, "end_grants": {"1"}}).Location(t)
	if !s.TokenWorks(access) {
		t.Fatal("asking for an e-mail change ended access before the address was confirmed")
	}
	confirm := s.LinkIn(t, s.MailTo(t, moved))
	c := s.Browser()
	c.Submit(s.Base, c.Get(s.Base+confirm), "/confirm-email", nil).Location(t)
	if s.TokenWorks(access) || s.RefreshWorks(refresh) {
		t.Fatal("a confirmed e-mail change with the box ticked left an application's access")
	}

	// A reset always ends them, and the sessions.
	access, refresh = s.GrantOf(b, moved, "tasks_read")
	r := s.Browser()
	r.Submit(s.Base, r.Get(s.Base+"/reset"), "/reset", url.Values{"email": {moved}})
	link := s.LinkIn(t, s.MailTo(t, moved))
	page := r.Get(s.Base + link)
	if !strings.Contains(page.Body, "ends the access of every application you authorized") {
		t.Errorf("the reset page does not say what it ends:\n%s", page.Body)
	}
	r.Submit(s.Base, page, "/reset/password", url.Values{"password": {"a new password"}}).Location(t)
	if s.TokenWorks(access) || s.RefreshWorks(refresh) {
		t.Fatal("a password reset left an application's access")
	}
	if p := b.Get(s.Base + "/profile"); p.Status != http.StatusSeeOther {
		t.Fatalf("a session after a reset: HTTP %d", p.Status)
	}
}
