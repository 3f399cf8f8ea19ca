package web_test

import (
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/taskd/taskd/internal/testsite"
)

// clearCookies signs the browser out by forgetting its cookies.
func (c *chrome) clearCookies() {
	c.t.Helper()
	if _, err := chromedp.Call(c.ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		c.t.Fatalf("browser: %v", err)
	}
}

// TestBrowserInvitationAndReset: in Chromium, an owner invites a colleague
// by e-mail; the colleague follows the mailed link (from a real SMTP
// server), chooses a password and lands in the account, sets a time zone
// on the profile, later forgets the password and resets it from the
// sign-in page's link.
func TestBrowserInvitationAndReset(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := testsite.New(t)
	c := newChrome(t)
	acct := s.Base + "/a/" + s.Slug
	const nia = "nia@acme.example"

	c.signIn(s.Base, testsite.OwnerEmail)
	c.run(chromedp.Navigate(acct+"/people"), chromedp.WaitVisible(chromedp.CSS("#person-email")))
	c.see("people", "Invite a person", "Teams")
	c.run(chromedp.SendKeys(chromedp.CSS("#person-email"), nia), chromedp.SendKeys(chromedp.CSS("#person-first"), "Nia"),
		chromedp.Click(`//summary[text()="Position, department, team"]`), chromedp.WaitVisible(chromedp.CSS("#person-team")),
		chromedp.SendKeys(chromedp.CSS("#person-team"), "Studio"), chromedp.Submit(chromedp.CSS("#person-email")),
		chromedp.WaitVisible(`//div[@role="status"]`))
	c.see("invited", "An invitation was sent to "+nia, "Studio")
	c.run(chromedp.WaitVisible(`//button[contains(., "Cancel the invitation of ` + nia + `")]`)) // its accessible name

	link := s.LinkIn(t, s.MailTo(t, nia))
	c.clearCookies()
	c.run(chromedp.Navigate(s.Base+link), chromedp.WaitVisible(chromedp.CSS("#join-password")))
	c.see("join", "Olga Owner invited you to join Acme as user", "You will sign in as "+nia)
	c.run(chromedp.SendKeys(chromedp.CSS("#join-last"), "New"), chromedp.SendKeys(chromedp.CSS("#join-password"), "nia's own password"),
		chromedp.Submit(chromedp.CSS("#join-password")), chromedp.WaitVisible(chromedp.CSS("main h1")))
	c.see("joined", "Acme: projects")
	if got := c.location(); got != acct+"/" {
		t.Fatalf("after joining: %s", got)
	}

	c.run(chromedp.Navigate(s.Base+"/profile"), chromedp.WaitVisible(chromedp.CSS("#profile-zone")))
	c.see("profile", "Your profile", nia)
	c.run(chromedp.SetValue(chromedp.CSS("#profile-zone"), "Asia/Tokyo"), chromedp.SendKeys(chromedp.CSS("#profile-title"), "Designer"),
		chromedp.Submit(chromedp.CSS("#profile-zone")), chromedp.WaitVisible(`//div[@role="status"]`))
	c.see("profile-saved", "Your profile was saved.")

	// Forgotten password.
	c.clearCookies()
	c.run(chromedp.Navigate(s.Base+"/login"), chromedp.WaitVisible(`//a[text()="Forgot your password?"]`),
		chromedp.Click(`//a[text()="Forgot your password?"]`), chromedp.WaitVisible(chromedp.CSS("#reset-email")))
	c.see("reset-form", "we will e-mail you a link")
	c.run(chromedp.SendKeys(chromedp.CSS("#reset-email"), nia), chromedp.Submit(chromedp.CSS("#reset-email")),
		chromedp.WaitVisible(`//p[@role="status"]`))
	c.see("reset-sent", "is on its way there")
	reset := s.LinkIn(t, s.MailTo(t, nia))
	c.run(chromedp.Navigate(s.Base+reset), chromedp.WaitVisible(chromedp.CSS("#new-password")),
		chromedp.SendKeys(chromedp.CSS("#new-password"), "a fresh password 2"), chromedp.Submit(chromedp.CSS("#new-password")),
		chromedp.WaitVisible(chromedp.CSS("#email")))
	c.see("reset-done", "Your password was changed. Sign in with it.")
	c.run(chromedp.SendKeys(chromedp.CSS("#password"), "a fresh password 2"), chromedp.Click(chromedp.CSS(`button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("main h1")))
	c.see("signed-in-again", "Acme: projects")
}
