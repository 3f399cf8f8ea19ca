package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
)

// nearMisses are redirect URIs that differ from the registered
// https://app.example/cb by a prefix, a suffix, the path, the query, case
// or encoding. Exact string match is the rule (RFC 6749 §3.1.2.3, OAuth 2.1).
var nearMisses = []string{
	"https://app.example/c", "https://app.example/cbx", "https://app.example/cb/", "https://app.example/cb/more",
	"https://app.example/cb?x=1", "https://app.example/cb?", "https://app.example/cb#", "https://app.example/cb#f",
	"https://APP.example/cb", "https://app.example/CB", "https://app.example/%63b", "https://app.example/cb%2F",
	"https://app.example:443/cb", "https://app.example./cb", "https://app.example//cb", "https://app.example/./cb",
	"https://user@app.example/cb", "https://app.example.evil.example/cb", "https://evil.example/?https://app.example/cb",
	"http://app.example/cb", " https://app.example/cb", "https://app.example/cb ", "https://app.example/cb\t",
}

// TestRedirectURIsMatchExactly: an authorization request with a redirect
// URI that is not exactly a registered one gets an error page and never a
// redirect there, even when the request has other errors that would be
// sent to a good URI; and a code is redeemed only with its exact URI.
func TestRedirectURIsMatchExactly(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	b := s.Browser()
	for _, uri := range nearMisses {
		for _, extra := range [][]string{nil, {"response_type", "token"}, {"scope", "everything"}, {"state", ""}} {
			p := b.Get(s.AuthorizeURL(append([]string{"redirect_uri", uri}, extra...)...))
			if p.Status != http.StatusBadRequest || p.Header.Get("Location") != "" {
				t.Errorf("redirect_uri %q %v: HTTP %d Location %q", uri, extra, p.Status, p.Header.Get("Location"))
			}
		}
	}
	// The consent form cannot swap the URI either.
	authURL := s.AuthorizeURL()
	signIn := b.Get(s.Base + "/login?next=" + url.QueryEscape(strings.TrimPrefix(authURL, s.Base)))
	f := signIn.Form(t, "", "")
	f.Set("email", testsite.OwnerEmail)
	f.Set("password", testsite.Password)
	b.Post(s.Base+"/login", f)
	for _, uri := range nearMisses[:6] {
		page := b.Get(s.AuthorizeURL("redirect_uri", uri))
		if page.Status != http.StatusBadRequest {
			t.Errorf("consent page for %q: HTTP %d", uri, page.Status)
		}
	}

	code := s.Code()
	for _, uri := range nearMisses {
		status, body, _ := s.TokenCall("/oauth2/token", s.Creds("grant_type", "authorization_code", "code", code, "redirect_uri", uri))
		if status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("exchange with redirect_uri %q: %d %v", uri, status, body)
		}
	}
	s.Exchange(code) // the exact URI still works: the near misses did not spend the code
}
