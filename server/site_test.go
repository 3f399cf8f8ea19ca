package server

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/smtptest"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/webhook"
)

const redirectURI = "https://app.example/cb"

// clock is time.Now shifted by an offset tests move forward.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// oauthSite is a whole taskd (every route) on a loopback server, with an
// account "acme" (owner and a plain user), a second account "other" of the
// owner, and one registered application.
type oauthSite struct {
	t      testing.TB
	base   string
	clock  *clock
	db     testdb.DB
	setup  *store.DB // for fixtures
	sealer *secret.Sealer
	slug   string
	other  string
	key    string // acme's administrative key
	client map[string]string
	limits Limits // of every replica; none by default
	mail   *smtptest.Server
	// mailsRead counts the messages mailTo returned, per address.
	mailsRead map[string]int
	// keepMail makes replicas keep mail unsent and show it at /dev/mail,
	// as --dev without --smtp-url does.
	keepMail bool
}

const (
	ownerEmail = "owner@acme.example"
	userEmail  = "user@acme.example"
	password   = "correct horse battery"
)

func newOAuthSite(t testing.TB, d testdb.DB) *oauthSite {
	t.Helper()
	return newLimitedSite(t, d, Limits{})
}

// newLimitedSite is newOAuthSite with rate limits.
func newLimitedSite(t testing.TB, d testdb.DB, limits Limits) *oauthSite {
	t.Helper()
	return newSiteWith(t, &oauthSite{db: d, limits: limits})
}

// newSiteWith completes a site of which s holds the database and options.
func newSiteWith(t testing.TB, s *oauthSite) *oauthSite {
	t.Helper()
	s.t, s.setup, s.sealer, s.clock = t, s.db.Open(t), testdb.Sealer(t), &clock{}
	s.slug, s.other, s.mail, s.mailsRead = uniqueSlug("acme"), uniqueSlug("other"), smtptest.Start(t, smtptest.StartTLS), map[string]int{}
	s.key = s.createAccount(s.slug, "Acme", ownerEmail, "Olga", "Owner")
	s.createAccount(s.other, "Other", ownerEmail, "", "")
	s.addMember(s.slug, userEmail, "Uma", "User", taskd.RoleUser)
	s.client = s.createClient(s.slug, "My app", redirectURI)
	s.base = s.replica()
	return s
}

// newSite is a site on a fresh SQLite database.
func newSite(t *testing.T) *oauthSite { return newOAuthSite(t, testdb.New(t, "sqlite")) }

// backends gives the test a fresh database on each backend.
func backends(t *testing.T) map[string]testdb.DB {
	b := map[string]testdb.DB{}
	for _, name := range testdb.Backends() {
		b[name] = testdb.New(t, name)
	}
	return b
}

// createAccount creates an account whose owner signs in with password (an
// owner already registered keeps theirs) and returns its API key.
func (s *oauthSite) createAccount(slug, name, email, first, last string) string {
	s.t.Helper()
	ctx := context.Background()
	owner := s.person(email, first, last)
	if p, err := s.setup.PersonByEmail(ctx, email); err == nil {
		owner.PasswordHash = p.PasswordHash
	}
	key := secret.APIKey()
	if _, _, err := s.setup.CreateAccount(ctx, taskd.NewAccount{Slug: slug, Name: name,
		APIKey: s.sealer.SealAPIKey(slug, key), Owner: owner}); err != nil {
		s.t.Fatal(err)
	}
	return key
}

// addMember adds a person, new to taskd or not, to an account.
func (s *oauthSite) addMember(slug, email, first, last string, role taskd.Role) {
	s.t.Helper()
	ctx := context.Background()
	a, err := s.setup.AccountBySlug(ctx, slug)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.setup.AddMember(ctx, a.ID, s.person(email, first, last), role); err != nil {
		s.t.Fatal(err)
	}
}

