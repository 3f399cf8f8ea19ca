package web_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
)

// TestPasswordChangeOffersToEndTheFeed: the password form offers, ticked,
// to end the calendar feed's address to someone who has one (and not to
// anyone else); a change with the box ticked ends it (404 at once, and
// the notice says so), one with it unticked keeps it, and a reset always
// ends it.
func TestPasswordChangeOffersToEndTheFeed(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	b := s.SignedIn(testsite.UserEmail)
	box := func() string {
		t.Helper()
		_, after, _ := strings.Cut(b.Get(s.Base+"/profile").Body, `action="/profile/password"`)
		form, _, _ := strings.Cut(after, "</form>")
		return form
	}
	if strings.Contains(box(), `name="end_feed"`) {
		t.Fatal("the password form offers to end a feed the person does not have")
	}
	feed := s.FeedAddress(b)
	if f := box(); !strings.Contains(f, `name="end_feed" value="1" aria-describedby="password-feed-hint" checked>`) {
		t.Fatalf("the password form has no ticked box to end the feed:\n%s", f)
	}
	change := func(end bool) string {
		t.Helper()
		form := url.Values{"password": {testsite.Password}, "new_password": {testsite.Password}}
		if end {
			form.Set("end_feed", "1")
		}
		b.Submit(s.Base, b.Get(s.Base+"/profile"), "/profile/password", form).Location(t)
		_, msg, _ := strings.Cut(b.Get(s.Base+"/profile").Body, `role="status">`)
		msg, _, _ = strings.Cut(msg, "</div>")
		return msg
	}
	if msg := change(false); strings.Contains(msg, "calendar feed") {
		t.Errorf("unticked, the notice: %s", msg)
	}
	if status, _, _ := getFeed(t, feed); status != http.StatusOK {
		t.Fatalf("the feed after a change with the box unticked: HTTP %d", status)
	}
	if msg := change(true); !strings.Contains(html.UnescapeString(msg), "Your calendar feed's address stopped working") {
		t.Errorf("ticked, the notice: %s", msg)
	}
	if status, _, _ := getFeed(t, feed); status != http.StatusNotFound {
		t.Fatalf("the feed after a change with the box ticked: HTTP %d", status)
	}

	// A reset ends the new one too.
	feed = s.FeedAddress(b)
	r := s.Browser()
	r.Submit(s.Base, r.Get(s.Base+"/reset"), "/reset", url.Values{"email": {testsite.UserEmail}})
	link := s.LinkIn(t, s.MailTo(t, testsite.UserEmail))
	r.Submit(s.Base, r.Get(s.Base+link), "/reset/password", url.Values{"password": {"a new password"}}).Location(t)
	if status, _, _ := getFeed(t, feed); status != http.StatusNotFound {
		t.Fatalf("the feed after a reset: HTTP %d", status)
	}
}
