package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
)

// TestAuthorizePageReadsAtOnce: the authorization pages read the session's
// person, memberships and client in one query, never from a cache: a
// member removed is refused the consent page on the next request, a
// deleted client's request is refused, and a session ended is signed out.
func TestAuthorizePageReadsAtOnce(t *testing.T) {
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