// person is a new person who signs in with password.
func (s *oauthSite) person(email, first, last string) taskd.NewPerson {
	s.t.Helper()
	p, err := taskd.PreparePerson(email, password, first, last, secret.HashPassword)
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

// createClient registers an application in an account and returns its
// client_id and client_secret.
func (s *oauthSite) createClient(slug, name, redirect string) map[string]string {
	s.t.Helper()
	ctx := context.Background()
	a, err := s.setup.AccountBySlug(ctx, slug)
	if err != nil {
		s.t.Fatal(err)
	}
	c, sec, err := oauth.NewClient(a.ID, name, []string{redirect})
	if err != nil {
		s.t.Fatal(err)
	}
	if c, err = s.setup.CreateClient(ctx, c); err != nil {
		s.t.Fatal(err)
	}
	return map[string]string{"client_id": c.ClientID, "client_secret": sec}
}

// replica starts a taskd on its own connection to the site's database and
// returns its URL. The first replica's URL is the public URL of all of
// them.
func (s *oauthSite) replica() string {
	t := s.t
	t.Helper()
	ctx := context.Background()
	db := s.db.OpenWith(t, store.Options{Now: s.clock.now})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	public := s.base
	if public == "" {
		public = base
	}
	log := slog.New(slog.DiscardHandler)
	hooks := webhook.NewService(db, s.sealer, webhook.NewHTTPClient(true), s.clock.now, log)
	outbox := &mail.Outbox{From: "taskd <taskd@acme.example>", Sender: s.mail.Client(t, ""), Poll: 20 * time.Millisecond}
	if s.keepMail {
		outbox.Sender = nil
	}
	srv, err := New(ctx, Config{Store: db, Sealer: s.sealer, Log: log, Now: s.clock.now, PublicURL: public, Hooks: hooks,
		Limits: s.limits, Dispatch: webhook.DispatcherConfig{Poll: 10 * time.Millisecond},
		Mail: outbox, ShowMail: s.keepMail, NotifyWindow: time.Hour, NotifyPoll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return base
}

// mailTo waits for the next message to the address that this call has
// not returned yet, and returns it read back.
func (s *oauthSite) mailTo(t *testing.T, to string) smtptest.Parsed {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		seen := 0
		for _, m := range s.mail.Messages() {
			if m.To != to {
				continue
			}
			if seen++; seen > s.mailsRead[to] {
				s.mailsRead[to]++
				return smtptest.Parse(t, m.Data)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new mail to %s (%d read before)", to, s.mailsRead[to])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var linkRE = regexp.MustCompile(`https?://[^\s"<>]+\?t=[A-Za-z0-9_-]+`)

// linkIn returns the one-time link of a message, as a path and query on
// the site.
func (s *oauthSite) linkIn(t *testing.T, m smtptest.Parsed) string {
	t.Helper()
	raw := linkRE.FindString(m.Text)
	u, err := url.Parse(raw)
	if raw == "" || err != nil || !strings.HasPrefix(raw, s.base) {
		t.Fatalf("no link to %s in the mail:\n%s", s.base, m.Text)
	}
	if !strings.Contains(m.HTML, html.EscapeString(raw)) {
		t.Fatalf("the HTML part lacks the link %s:\n%s", raw, m.HTML)
	}
	return u.RequestURI()
}

// apiCall makes a hash-signed GET and returns the HTTP status and body.
// okReceiver is a webhook destination that accepts every delivery.
func okReceiver(t testing.TB) *httptest.Server {
	t.Helper()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(recv.Close)
	return recv
}

// apiOK calls the site's account API with its key and fails the test
// unless the answer is ok.
func (s *oauthSite) apiOK(query string) map[string]any {
	s.t.Helper()
	status, body := apiCall(s.t, s.accountURL(), s.key, query)
	if status != 200 || body["status"] != "ok" {
		s.t.Fatalf("%s: %d %v", query, status, body)
	}
	return body
}

func apiCall(t testing.TB, accountURL, key, q string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", accountURL+"/api/admin/v2/?"+q+"&hash="+api.Hash(q, key), nil)
	status, body, _ := doJSON(t, req)
	return status, body
}

var slugN atomic.Int64

func uniqueSlug(prefix string) string { return fmt.Sprintf("%s-%d", prefix, slugN.Add(1)) }

func (s *oauthSite) accountURL() string { return s.base + "/a/" + s.slug }

// owner returns the site's account and its owner as an actor, to set up
// data through the store.
func (s *oauthSite) owner() (taskd.Account, taskd.Actor) {
	s.t.Helper()
	ctx := context.Background()
	acct, err := s.setup.AccountBySlug(ctx, s.slug)
	if err != nil {
		s.t.Fatal(err)
	}
	m, err := s.setup.MemberByEmail(ctx, acct.ID, ownerEmail)
	if err != nil {
		s.t.Fatal(err)
	}
	return acct, taskd.Actor{AccountID: acct.ID, Person: m.Ref(), Role: m.Role}
}

// browser is a cookie-keeping client that does not follow redirects.
type browser struct {
	t testing.TB
	c *http.Client
}

// Each browser connects from its own loopback address (127.x.y.z), so that
// the sign-in limits per client address, counted in the database, do not
// add up across the browsers of one test.
func (s *oauthSite) browser() *browser {
	jar, _ := cookiejar.New(nil)
	from := &net.TCPAddr{IP: net.IPv4(127, byte(1+rand.IntN(254)), byte(rand.IntN(256)), byte(1+rand.IntN(254)))}
	transport := &http.Transport{DialContext: (&net.Dialer{LocalAddr: from, Timeout: 5 * time.Second}).DialContext}
	s.t.Cleanup(transport.CloseIdleConnections)
	return &browser{t: s.t, c: &http.Client{Jar: jar, Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// page is a fetched response with its body.
type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(method, u string, form url.Values) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return page{status: res.StatusCode, header: res.Header, body: string(raw)}
}

func (b *browser) get(u string) page                   { return b.do("GET", u, nil) }
func (b *browser) post(u string, form url.Values) page { return b.do("POST", u, form) }

var (
	formRE   = regexp.MustCompile(`(?s)<form[^>]*action="([^"]*)"[^>]*>(.*?)</form>`)
	hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// forms returns each form's action and hidden fields.
func (p page) forms() []struct {
	action string
	fields url.Values
} {
	var out []struct {
		action string
		fields url.Values
	}
	for _, m := range formRE.FindAllStringSubmatch(p.body, -1) {
		f := url.Values{}
		for _, h := range hiddenRE.FindAllStringSubmatch(m[2], -1) {
			f.Add(html.UnescapeString(h[1]), html.UnescapeString(h[2]))
		}
		out = append(out, struct {
			action string
			fields url.Values
		}{html.UnescapeString(m[1]), f})
	}
	return out
}

// form returns the hidden fields of the first form whose fields include
// name=value (or of the first form when name is empty).
func (p page) form(t testing.TB, name, value string) url.Values {
	t.Helper()
	for _, f := range p.forms() {
		if name == "" || f.fields.Get(name) == value {
			return f.fields
		}
	}
	t.Fatalf("no form with %s=%s in page (HTTP %d):\n%s", name, value, p.status, p.body)
	return nil
}

func (p page) location(t testing.TB) *url.URL {
	t.Helper()
	if p.status != http.StatusSeeOther && p.status != http.StatusFound {
		t.Fatalf("HTTP %d, want a redirect:\n%s", p.status, p.body)
	}
	u, err := url.Parse(p.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// authorizeURL is an authorization request of the site's application.
func (s *oauthSite) authorizeURL(extra ...string) string {
	q := url.Values{"client_id": {s.client["client_id"]}, "response_type": {"code"}, "redirect_uri": {redirectURI},
		"state": {"xyz-state"}, "scope": {"projects_read tasks_read tasks_write administrative"}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return s.base + "/oauth2/authorize?" + q.Encode()
}

// consent runs the pages from an authorization request to the redirect back
// to the application, for a person choosing an account, and returns it.
func (s *oauthSite) consent(b *browser, authURL, email, slug, decision string) *url.URL {
	t := s.t
	t.Helper()
	p := b.get(authURL)
	if p.status == http.StatusOK && strings.Contains(p.body, `name="password"`) {
		f := p.form(t, "", "")
		f.Set("email", email)
		f.Set("password", password)
		next := b.post(s.base+"/login", f).location(t)
		p = b.get(s.base + next.String())
	}
	if p.status != http.StatusOK || !strings.Contains(p.body, "Choose an account") {
		t.Fatalf("want the user-selection page, got HTTP %d:\n%s", p.status, p.body)
	}
	sel := b.post(s.base+"/oauth2/authorize", p.form(t, "account", slug)).location(t)
	p = b.get(s.base + sel.String())
	if p.status != http.StatusOK || !strings.Contains(p.body, "Allow access?") {
		t.Fatalf("want the consent page, got HTTP %d:\n%s", p.status, p.body)
	}
	f := p.form(t, "account", slug)
	f.Set("decision", decision)
	return b.post(s.base+"/oauth2/authorize", f).location(t)
}

// code runs the whole flow as the owner and returns an authorization code.
func (s *oauthSite) code(extra ...string) string {
	s.t.Helper()
	u := s.consent(s.browser(), s.authorizeURL(extra...), ownerEmail, s.slug, "allow")
	c := u.Query().Get("code")
	if c == "" {
		s.t.Fatalf("no code in %s", u)
	}
	return c
}

// tokenCall posts a form to an OAuth endpoint and decodes the JSON answer.
func (s *oauthSite) tokenCall(path string, form url.Values, basic ...string) (int, map[string]any, http.Header) {
	s.t.Helper()
	req, _ := http.NewRequest("POST", s.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(url.QueryEscape(basic[0]), url.QueryEscape(basic[1]))
	}
	return doJSON(s.t, req)
}

// creds returns the form with the application's credentials added.
func (s *oauthSite) creds(pairs ...string) url.Values {
	f := url.Values{"client_id": {s.client["client_id"]}, "client_secret": {s.client["client_secret"]}}
	for i := 0; i+1 < len(pairs); i += 2 {
		f.Set(pairs[i], pairs[i+1])
	}
	return f
}

// exchange redeems a code and fails the test unless it works.
func (s *oauthSite) exchange(code string, pairs ...string) map[string]any {
	s.t.Helper()
	status, body, _ := s.tokenCall("/oauth2/token", s.creds(append([]string{"grant_type", "authorization_code",
		"code", code, "redirect_uri", redirectURI}, pairs...)...))
	if status != 200 {
		s.t.Fatalf("token exchange: HTTP %d %v", status, body)
	}
	return body
}

// api calls the account API with a bearer token.
func (s *oauthSite) api(accountURL, token, query string) (int, map[string]any, http.Header) {
	s.t.Helper()
	req, _ := http.NewRequest("GET", accountURL+"/api/oauth2?"+query, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return doJSON(s.t, req)
}

// doJSON sends req and decodes the JSON object it answers.
func doJSON(t testing.TB, req *http.Request) (int, map[string]any, http.Header) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatalf("%s %s: answer is not JSON: %v", req.Method, req.URL.Path, err)
	}
	return res.StatusCode, body, res.Header
}

func decodeJSON(r *http.Request, v any) { json.NewDecoder(r.Body).Decode(v) }

func jsonNumber(v any) string { return strconv.FormatFloat(v.(float64), 'f', -1, 64) }
