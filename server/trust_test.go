package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

const adaEmail = "ada@acme.example"

// grantOf runs the OAuth flow for a signed-in person (a browser of theirs)
// and returns the access and refresh tokens.
func (s *oauthSite) grantOf(b *browser, email, scope string) (access, refresh string) {
	s.t.Helper()
	u := s.consent(b, s.authorizeURL("scope", scope), email, s.slug, "allow")
	tok := s.exchange(u.Query().Get("code"))
	return tok["access_token"].(string), tok["refresh_token"].(string)
}

// tokenWorks reports whether an access token is accepted (me answers ok),
// and checks that a refused one is refused as an invalid token.
func (s *oauthSite) tokenWorks(access string) bool {
	s.t.Helper()
	status, body, _ := s.api(s.accountURL(), access, "action=me")
	if status == 200 && body["status"] == "ok" {
		return true
	}
	if status != 401 || body["status_code"] != float64(2) {
		s.t.Fatalf("a refused token: HTTP %d %v", status, body)
	}
	return false
}

// refreshWorks reports whether a refresh token still mints a new pair.
func (s *oauthSite) refreshWorks(refresh string) bool {
	s.t.Helper()
	status, body, _ := s.tokenCall("/oauth2/token", s.creds("grant_type", "refresh_token", "refresh_token", refresh))
	if status == 200 {
		return true
	}
	if status != 400 || body["error"] != "invalid_grant" {
		s.t.Fatalf("a refused refresh: HTTP %d %v", status, body)
	}
	return false
}

// notice is the status message of a page.
func notice(p page) string {
	_, after, ok := strings.Cut(p.body, `role="status">`)
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
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := newOAuthSite(t, st)
			acct := "/a/" + s.slug
			s.addMember(s.slug, adaEmail, "Ada", "Admin", taskd.RoleAdmin)
			ada := s.signedIn(adaEmail)

			// Ada invites a second address of hers as admin.
			second := uniqueSlug("ada-second") + "@example.com"
			people := ada.get(s.base + acct + "/people")
			if p := ada.submit(s.base, people, acct+"/people", url.Values{"email": {second}, "role": {"admin"}}); p.status != http.StatusSeeOther {
				t.Fatalf("invite: HTTP %d\n%s", p.status, p.body)
			}
			join := s.linkIn(t, s.mailTo(t, second))

			// An application with the administrative scope, a webhook, the key.
			access, refresh := s.grantOf(ada, adaEmail, "tasks_read administrative")
			if status, body, _ := s.api(s.accountURL(), access, "action=get_webhooks"); status != 200 || body["status"] != "ok" {
				t.Fatalf("ada's token before: %d %v", status, body)
			}
			recv := okReceiver(t)
			hooks := ada.get(s.base + acct + "/settings/webhooks")
			form := hooks.form(t, "", "")
			form.Set("url", recv.URL+"/ada")
			form["events"] = []string{"post_task"}
			hookPage := ada.post(s.base+acct+"/settings/webhooks", form).location(t).String()
			ada.submit(s.base, ada.get(s.base+hookPage), hookPage+"/enable", nil).location(t)
			keyPage := ada.get(s.base + acct + "/settings/apikey")
			ada.submit(s.base, keyPage, acct+"/settings/apikey", nil).location(t)
			key := secretRE.FindStringSubmatch(ada.get(s.base + acct + "/settings/apikey").body)[1]
			if status, _ := apiCall(t, s.accountURL(), key, "action=get_projects"); status != 200 {
				t.Fatalf("the key ada made: HTTP %d", status)
			}

			// The owner removes her.
			owner := s.signedIn(ownerEmail)
			people = owner.get(s.base + acct + "/people")
			removeAt := strings.Replace(roleForm(t, people, adaEmail), "/role", "/remove", 1)
			owner.submit(s.base, people, removeAt, nil).location(t)
			msg := notice(owner.get(s.base + acct + "/people"))
			for _, want := range []string{"Ada Admin was removed", "1 invitation they sent was cancelled", "1 authorization they gave an application was revoked",
				"1 webhook they made was disabled", "The API key they were shown was revoked"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the owner's notice lacks %q: %s", want, msg)
				}
			}

			// Everything ended at once.
			if p := s.browser().get(s.base + join); p.status != http.StatusNotFound {
				t.Errorf("the removed admin's invitation link: HTTP %d", p.status)
			}
			if s.tokenWorks(access) || s.refreshWorks(refresh) {
				t.Error("the removed admin's application keeps its access")
			}
			if status, body := apiCall(t, s.accountURL(), key, "action=get_projects"); status != 401 || body["status_code"] != float64(2) {
				t.Errorf("the key shown to the removed admin: HTTP %d %v", status, body)
			}
			// With no key, nothing can be signed: not even with an empty one.
			if status, _ := apiCall(t, s.accountURL(), "", "action=get_projects"); status != 401 {
				t.Errorf("a call signed with an empty key after the revocation: HTTP %d", status)
			}
			if p := owner.get(s.base + acct + "/settings/apikey"); !strings.Contains(p.body, "There is no key now") || !strings.Contains(p.body, "Make a key") {
				t.Errorf("the key page after the revocation:\n%s", p.body)
			}
			hook := owner.get(s.base + hookPage)
			if !strings.Contains(hook.body, "Its maker, Ada Admin, left the account") {
				t.Errorf("the removed admin's webhook page:\n%s", hook.body)
			}
			if p := ada.get(s.base + acct + "/people"); p.status != http.StatusNotFound {
				t.Errorf("the removed admin's session on the account: HTTP %d", p.status)
			}
			// Even added again, nothing old comes back.
			s.addMember(s.slug, adaEmail, "Ada", "Admin", taskd.RoleAdmin)
			if s.tokenWorks(access) || s.refreshWorks(refresh) {
				t.Error("an old token works again once its person is back")
			}
		})
	}
}

