package oauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestOAuthFlow drives the authorization-code flow through the pages, then
// the token, API, refresh, resource, introspection and revocation endpoints.
func TestOAuthFlow(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		b := s.Browser()
		var (
			q                 url.Values
			access, refresh   string
			access2, refresh2 string
			tok3              map[string]any
		)

		if !t.Run("not signed in, authorize shows the sign-in page and consent redirects with a code", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			p := b.Get(s.AuthorizeURL())
			if p.Status != 200 || !strings.Contains(p.Body, `name="password"`) {
				t.Fatalf("want the sign-in page, got HTTP %d", p.Status)
			}
			for _, h := range []string{"X-Frame-Options", "Content-Security-Policy", "Referrer-Policy"} {
				if p.Header.Get(h) == "" {
					t.Errorf("page lacks %s", h)
				}
			}
			if !strings.Contains(p.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") || p.Header.Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("headers: %v", p.Header)
			}
			u := s.Consent(b, s.AuthorizeURL(), testsite.OwnerEmail, s.Slug, "allow")
			q = u.Query()
			if u.Scheme+"://"+u.Host+u.Path != testsite.RedirectURI || q.Get("state") != "xyz-state" || q.Get("iss") != s.Base || q.Get("code") == "" {
				t.Fatalf("redirect %s", u)
			}
		}) {
			return
		}

		t.Run("signed in, authorize goes to the selection page listing every account of the person", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			p := b.Get(s.AuthorizeURL())
			if !strings.Contains(p.Body, "Choose an account") || !strings.Contains(p.Body, `value="`+s.Other+`"`) || !strings.Contains(p.Body, `value="`+s.Slug+`"`) {
				t.Fatalf("selection page does not list both accounts:\n%s", p.Body)
			}
		})

		if !t.Run("the code is exchanged for a token set whose access token the JWKS verifies", func(t *testing.T) {
			s := s.In(t)
			tok := s.Exchange(q.Get("code"))
			if tok["token_type"] != "bearer" || tok["expires_in"] != float64(86400) || tok["account_url"] != s.AccountURL() ||
				tok["scope"] != "projects_read tasks_read tasks_write administrative" {
				t.Fatalf("token set %v", tok)
			}
			access, refresh = tok["access_token"].(string), tok["refresh_token"].(string)
			checkJWT(t, s, access)
		}) {
			return
		}

		if !t.Run("the token calls the account API within its scopes, on its own account only", func(t *testing.T) {
			s := s.In(t)
			status, body, _ := s.API(s.AccountURL(), access, "action=me")
			if status != 200 || body["data"].(map[string]any)["email"] != testsite.OwnerEmail {
				t.Fatalf("me: %d %v", status, body)
			}
			status, body, _ = s.API(s.AccountURL(), access, "action=post_task&id_project=1&title=x")
			if status != 200 || body["status_code"] != float64(4) { // tasks_write: allowed; project 1 is unknown
				t.Fatalf("post_task: %d %v", status, body)
			}
			status, body, hdr := s.API(s.AccountURL(), access, "action=get_comments&id_task=1")
			if status != 403 || body["status_code"] != float64(20) || !strings.Contains(hdr.Get("WWW-Authenticate"), "insufficient_scope") {
				t.Fatalf("missing scope: %d %v %v", status, body, hdr)
			}
			status, body, _ = s.API(s.AccountURL(), access, "action=get_events&period=1h")
			if status != 200 || body["status"] != "ok" {
				t.Fatalf("get_events with administrative: %d %v", status, body)
			}
			// access_token as a query parameter works too.
			status, _, _ = s.API(s.AccountURL(), "", "action=me&access_token="+url.QueryEscape(access))
			if status != 200 {
				t.Fatalf("access_token parameter: %d", status)
			}
			// Only on its own account's URL.
			status, body, hdr = s.API(s.Base+"/a/"+s.Other, access, "action=me")
			if status != 401 || !strings.Contains(hdr.Get("WWW-Authenticate"), `error="invalid_token"`) {
				t.Fatalf("token on another account: %d %v", status, body)
			}
			status, _, hdr = s.API(s.AccountURL(), "", "action=me")
			if status != 401 || hdr.Get("WWW-Authenticate") != `Bearer realm="taskd"` {
				t.Fatalf("no token: %d %v", status, hdr)
			}
			status, _, _ = s.API(s.AccountURL(), access+"x", "action=me")
			if status != 401 {
				t.Fatalf("tampered token: %d", status)
			}
		}) {
			return
		}

		if !t.Run("the resource endpoint answers to form credentials and to HTTP Basic", func(t *testing.T) {
			s := s.In(t)
			status, body, _ := s.TokenCall("/oauth2/resource", s.Creds("access_token", access))
			if status != 200 || body["email"] != testsite.OwnerEmail || body["first_name"] != "Olga" || body["account_url"] != s.AccountURL() || body["id"] == "" {
				t.Fatalf("resource: %d %v", status, body)
			}
			status, body, _ = s.TokenCall("/oauth2/resource", url.Values{"access_token": {access}}, s.Client["client_id"], s.Client["client_secret"])
			if status != 200 || body["last_name"] != "Owner" {
				t.Fatalf("resource with Basic: %d %v", status, body)
			}
		}) {
			return
		}

		if !t.Run("introspection shows the token active", func(t *testing.T) {
			s := s.In(t)
			status, body, _ := s.TokenCall("/oauth2/introspect", s.Creds("token", access))
			if status != 200 || body["active"] != true || body["client_id"] != s.Client["client_id"] {
				t.Fatalf("introspect: %d %v", status, body)
			}
		}) {
			return
		}

		if !t.Run("refresh gives a new pair and the old pair stops working at once", func(t *testing.T) {
			s := s.In(t)
			status, tok2, hdr := s.TokenCall("/oauth2/refresh", s.Creds("grant_type", "refresh_token", "refresh_token", refresh))
			if status != 200 || tok2["access_token"] == access || tok2["refresh_token"] == refresh || hdr.Get("Cache-Control") != "no-store" {
				t.Fatalf("refresh: %d %v", status, tok2)
			}
			if status, _, _ = s.API(s.AccountURL(), access, "action=me"); status != 401 {
				t.Fatalf("old access token after refresh: HTTP %d", status)
			}
			access2, refresh2 = tok2["access_token"].(string), tok2["refresh_token"].(string)
			if status, _, _ = s.API(s.AccountURL(), access2, "action=me"); status != 200 {
				t.Fatalf("new access token: HTTP %d", status)
			}
		}) {
			return
		}

		if !t.Run("grant_type=refresh_token works on /oauth2/token too", func(t *testing.T) {
			s := s.In(t)
			var status int
			status, tok3, _ = s.TokenCall("/oauth2/token", s.Creds("grant_type", "refresh_token", "refresh_token", refresh2))
			if status != 200 {
				t.Fatalf("refresh on /oauth2/token: %d %v", status, tok3)
			}
		}) {
			return
		}

		// After the window in which it is taken for a concurrent request.
		t.Run("a rotated refresh token presented again revokes the whole grant", func(t *testing.T) {
			s := s.In(t)
			s.Clock.Advance(11 * time.Second)
			status, body, _ := s.TokenCall("/oauth2/refresh", s.Creds("grant_type", "refresh_token", "refresh_token", refresh))
			if status != 400 || body["error"] != "invalid_grant" || body["errorDescription"] == nil {
				t.Fatalf("reused refresh token: %d %v", status, body)
			}
			if status, _, _ = s.API(s.AccountURL(), tok3["access_token"].(string), "action=me"); status != 401 {
				t.Fatalf("grant still works after refresh-token reuse: HTTP %d", status)
			}
			status, body, _ = s.TokenCall("/oauth2/refresh", s.Creds("grant_type", "refresh_token", "refresh_token", tok3["refresh_token"].(string)))
			if status != 400 {
				t.Fatalf("refresh of a revoked grant: %d %v", status, body)
			}
		})
	})
}

