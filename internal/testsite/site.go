// Package testsite builds a whole taskd for a test: the real server made by
// server.New, serving every route on a loopback address, on a fresh
// database of internal/testdb, with a real SMTP server for its mail. A site
// starts with an account "acme" (its owner and a plain user), a second
// account of the same owner, and one registered OAuth application; it hands
// out browsers (cookie-keeping HTTP clients), calls of the account APIs and
// OAuth endpoints, and the mail each person received.
//
// Every package's tests that need a running taskd use it (as River keeps
// riverdbtest beside its driver), so the composition root is written once:
// in server.New.
package testsite

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/smtptest"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/server"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/webhook"
)

// Clock is time.Now shifted by an offset tests move forward.
type Clock struct{ offset atomic.Int64 }

// Now is the clock's time.
func (c *Clock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// Site is a whole taskd (every route) on a loopback server. A site from
// Open (On, New, Limited) has an account "acme" (owner and a plain user),
// a second account "other" of the owner, and one registered application;
// one from Start has no account yet.
type Site struct {
	t      testing.TB
	opts   Options
	Base   string
	Clock  *Clock
	DB     testdb.DB
	Store  *store.DB // for fixtures
	Sealer *secret.Sealer
	Slug   string
	Other  string
	Key    string // acme's administrative key
	Client map[string]string
	Mail   *smtptest.Server // where replicas send mail, unless Options.KeepMail
	// mailsRead counts the messages MailTo returned, per address; the
	// copies of In and OnNewAccount share it.
	mailsRead *mailsRead
}

// mailsRead counts the messages MailTo returned, per address, for the
// steps of a test that may run in parallel.
type mailsRead struct {
	mu sync.Mutex
	n  map[string]int
}

// Options configure every replica of a site; the zero value is a site as
// serve runs it, without rate limits.
type Options struct {
	Limits     server.Limits    // rate limits; none when zero
	FileLimits taskd.FileLimits // taskd.DefaultFileLimits when zero
	// KeepMail makes replicas keep mail unsent and show it at /dev/mail,
	// as --dev without --smtp-url does.
	KeepMail bool
	// Idle serves requests only: no webhook dispatcher, mail outbox or
	// notifier runs, so what a test reads stays as its requests left it.
	Idle bool
	// Now is the replicas' clock; Site.Clock (the time, moved forward by
	// the test) when nil. A clock that stands still lets a test wait to
	// the second.
	Now func() time.Time
}

// The people of every site's account; both sign in with Password.
const (
	OwnerEmail = "owner@acme.example"
	UserEmail  = "user@acme.example"
	Password   = "correct horse battery"
)

// New is a site on a fresh SQLite database.
func New(t *testing.T) *Site { return On(t, testdb.New(t, "sqlite")) }

// On is a site on the database d.
func On(t testing.TB, d testdb.DB) *Site {
	t.Helper()
	return Open(t, d, Options{})
}

// Limited is On with rate limits on every replica.
func Limited(t testing.TB, d testdb.DB, limits server.Limits) *Site {
	t.Helper()
	return Open(t, d, Options{Limits: limits})
}

// Open is a site on d with its accounts "acme" and "other".
func Open(t testing.TB, d testdb.DB, o Options) *Site {
	t.Helper()
	s := Start(t, d, o)
	s.Slug, s.Other = testaccount.UniqueSlug("acme"), testaccount.UniqueSlug("other")
	s.Key = s.CreateAccount(s.Slug, "Acme", OwnerEmail, "Olga", "Owner")
	s.CreateAccount(s.Other, "Other", OwnerEmail, "", "")
	s.AddMember(s.Slug, UserEmail, "Uma", "User", taskd.RoleUser)
	s.Client = s.CreateClient(s.Slug, "My app", RedirectURI)
	return s
}

// Start serves a site on d with no account in it.
func Start(t testing.TB, d testdb.DB, o Options) *Site {
	t.Helper()
	s := &Site{t: t, opts: o, DB: d, Store: d.Open(t), Sealer: testdb.Sealer(t), Clock: &Clock{}, mailsRead: &mailsRead{n: map[string]int{}}}
	s.Mail = smtptest.Start(t, smtptest.StartTLS)
	s.Base = s.Replica()
	return s
}

// CreateAccount creates an account whose owner signs in with Password (an
// owner already registered keeps theirs) and returns its API key.
func (s *Site) CreateAccount(slug, name, email, first, last string) string {
	s.t.Helper()
	owner := testaccount.Person{Email: email, First: first, Last: last, Password: Password}
	if p, err := s.Store.PersonByEmail(context.Background(), email); err == nil {
		owner.Hash = p.PasswordHash
	}
	return testaccount.New(s.t, s.Store, testaccount.Options{Slug: slug, Name: name, Owner: owner, Sealer: s.Sealer}).Key
}

// AddMember adds a person, new to taskd or not, who signs in with
// Password, to an account.
func (s *Site) AddMember(slug, email, first, last string, role taskd.Role) {
	s.t.Helper()
	a, err := s.Store.AccountBySlug(context.Background(), slug)
	if err != nil {
		s.t.Fatal(err)
	}
	testaccount.Member(s.t, s.Store, a.ID, testaccount.Person{Email: email, First: first, Last: last, Password: Password}, role)
}

// CreateClient registers an application in an account and returns its
// client_id and client_secret.
func (s *Site) CreateClient(slug, name, redirect string) map[string]string {
	s.t.Helper()
	ctx := context.Background()
	a, err := s.Store.AccountBySlug(ctx, slug)
	if err != nil {
		s.t.Fatal(err)
	}
	c, sec, err := oauth.NewClient(a.ID, name, []string{redirect})
	if err != nil {
		s.t.Fatal(err)
	}
	if c, err = s.Store.CreateClient(ctx, c); err != nil {
		s.t.Fatal(err)
	}
	return map[string]string{"client_id": c.ClientID, "client_secret": sec}
}

// Replica starts a taskd on its own connection to the site's database and
// returns its URL. The first replica's URL is the public URL of all of
// them.
func (s *Site) Replica() string {
	t := s.t
	t.Helper()
	ctx := context.Background()
	now := s.Clock.Now
	if s.opts.Now != nil {
		now = s.opts.Now
	}
	db := s.DB.OpenWith(t, store.Options{Now: now})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	public := s.Base
	if public == "" {
		public = base
	}
	log := slog.New(slog.DiscardHandler)
	hooks := webhook.NewService(db, s.Sealer, webhook.NewHTTPClient(true), now, log)
	outbox := &mail.Outbox{From: "taskd <taskd@acme.example>", Poll: 20 * time.Millisecond}
	if !s.opts.KeepMail {
		outbox.Sender = s.Mail.Client(t, "")
	}
	srv, err := server.New(ctx, server.Config{Store: db, Sealer: s.Sealer, Log: log, Now: now, PublicURL: public, Hooks: hooks,
		Limits: s.opts.Limits, FileLimits: s.opts.FileLimits, Dispatch: webhook.DispatcherConfig{Poll: 10 * time.Millisecond},
		Mail: outbox, ShowMail: s.opts.KeepMail, NotifyWindow: time.Hour, NotifyPoll: 20 * time.Millisecond,
		Passwords: testaccount.Hasher()})
	if err != nil {
		t.Fatal(err)
	}
	if s.opts.Idle {
		idle := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
		go idle.Serve(ln)
		t.Cleanup(func() { idle.Close() })
		return base
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

// In is the site as a step of a scenario sees it: t, a subtest of the
// test that opened the site, is the test its helpers fail. The copy shares
// everything else with s; a browser it makes fails t too.
func (s *Site) In(t testing.TB) *Site {
	c := *s
	c.t = t
	return &c
}

// OnNewAccount is the site as a step sees it (In), on an account of its
// own: a new account of the site's owner, with its own administrative key
// and registered application. Steps that run in parallel on one site
// each take one, so that what one does to its account (a new key, a
// member removed) leaves the others' as they were.
func (s *Site) OnNewAccount(t testing.TB, name string) *Site {
	t.Helper()
	c := s.In(t)
	c.Slug = testaccount.UniqueSlug(name)
	c.Key = c.CreateAccount(c.Slug, name, OwnerEmail, "Olga", "Owner")
	c.Client = c.CreateClient(c.Slug, "My app", RedirectURI)
	return c
}

// AccountURL is the address of the site's account "acme".
func (s *Site) AccountURL() string { return s.Base + "/a/" + s.Slug }

// Owner returns the site's account and its owner as an actor, to set up
// data through the store.
func (s *Site) Owner() (taskd.Account, taskd.Actor) {
	s.t.Helper()
	ctx := context.Background()
	acct, err := s.Store.AccountBySlug(ctx, s.Slug)
	if err != nil {
		s.t.Fatal(err)
	}
	m, err := s.Store.MemberByEmail(ctx, acct.ID, OwnerEmail)
	if err != nil {
		s.t.Fatal(err)
	}
	return acct, taskd.Actor{AccountID: acct.ID, Person: m.Ref(), Role: m.Role}
}

// Browser is a new browser of the site (see NewBrowser).
func (s *Site) Browser() *Browser { return NewBrowser(s.t) }

// NewBrowser is a new browser, of a site or of a taskd the test started
// otherwise. Each browser connects from its own loopback address
// (127.x.y.z), so that the sign-in limits per client address, counted in
// the database, do not add up across the browsers of one test.
func NewBrowser(t testing.TB) *Browser {
	jar, _ := cookiejar.New(nil)
	from := &net.TCPAddr{IP: net.IPv4(127, byte(1+rand.IntN(254)), byte(rand.IntN(256)), byte(1+rand.IntN(254)))}
	transport := &http.Transport{DialContext: (&net.Dialer{LocalAddr: from, Timeout: 5 * time.Second}).DialContext}
	t.Cleanup(transport.CloseIdleConnections)
	return &Browser{t: t, C: &http.Client{Jar: jar, Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// Each runs fn on a site of each database of testdb.Backends, as parallel
// subtests named by the backend. It is for the tests whose subject is
// something SQLite and PostgreSQL may do differently; every other test
// runs on One. A test takes both databases when it tests:
//
//   - the visibility and authorization matrices (every read and live
//     stream for every viewer, one account's ids from another, the
//     credential table, what a removal ends): one rule answered by many
//     queries;
//   - concurrency and atomicity: requests that race for one row or count
//     (a refresh token, the sign-in limits, parallel writes), runs and
//     uploads cut short mid-write;
//   - state shared by replicas (sessions, caches, keys, counts), and
//     LISTEN/NOTIFY;
//   - webhooks, which the dispatcher claims and retries in the database;
//   - text the databases keep or compare differently: NUL bytes, invalid
//     UTF-8, the search language's matching.
//
// Pages, forms, API answers, OAuth flows, mail, browser tests and the
// import's rules send the same queries whichever database answers, and
// the store's own tests (the conformance suite among them) prove that
// both answer alike: they run on One.
func Each(t *testing.T, fn func(t *testing.T, s *Site)) {
	t.Helper()
	for _, name := range testdb.Backends() {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // a site and a database of its own
			fn(t, On(t, testdb.New(t, name)))
		})
	}
}

// One runs fn on a site on SQLite, as a subtest named "sqlite" as Each
// names it: the test of something the database does not change (see
// Each for the rule).
func One(t *testing.T, fn func(t *testing.T, s *Site)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, On(t, testdb.New(t, "sqlite"))) })
}
