package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestAuthorizeErrors: a bad client or redirect URI shows an error page and
// never redirects; other errors go back to the validated redirect URI; deny
// redirects with access_denied.
func TestAuthorizeErrors(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	b := s.Browser()
	for _, tc := range []struct{ name, key, value string }{
		{"unknown client", "client_id", "nope"},
		{"missing client", "client_id", ""},
		{"unregistered redirect", "redirect_uri", "https://evil.example/cb"},
		{"http redirect", "redirect_uri", "http://app.example/cb"},
		{"missing redirect", "redirect_uri", ""},
	} {
		p := b.Get(s.AuthorizeURL(tc.key, tc.value))
		if p.Status != http.StatusBadRequest || p.Header.Get("Location") != "" || !strings.Contains(p.Body, "cannot be used") {
			t.Errorf("%s: HTTP %d Location %q", tc.name, p.Status, p.Header.Get("Location"))
		}
	}
	for _, tc := range []struct{ name, key, value, want string }{
		{"response_type", "response_type", "token", "unsupported_response_type"},
		{"unknown scope", "scope", "tasks_read everything", "invalid_scope"},
		{"PKCE plain", "code_challenge", strings.Repeat("a", 43), "invalid_request"},
	} {
		u := b.Get(s.AuthorizeURL(tc.key, tc.value)).Location(t)
		if !strings.HasPrefix(u.String(), testsite.RedirectURI) || u.Query().Get("error") != tc.want || u.Query().Get("state") != "xyz-state" || u.Query().Get("iss") != s.Base {
			t.Errorf("%s: redirect %s", tc.name, u)
		}
	}
	u := s.Consent(b, s.AuthorizeURL(), testsite.OwnerEmail, s.Slug, "deny")
	if u.Query().Get("error") != "access_denied" || u.Query().Get("state") != "xyz-state" || u.Query().Get("code") != "" {
		t.Errorf("deny: %s", u)
	}
	// A person cannot pick an account they do not belong to.
	p := b.Get(s.AuthorizeURL("account", "someone-elses"))
	if p.Status != http.StatusForbidden {
		t.Errorf("foreign account on consent: HTTP %d", p.Status)
	}
}

// TestFormsNeedToken: every POST without the form token, or from another
// origin, is refused.
func TestFormsNeedToken(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	b := s.Browser()
	p := b.Post(s.Base+"/login", url.Values{"email": {testsite.OwnerEmail}, "password": {testsite.Password}})
	if p.Status != http.StatusForbidden {
		t.Fatalf("sign-in without a form token: HTTP %d", p.Status)
	}
	login := b.Get(s.Base + "/login")
	f := login.Form(t, "", "")
	f.Set("email", testsite.OwnerEmail)
	f.Set("password", testsite.Password)
	req, _ := http.NewRequest("POST", s.Base+"/login", strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res, err := b.C.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site sign-in: HTTP %d", res.StatusCode)
	}
	if p := b.Post(s.Base+"/login", f); p.Status != http.StatusSeeOther {
		t.Fatalf("sign-in with the token: HTTP %d", p.Status)
	}
	// Another browser's token does not work with this browser's cookie.
	other := s.Browser()
	of := other.Get(s.Base+"/login").Form(t, "", "")
	f.Set("csrf", of.Get("csrf"))
	if p := b.Post(s.Base+"/logout", f); p.Status != http.StatusForbidden {
		t.Fatalf("sign-out with another browser's token: HTTP %d", p.Status)
	}
}

