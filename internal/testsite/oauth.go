package testsite

import (
	"net/http"
	"net/url"
	"strings"
)

// GrantOf runs the OAuth flow for a signed-in person (a browser of theirs)
// and returns the access and refresh tokens.
func (s *Site) GrantOf(b *Browser, email, scope string) (access, refresh string) {
	s.t.Helper()
	u := s.Consent(b, s.AuthorizeURL("scope", scope), email, s.Slug, "allow")
	tok := s.Exchange(u.Query().Get("code"))
	return tok["access_token"].(string), tok["refresh_token"].(string)
}

// TokenWorks reports whether an access token is accepted (me answers ok),
// and checks that a refused one is refused as an invalid token.
func (s *Site) TokenWorks(access string) bool {
	s.t.Helper()
	status, body, _ := s.API(s.AccountURL(), access, "action=me")
	if status == 200 && body["status"] == "ok" {
		return true
	}
	if status != 401 || body["status_code"] != float64(2) {
		s.t.Fatalf("a refused token: HTTP %d %v", status, body)
	}
	return false
}

// RefreshWorks reports whether a refresh token still mints a new pair.
func (s *Site) RefreshWorks(refresh string) bool {
	s.t.Helper()
	status, body, _ := s.TokenCall("/oauth2/token", s.Creds("grant_type", "refresh_token", "refresh_token", refresh))
	if status == 200 {
		return true
	}
	if status != 400 || body["error"] != "invalid_grant" {
		s.t.Fatalf("a refused refresh: HTTP %d %v", status, body)
	}
	return false
}

const RedirectURI = "https://app.example/cb"

// AuthorizeURL is an authorization request of the site's application.
func (s *Site) AuthorizeURL(extra ...string) string {
	q := url.Values{"client_id": {s.Client["client_id"]}, "response_type": {"code"}, "redirect_uri": {RedirectURI},
		"state": {"xyz-state"}, "scope": {"projects_read tasks_read tasks_write administrative"}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return s.Base + "/oauth2/authorize?" + q.Encode()
}

// Consent runs the pages from an authorization request to the redirect back
// to the application, for a person choosing an account, and returns it.
func (s *Site) Consent(b *Browser, authURL, email, slug, decision string) *url.URL {
	s.t.Helper()
	return b.In(s.t).Consent(s.Base, authURL, email, Password, slug, decision)
}

// Consent runs the pages of the taskd at base from an authorization request
// to the redirect back to the application: it signs in with email and
// password when asked, chooses the account slug, and makes the decision
// ("allow" or "deny"). It returns where the redirect leads.
func (b *Browser) Consent(base, authURL, email, password, slug, decision string) *url.URL {
	t := b.t
	t.Helper()
	p := b.Get(authURL)
	if p.Status == http.StatusOK && strings.Contains(p.Body, `name="password"`) {
		f := p.Form(t, "", "")
		f.Set("email", email)
		f.Set("password", password)
		next := b.Post(base+"/login", f).Location(t)
		p = b.Get(base + next.String())
	}
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "Choose an account") {
		t.Fatalf("want the user-selection page, got HTTP %d:\n%s", p.Status, p.Body)
	}
	// The account forms are GET forms, without the form token: choosing
	// is navigation, and the consent page is the answer.
	p = b.Get(base + "/oauth2/authorize?" + p.Form(t, "account", slug).Encode())
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "Allow access?") {
		t.Fatalf("want the consent page, got HTTP %d:\n%s", p.Status, p.Body)
	}
	f := p.Form(t, "account", slug)
	f.Set("decision", decision)
	return b.Post(base+"/oauth2/authorize", f).Location(t)
}

// Code runs the whole flow as the owner and returns an authorization code.
func (s *Site) Code(extra ...string) string {
	s.t.Helper()
	u := s.Consent(s.Browser(), s.AuthorizeURL(extra...), OwnerEmail, s.Slug, "allow")
	c := u.Query().Get("code")
	if c == "" {
		s.t.Fatalf("no code in %s", u)
	}
	return c
}

// TokenCall posts a form to an OAuth endpoint and decodes the JSON answer.
func (s *Site) TokenCall(path string, form url.Values, basic ...string) (int, map[string]any, http.Header) {
	s.t.Helper()
	req, _ := http.NewRequest("POST", s.Base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(url.QueryEscape(basic[0]), url.QueryEscape(basic[1]))
	}
	return DoJSON(s.t, req)
}

// Creds returns the form with the application's credentials added.
func (s *Site) Creds(pairs ...string) url.Values {
	f := url.Values{"client_id": {s.Client["client_id"]}, "client_secret": {s.Client["client_secret"]}}
	for i := 0; i+1 < len(pairs); i += 2 {
		f.Set(pairs[i], pairs[i+1])
	}
	return f
}

// Exchange redeems a code and fails the test unless it works.
func (s *Site) Exchange(code string, pairs ...string) map[string]any {
	s.t.Helper()
	status, body, _ := s.TokenCall("/oauth2/token", s.Creds(append([]string{"grant_type", "authorization_code",
		"code", code, "redirect_uri", RedirectURI}, pairs...)...))
	if status != 200 {
		s.t.Fatalf("token exchange: HTTP %d %v", status, body)
	}
	return body
}

// API calls the account API with a bearer token.
func (s *Site) API(accountURL, token, query string) (int, map[string]any, http.Header) {
	s.t.Helper()
	req, _ := http.NewRequest("GET", accountURL+"/api/oauth2?"+query, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return DoJSON(s.t, req)
}
