package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testdb"
)

// TestPasswordReset: asking for a reset answers the same for a known and
// an unknown address, and mails only the known one; the link sets a new
// password once, ends every session of the person, and expires; requests
// are limited like sign-ins.
func TestPasswordReset(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := newOAuthSite(t, st)
			acct := "/a/" + s.slug
			ask := func(email string) page {
				t.Helper()
				b := s.browser()
				login := b.get(s.base + "/login")
				if !strings.Contains(login.body, `href="/reset"`) {
					t.Fatalf("the sign-in page does not offer a reset:\n%s", login.body)
				}
				p := b.submit(s.base, b.get(s.base+"/reset"), "/reset", url.Values{"email": {email}})
				if p.status != http.StatusOK {
					t.Fatalf("reset for %s: %d\n%s", email, p.status, p.body)
				}
				return p
			}
			known, unknown := ask(userEmail), ask("nobody@acme.example")
			strip := func(p page, email string) string {
				return regexp.MustCompile(`value="[^"]*"`).ReplaceAllString(strings.ReplaceAll(p.body, email, "E"), "")
			}
			if strip(known, userEmail) != strip(unknown, "nobody@acme.example") || !strings.Contains(known.body, "a link to choose a new password is on its way") {
				t.Fatalf("known and unknown addresses answered differently:\n%s\n%s", known.body, unknown.body)
			}
			m := s.mailTo(t, userEmail)
			if m.Subject != "Reset your taskd password" {
				t.Fatalf("reset mail: %q", m.Subject)
			}
			time.Sleep(100 * time.Millisecond) // the outbox polls every 20 ms
			for _, r := range s.mail.Messages() {
				if r.To == "nobody@acme.example" {
					t.Fatal("mail went to an address nobody has")
				}
			}

			signedIn := s.signedIn(userEmail)
			link := s.linkIn(t, m)
			b := s.browser()
			form := b.get(s.base + link)
			if p := b.submit(s.base, form, "/reset/password", url.Values{"password": {"short"}}); p.status != http.StatusUnprocessableEntity {
				t.Fatalf("short password: %d", p.status)
			}
			if to := b.submit(s.base, form, "/reset/password", url.Values{"password": {"a brand new password"}}).location(t); to.Path != "/login" {
				t.Fatalf("after the reset: sent to %s", to)
			}
			if p := signedIn.get(s.base + acct + "/"); p.status != http.StatusSeeOther {
				t.Fatalf("a session from before the reset still works: %d", p.status)
			}
			if p := b.submit(s.base, form, "/reset/password", url.Values{"password": {"yet another password"}}); p.status != http.StatusNotFound {
				t.Fatalf("a used link: %d", p.status)
			}
			login := func(pw string) int {
				c := s.browser()
				f := c.get(s.base+"/login").form(t, "", "")
				f.Set("email", userEmail)
				f.Set("password", pw)
				return c.post(s.base+"/login", f).status
			}
			if login(password) != http.StatusUnauthorized || login("a brand new password") != http.StatusSeeOther {
				t.Fatal("the new password does not replace the old one")
			}

			// A link expires after an hour.
			ask(userEmail)
			late := s.linkIn(t, s.mailTo(t, userEmail))
			s.clock.advance(61 * time.Minute)
			b = s.browser()
			if p := b.submit(s.base, b.get(s.base+late), "/reset/password", url.Values{"password": {"too late password"}}); p.status != http.StatusNotFound {
				t.Fatalf("an expired link: %d", p.status)
			}
		})
	}
}

// TestResetRequestsAreLimited: ten requests for one address in a quarter
// of an hour, then 429 with Retry-After.
func TestResetRequestsAreLimited(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	form := b.get(s.base + "/reset")
	var p page
	for range 11 {
		p = b.submit(s.base, form, "/reset", url.Values{"email": {"someone@acme.example"}})
	}
	if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Too many requests") {
		t.Fatalf("the 11th request: %d\n%s", p.status, p.body)
	}
}

// TestDevMailPage: without a mail server (--dev), an invitation is kept
// and shown at /dev/mail with its working link; the page does not exist
// otherwise.
func TestDevMailPage(t *testing.T) {
	if plain := newSite(t); plain.browser().get(plain.base+"/dev/mail").status != http.StatusNotFound {
		t.Fatal("/dev/mail is served without --dev")
	}
	s := newSiteWith(t, &oauthSite{db: testdb.New(t, "sqlite"), keepMail: true})
	acct := "/a/" + s.slug
	o := s.signedIn(ownerEmail)
	o.submit(s.base, o.get(s.base+acct+"/people"), acct+"/people", url.Values{"email": {"kept@acme.example"}, "role": {"user"}}).location(t)
	b := s.browser()
	var list page
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		list = b.get(s.base + "/dev/mail")
		if strings.Contains(list.body, "· kept") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(list.body, "You are invited to join a team on taskd") || !strings.Contains(list.body, "to kept@acme.example · invitation · kept") {
		t.Fatalf("mail page:\n%s", list.body)
	}
	href := regexp.MustCompile(`href="(/dev/mail/\d+)"`).FindStringSubmatch(list.body)
	msg := b.get(s.base + href[1])
	link := regexp.MustCompile(`https?://\S+/join\?t=[A-Za-z0-9_-]+`).FindString(msg.body)
	if msg.status != http.StatusOK || link == "" {
		t.Fatalf("message page:\n%s", msg.body)
	}
	if p := b.get(link); p.status != http.StatusOK || !strings.Contains(p.body, "Choose a password") {
		t.Fatalf("the kept link: %d\n%s", p.status, p.body)
	}
	if len(s.mail.Messages()) != 0 {
		t.Fatal("kept mail was sent")
	}
}