// checkJWT verifies the access token with the key the JWKS publishes, as a
// resource server would, independently of taskd's code.
func checkJWT(t *testing.T, s *testsite.Site, token string) {
	t.Helper()
	res, err := http.Get(s.Base + "/oauth2/jwks")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	json.NewDecoder(res.Body).Decode(&set)
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("access token is not a JWS: %q", token)
	}
	var hdr, claims map[string]any
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	json.Unmarshal(hb, &hdr)
	json.Unmarshal(cb, &claims)
	if hdr["typ"] != "at+jwt" || hdr["alg"] != "ES256" {
		t.Fatalf("header %v", hdr)
	}
	for _, c := range []string{"iss", "sub", "aud", "client_id", "scope", "iat", "exp", "jti", "account"} {
		if claims[c] == nil {
			t.Errorf("claim %s missing: %v", c, claims)
		}
	}
	if claims["iss"] != s.Base || claims["aud"] != s.AccountURL() || claims["account"] != s.Slug {
		t.Errorf("claims %v", claims)
	}
	for _, k := range set.Keys {
		if k["kid"] != hdr["kid"] {
			continue
		}
		x, _ := base64.RawURLEncoding.DecodeString(k["x"])
		y, _ := base64.RawURLEncoding.DecodeString(k["y"])
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			t.Fatalf("JWKS key: %v", err)
		}
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
			t.Fatal("signature does not verify with the JWKS key")
		}
		return
	}
	t.Fatalf("kid %v not in JWKS %v", hdr["kid"], set.Keys)
}