// TestSignInRateLimit: after ten failures for one e-mail, even the right
// password is refused for a while, with Retry-After.
func TestSignInRateLimit(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	b := s.Browser()
	try := func(pw string) testsite.Page {
		f := b.Get(s.Base+"/login").Form(t, "", "")
		f.Set("email", testsite.UserEmail)
		f.Set("password", pw)
		return b.Post(s.Base+"/login", f)
	}
	for i := range 10 {
		if p := try("wrong password"); p.Status != http.StatusUnauthorized || !strings.Contains(p.Body, "not right") {
			t.Fatalf("failure %d: HTTP %d", i+1, p.Status)
		}
	}
	p := try(testsite.Password)
	if p.Status != http.StatusTooManyRequests || p.Header.Get("Retry-After") == "" {
		t.Fatalf("after 10 failures: HTTP %d", p.Status)
	}
	s.Clock.Advance(16 * 60 * 1e9)
	if p := try(testsite.Password); p.Status != http.StatusSeeOther {
		t.Fatalf("after the window: HTTP %d", p.Status)
	}
	// An address nobody has is limited alike: its answers do not tell.
	unknown := s.Browser()
	guess := func() int {
		f := unknown.Get(s.Base+"/login").Form(t, "", "")
		f.Set("email", "nobody-here@acme.example")
		f.Set("password", "wrong password")
		return unknown.Post(s.Base+"/login", f).Status
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

// TestSettingsPages: the API page registers, rotates and deletes
// applications (owner and admins only); the authorized-applications page
// lists and revokes; sign-out ends the session.
func TestSettingsPages(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	owner := s.Browser()
	signIn := func(t *testing.T, b *testsite.Browser, email string) {
		f := b.Get(s.Base+"/login").Form(t, "", "")
		f.Set("email", email)
		f.Set("password", testsite.Password)
		if p := b.Post(s.Base+"/login", f); p.Status != http.StatusSeeOther {
			t.Fatalf("sign-in %s: HTTP %d", email, p.Status)
		}
	}
	settings := s.Base + "/a/" + s.Slug + "/settings/api"
	var (
		p   testsite.Page
		tok map[string]any
	)

	if !t.Run("signed out, the settings send to the sign-in page", func(t *testing.T) {
		owner := owner.In(t)
		if p := owner.Get(settings); p.Status != http.StatusSeeOther {
			t.Fatalf("settings while signed out: HTTP %d", p.Status)
		}
	}) {
		return
	}

	if !t.Run("the settings' index links every settings page, with or without the slash, and refuses a user", func(t *testing.T) {
		s, owner := s.In(t), owner.In(t)
		signIn(t, owner, testsite.OwnerEmail)
		for _, path := range []string{"/settings", "/settings/"} {
			index := owner.Get(s.Base + "/a/" + s.Slug + path)
			for _, want := range []string{"/settings/account", "/settings/apikey", "/settings/api\"", "/settings/webhooks", "<h1>Settings</h1>"} {
				if index.Status != 200 || !strings.Contains(index.Body, want) {
					t.Fatalf("%s: HTTP %d, lacks %s:\n%s", path, index.Status, want, index.Body)
				}
			}
		}
		plain := s.Browser()
		signIn(t, plain, testsite.UserEmail)
		if p := plain.Get(s.Base + "/a/" + s.Slug + "/settings"); p.Status != http.StatusForbidden {
			t.Fatalf("a user's settings index: HTTP %d", p.Status)
		}
	}) {
		return
	}

	if !t.Run("the API page lists the application without its secret, and registers one", func(t *testing.T) {
		s, owner := s.In(t), owner.In(t)
		p = owner.Get(settings)
		if p.Status != 200 || !strings.Contains(p.Body, s.Client["client_id"]) || strings.Contains(p.Body, s.Client["client_secret"]) {
			t.Fatalf("settings page: HTTP %d", p.Status)
		}
		// Invalid input is shown next to the form; valid shows the secret once.
		f := p.Form(t, "", "")
		f.Set("name", "Second app")
		f.Set("redirect_uris", "http://insecure.example/cb")
		if p := owner.Post(settings, f); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "https://") {
			t.Fatalf("http redirect URI accepted: HTTP %d", p.Status)
		}
		f.Set("redirect_uris", "https://second.example/cb\nhttps://second.example/cb2")
		owner.Post(settings, f).Location(t)
		p = owner.Get(settings)
		m := testsite.SecretRE.FindStringSubmatch(p.Body)
		if m == nil || !strings.Contains(p.Body, "Second app") {
			t.Fatalf("new secret not shown:\n%s", p.Body)
		}
		if again := owner.Get(settings); testsite.SecretRE.MatchString(again.Body) {
			t.Fatal("secret shown twice")
		}
	}) {
		return
	}

	if !t.Run("a rotated secret is shown, and the old one stops working", func(t *testing.T) {
		s, owner := s.In(t), owner.In(t)
		owner.Post(settings+"/rotate", p.Form(t, "client_id", s.Client["client_id"])).Location(t)
		rotated := testsite.SecretRE.FindStringSubmatch(owner.Get(settings).Body)
		if rotated == nil {
			t.Fatal("rotated secret not shown")
		}
		code := s.Code()
		if status, _, _ := s.TokenCall("/oauth2/token", s.Creds("grant_type", "authorization_code", "code", code, "redirect_uri", testsite.RedirectURI)); status != 401 {
			t.Fatalf("old secret after rotation: HTTP %d", status)
		}
		s.Client["client_secret"] = rotated[1]
		tok = s.Exchange(code)
	}) {
		return
	}

	if !t.Run("the authorized-applications page lists the application, and revoking ends its tokens", func(t *testing.T) {
		s, owner := s.In(t), owner.In(t)
		apps := owner.Get(s.Base + "/settings/applications")
		if !strings.Contains(apps.Body, "My app") || !strings.Contains(apps.Body, "See tasks and subtasks") {
			t.Fatalf("authorized applications:\n%s", apps.Body)
		}
		owner.Post(s.Base+"/settings/applications/revoke", apps.Form(t, "client_id", s.Client["client_id"])).Location(t)
		if status, _, _ := s.API(s.AccountURL(), tok["access_token"].(string), "action=me"); status != 401 {
			t.Fatalf("token after revocation in settings: HTTP %d", status)
		}
		if strings.Contains(owner.Get(s.Base+"/settings/applications").Body, "My app") {
			t.Fatal("revoked application still listed")
		}
	}) {
		return
	}

	if !t.Run("a plain user may not manage applications, even by posting directly", func(t *testing.T) {
		s := s.In(t)
		user := s.Browser()
		signIn(t, user, testsite.UserEmail)
		if p := user.Get(settings); p.Status != http.StatusForbidden {
			t.Fatalf("user on API settings: HTTP %d", p.Status)
		}
		uf := user.Get(s.Base+"/login").Form(t, "", "")
		uf.Set("client_id", s.Client["client_id"])
		if p := user.Post(settings+"/delete", uf); p.Status != http.StatusForbidden {
			t.Fatalf("user deleting an application: HTTP %d", p.Status)
		}
	}) {
		return
	}

	if !t.Run("another account's settings are not found for a non-member", func(t *testing.T) {
		s := s.In(t)
		stranger := s.Browser()
		s.CreateAccount("lone", "Lone", "lone@example.com", "", "")
		signIn(t, stranger, "lone@example.com")
		if p := stranger.Get(settings); p.Status != http.StatusNotFound {
			t.Fatalf("stranger on settings: HTTP %d", p.Status)
		}
	}) {
		return
	}

	if !t.Run("a deleted application and its grants are gone", func(t *testing.T) {
		s, owner := s.In(t), owner.In(t)
		owner.Post(settings+"/delete", owner.Get(settings).Form(t, "client_id", s.Client["client_id"])).Location(t)
		if strings.Contains(owner.Get(settings).Body, s.Client["client_id"]) {
			t.Fatal("deleted application still listed")
		}
		if p := owner.Get(s.AuthorizeURL()); p.Status != http.StatusBadRequest {
			t.Fatalf("authorize with a deleted client: HTTP %d", p.Status)
		}
	}) {
		return
	}

	t.Run("sign-out ends the session", func(t *testing.T) {
		s, owner := s.In(t), owner.In(t)
		owner.Post(s.Base+"/logout", owner.Get(settings).Form(t, "", "")).Location(t)
		if p := owner.Get(settings); p.Status != http.StatusSeeOther {
			t.Fatalf("settings after sign-out: HTTP %d", p.Status)
		}
	})
}

// TestReplicasShareState: a session started on one replica, and a token
// issued by it, work on another replica of the same database.
func TestReplicasShareState(t *testing.T) {
	t.Parallel()
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		replica := s.Replica()
		b := s.Browser()
		f := b.Get(s.Base+"/login").Form(t, "", "")
		f.Set("email", testsite.OwnerEmail)
		f.Set("password", testsite.Password)
		b.Post(s.Base+"/login", f).Location(t)
		if p := b.Get(replica + "/settings/applications"); p.Status != http.StatusOK {
			t.Fatalf("session on the other replica: HTTP %d", p.Status)
		}
		tok := s.Exchange(s.Code())
		status, body, _ := s.API(replica+"/a/"+s.Slug, tok["access_token"].(string), "action=me")
		if status != 200 {
			t.Fatalf("token on the other replica: %d %v", status, body)
		}
		// A refresh on the first replica ends the token on the second at once.
		s.TokenCall("/oauth2/refresh", s.Creds("grant_type", "refresh_token", "refresh_token", tok["refresh_token"].(string)))
		if status, _, _ := s.API(replica+"/a/"+s.Slug, tok["access_token"].(string), "action=me"); status != 401 {
			t.Fatalf("refreshed-away token on the other replica: %d", status)
		}
	})
}

