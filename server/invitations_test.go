package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/smtptest"
)

// TestInvitationsNeedConsent: adding an e-mail that belongs to a person of
// another account does not join them, does not tell that they exist, and
// does not touch their password; they join only by accepting after signing
// in, and may decline.
func TestInvitationsNeedConsent(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := newOAuthSite(t, st)
			acct := "/a/" + s.slug
			elsewhere := uniqueSlug("elsewhere") + "@example.com"
			s.createAccount(uniqueSlug("else"), "Elsewhere", elsewhere, "Real", "Name")
			fresh := uniqueSlug("fresh") + "@example.com"

			owner := s.signedIn(ownerEmail)
			invite := func(email string) string {
				t.Helper()
				people := owner.get(s.base + acct + "/people")
				p := owner.submit(s.base, people, acct+"/people", url.Values{"email": {email}, "first_name": {"Fake"},
					"last_name": {"Name"}, "role": {"admin"}})
				if p.status != http.StatusSeeOther {
					t.Fatalf("inviting %s: HTTP %d\n%s", email, p.status, p.body)
				}
				page := owner.get(s.base + acct + "/people").body
				i := strings.Index(page, `role="status">`)
				if i < 0 {
					t.Fatalf("no message after inviting %s:\n%s", email, page)
				}
				msg := page[i : i+strings.Index(page[i:], "</div>")]
				return strings.ReplaceAll(msg, email, "E")
			}
			if a, b := invite(fresh), invite(elsewhere); a != b {
				t.Fatalf("a new e-mail and a registered one get different answers:\n%s\n%s", a, b)
			}
			people := owner.get(s.base + acct + "/people").body
			if strings.Contains(people, "Real Name") || !strings.Contains(people, "the invitation of "+elsewhere+"</span>") {
				t.Fatalf("people page after inviting a registered person:\n%s", people)
			}
			if _, body := apiCall(t, s.accountURL(), s.key, "action=get_users"); strings.Contains(fmtJSON(body), elsewhere) {
				t.Fatalf("an invited person is a member before accepting: %v", body)
			}

			// Both get the same mail, but for the address and the link.
			freshMail, elseMail := s.mailTo(t, fresh), s.mailTo(t, elsewhere)
			same := func(m smtptest.Parsed, email string) string {
				return strings.ReplaceAll(linkRE.ReplaceAllString(m.Subject+m.Text+m.HTML, "LINK"), email, "E")
			}
			if same(freshMail, fresh) != same(elseMail, elsewhere) {
				t.Fatalf("a new e-mail and a registered one get different mail:\n%s\n%s", freshMail.Text, elseMail.Text)
			}
			// The registered person's link does not set a password: it asks
			// them to sign in.
			b := s.browser()
			join := b.get(s.base + s.linkIn(t, elseMail))
			if !strings.Contains(join.body, "Sign in to accept") || strings.Contains(join.body, `name="password"`) {
				t.Fatalf("a registered person's join page:\n%s", join.body)
			}
			tok := strings.TrimPrefix(s.linkIn(t, elseMail), "/join?t=")
			if p := b.post(s.base+"/join", url.Values{"csrf": {b.get(s.base+"/login").form(t, "", "").Get("csrf")}, "t": {tok}, "password": {"chosen by the admin"}}); p.status != http.StatusUnprocessableEntity {
				t.Fatalf("setting a registered person's password through the link: %d\n%s", p.status, p.body)
			}
			f := b.get(s.base+"/login").form(t, "", "")
			f.Set("email", elsewhere)
			f.Set("password", "chosen by the admin")
			if p := b.post(s.base+"/login", f); p.status != http.StatusUnauthorized {
				t.Fatalf("the inviter's password signed the registered person in: %d", p.status)
			}
			f.Set("password", password)
			f.Set("next", "/settings/applications")
			if to := b.post(s.base+"/login", f).location(t); to.String() != "/invitations?next=%2Fsettings%2Fapplications" {
				t.Fatalf("signed in with an invitation waiting: sent to %s", to)
			}
			inv := b.get(s.base + "/invitations?next=%2Fsettings%2Fapplications")
			decline, accept := formEnding(inv, "/decline"), formEnding(inv, "/accept")
			if !strings.Contains(inv.body, "invited you to join <strong>Acme</strong> as admin") || decline == "" {
				t.Fatalf("invitations page:\n%s", inv.body)
			}
			// Nobody else can answer it.
			other := s.signedIn(userEmail)
			csrf := other.get(s.base+"/invitations").form(t, "", "").Get("csrf")
			if p := other.post(s.base+accept, url.Values{"csrf": {csrf}}); p.status != http.StatusNotFound {
				t.Fatalf("accepting another person's invitation: %d", p.status)
			}
			if to := b.submit(s.base, inv, decline, nil).location(t); to.Path != "/settings/applications" {
				t.Fatalf("declining the last invitation led to %s", to)
			}
			if p := b.get(s.base + acct + "/"); p.status != http.StatusNotFound {
				t.Fatalf("after declining, the account's page: %d", p.status)
			}
			if strings.Contains(owner.get(s.base+acct+"/people").body, "invitation of "+elsewhere) {
				t.Fatal("a declined invitation is still listed")
			}

			// A cancelled invitation cannot be accepted.
			invite(elsewhere)
			inv = b.get(s.base + "/invitations")
			accept = formEnding(inv, "/accept")
			people2 := owner.get(s.base + acct + "/people")
			cancel := acct + strings.TrimSuffix(accept, "/accept") + "/cancel"
			owner.submit(s.base, people2, cancel, nil).location(t)
			if p := b.submit(s.base, inv, accept, nil); p.status != http.StatusNotFound {
				t.Fatalf("accepting a cancelled invitation: %d", p.status)
			}

			// Accepted, the invitation makes them a member with its role.
			invite(elsewhere)
			inv = b.get(s.base + "/invitations")
			if to := b.submit(s.base, inv, formEnding(inv, "/accept"), nil).location(t); to.Path != acct+"/" {
				t.Fatalf("accepting led to %s", to)
			}
			if p := b.get(s.base + acct + "/people"); p.status != http.StatusOK {
				t.Fatalf("an admin who accepted cannot see the people page: %d", p.status)
			}
			if inv := b.get(s.base + "/invitations"); !strings.Contains(inv.body, "No invitations wait for you") {
				t.Errorf("joining left the invitation behind:\n%s", inv.body)
			}
		})
	}
}

// formEnding returns the action of the first form whose action ends with
// suffix, or "".
func formEnding(p page, suffix string) string {
	for _, f := range p.forms() {
		if strings.HasSuffix(f.action, suffix) {
			return f.action
		}
	}
	return ""
}
