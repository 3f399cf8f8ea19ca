package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestAuthorizeErrors: a bad client or redirect URI shows an error page and
// never redirects; other errors go back to the validated redirect URI; deny
// redirects with access_denied.
func TestAuthorizeErrors(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	for _, tc := range []struct{ name, key, value string }{
		{"unknown client", "client_id", "nope"},
		{"missing client", "client_id", ""},
		{"unregistered redirect", "redirect_uri", "https://evil.example/cb"},
		{"http redirect", "redirect_uri", "http://app.example/cb"},
		{"missing redirect", "redirect_uri", ""},
	} {
		p := b.get(s.authorizeURL(tc.key, tc.value))
		if p.status != http.StatusBadRequest || p.header.Get("Location") != "" || !strings.Contains(p.body, "cannot be used") {
			t.Errorf("%s: HTTP %d Location %q", tc.name, p.status, p.header.Get("Location"))
		}
	}
	for _, tc := range []struct{ name, key, value, want string }{
		{"response_type", "response_type", "token", "unsupported_response_type"},
		{"unknown scope", "scope", "tasks_read everything", "invalid_scope"},
		{"PKCE plain", "code_challenge", strings.Repeat("a", 43), "invalid_request"},
	} {
		u := b.get(s.authorizeURL(tc.key, tc.value)).location(t)
		if !strings.HasPrefix(u.String(), redirectURI) || u.Query().Get("error") != tc.want || u.Query().Get("state") != "xyz-state" || u.Query().Get("iss") != s.base {
			t.Errorf("%s: redirect %s", tc.name, u)
		}
	}
	u := s.consent(b, s.authorizeURL(), ownerEmail, s.slug, "deny")
	if u.Query().Get("error") != "access_denied" || u.Query().Get("state") != "xyz-state" || u.Query().Get("code") != "" {
		t.Errorf("deny: %s", u)
	}
	// A person cannot pick an account they do not belong to.
	p := b.get(s.authorizeURL("account", "someone-elses"))
	if p.status != http.StatusForbidden {
		t.Errorf("foreign account on consent: HTTP %d", p.status)
	}
}

// TestFormsNeedToken: every POST without the form token, or from another
// origin, is refused.
func TestFormsNeedToken(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	p := b.post(s.base+"/login", url.Values{"email": {ownerEmail}, "password": {password}})
	if p.status != http.StatusForbidden {
		t.Fatalf("sign-in without a form token: HTTP %d", p.status)
	}
	login := b.get(s.base + "/login")
	f := login.form(t, "", "")
	f.Set("email", ownerEmail)
	f.Set("password", password)
	req, _ := http.NewRequest("POST", s.base+"/login", strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site sign-in: HTTP %d", res.StatusCode)
	}
	if p := b.post(s.base+"/login", f); p.status != http.StatusSeeOther {
		t.Fatalf("sign-in with the token: HTTP %d", p.status)
	}
	// Another browser's token does not work with this browser's cookie.
	other := s.browser()
	of := other.get(s.base+"/login").form(t, "", "")
	f.Set("csrf", of.Get("csrf"))
	if p := b.post(s.base+"/logout", f); p.status != http.StatusForbidden {
		t.Fatalf("sign-out with another browser's token: HTTP %d", p.status)
	}
}