// TestConsentNamesApplication: the sign-in, account-selection and consent
// pages of an authorization name the application and the account that
// registered it, so a person can tell a look-alike from the real one.
func TestConsentNamesApplication(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	b := s.Browser()
	named := func(step string, p testsite.Page) {
		t.Helper()
		if !strings.Contains(p.Body, "<strong>My app</strong>") || !strings.Contains(p.Body, "an application registered by the account <strong>Acme</strong>") {
			t.Fatalf("%s does not name the application and its account:\n%s", step, p.Body)
		}
	}
	p := b.Get(s.AuthorizeURL())
	named("sign-in", p)
	f := p.Form(t, "", "")
	f.Set("email", testsite.UserEmail)
	f.Set("password", testsite.Password)
	next := b.Post(s.Base+"/login", f).Location(t)
	p = b.Get(s.Base + next.String())
	named("account selection", p)
	// Choosing is navigation: a GET form without the form token (which
	// must never be in an address), straight to the consent page.
	sel := p.Form(t, "account", s.Slug)
	if sel.Has("csrf") || !strings.Contains(p.Body, `<form method="get" action="/oauth2/authorize">`) {
		t.Fatalf("the account choice is not a GET form without the form token:\n%s", p.Body)
	}
	named("consent", b.Get(s.Base+"/oauth2/authorize?"+sel.Encode()))
	// A POST of the choice, as the pages sent it before, still leads there.
	for _, f := range p.Forms() {
		if f.Fields.Has("csrf") {
			sel.Set("csrf", f.Fields.Get("csrf"))
		}
	}
	next = b.Post(s.Base+"/oauth2/authorize", sel).Location(t)
	named("consent after a POST", b.Get(s.Base+next.String()))
}