// TestOAuthCodeRules: single use (a second redemption revokes the grant),
// bound to client and redirect URI, 10 minutes, PKCE, and a request that
// fails client authentication consumes nothing.
func TestOAuthCodeRules(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		code := s.Code()
		redeem := func(pairs ...string) (int, map[string]any) {
			status, body, _ := s.TokenCall("/oauth2/token", s.Creds(append([]string{"grant_type", "authorization_code",
				"code", code, "redirect_uri", testsite.RedirectURI}, pairs...)...))
			return status, body
		}
		// Wrong secret: 401 invalid_client with a challenge, code not consumed.
		f := s.Creds("grant_type", "authorization_code", "code", code, "redirect_uri", testsite.RedirectURI)
		f.Set("client_secret", "wrong")
		status, body, hdr := s.TokenCall("/oauth2/token", f)
		if status != 401 || body["error"] != "invalid_client" || hdr.Get("WWW-Authenticate") == "" {
			t.Fatalf("bad secret: %d %v", status, body)
		}
		if status, body := redeem("redirect_uri", "https://app.example/other"); status != 400 || body["error"] != "invalid_grant" ||
			body["error_description"] != "redirect_uri must be exactly the one of the authorization request" {
			t.Fatalf("other redirect_uri: %d %v", status, body)
		}
		if status, body := redeem("code_verifier", strings.Repeat("a", 43)); status != 400 || body["error"] != "invalid_grant" {
			t.Fatalf("PKCE downgrade: %d %v", status, body)
		}
		// Only the client's own unused, unexpired code is told that its
		// redirect_uri is wrong: an unknown, used or expired code keeps the
		// generic description (docs/oauth.md), whatever the redirect_uri.
		const generic = "The code or refresh token is invalid, expired or already used"
		wrongURI := []string{"redirect_uri", "https://app.example/other"}
		for _, pairs := range [][]string{nil, wrongURI} {
			status, body, _ := s.TokenCall("/oauth2/token", s.Creds(append([]string{"grant_type", "authorization_code",
				"code", "no-such-code", "redirect_uri", testsite.RedirectURI}, pairs...)...))
			if status != 400 || body["error"] != "invalid_grant" || body["error_description"] != generic {
				t.Fatalf("unknown code %v: %d %v", pairs, status, body)
			}
		}
		tok := s.Exchange(code)
		if status, body := redeem(wrongURI...); status != 400 || body["error"] != "invalid_grant" || body["error_description"] != generic {
			t.Fatalf("second redemption, other redirect_uri: %d %v", status, body)
		}
		if status, body := redeem(); status != 400 || body["error"] != "invalid_grant" || body["error_description"] != generic {
			t.Fatalf("second redemption: %d %v", status, body)
		}
		if status, _, _ := s.API(s.AccountURL(), tok["access_token"].(string), "action=me"); status != 401 {
			t.Fatalf("tokens of a twice-redeemed code still work: %d", status)
		}
		status, _, _ = s.TokenCall("/oauth2/refresh", s.Creds("grant_type", "refresh_token", "refresh_token", tok["refresh_token"].(string)))
		if status != 400 {
			t.Fatalf("refresh token of a twice-redeemed code still works: %d", status)
		}

		// Expiry after 10 minutes.
		code = s.Code()
		s.Clock.Advance(10*time.Minute + time.Second)
		if status, body := redeem(); status != 400 || body["error"] != "invalid_grant" || body["error_description"] != generic {
			t.Fatalf("expired code: %d %v", status, body)
		}
		if status, body := redeem(wrongURI...); status != 400 || body["error"] != "invalid_grant" || body["error_description"] != generic {
			t.Fatalf("expired code, other redirect_uri: %d %v", status, body)
		}

		// PKCE S256.
		verifier := strings.Repeat("v", 50)
		sum := sha256.Sum256([]byte(verifier))
		code = s.Code("code_challenge", base64.RawURLEncoding.EncodeToString(sum[:]), "code_challenge_method", "S256")
		if status, _ := redeem(); status != 400 {
			t.Fatal("PKCE code redeemed without a verifier")
		}
		if status, _ := redeem("code_verifier", strings.Repeat("w", 50)); status != 400 {
			t.Fatal("PKCE code redeemed with a wrong verifier")
		}
		if status, body := redeem("code_verifier", verifier); status != 200 {
			t.Fatalf("PKCE: %d %v", status, body)
		}
	})
}

