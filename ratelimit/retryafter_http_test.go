package ratelimit_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/server"
	"github.com/taskd/taskd/store/storetest"
	"github.com/taskd/taskd/wire"
)

// limitedSite is a whole taskd on loopback whose clock the test moves, with
// one account whose owner signs in with password.
type limitedSite struct {
	base, slug, key, email string
	clock                  *storetest.Clock
}

// newLimitedSite serves taskd with the limits on a fresh database of the
// backend until the test ends, on a clock that stands still until the test
// moves it.
func newLimitedSite(t *testing.T, backend string, limits server.Limits) *limitedSite {
	t.Helper()
	clock := storetest.NewClock(time.Date(2026, 11, 23, 10, 0, 10, 250e6, time.UTC))
	site := testsite.Open(t, testdb.New(t, backend), testsite.Options{Limits: limits, Now: clock.Now})
	return &limitedSite{base: site.Base, slug: site.Slug, key: site.Key, email: testsite.OwnerEmail, clock: clock}
}

// TestRetryAfterOverHTTP: for the account API's limit per account, the
// token endpoint's limit per client address, sign-in's per e-mail and the
// password-reset request's (throttled as sign-ins are), the
// first request refused answers 429 with a Retry-After; one second short
// of it the request is refused still, and exactly then it gets through.
func TestRetryAfterOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits server.Limits
		send   func(t *testing.T, s *limitedSite) *http.Response
	}{
		{"account API per account", server.Limits{APIAccount: 3}, func(t *testing.T, s *limitedSite) *http.Response {
			q := "action=get_projects"
			return get(t, s.base+"/a/"+s.slug+"/api/admin/v2/?"+q+"&hash="+wire.Hash(q, s.key))
		}},
		{"token endpoint per address", server.Limits{TokenAddress: 3}, func(t *testing.T, s *limitedSite) *http.Response {
			return post(t, http.DefaultClient, s.base+"/oauth2/token", url.Values{"grant_type": {"client_credentials"}})
		}},
		{"sign-in per e-mail", server.Limits{}, signIn},
		{"reset request per e-mail", server.Limits{}, resetRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, backend := range testdb.Backends() {
				t.Run(backend, func(t *testing.T) {
					s := newLimitedSite(t, backend, tc.limits)
					var wait time.Duration
					for i := 0; wait == 0; i++ {
						if i == 20 {
							t.Fatal("20 requests and none refused")
						}
						wait = retryAfter(t, tc.send(t, s))
					}
					s.clock.Advance(wait - time.Second)
					if got := retryAfter(t, tc.send(t, s)); got == 0 {
						t.Fatalf("got through one second before its Retry-After of %v", wait)
					}
					s.clock.Advance(time.Second)
					if got := retryAfter(t, tc.send(t, s)); got != 0 {
						t.Fatalf("refused (Retry-After %v) after waiting its Retry-After of %v", got, wait)
					}
				})
			}
		})
	}
}

// retryAfter is a 429's Retry-After, or 0 for any other answer.
func retryAfter(t *testing.T, res *http.Response) time.Duration {
	t.Helper()
	defer res.Body.Close()
	io.Copy(io.Discard, res.Body)
	if res.StatusCode != http.StatusTooManyRequests {
		return 0
	}
	n, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || n < 1 {
		t.Fatalf("429 with Retry-After %q", res.Header.Get("Retry-After"))
	}
	return time.Duration(n) * time.Second
}

func get(t *testing.T, u string) *http.Response {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func post(t *testing.T, c *http.Client, u string, form url.Values) *http.Response {
	t.Helper()
	res, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signIn posts a wrong password for the owner from a browser of its own:
// the sign-in form with its cookie and form token.
func signIn(t *testing.T, s *limitedSite) *http.Response {
	t.Helper()
	return postPage(t, s, "/login", url.Values{"email": {s.email}, "password": {"not the password"}})
}

// resetRequest asks for a reset link for the owner's address from a
// browser of its own, as the password-reset page's form does.
func resetRequest(t *testing.T, s *limitedSite) *http.Response {
	t.Helper()
	return postPage(t, s, "/reset", url.Values{"email": {s.email}})
}

// postPage fetches the page at path with a fresh cookie jar and posts its
// form back with the fields and the page's form token.
func postPage(t *testing.T, s *limitedSite, path string, fields url.Values) *http.Response {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res := get(t, s.base+path)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	jar.SetCookies(res.Request.URL, res.Cookies())
	m := csrfRE.FindSubmatch(page)
	if m == nil {
		t.Fatalf("no form token on %s:\n%s", path, page)
	}
	fields.Set("csrf", strings.ReplaceAll(string(m[1]), "&#43;", "+"))
	return post(t, c, s.base+path, fields)
}