// TestSignInNamesAskingApplication: a visitor sent to sign in by an
// authorization request reads which application asks ("Sign in to let My
// app reach your taskd data"), on the page /oauth2/authorize shows, on
// /login?next=… (where "Sign in as someone else" leads) and again after a
// wrong password. The name is the registered one, escaped; it shows only
// for a registered client and redirect URI on this server, never from the
// address's own words.
func TestSignInNamesAskingApplication(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	const asks = "Sign in to let <strong>My app</strong> reach your taskd data."
	authorize, err := url.Parse(s.AuthorizeURL())
	if err != nil {
		t.Fatal(err)
	}
	next := authorize.RequestURI()
	b := s.Browser()
	if p := b.Get(s.AuthorizeURL()); p.Status != http.StatusOK || !strings.Contains(p.Body, asks) {
		t.Fatalf("the sign-in page of an authorization: HTTP %d\n%s", p.Status, p.Body)
	}
	login := b.Get(s.Base + "/login?next=" + url.QueryEscape(next))
	if !strings.Contains(login.Body, asks) {
		t.Fatalf("/login?next=<authorization> does not name the application:\n%s", login.Body)
	}
	f := login.Form(t, "", "")
	f.Set("email", testsite.UserEmail)
	f.Set("password", "wrong")
	if p := b.Post(s.Base+"/login", f); p.Status != http.StatusUnauthorized || !strings.Contains(p.Body, asks) {
		t.Fatalf("after a wrong password: HTTP %d\n%s", p.Status, p.Body)
	}
	f.Set("password", testsite.Password)
	if to := b.Post(s.Base+"/login", f).Location(t); to.String() != next {
		t.Fatalf("signed in, sent to %s, want %s", to, next)
	}

	// The registered name is shown escaped.
	evil := s.CreateClient(s.Slug, `<b>Evil</b> & "Co"`, testsite.RedirectURI)
	q := authorize.Query()
	q.Set("client_id", evil["client_id"])
	if p := s.Browser().Get(s.Base + "/login?next=" + url.QueryEscape("/oauth2/authorize?"+q.Encode())); !strings.Contains(p.Body,
		"Sign in to let <strong>&lt;b&gt;Evil&lt;/b&gt; &amp; &#34;Co&#34;</strong> reach") {
		t.Fatalf("the name is not shown escaped:\n%s", p.Body)
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
		p := s.Browser().Get(s.Base + "/login?next=" + url.QueryEscape(next) + "&client_name=My+app")
		if p.Status != http.StatusOK || strings.Contains(p.Body, "Sign in to let") || strings.Contains(p.Body, "My app") {
			t.Errorf("%s: HTTP %d, names an application:\n%s", why, p.Status, p.Body)
		}
	}
}