// TestOAuthParallelRefresh: of many refreshes with one token, exactly one
// succeeds, and its tokens keep working.
func TestOAuthParallelRefresh(t *testing.T) {
	t.Parallel()
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		tok := s.Exchange(s.Code())
		const n = 16
		var wg sync.WaitGroup
		results := make(chan map[string]any, n)
		for range n {
			wg.Go(func() {
				status, body, _ := s.TokenCall("/oauth2/refresh", s.Creds("grant_type", "refresh_token", "refresh_token", tok["refresh_token"].(string)))
				if status == 200 {
					results <- body
				} else if status != 400 || body["error"] != "invalid_grant" {
					t.Errorf("refresh: %d %v", status, body)
				}
			})
		}
		wg.Wait()
		close(results)
		var won []map[string]any
		for r := range results {
			won = append(won, r)
		}
		if len(won) != 1 {
			t.Fatalf("%d of %d parallel refreshes succeeded, want exactly 1", len(won), n)
		}
		if status, _, _ := s.API(s.AccountURL(), won[0]["access_token"].(string), "action=me"); status != 200 {
			t.Fatalf("the winning refresh's token: HTTP %d", status)
		}
	})
}

// TestOAuthExpiryAndRoles: an expired token's message, and administrative
// is not granted to a plain user.
func TestOAuthExpiryAndRoles(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	u := s.Consent(s.Browser(), s.AuthorizeURL(), testsite.UserEmail, s.Slug, "allow")
	tok := s.Exchange(u.Query().Get("code"))
	if tok["scope"] != "projects_read tasks_read tasks_write" {
		t.Fatalf("a plain user granted %v", tok["scope"])
	}
	status, body, _ := s.API(s.AccountURL(), tok["access_token"].(string), "action=get_events&period=1h")
	if status != 403 {
		t.Fatalf("get_events without administrative: %d %v", status, body)
	}
	s.Clock.Advance(24*time.Hour + time.Second)
	status, body, hdr := s.API(s.AccountURL(), tok["access_token"].(string), "action=me")
	if status != 401 || body["message"] != "Access token is expired" || !strings.Contains(hdr.Get("WWW-Authenticate"), "expired") {
		t.Fatalf("expired token: %d %v %v", status, body, hdr)
	}
	// The refresh token outlives it (1 month).
	status, _, _ = s.TokenCall("/oauth2/refresh", s.Creds("grant_type", "refresh_token", "refresh_token", tok["refresh_token"].(string)))
	if status != 200 {
		t.Fatalf("refresh after a day: %d", status)
	}
}

