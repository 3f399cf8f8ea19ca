package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/server"
)

// TestCookieFlags: the session and form-token cookies are HttpOnly and
// SameSite=Lax on path "/", and over HTTPS they are Secure and carry the
// __Host- prefix (so no subdomain or path can set or shadow them).
func TestCookieFlags(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	for _, tc := range []struct {
		public, prefix string
		secure         bool
	}{
		{"http://127.0.0.1", "", false},
		{"https://taskd.example", "__Host-", true},
	} {
		srv, err := server.New(context.Background(), server.Config{Store: s.Store, Sealer: s.Sealer, PublicURL: tc.public})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		t.Cleanup(ts.Close)
		check := func(res *http.Response, name string) *http.Cookie {
			t.Helper()
			for _, c := range res.Cookies() {
				if c.Name != tc.prefix+name {
					continue
				}
				if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" || c.Secure != tc.secure {
					t.Errorf("%s: cookie %s: HttpOnly %v SameSite %v Path %q Domain %q Secure %v (want Secure %v)",
						tc.public, c.Name, c.HttpOnly, c.SameSite, c.Path, c.Domain, c.Secure, tc.secure)
				}
				return c
			}
			t.Fatalf("%s: no cookie %s%s in %v", tc.public, tc.prefix, name, res.Header["Set-Cookie"])
			return nil
		}
		res, err := http.Get(ts.URL + "/login")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		csrfCookie := check(res, "csrf")
		login := testsite.Page{Body: readBody(t, ts.URL+"/login", csrfCookie)}
		f := login.Form(t, "", "")
		f.Set("email", testsite.OwnerEmail)
		f.Set("password", testsite.Password)
		req, _ := http.NewRequest("POST", ts.URL+"/login", strings.NewReader(f.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(csrfCookie)
		res, err = http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: sign-in: HTTP %d", tc.public, res.StatusCode)
		}
		check(res, "session")
	}
}

// readBody fetches a page with a cookie and returns its body.
func readBody(t *testing.T, u string, c *http.Cookie) string {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.AddCookie(c)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}