// TestDemotionEndsWhatTheRoleGave: an admin made a user keeps their
// membership and what a user may have, and loses their pending
// invitations, the administrative scope of their applications, their
// webhooks and the key they were shown.
func TestDemotionEndsWhatTheRoleGave(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	acct := "/a/" + s.slug
	s.addMember(s.slug, adaEmail, "Ada", "Admin", taskd.RoleAdmin)
	ada := s.signedIn(adaEmail)
	people := ada.get(s.base + acct + "/people")
	ada.submit(s.base, people, acct+"/people", url.Values{"email": {"friend@example.com"}, "role": {"user"}}).location(t)
	join := s.linkIn(t, s.mailTo(t, "friend@example.com"))
	admin, _ := s.grantOf(ada, adaEmail, "tasks_read administrative")
	reader, _ := s.grantOf(s.browser(), adaEmail, "tasks_read")

	owner := s.signedIn(ownerEmail)
	people = owner.get(s.base + acct + "/people")
	owner.submit(s.base, people, roleForm(t, people, adaEmail), url.Values{"role": {"user"}}).location(t)
	msg := notice(owner.get(s.base + acct + "/people"))
	if !strings.Contains(msg, "Ada Admin is now user. 1 invitation they sent was cancelled. 1 authorization they gave an application was revoked.") {
		t.Fatalf("the owner's notice: %s", msg)
	}
	if p := s.browser().get(s.base + join); p.status != http.StatusNotFound {
		t.Errorf("a demoted admin's invitation link: HTTP %d", p.status)
	}
	if s.tokenWorks(admin) {
		t.Error("a token with the administrative scope outlives its person's demotion")
	}
	if !s.tokenWorks(reader) {
		t.Error("a token a user may hold ended with the demotion")
	}
	if p := ada.get(s.base + acct + "/"); p.status != http.StatusOK {
		t.Errorf("a demoted admin's session: HTTP %d", p.status)
	}
}

// TestCredentialChangesEndGrants: a password reset ends every application's
// access; a password change and an e-mail change do when the box, ticked
// by default, stays ticked, and do not when it is unticked.
func TestCredentialChangesEndGrants(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.signedIn(userEmail)
	profile := b.get(s.base + "/profile")
	for _, form := range []string{"/profile/password", "/profile/email"} {
		_, after, _ := strings.Cut(profile.body, `action="`+form+`"`)
		box, _, _ := strings.Cut(after, "</form>")
		if !strings.Contains(box, `name="end_grants" value="1" aria-describedby=`) || !strings.Contains(box, " checked>") ||
			!strings.Contains(box, `href="/settings/applications"`) {
			t.Fatalf("the %s form has no ticked box to end applications' access:\n%s", form, box)
		}
	}

	// Unticked: the application keeps its access.
	access, refresh := s.grantOf(b, userEmail, "tasks_read")
	b.submit(s.base, profile, "/profile/password", url.Values{"password": {password}, "new_password": {password}}).location(t)
	if !s.tokenWorks(access) {
		t.Fatal("a password change with the box unticked ended an application's access")
	}
	// Ticked: it ends, and the notice says so.
	profile = b.get(s.base + "/profile")
	b.submit(s.base, profile, "/profile/password", url.Values{"password": {password}, "new_password": {password}, "end_grants": {"1"}}).location(t)
	if s.tokenWorks(access) || s.refreshWorks(refresh) {
		t.Fatal("a password change with the box ticked left an application's access")
	}
	if msg := notice(b.get(s.base + "/profile")); !strings.Contains(msg, "1 application lost the access you had given") {
		t.Errorf("notice: %s", msg)
	}

	// An e-mail change ends them when the new address is confirmed.
	access, refresh = s.grantOf(b, userEmail, "tasks_read")
	moved := uniqueSlug("moved") + "@example.com"
	b.submit(s.base, b.get(s.base+"/profile"), "/profile/email", url.Values{"password": {password}, "email": {moved}, "end_grants": {"1"}}).location(t)
	if !s.tokenWorks(access) {
		t.Fatal("asking for an e-mail change ended access before the address was confirmed")
	}
	confirm := s.linkIn(t, s.mailTo(t, moved))
	c := s.browser()
	c.submit(s.base, c.get(s.base+confirm), "/confirm-email", nil).location(t)
	if s.tokenWorks(access) || s.refreshWorks(refresh) {
		t.Fatal("a confirmed e-mail change with the box ticked left an application's access")
	}

	// A reset always ends them, and the sessions.
	access, refresh = s.grantOf(b, moved, "tasks_read")
	r := s.browser()
	r.submit(s.base, r.get(s.base+"/reset"), "/reset", url.Values{"email": {moved}})
	link := s.linkIn(t, s.mailTo(t, moved))
	page := r.get(s.base + link)
	if !strings.Contains(page.body, "ends the access of every application you authorized") {
		t.Errorf("the reset page does not say what it ends:\n%s", page.body)
	}
	r.submit(s.base, page, "/reset/password", url.Values{"password": {"a new password"}}).location(t)
	if s.tokenWorks(access) || s.refreshWorks(refresh) {
		t.Fatal("a password reset left an application's access")
	}
	if p := b.get(s.base + "/profile"); p.status != http.StatusSeeOther {
		t.Fatalf("a session after a reset: HTTP %d", p.status)
	}
}