// TestOAuthEndpoints: metadata, revocation, introspection of dead tokens,
// GET requests of the official SDKs, and malformed requests.
func TestOAuthEndpoints(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var tok map[string]any

	t.Run("the metadata names the endpoints, and no userinfo endpoint", func(t *testing.T) {
		s := s.In(t)
		res, err := http.Get(s.Base + "/.well-known/oauth-authorization-server")
		if err != nil {
			t.Fatal(err)
		}
		var meta map[string]any
		json.NewDecoder(res.Body).Decode(&meta)
		res.Body.Close()
		if meta["issuer"] != s.Base || meta["token_endpoint"] != s.Base+"/oauth2/token" || meta["jwks_uri"] != s.Base+"/oauth2/jwks" ||
			!strings.Contains(testsite.JSON(meta["code_challenge_methods_supported"]), "S256") || meta["authorization_response_iss_parameter_supported"] != true {
			t.Fatalf("metadata %v", meta)
		}
		// /oauth2/resource needs client authentication besides the token, so
		// it is not an OpenID Connect UserInfo endpoint and is not advertised
		// as one (clients would send the Bearer token alone and fail).
		if _, ok := meta["userinfo_endpoint"]; ok {
			t.Fatalf("metadata advertises userinfo_endpoint: %v", meta)
		}
	})

	if !t.Run("a token request may be a GET with a query, as the official SDKs send it", func(t *testing.T) {
		s := s.In(t)
		code := s.Code()
		q := s.Creds("grant_type", "authorization_code", "code", code, "redirect_uri", testsite.RedirectURI)
		res, err := http.Get(s.Base + "/oauth2/token?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(res.Body).Decode(&tok)
		res.Body.Close()
		if res.StatusCode != 200 || tok["access_token"] == nil {
			t.Fatalf("GET token request: %d %v", res.StatusCode, tok)
		}
	}) {
		return
	}

	// Revocation as RFC 7009 has it.
	if !t.Run("another client's revocation does nothing, the owner's ends the grant, and an unknown token answers 200", func(t *testing.T) {
		s := s.In(t)
		other := s.CreateClient(s.Slug, "Other app", testsite.RedirectURI)
		otherCreds := url.Values{"client_id": {other["client_id"]}, "client_secret": {other["client_secret"]}, "token": {tok["access_token"].(string)}}
		if status, _, _ := s.TokenCall("/oauth2/revoke", otherCreds); status != 200 {
			t.Fatalf("revoke by another client: %d", status)
		}
		if status, body, _ := s.TokenCall("/oauth2/introspect", otherCreds); status != 200 || body["active"] != false {
			t.Fatalf("introspect by another client: %d %v", status, body)
		}
		if status, _, _ := s.API(s.AccountURL(), tok["access_token"].(string), "action=me"); status != 200 {
			t.Fatal("another client revoked the token")
		}
		if status, _, _ := s.TokenCall("/oauth2/revoke", s.Creds("token", tok["refresh_token"].(string))); status != 200 {
			t.Fatal("revoke")
		}
		if status, _, _ := s.API(s.AccountURL(), tok["access_token"].(string), "action=me"); status != 401 {
			t.Fatal("access token works after its refresh token was revoked")
		}
		if status, body, _ := s.TokenCall("/oauth2/introspect", s.Creds("token", tok["access_token"].(string))); status != 200 || body["active"] != false {
			t.Fatalf("introspect revoked: %d %v", status, body)
		}
		if status, _, _ := s.TokenCall("/oauth2/revoke", s.Creds("token", "unknown")); status != 200 {
			t.Fatal("revoke of an unknown token")
		}
	}) {
		return
	}

	t.Run("malformed token requests are refused with their OAuth errors", func(t *testing.T) {
		s := s.In(t)
		for _, tc := range []struct {
			name   string
			form   url.Values
			status int
			err    string
		}{
			{"no grant_type", s.Creds("code", "x"), 400, "invalid_request"},
			{"password grant", s.Creds("grant_type", "password"), 400, "unsupported_grant_type"},
			{"no code", s.Creds("grant_type", "authorization_code", "redirect_uri", testsite.RedirectURI), 400, "invalid_request"},
			{"unknown code", s.Creds("grant_type", "authorization_code", "code", "nope", "redirect_uri", testsite.RedirectURI), 400, "invalid_grant"},
			{"no client", url.Values{"grant_type": {"authorization_code"}, "code": {"x"}, "redirect_uri": {testsite.RedirectURI}}, 401, "invalid_client"},
			{"repeated", url.Values{"grant_type": {"refresh_token", "refresh_token"}}, 400, "invalid_request"},
		} {
			status, body, _ := s.TokenCall("/oauth2/token", tc.form)
			if status != tc.status || body["error"] != tc.err || body["error_description"] == "" {
				t.Errorf("%s: %d %v, want %d %s", tc.name, status, body, tc.status, tc.err)
			}
		}
		status, body, _ := s.TokenCall("/oauth2/refresh", s.Creds("grant_type", "authorization_code"))
		if status != 400 || body["error"] != "unsupported_grant_type" {
			t.Errorf("authorization_code on /oauth2/refresh: %d %v", status, body)
		}
		res, err := http.Post(s.Base+"/oauth2/token", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 400 {
			t.Errorf("JSON token request: %d", res.StatusCode)
		}
	})
}

// TestAdministrativeFollowsRole: a token with the administrative scope
// ends when its person is no longer an admin (taskd.TrustEnded); a token
// without it lives on, and acts with its person's role at each call.
func TestAdministrativeFollowsRole(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	s.AddMember(s.Slug, "admin@acme.example", "Ada", "Admin", taskd.RoleAdmin)
	u := s.Consent(s.Browser(), s.AuthorizeURL(), "admin@acme.example", s.Slug, "allow")
	tok := s.Exchange(u.Query().Get("code"))
	if !strings.Contains(tok["scope"].(string), "administrative") {
		t.Fatalf("an admin was not granted administrative: %v", tok["scope"])
	}
	access := tok["access_token"].(string)
	if status, body, _ := s.API(s.AccountURL(), access, "action=get_webhooks"); status != 200 {
		t.Fatalf("get_webhooks as admin: %d %v", status, body)
	}
	u = s.Consent(s.Browser(), s.AuthorizeURL("scope", "projects_write tasks_read"), "admin@acme.example", s.Slug, "allow")
	plain := s.Exchange(u.Query().Get("code"))["access_token"].(string)
	owner := s.SignedIn(testsite.OwnerEmail)
	setRole := func(role string) {
		people := owner.Get(s.Base + "/a/" + s.Slug + "/people")
		owner.Submit(s.Base, people, testsite.RoleForm(t, people, "admin@acme.example"), url.Values{"role": {role}}).Location(t)
	}
	setRole("user")
	if status, body, _ := s.API(s.AccountURL(), access, "action=get_tasks&id_project=1"); status != 401 || body["status_code"] != float64(2) {
		t.Fatalf("a token with the administrative scope after losing the admin role: %d %v", status, body)
	}
	if status, _, _ := s.API(s.AccountURL(), plain, "action=get_tasks&id_project=1"); status != 200 {
		t.Fatalf("a token without the administrative scope after the role change: %d", status)
	}
	if status, body, _ := s.API(s.AccountURL(), plain, "action=post_project&title=Mine"); status != 200 || body["status"] != "ok" {
		t.Fatalf("a user's write: %d %v", status, body)
	}
	setRole("reader")
	if status, body, _ := s.API(s.AccountURL(), plain, "action=post_project&title=Not+mine"); status != 403 || body["status_code"] != float64(20) {
		t.Fatalf("a reader's write with a token granted to an admin: %d %v", status, body)
	}
}
