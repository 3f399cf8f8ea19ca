package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/metrics"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/web"
	"github.com/taskd/taskd/webhook"
)

// site is what the routes need.
type site struct {
	db         *store.DB
	sealer     *secret.Sealer
	log        *slog.Logger
	now        func() time.Time
	publicURL  string // {auth_url}, no trailing slash
	secure     bool   // cookies Secure: HTTPS here or at the proxy
	trustProxy bool
	strict     bool // --strict-oauth
	hooks      *webhook.Service
	metrics    *metrics.Registry // nil: no /metrics
	limits     rateLimits
}

// rateLimits are requests per minute; 0 turns a limit off.
type rateLimits struct {
	apiAccount, apiAddress     int // both account APIs
	tokenAccount, tokenAddress int // the OAuth token endpoints
}

// limiter returns a shared limiter of n requests a minute, or nil for 0.
func (s site) limiter(name string, n int) *ratelimit.Shared {
	if n <= 0 {
		return nil
	}
	return ratelimit.NewShared(ratelimit.SharedConfig{Name: name, Store: s.db, Limit: ratelimit.PerMinute(n), Now: s.now, Log: s.log})
}

// routes lists every address the server answers, in one place.
func routes(ctx context.Context, s site) (http.Handler, error) {
	acctURL := func(slug string) string { return accountURL(s.publicURL, slug) }
	auth, err := oauth.New(ctx, oauth.Config{Store: s.db, Sealer: s.sealer, Issuer: s.publicURL, AccountURL: acctURL,
		Strict: s.strict, Now: s.now, Log: s.log, Limits: oauth.Limits{
			PerAddress: s.limiter("token-address:", s.limits.tokenAddress),
			PerAccount: s.limiter("token-account:", s.limits.tokenAccount), TrustProxy: s.trustProxy}})
	if err != nil {
		return nil, err
	}
	pages, err := web.New(web.Config{Store: s.db, OAuth: auth, Hooks: s.hooks, Sealer: s.sealer, Log: s.log, Now: s.now,
		AccountURL: acctURL, Secure: s.secure, TrustProxy: s.trustProxy})
	if err != nil {
		return nil, err
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := s.db.Ping(r.Context()); err != nil {
			s.log.WarnContext(r.Context(), "not ready", "err", err)
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})

	admin := api.NewAdmin(s.db, s.sealer, s.log, s.now).WithLimits(api.Limits{
		PerAddress: s.limiter("api-address:", s.limits.apiAddress),
		PerAccount: s.limiter("api-account:", s.limits.apiAccount), TrustProxy: s.trustProxy})
	if s.hooks != nil {
		admin.WithWebhooks(s.hooks)
	}
	mux.Handle("/a/{slug}/api/admin/v2", admin)
	mux.Handle("/a/{slug}/api/admin/v2/{$}", admin)
	bearer := admin.OAuth(auth)
	mux.Handle("/a/{slug}/api/oauth2", bearer)
	mux.Handle("/a/{slug}/api/oauth2/{$}", bearer)

	endpoints := auth.Handler()
	for _, p := range []string{"/oauth2/token", "/oauth2/refresh", "/oauth2/resource", "/oauth2/revoke",
		"/oauth2/introspect", "/oauth2/jwks", "/.well-known/oauth-authorization-server"} {
		mux.Handle(p, endpoints)
	}
	ui := pages.Handler()
	for _, p := range []string{"/{$}", "/login", "/logout", "/invitations", "/invitations/", "/oauth2/authorize", "/settings/", "/a/{slug}/", "/static/"} {
		mux.Handle(p, ui)
	}

	notFound := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"status":"error","status_code":0,"message":"Not found"}` + "\n"))
	}
	mux.HandleFunc("/a/{slug}/api/", notFound) // API clients get JSON, not a page
	mux.HandleFunc("/", notFound)
	var h http.Handler = mux
	if s.metrics != nil {
		mux.Handle("GET /metrics", s.metrics.Handler())
		h = withMetrics(s.metrics, h)
	}
	if s.secure {
		h = withHSTS(h)
	}
	return withRecover(s.log, withAccessLog(s.log, h)), nil
}
