package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/wire"
)

// eachAccount runs fn as a parallel subtest per database, each with a
// fresh server and an account on it: for the tests whose subject the
// database may change (the rule is testsite.Each's); the others take
// oneAccount.
func eachAccount(t *testing.T, fn func(t *testing.T, a *account)) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) { fn(t, newServer(t, d).newAccount(t)) })
}

// oneAccount runs fn as a subtest "sqlite", with a fresh server on SQLite
// and an account on it, for the tests the database does not change
// (testsite.Each gives the rule).
func oneAccount(t *testing.T, fn func(t *testing.T, a *account)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, newServer(t, testdb.New(t, "sqlite")).newAccount(t)) })
}

// server is a whole taskd (internal/testsite) on a loopback address,
// serving requests only, with the store and sealer behind it.
type server struct {
	URL    string
	DB     *store.DB
	Sealer *secret.Sealer
	site   *testsite.Site
}

// testFileLimits keep the tests' files small.
var testFileLimits = taskd.FileLimits{MaxFileBytes: 4 << 20, MaxAccountBytes: 64 << 20}

// newServer serves a test database.
func newServer(t testing.TB, d testdb.DB) *server {
	t.Helper()
	return newServerWith(t, d, testFileLimits)
}

// newServerWith serves a test database with the file limits.
func newServerWith(t testing.TB, d testdb.DB, limits taskd.FileLimits) *server {
	t.Helper()
	site := testsite.Start(t, d, testsite.Options{FileLimits: limits, KeepMail: true, Idle: true})
	return &server{URL: site.Base, DB: site.Store, Sealer: site.Sealer, site: site}
}

// replica is a second server on the same data.
func (s *server) replica() *server {
	r := *s
	r.URL = s.site.Replica()
	return &r
}

// account is one account of a test server, reached with its key.
type account struct {
	*server
	Slug  string
	Key   string
	Owner taskd.Person
	t     testing.TB
}

func (s *server) newAccount(t testing.TB) *account {
	t.Helper()
	a := testaccount.New(t, s.DB, testaccount.Options{Sealer: s.Sealer})
	return &account{server: s, Slug: a.Slug, Key: a.Key, Owner: a.Owner, t: t}
}

// in is the account as a step of a scenario sees it: a subtest t of the
// test that made it, whose failures its helpers report.
func (a *account) in(t testing.TB) *account {
	c := *a
	c.t = t
	return &c
}

// oauth returns an authorization server on the test server's store.
func (s *server) oauth(t testing.TB) *oauth.Server {
	t.Helper()
	srv, err := oauth.New(context.Background(), oauth.Config{Store: s.DB, Sealer: s.Sealer, Issuer: s.URL,
		AccountURL: func(slug string) string { return s.URL + "/a/" + slug }})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// accessToken runs the authorization-code grant in process for the
// account's owner and returns an access token with the scopes.
func accessToken(t testing.TB, s *server, a *account, scopes ...string) string {
	t.Helper()
	return tokenFor(t, s, a, a.Owner, taskd.RoleOwner, scopes...)
}

func (a *account) endpoint() string { return a.URL + "/a/" + a.Slug + "/api/admin/v2/" }

// response is a decoded API answer.
type response struct {
	HTTP int
	Body map[string]any
	Raw  string
}

func (r response) String() string { return fmt.Sprintf("HTTP %d %s", r.HTTP, r.Raw) }

// code returns status_code of an error response, or -1 for success.
func (r response) code() int {
	if r.Body["status"] == "ok" {
		return -1
	}
	if c, ok := r.Body["status_code"].(float64); ok {
		return int(c)
	}
	return -2
}

func (r response) data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

func (r response) list() []any {
	d, _ := r.Body["data"].([]any)
	return d
}

// query encodes pairs in order: "k1", "v1", "k2", "v2", ….
func query(pairs ...string) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, url.QueryEscape(pairs[i])+"="+url.QueryEscape(pairs[i+1]))
	}
	return strings.Join(parts, "&")
}

// call makes a GET with the query signed by hash.
func (a *account) call(pairs ...string) response {
	a.t.Helper()
	q := query(pairs...)
	return a.do(http.MethodGet, a.endpoint()+"?"+q+"&hash="+wire.Hash(q, a.Key), "", "", nil)
}

// ok calls and fails the test unless the answer is a success.
func (a *account) ok(pairs ...string) response {
	a.t.Helper()
	r := a.call(pairs...)
	if r.HTTP != 200 || r.Body["status"] != "ok" {
		a.t.Fatalf("%v: want ok, got %v", pairs, r)
	}
	return r
}

// fails calls and checks the error code.
func (a *account) fails(code api.Code, pairs ...string) response {
	a.t.Helper()
	r := a.call(pairs...)
	if r.code() != int(code) {
		a.t.Fatalf("%v: want status_code %d, got %v", pairs, code, r)
	}
	return r
}

func (a *account) do(method, target, contentType, body string, header http.Header) response {
	a.t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{HTTP: res.StatusCode, Raw: string(raw)}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		a.t.Fatalf("%s %s: content type %q, body %s", method, target, ct, raw)
	}
	if err := json.Unmarshal(raw, &r.Body); err != nil {
		a.t.Fatalf("%s %s: body is not a JSON object: %s", method, target, raw)
	}
	return r
}

func hashWith(q, key string) string { return wire.Hash(q, key) }

// as calls an action of the token path with an access token.
func (a *account) as(token string, pairs ...string) response {
	a.t.Helper()
	return a.do(http.MethodGet, a.URL+"/a/"+a.Slug+"/api/oauth2?"+query(pairs...), "", "", http.Header{"Authorization": {"Bearer " + token}})
}

// id calls, fails the test unless the answer is a success, and returns the
// id of what the call made.
func (a *account) id(pairs ...string) string {
	a.t.Helper()
	id, ok := a.ok(pairs...).data()["id"].(string)
	if !ok {
		a.t.Fatalf("%v: the answer has no id", pairs)
	}
	return id
}

// config is the account APIs' configuration on the server's store alone,
// for the tests and benchmarks that serve the APIs without the rest of
// taskd around them.
func (s *server) config(limits taskd.FileLimits) api.Config {
	if limits == (taskd.FileLimits{}) {
		limits = taskd.DefaultFileLimits
	}
	return api.Config{Store: s.DB, Directory: s.DB, Sealer: s.Sealer, FileLimits: limits}
}
