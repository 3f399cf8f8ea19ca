package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/secret"
)

// TestTokenEndpointAuthenticatesClient: the token endpoint reads a code's
// or refresh token's grant together with its client (one query), and
// still authenticates the client before anything is consumed or revoked:
// a wrong secret, an unknown client and another client's credentials are
// refused and change nothing, and a new secret or a deleted client counts
// at once on every replica.
func TestTokenEndpointAuthenticatesClient(t *testing.T) {
	t.Parallel()
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		ctx := context.Background()
		second := s.Replica()
		call := func(base string, form url.Values) (int, map[string]any) {
			t.Helper()
			req, _ := http.NewRequest("POST", base+"/oauth2/token", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			status, body, _ := testsite.DoJSON(t, req)
			return status, body
		}
		as := func(id, sec string, pairs ...string) url.Values {
			f := url.Values{"client_id": {id}, "client_secret": {sec}}
			for i := 0; i+1 < len(pairs); i += 2 {
				f.Set(pairs[i], pairs[i+1])
			}
			return f
		}
		own := s.Client["client_id"]
		other := s.CreateClient(s.Slug, "Other app", testsite.RedirectURI)
		type caller struct {
			name, id, secret string
			status           int
			err              string
		}
		strangers := []caller{
			{"a wrong secret", own, "wrong", 401, "invalid_client"},
			{"an unknown client", "no-such-client", s.Client["client_secret"], 401, "invalid_client"},
			{"another client", other["client_id"], other["client_secret"], 400, "invalid_grant"},
		}

		code := s.Code()
		for _, base := range []string{s.Base, second} {
			for _, c := range strangers {
				status, body := call(base, as(c.id, c.secret, "grant_type", "authorization_code", "code", code, "redirect_uri", testsite.RedirectURI))
				if status != c.status || body["error"] != c.err {
					t.Fatalf("%s redeeming the code: %d %v, want %d %s", c.name, status, body, c.status, c.err)
				}
			}
		}
		tok := s.Exchange(code) // the refused attempts neither spent nor revoked it
		// A used code presented by strangers revokes nothing (its own client's
		// second presentation would: TestOAuthCodeRules).
		for _, c := range strangers {
			status, body := call(second, as(c.id, c.secret, "grant_type", "authorization_code", "code", code, "redirect_uri", testsite.RedirectURI))
			if status != c.status || body["error"] != c.err {
				t.Fatalf("%s presenting a used code: %d %v, want %d %s", c.name, status, body, c.status, c.err)
			}
		}
		if !s.TokenWorks(tok["access_token"].(string)) {
			t.Fatal("a stranger presenting a used code revoked its grant")
		}

		refresh := tok["refresh_token"].(string)
		for _, c := range strangers {
			status, body := call(second, as(c.id, c.secret, "grant_type", "refresh_token", "refresh_token", refresh))
			if status != c.status || body["error"] != c.err {
				t.Fatalf("%s refreshing: %d %v, want %d %s", c.name, status, body, c.status, c.err)
			}
		}
		if !s.TokenWorks(tok["access_token"].(string)) {
			t.Fatal("a stranger's refresh rotated or revoked the grant")
		}
		status, body := call(second, as(own, s.Client["client_secret"], "grant_type", "refresh_token", "refresh_token", refresh))
		if status != 200 || body["refresh_token"] == nil {
			t.Fatalf("refresh by its client on the second replica: %d %v", status, body)
		}
		refresh = body["refresh_token"].(string)

		// A new secret counts at once on both replicas, for codes and refresh
		// tokens alike.
		acct, err := s.Store.AccountBySlug(ctx, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Store.SetClientSecret(ctx, acct.ID, own, secret.HashToken("the new secret")); err != nil {
			t.Fatal(err)
		}
		for _, base := range []string{s.Base, second} {
			code := s.Code()
			redeem := func(sec string) (int, map[string]any) {
				return call(base, as(own, sec, "grant_type", "authorization_code", "code", code, "redirect_uri", testsite.RedirectURI))
			}
			if status, body := redeem(s.Client["client_secret"]); status != 401 || body["error"] != "invalid_client" {
				t.Fatalf("the old secret after a new one: %d %v", status, body)
			}
			if status, body := redeem("the new secret"); status != 200 {
				t.Fatalf("the new secret: %d %v", status, body)
			}
			status, body := call(base, as(own, s.Client["client_secret"], "grant_type", "refresh_token", "refresh_token", refresh))
			if status != 401 || body["error"] != "invalid_client" {
				t.Fatalf("a refresh with the old secret: %d %v", status, body)
			}
		}

		// A deleted client is refused at once on every replica.
		code = s.Code()
		if err := s.Store.DeleteClient(ctx, acct.ID, own); err != nil {
			t.Fatal(err)
		}
		for _, base := range []string{s.Base, second} {
			status, body := call(base, as(own, "the new secret", "grant_type", "authorization_code", "code", code, "redirect_uri", testsite.RedirectURI))
			if status != 401 || body["error"] != "invalid_client" {
				t.Fatalf("a deleted client's code: %d %v", status, body)
			}
			status, body = call(base, as(own, "the new secret", "grant_type", "refresh_token", "refresh_token", refresh))
			if status != 401 || body["error"] != "invalid_client" {
				t.Fatalf("a deleted client's refresh token: %d %v", status, body)
			}
		}
	})
}