// TestSignInRateLimit: after ten failures for one e-mail, even the right
// password is refused for a while, with Retry-After.
func TestSignInRateLimit(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	try := func(pw string) page {
		f := b.get(s.base+"/login").form(t, "", "")
		f.Set("email", userEmail)
		f.Set("password", pw)
		return b.post(s.base+"/login", f)
	}
	for i := range 10 {
		if p := try("wrong password"); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "not right") {
			t.Fatalf("failure %d: HTTP %d", i+1, p.status)
		}
	}
	p := try(password)
	if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") == "" {
		t.Fatalf("after 10 failures: HTTP %d", p.status)
	}
	s.clock.advance(16 * 60 * 1e9)
	if p := try(password); p.status != http.StatusSeeOther {
		t.Fatalf("after the window: HTTP %d", p.status)
	}
	// An address nobody has is limited alike: its answers do not tell.
	unknown := s.browser()
	guess := func() int {
		f := unknown.get(s.base+"/login").form(t, "", "")
		f.Set("email", "nobody-here@acme.example")
		f.Set("password", "wrong password")
		return unknown.post(s.base+"/login", f).status
	}
	for i := range 10 {
		if status := guess(); status != http.StatusUnauthorized {
			t.Fatalf("an unknown address's failure %d: HTTP %d", i+1, status)
		}
	}
	if status := guess(); status != http.StatusTooManyRequests {
		t.Fatalf("an unknown address's 11th failure: HTTP %d", status)
	}
}

var secretRE = regexp.MustCompile(`id="shown-secret">([^<]+)<`)

// TestSettingsPages: the API page registers, rotates and deletes
// applications (owner and admins only); the authorized-applications page
// lists and revokes; sign-out ends the session.
func TestSettingsPages(t *testing.T) {
	s := newSite(t)
	owner := s.browser()
	signIn := func(b *browser, email string) {
		f := b.get(s.base+"/login").form(t, "", "")
		f.Set("email", email)
		f.Set("password", password)
		if p := b.post(s.base+"/login", f); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in %s: HTTP %d", email, p.status)
		}
	}
	settings := s.base + "/a/" + s.slug + "/settings/api"
	if p := owner.get(settings); p.status != http.StatusSeeOther {
		t.Fatalf("settings while signed out: HTTP %d", p.status)
	}
	signIn(owner, ownerEmail)
	// The settings' index, with and without the slash; not for users.
	for _, path := range []string{"/settings", "/settings/"} {
		index := owner.get(s.base + "/a/" + s.slug + path)
		for _, want := range []string{"/settings/account", "/settings/apikey", "/settings/api\"", "/settings/webhooks", "<h1>Settings</h1>"} {
			if index.status != 200 || !strings.Contains(index.body, want) {
				t.Fatalf("%s: HTTP %d, lacks %s:\n%s", path, index.status, want, index.body)
			}
		}
	}
	plain := s.browser()
	signIn(plain, userEmail)
	if p := plain.get(s.base + "/a/" + s.slug + "/settings"); p.status != http.StatusForbidden {
		t.Fatalf("a user's settings index: HTTP %d", p.status)
	}
	p := owner.get(settings)
	if p.status != 200 || !strings.Contains(p.body, s.client["client_id"]) || strings.Contains(p.body, s.client["client_secret"]) {
		t.Fatalf("settings page: HTTP %d", p.status)
	}
	// Register: invalid input is shown next to the form; valid shows the secret once.
	f := p.form(t, "", "")
	f.Set("name", "Second app")
	f.Set("redirect_uris", "http://insecure.example/cb")
	if p := owner.post(settings, f); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "https://") {
		t.Fatalf("http redirect URI accepted: HTTP %d", p.status)
	}
	f.Set("redirect_uris", "https://second.example/cb\nhttps://second.example/cb2")
	owner.post(settings, f).location(t)
	p = owner.get(settings)
	m := secretRE.FindStringSubmatch(p.body)
	if m == nil || !strings.Contains(p.body, "Second app") {
		t.Fatalf("new secret not shown:\n%s", p.body)
	}
	if again := owner.get(settings); secretRE.MatchString(again.body) {
		t.Fatal("secret shown twice")
	}
	// Rotate the first application's secret: the old one stops working.
	owner.post(settings+"/rotate", p.form(t, "client_id", s.client["client_id"])).location(t)
	rotated := secretRE.FindStringSubmatch(owner.get(settings).body)
	if rotated == nil {
		t.Fatal("rotated secret not shown")
	}
	code := s.code()
	if status, _, _ := s.tokenCall("/oauth2/token", s.creds("grant_type", "authorization_code", "code", code, "redirect_uri", redirectURI)); status != 401 {
		t.Fatalf("old secret after rotation: HTTP %d", status)
	}
	s.client["client_secret"] = rotated[1]
	tok := s.exchange(code)

	// The authorized-applications page lists it; revoking ends its tokens.
	apps := owner.get(s.base + "/settings/applications")
	if !strings.Contains(apps.body, "My app") || !strings.Contains(apps.body, "See tasks and subtasks") {
		t.Fatalf("authorized applications:\n%s", apps.body)
	}
	owner.post(s.base+"/settings/applications/revoke", apps.form(t, "client_id", s.client["client_id"])).location(t)
	if status, _, _ := s.api(s.accountURL(), tok["access_token"].(string), "action=me"); status != 401 {
		t.Fatalf("token after revocation in settings: HTTP %d", status)
	}
	if strings.Contains(owner.get(s.base+"/settings/applications").body, "My app") {
		t.Fatal("revoked application still listed")
	}

	// A plain user may not manage applications, even by posting directly.
	user := s.browser()
	signIn(user, userEmail)
	if p := user.get(settings); p.status != http.StatusForbidden {
		t.Fatalf("user on API settings: HTTP %d", p.status)
	}
	uf := user.get(s.base+"/login").form(t, "", "")
	uf.Set("client_id", s.client["client_id"])
	if p := user.post(settings+"/delete", uf); p.status != http.StatusForbidden {
		t.Fatalf("user deleting an application: HTTP %d", p.status)
	}
	// Another account's settings are not found for a non-member.
	stranger := s.browser()
	s.createAccount("lone", "Lone", "lone@example.com", "", "")
	signIn(stranger, "lone@example.com")
	if p := stranger.get(settings); p.status != http.StatusNotFound {
		t.Fatalf("stranger on settings: HTTP %d", p.status)
	}

	// Delete: the application and its grants are gone.
	owner.post(settings+"/delete", owner.get(settings).form(t, "client_id", s.client["client_id"])).location(t)
	if strings.Contains(owner.get(settings).body, s.client["client_id"]) {
		t.Fatal("deleted application still listed")
	}
	if p := owner.get(s.authorizeURL()); p.status != http.StatusBadRequest {
		t.Fatalf("authorize with a deleted client: HTTP %d", p.status)
	}

	// Sign out.
	owner.post(s.base+"/logout", owner.get(settings).form(t, "", "")).location(t)
	if p := owner.get(settings); p.status != http.StatusSeeOther {
		t.Fatalf("settings after sign-out: HTTP %d", p.status)
	}
}