// TestMyTasks: a member's tasks, assigned, created or subscribed, newest
// first, 50 to a page, by status; tasks of others are not listed.
func TestMyTasks(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	url := s.AccountURL()
	acct := "/a/" + s.Slug
	pid := s.APIID("action=post_project&title=Site")
	var first string
	for i := range 60 {
		_, task := testsite.APICall(t, url, s.Key, fmt.Sprintf("action=post_task&id_project=%s&title=Job+%02d&email_user_to=%s", pid, i, testsite.UserEmail))
		if i == 0 {
			first = task["data"].(map[string]any)["id"].(string)
		}
	}
	testsite.APICall(t, url, s.Key, "action=post_task&id_project="+pid+"&title=Owner+only")
	testsite.APICall(t, url, s.Key, "action=complete_task&id_task="+first)

	u := s.SignedIn(testsite.UserEmail)
	page := u.Get(s.Base + acct + "/my")
	if n := strings.Count(page.Body, "/project/"+pid+"/"); n != 50 || !strings.Contains(page.Body, "Job 59") || strings.Contains(page.Body, "Job 09") {
		t.Fatalf("first page: %d tasks\n%s", n, page.Body)
	}
	if strings.Contains(page.Body, "Owner only") || strings.Contains(page.Body, "Job 00") {
		t.Fatalf("the first page lists another's task or a done one:\n%s", page.Body)
	}
	older := u.Get(s.Base + acct + "/my?show=assigned&status=active&page=2")
	if n := strings.Count(older.Body, "/project/"+pid+"/"); n != 9 || !strings.Contains(older.Body, "Job 01") || !strings.Contains(older.Body, "Previous") {
		t.Fatalf("second page: %d tasks\n%s", n, older.Body)
	}
	if done := u.Get(s.Base + acct + "/my?status=done"); !strings.Contains(done.Body, "Job 00") || strings.Contains(done.Body, "Job 01") {
		t.Fatalf("done tasks:\n%s", done.Body)
	}
	if subs := u.Get(s.Base + acct + "/my?show=subscribed&status="); strings.Count(subs.Body, "/project/"+pid+"/") != 50 {
		t.Fatalf("subscribed tasks:\n%s", subs.Body)
	}
	if created := u.Get(s.Base + acct + "/my?show=created"); !strings.Contains(created.Body, "No tasks here.") {
		t.Fatalf("created by the user:\n%s", created.Body)
	}
	if got := rowNames(u.Get(s.Base + acct + "/my?q=job+05")); !slices.Equal(got, []string{"Job 05"}) {
		t.Errorf("a search of my tasks: %q", got)
	}
	if got := rowNames(u.Get(s.Base + acct + "/my?sort=name&assignee=" + testsite.OwnerEmail)); len(got) != 50 || got[0] != "Job 01" {
		t.Errorf("the assignee filter must not widen \"assigned to me\", and sort=name orders by name: %q", got)
	}

	// A guest sees their tasks only in the projects whose team they are on.
	const guest = "guest@acme.example"
	s.AddMember(s.Slug, guest, "Gus", "Guest", taskd.RoleGuest)
	_, open := testsite.APICall(t, url, s.Key, "action=post_project&title=Open&members="+guest)
	testsite.APICall(t, url, s.Key, "action=post_task&id_project="+open["data"].(map[string]any)["id"].(string)+"&title=Visible&email_user_to="+guest)
	testsite.APICall(t, url, s.Key, "action=post_task&id_project="+pid+"&title=Not+on+the+team&email_user_to="+guest)
	g := s.SignedIn(guest)
	for _, q := range []string{"", "?due=none", "?status=all&sort=due"} {
		if got := rowNames(g.Get(s.Base + acct + "/my" + q)); !slices.Equal(got, []string{"Visible"}) {
			t.Errorf("a guest's tasks%s: %q", q, got)
		}
	}
}
