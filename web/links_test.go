package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
)

// TestPasswordReset: asking for a reset answers the same for a known and
// an unknown address, and mails only the known one; the link sets a new
// password once, ends every session of the person, and expires; requests
// are limited like sign-ins.
func TestPasswordReset(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		acct := "/a/" + s.Slug
		ask := func(email string) testsite.Page {
			t.Helper()
			b := s.Browser()
			login := b.Get(s.Base + "/login")
			if !strings.Contains(login.Body, `href="/reset"`) {
				t.Fatalf("the sign-in page does not offer a reset:\n%s", login.Body)
			}
			p := b.Submit(s.Base, b.Get(s.Base+"/reset"), "/reset", url.Values{"email": {email}})
			if p.Status != http.StatusOK {
				t.Fatalf("reset for %s: %d\n%s", email, p.Status, p.Body)
			}
			return p
		}
		known, unknown := ask(testsite.UserEmail), ask("nobody@acme.example")
		strip := func(p testsite.Page, email string) string {
			return regexp.MustCompile(`value="[^"]*"`).ReplaceAllString(strings.ReplaceAll(p.Body, email, "E"), "")
		}
		if strip(known, testsite.UserEmail) != strip(unknown, "nobody@acme.example") || !strings.Contains(known.Body, "a link to choose a new password is on its way") {
			t.Fatalf("known and unknown addresses answered differently:\n%s\n%s", known.Body, unknown.Body)
		}
		m := s.MailTo(t, testsite.UserEmail)
		if m.Subject != "Reset your taskd password" {
			t.Fatalf("reset mail: %q", m.Subject)
		}
		time.Sleep(100 * time.Millisecond) // the outbox polls every 20 ms
		for _, r := range s.Mail.Messages() {
			if r.To == "nobody@acme.example" {
				t.Fatal("mail went to an address nobody has")
			}
		}

		signedIn := s.SignedIn(testsite.UserEmail)
		link := s.LinkIn(t, m)
		b := s.Browser()
		form := b.Get(s.Base + link)
		if p := b.Submit(s.Base, form, "/reset/password", url.Values{"password": {"short"}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("short password: %d", p.Status)
		}
		if to := b.Submit(s.Base, form, "/reset/password", url.Values{"password": {"a brand new password"}}).Location(t); to.Path != "/login" {
			t.Fatalf("after the reset: sent to %s", to)
		}
		if p := signedIn.Get(s.Base + acct + "/"); p.Status != http.StatusSeeOther {
			t.Fatalf("a session from before the reset still works: %d", p.Status)
		}
		if p := b.Submit(s.Base, form, "/reset/password", url.Values{"password": {"yet another password"}}); p.Status != http.StatusNotFound {
			t.Fatalf("a used link: %d", p.Status)
		}
		login := func(pw string) int {
			c := s.Browser()
			f := c.Get(s.Base+"/login").Form(t, "", "")
			f.Set("email", testsite.UserEmail)
			f.Set("password", pw)
			return c.Post(s.Base+"/login", f).Status
		}
		if login(testsite.Password) != http.StatusUnauthorized || login("a brand new password") != http.StatusSeeOther {
			t.Fatal("the new password does not replace the old one")
		}

		// A link expires after an hour.
		ask(testsite.UserEmail)
		late := s.LinkIn(t, s.MailTo(t, testsite.UserEmail))
		s.Clock.Advance(61 * time.Minute)
		b = s.Browser()
		if p := b.Submit(s.Base, b.Get(s.Base+late), "/reset/password", url.Values{"password": {"too late password"}}); p.Status != http.StatusNotFound {
			t.Fatalf("an expired link: %d", p.Status)
		}
	})
}

// TestResetRequestsAreLimited: ten requests for one address in a quarter
// of an hour, then 429 with Retry-After.
func TestResetRequestsAreLimited(t *testing.T) {
	s := testsite.New(t)
	b := s.Browser()
	form := b.Get(s.Base + "/reset")
	var p testsite.Page
	for range 11 {
		p = b.Submit(s.Base, form, "/reset", url.Values{"email": {"someone@acme.example"}})
	}
	if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Body, "Too many requests") {
		t.Fatalf("the 11th request: %d\n%s", p.Status, p.Body)
	}
}

// TestDevMailPage: without a mail server (--dev), an invitation is kept
// and shown at /dev/mail with its working link; the page does not exist
// otherwise.
func TestDevMailPage(t *testing.T) {
	if plain := testsite.New(t); plain.Browser().Get(plain.Base+"/dev/mail").Status != http.StatusNotFound {
		t.Fatal("/dev/mail is served without --dev")
	}
	s := testsite.Open(t, testdb.New(t, "sqlite"), testsite.Options{KeepMail: true})
	acct := "/a/" + s.Slug
	o := s.SignedIn(testsite.OwnerEmail)
	o.Submit(s.Base, o.Get(s.Base+acct+"/people"), acct+"/people", url.Values{"email": {"kept@acme.example"}, "role": {"user"}}).Location(t)
	b := s.Browser()
	var list testsite.Page
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		list = b.Get(s.Base + "/dev/mail")
		if strings.Contains(list.Body, "· kept") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(list.Body, "You are invited to join a team on taskd") || !strings.Contains(list.Body, "to kept@acme.example · invitation · kept") {
		t.Fatalf("mail page:\n%s", list.Body)
	}
	href := regexp.MustCompile(`href="(/dev/mail/\d+)"`).FindStringSubmatch(list.Body)
	msg := b.Get(s.Base + href[1])
	link := regexp.MustCompile(`https?://\S+/join\?t=[A-Za-z0-9_-]+`).FindString(msg.Body)
	if msg.Status != http.StatusOK || link == "" {
		t.Fatalf("message page:\n%s", msg.Body)
	}
	if p := b.Get(link); p.Status != http.StatusOK || !strings.Contains(p.Body, "Choose a password") {
		t.Fatalf("the kept link: %d\n%s", p.Status, p.Body)
	}
	if len(s.Mail.Messages()) != 0 {
		t.Fatal("kept mail was sent")
	}
}