// TestReplicasShareState: a session started on one replica, and a token
// issued by it, work on another replica of the same database.
func TestReplicasShareState(t *testing.T) {
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := newOAuthSite(t, st)
			replica := s.replica()
			b := s.browser()
			f := b.get(s.base+"/login").form(t, "", "")
			f.Set("email", ownerEmail)
			f.Set("password", password)
			b.post(s.base+"/login", f).location(t)
			if p := b.get(replica + "/settings/applications"); p.status != http.StatusOK {
				t.Fatalf("session on the other replica: HTTP %d", p.status)
			}
			tok := s.exchange(s.code())
			status, body, _ := s.api(replica+"/a/"+s.slug, tok["access_token"].(string), "action=me")
			if status != 200 {
				t.Fatalf("token on the other replica: %d %v", status, body)
			}
			// A refresh on the first replica ends the token on the second at once.
			s.tokenCall("/oauth2/refresh", s.creds("grant_type", "refresh_token", "refresh_token", tok["refresh_token"].(string)))
			if status, _, _ := s.api(replica+"/a/"+s.slug, tok["access_token"].(string), "action=me"); status != 401 {
				t.Fatalf("refreshed-away token on the other replica: %d", status)
			}
		})
	}
}

// TestConsentNamesApplication: the sign-in, account-selection and consent
// pages of an authorization name the application and the account that
// registered it, so a person can tell a look-alike from the real one.
func TestConsentNamesApplication(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	named := func(step string, p page) {
		t.Helper()
		if !strings.Contains(p.body, "<strong>My app</strong>") || !strings.Contains(p.body, "an application registered by the account <strong>Acme</strong>") {
			t.Fatalf("%s does not name the application and its account:\n%s", step, p.body)
		}
	}
	p := b.get(s.authorizeURL())
	named("sign-in", p)
	f := p.form(t, "", "")
	f.Set("email", userEmail)
	f.Set("password", password)
	next := b.post(s.base+"/login", f).location(t)
	p = b.get(s.base + next.String())
	named("account selection", p)
	sel := b.post(s.base+"/oauth2/authorize", p.form(t, "account", s.slug)).location(t)
	named("consent", b.get(s.base+sel.String()))
}

