package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
)

// TestAuthorizePageReadsAtOnce: the authorization pages read the session's
// person, memberships and client in one query, never from a cache: a
// member removed is refused the consent page on the next request, a
// deleted client's request is refused, and a session ended is signed out.
func TestAuthorizePageReadsAtOnce(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		s := testsite.On(t, d)
		ctx := context.Background()
		b := s.SignedIn(testsite.UserEmail)
		consent := s.AuthorizeURL("account", s.Slug)
		if p := b.Get(consent); p.Status != http.StatusOK || !strings.Contains(p.Body, "Allow access?") {
			t.Fatalf("consent page: HTTP %d", p.Status)
		}
		acct, owner := s.Owner()
		user, err := s.Store.PersonByEmail(ctx, testsite.UserEmail)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Store.RemoveMember(ctx, owner, user.ID); err != nil {
			t.Fatal(err)
		}
		if p := b.Get(consent); p.Status != http.StatusForbidden {
			t.Errorf("removed member's consent page: HTTP %d, want 403", p.Status)
		}
		o := s.SignedIn(testsite.OwnerEmail)
		if p := o.Get(consent); p.Status != http.StatusOK {
			t.Fatalf("owner's consent page: HTTP %d", p.Status)
		}
		if err := s.Store.DeleteClient(ctx, acct.ID, s.Client["client_id"]); err != nil {
			t.Fatal(err)
		}
		if p := o.Get(consent); p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "not registered") {
			t.Errorf("deleted client's request: HTTP %d, want 400 not registered", p.Status)
		}
	})
}

// TestAuthorizePagesSignOutAnExpiredSession: a session cookie whose session
// has expired (a week on, by the site's clock; the browser still sends it)
// counts as signed out on the authorization pages: the authorize and
// consent pages are the sign-in page, and the consent form, posted, leads
// back to the authorization request instead of to the application.
func TestAuthorizePagesSignOutAnExpiredSession(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		s := testsite.On(t, d)
		b := s.SignedIn(testsite.UserEmail)
		choose, consent := s.AuthorizeURL(), s.AuthorizeURL("account", s.Slug)
		if p := b.Get(choose); p.Status != http.StatusOK || !strings.Contains(p.Body, "Choose an account") {
			t.Fatalf("authorize page of a current session: HTTP %d, want the user-selection page", p.Status)
		}
		p := b.Get(consent)
		if p.Status != http.StatusOK || !strings.Contains(p.Body, "Allow access?") {
			t.Fatalf("consent page of a current session: HTTP %d, want the consent page", p.Status)
		}
		form := p.Form(t, "account", s.Slug)
		form.Set("decision", "allow")

		s.Clock.Advance(7*24*time.Hour + time.Minute) // the session lasts a week
		signIn := func(what string, p testsite.Page) {
			t.Helper()
			if p.Status != http.StatusOK || !strings.Contains(p.Body, `name="password"`) ||
				strings.Contains(p.Body, "Choose an account") || strings.Contains(p.Body, "Allow access?") {
				t.Errorf("%s with an expired session: HTTP %d, want the sign-in page:\n%s", what, p.Status, p.Body)
			}
		}
		signIn("authorize page", b.Get(choose))
		signIn("consent page", b.Get(consent))
		to := b.Post(s.Base+"/oauth2/authorize", form).Location(t)
		if to.Path != "/oauth2/authorize" || to.Query().Get("code") != "" {
			t.Errorf("consent form posted with an expired session led to %s, want back to /oauth2/authorize", to)
		}
	})
}
