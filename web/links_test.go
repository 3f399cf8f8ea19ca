package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/smtptest"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
)

// TestPasswordReset: asking for a reset answers the same for a known and
// an unknown address, and mails only the known one; the link sets a new
// password once, ends every session of the person, and expires; requests
// are limited like sign-ins.
func TestPasswordReset(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
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
	t.Parallel()
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
// and shown at /dev/mail with its working link (the text escaped, sentence
// punctuation outside the link); the invitation, the reset request and the
// e-mail change say so; the page does not exist otherwise.
func TestDevMailPage(t *testing.T) {
	t.Parallel()
	if plain := testsite.New(t); plain.Browser().Get(plain.Base+"/dev/mail").Status != http.StatusNotFound {
		t.Fatal("/dev/mail is served without --dev")
	}
	s := testsite.Open(t, testdb.New(t, "sqlite"), testsite.Options{KeepMail: true})
	acct := "/a/" + s.Slug
	o := s.SignedIn(testsite.OwnerEmail)
	// The inviter's name is in the invitation's text: markup to be shown as
	// text, and a web address followed by a comma ("If you do not know
	// NAME, ignore this message.").
	o.Submit(s.Base, o.Get(s.Base+"/profile"), "/profile", url.Values{"first_name": {"Olga <i>&"}, "last_name": {"https://olga.example/about"}}).Location(t)
	o.Submit(s.Base, o.Get(s.Base+acct+"/people"), acct+"/people", url.Values{"email": {"kept@acme.example"}, "role": {"user"}}).Location(t)
	if p := o.Get(s.Base + acct + "/people"); !strings.Contains(p.Body, "The invitation to kept@acme.example was kept, not sent: "+
		"no mail server is configured (read it at /dev/mail). They join as user when they accept it.") {
		t.Fatalf("the people page does not say the invitation was kept:\n%s", p.Body)
	}
	b := s.Browser()
	if p := b.Submit(s.Base, b.Get(s.Base+"/reset"), "/reset", url.Values{"email": {testsite.OwnerEmail}}); !strings.Contains(p.Body,
		"a link to choose a new password was kept, not sent: no mail server is configured (read it at /dev/mail). It works for one hour.") {
		t.Fatalf("the reset page does not say the link was kept:\n%s", p.Body)
	}
	var list testsite.Page
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		list = b.Get(s.Base + "/dev/mail")
		if strings.Contains(list.Body, "to kept@acme.example · invitation · kept") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(list.Body, "You are invited to join a team on taskd") || !strings.Contains(list.Body, "to kept@acme.example · invitation · kept") {
		t.Fatalf("mail page:\n%s", list.Body)
	}
	href := regexp.MustCompile(`href="(/dev/mail/\d+)"[^>]*>[^<]*invited`).FindStringSubmatch(list.Body)
	msg := b.Get(s.Base + href[1])
	// The link is a link: <a href="X">X</a>, X the whole address.
	m := regexp.MustCompile(`<a href="(https?://[^"]+/join\?t=[A-Za-z0-9_-]+)">(https?://[^<]+)</a>`).FindStringSubmatch(msg.Body)
	if msg.Status != http.StatusOK || m == nil || m[1] != m[2] {
		t.Fatalf("message page:\n%s", msg.Body)
	}
	// The text around the links is escaped; sentence punctuation after an
	// address stays outside its link.
	const about = `<a href="https://olga.example/about">https://olga.example/about</a>`
	if !strings.Contains(msg.Body, "Olga &lt;i&gt;&amp; "+about+" invited you to") || strings.Contains(msg.Body, "<i>&") ||
		!strings.Contains(msg.Body, "If you do not know Olga &lt;i&gt;&amp; "+about+", ignore this message.") {
		t.Fatalf("the message's text is not escaped with its addresses linked, punctuation outside:\n%s", msg.Body)
	}
	if p := b.Get(m[1]); p.Status != http.StatusOK || !strings.Contains(p.Body, "Choose a password") {
		t.Fatalf("the kept link: %d\n%s", p.Status, p.Body)
	}
	// The e-mail change says its link was kept, not sent, too.
	o.Submit(s.Base, o.Get(s.Base+"/profile"), "/profile/email", url.Values{"password": {testsite.Password}, "email": {"moved@acme.example"}}).Location(t)
	if p := o.Get(s.Base + "/profile"); !strings.Contains(p.Body, "The link to confirm the new address was kept, not sent: "+
		"no mail server is configured (read it at /dev/mail). Until you follow it, you sign in as "+testsite.OwnerEmail+".") {
		t.Fatalf("the profile does not say the confirmation link was kept:\n%s", p.Body)
	}
	if len(s.Mail.Messages()) != 0 {
		t.Fatal("kept mail was sent")
	}
}

// TestInvitationsNeedConsent: adding an e-mail that belongs to a person of
// another account does not join them, does not tell that they exist, and
// does not touch their password; they join only by accepting after signing
// in, and may decline.
func TestInvitationsNeedConsent(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		acct := "/a/" + s.Slug
		elsewhere := testaccount.UniqueSlug("elsewhere") + "@example.com"
		s.CreateAccount(testaccount.UniqueSlug("else"), "Elsewhere", elsewhere, "Real", "Name")
		fresh := testaccount.UniqueSlug("fresh") + "@example.com"

		owner := s.SignedIn(testsite.OwnerEmail)
		invite := func(t *testing.T, email string) string {
			t.Helper()
			owner := owner.In(t)
			people := owner.Get(s.Base + acct + "/people")
			p := owner.Submit(s.Base, people, acct+"/people", url.Values{"email": {email}, "first_name": {"Fake"},
				"last_name": {"Name"}, "role": {"admin"}})
			if p.Status != http.StatusSeeOther {
				t.Fatalf("inviting %s: HTTP %d\n%s", email, p.Status, p.Body)
			}
			page := owner.Get(s.Base + acct + "/people").Body
			i := strings.Index(page, `role="status">`)
			if i < 0 {
				t.Fatalf("no message after inviting %s:\n%s", email, page)
			}
			msg := page[i : i+strings.Index(page[i:], "</div>")]
			return strings.ReplaceAll(msg, email, "E")
		}
		var (
			elseMail        smtptest.Parsed
			b               *testsite.Browser
			inv             testsite.Page
			decline, accept string
		)

		if !t.Run("inviting a registered address answers as a new one does, and joins nobody", func(t *testing.T) {
			s, owner := s.In(t), owner.In(t)
			if a, b := invite(t, fresh), invite(t, elsewhere); a != b {
				t.Fatalf("a new e-mail and a registered one get different answers:\n%s\n%s", a, b)
			}
			people := owner.Get(s.Base + acct + "/people").Body
			if strings.Contains(people, "Real Name") || !strings.Contains(people, "the invitation of "+elsewhere+"</span>") {
				t.Fatalf("people page after inviting a registered person:\n%s", people)
			}
			if _, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_users"); strings.Contains(testsite.JSON(body), elsewhere) {
				t.Fatalf("an invited person is a member before accepting: %v", body)
			}
		}) {
			return
		}

		if !t.Run("both get the same mail, but for the address and the link", func(t *testing.T) {
			s := s.In(t)
			var freshMail smtptest.Parsed
			freshMail, elseMail = s.MailTo(t, fresh), s.MailTo(t, elsewhere)
			same := func(m smtptest.Parsed, email string) string {
				return strings.ReplaceAll(testsite.LinkRE.ReplaceAllString(m.Subject+m.Text+m.HTML, "LINK"), email, "E")
			}
			if same(freshMail, fresh) != same(elseMail, elsewhere) {
				t.Fatalf("a new e-mail and a registered one get different mail:\n%s\n%s", freshMail.Text, elseMail.Text)
			}
		}) {
			return
		}

		if !t.Run("the registered person's link asks them to sign in, and sets no password", func(t *testing.T) {
			s := s.In(t)
			b = s.Browser()
			join := b.Get(s.Base + s.LinkIn(t, elseMail))
			if !strings.Contains(join.Body, "Sign in to accept") || strings.Contains(join.Body, `name="password"`) {
				t.Fatalf("a registered person's join page:\n%s", join.Body)
			}
			tok := strings.TrimPrefix(s.LinkIn(t, elseMail), "/join?t=")
			if p := b.Post(s.Base+"/join", url.Values{"csrf": {b.Get(s.Base+"/login").Form(t, "", "").Get("csrf")}, "t": {tok}, "password": {"chosen by the admin"}}); p.Status != http.StatusUnprocessableEntity {
				t.Fatalf("setting a registered person's password through the link: %d\n%s", p.Status, p.Body)
			}
		}) {
			return
		}

		if !t.Run("signed in, the registered person is sent to the invitation first", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			f := b.Get(s.Base+"/login").Form(t, "", "")
			f.Set("email", elsewhere)
			f.Set("password", "chosen by the admin")
			if p := b.Post(s.Base+"/login", f); p.Status != http.StatusUnauthorized {
				t.Fatalf("the inviter's password signed the registered person in: %d", p.Status)
			}
			f.Set("password", testsite.Password)
			f.Set("next", "/settings/applications")
			if to := b.Post(s.Base+"/login", f).Location(t); to.String() != "/invitations?next=%2Fsettings%2Fapplications" {
				t.Fatalf("signed in with an invitation waiting: sent to %s", to)
			}
			inv = b.Get(s.Base + "/invitations?next=%2Fsettings%2Fapplications")
			decline, accept = formEnding(inv, "/decline"), formEnding(inv, "/accept")
			if !strings.Contains(inv.Body, "invited you to join <strong>Acme</strong> as admin") || decline == "" {
				t.Fatalf("invitations page:\n%s", inv.Body)
			}
		}) {
			return
		}

		if !t.Run("nobody else can answer the invitation", func(t *testing.T) {
			s := s.In(t)
			other := s.SignedIn(testsite.UserEmail)
			csrf := other.Get(s.Base+"/invitations").Form(t, "", "").Get("csrf")
			if p := other.Post(s.Base+accept, url.Values{"csrf": {csrf}}); p.Status != http.StatusNotFound {
				t.Fatalf("accepting another person's invitation: %d", p.Status)
			}
		}) {
			return
		}

		if !t.Run("declined, the invitation is gone and the account stays closed to them", func(t *testing.T) {
			s, b, owner := s.In(t), b.In(t), owner.In(t)
			if to := b.Submit(s.Base, inv, decline, nil).Location(t); to.Path != "/settings/applications" {
				t.Fatalf("declining the last invitation led to %s", to)
			}
			if p := b.Get(s.Base + acct + "/"); p.Status != http.StatusNotFound {
				t.Fatalf("after declining, the account's page: %d", p.Status)
			}
			if strings.Contains(owner.Get(s.Base+acct+"/people").Body, "invitation of "+elsewhere) {
				t.Fatal("a declined invitation is still listed")
			}
		}) {
			return
		}

		if !t.Run("a cancelled invitation cannot be accepted", func(t *testing.T) {
			s, b, owner := s.In(t), b.In(t), owner.In(t)
			invite(t, elsewhere)
			inv := b.Get(s.Base + "/invitations")
			accept := formEnding(inv, "/accept")
			people2 := owner.Get(s.Base + acct + "/people")
			cancel := acct + strings.TrimSuffix(accept, "/accept") + "/cancel"
			owner.Submit(s.Base, people2, cancel, nil).Location(t)
			if p := b.Submit(s.Base, inv, accept, nil); p.Status != http.StatusNotFound {
				t.Fatalf("accepting a cancelled invitation: %d", p.Status)
			}
		}) {
			return
		}

		t.Run("accepted, the invitation makes them a member with its role", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			invite(t, elsewhere)
			inv := b.Get(s.Base + "/invitations")
			if to := b.Submit(s.Base, inv, formEnding(inv, "/accept"), nil).Location(t); to.Path != acct+"/" {
				t.Fatalf("accepting led to %s", to)
			}
			if p := b.Get(s.Base + acct + "/people"); p.Status != http.StatusOK {
				t.Fatalf("an admin who accepted cannot see the people page: %d", p.Status)
			}
			if inv := b.Get(s.Base + "/invitations"); !strings.Contains(inv.Body, "No invitations wait for you") {
				t.Errorf("joining left the invitation behind:\n%s", inv.Body)
			}
		})
	})
}

// formEnding returns the action of the first form whose action ends with
// suffix, or "".
func formEnding(p testsite.Page, suffix string) string {
	for _, f := range p.Forms() {
		if strings.HasSuffix(f.Action, suffix) {
			return f.Action
		}
	}
	return ""
}