// TestSignInNamesAskingApplication: a visitor sent to sign in by an
// authorization request reads which application asks ("Sign in to let My
// app reach your taskd data"), on the page /oauth2/authorize shows, on
// /login?next=… (where "Sign in as someone else" leads) and again after a
// wrong password. The name is the registered one, escaped; it shows only
// for a registered client and redirect URI on this server, never from the
// address's own words.
func TestSignInNamesAskingApplication(t *testing.T) {
	s := newSite(t)
	const asks = "Sign in to let <strong>My app</strong> reach your taskd data."
	authorize, err := url.Parse(s.authorizeURL())
	if err != nil {
		t.Fatal(err)
	}
	next := authorize.RequestURI()
	b := s.browser()
	if p := b.get(s.authorizeURL()); p.status != http.StatusOK || !strings.Contains(p.body, asks) {
		t.Fatalf("the sign-in page of an authorization: HTTP %d\n%s", p.status, p.body)
	}
	login := b.get(s.base + "/login?next=" + url.QueryEscape(next))
	if !strings.Contains(login.body, asks) {
		t.Fatalf("/login?next=<authorization> does not name the application:\n%s", login.body)
	}
	f := login.form(t, "", "")
	f.Set("email", userEmail)
	f.Set("password", "wrong")
	if p := b.post(s.base+"/login", f); p.status != http.StatusUnauthorized || !strings.Contains(p.body, asks) {
		t.Fatalf("after a wrong password: HTTP %d\n%s", p.status, p.body)
	}
	f.Set("password", password)
	if to := b.post(s.base+"/login", f).location(t); to.String() != next {
		t.Fatalf("signed in, sent to %s, want %s", to, next)
	}

	// The registered name is shown escaped.
	evil := s.createClient(s.slug, `<b>Evil</b> & "Co"`, redirectURI)
	q := authorize.Query()
	q.Set("client_id", evil["client_id"])
	if p := s.browser().get(s.base + "/login?next=" + url.QueryEscape("/oauth2/authorize?"+q.Encode())); !strings.Contains(p.body,
		"Sign in to let <strong>&lt;b&gt;Evil&lt;/b&gt; &amp; &#34;Co&#34;</strong> reach") {
		t.Fatalf("the name is not shown escaped:\n%s", p.body)
	}

	// No name for anything but a valid request on this server.
	with := func(key, value string) string {
		q := authorize.Query()
		q.Set(key, value)
		return "/oauth2/authorize?" + q.Encode()
	}
	for why, next := range map[string]string{
		"an unknown client":        with("client_id", "nobody"),
		"another redirect URI":     with("redirect_uri", "https://evil.example/cb"),
		"no state":                 with("state", ""),
		"another path":             "/oauth2/authorize/x?" + authorize.RawQuery,
		"another origin":           "https://evil.example" + next,
		"a scheme-relative origin": "//evil.example" + next,
		"a name in the address":    "/oauth2/authorize?client_name=My+app&name=My+app",
	} {
		p := s.browser().get(s.base + "/login?next=" + url.QueryEscape(next) + "&client_name=My+app")
		if p.status != http.StatusOK || strings.Contains(p.body, "Sign in to let") || strings.Contains(p.body, "My app") {
			t.Errorf("%s: HTTP %d, names an application:\n%s", why, p.status, p.body)
		}
	}
}
