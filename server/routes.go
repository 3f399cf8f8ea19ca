package server

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/admit"
	"github.com/taskd/taskd/internal/buildinfo"
	"github.com/taskd/taskd/internal/upload"
	"github.com/taskd/taskd/live"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/web"
)

// limiter returns a shared limiter of n requests a minute, or nil for 0.
// Its counts go to the database with the other limiters' of batch, in the
// background.
func (c Config) limiter(name string, n int, batch *ratelimit.Batch) *ratelimit.Shared {
	if n <= 0 {
		return nil
	}
	return ratelimit.NewShared(ratelimit.SharedConfig{Name: name, Store: c.Store, Limit: ratelimit.PerMinute(n), Now: c.Now, Log: c.Log,
		Batch: batch})
}

// routes puts every package's addresses on one mux (each package mounts
// its own) and wraps it in the middleware. Every shared limiter's counts
// reach the database through batch: in one statement a second at most,
// never on a request's path. The pages' live streams are hub's.
func routes(ctx context.Context, c Config, batch *ratelimit.Batch, hub *live.Hub) (http.Handler, error) {
	acctURL := func(slug string) string { return AccountURL(c.PublicURL, slug) }
	auth, err := oauth.New(ctx, oauth.Config{Store: c.Store, Sealer: c.Sealer, Issuer: c.PublicURL, AccountURL: acctURL,
		Strict: c.StrictOAuth, Now: c.Now, Log: c.Log, Limits: oauth.Limits{
			PerAddress: c.limiter("token-address:", c.Limits.TokenAddress, batch),
			PerAccount: c.limiter("token-account:", c.Limits.TokenAccount, batch), TrustProxy: c.TrustProxy}})
	if err != nil {
		return nil, err
	}
	folks := &people.Service{Store: c.Store, Outbox: c.Mail, PublicURL: c.PublicURL, Now: c.Now}
	if c.Limits.Mail != (people.MailLimits{}) {
		folks.Budget = people.NewBudget(c.Store, c.Limits.Mail, c.Now)
	}
	uploads := upload.New(c.Limits.Uploads) // one gate: the API's uploads and the pages' count together
	limits := c.FileLimits
	if limits == (taskd.FileLimits{}) {
		limits = taskd.DefaultFileLimits
	}
	pageCfg := web.Config{Projects: c.Store, Tasks: c.Store, Comments: c.Store, Costs: c.Store, Tags: c.Store, Fields: c.Store,
		Files: c.Store, Teams: c.Store, Relations: c.Store, Accounts: c.Store, Directory: c.Store, Invitations: c.Store, Sessions: c.Store,
		Apps: c.Store, Webhooks: c.Store, Counts: c.Store, OAuth: auth, Sealer: c.Sealer, Log: c.Log, Now: c.Now,
		AccountURL: acctURL, Secure: c.secure(), TrustProxy: c.TrustProxy, People: folks, ShowMail: c.ShowMail, Outbox: c.Mail,
		FileLimits: limits, Uploads: uploads, Calendar: c.Store, Live: hub,
		LiveStreams: admit.New(c.Limits.liveStreams()), Passwords: c.Passwords}
	if c.Hooks != nil { // a nil *webhook.Service would make a non-nil interface
		pageCfg.Hooks = c.Hooks
	}
	pages, err := web.New(pageCfg)
	if err != nil {
		return nil, err
	}
	accounts := api.Config{Store: c.Store, Directory: c.Store, Sealer: c.Sealer, Log: c.Log, Now: c.Now, Tokens: auth, People: folks, FileLimits: limits, Limits: api.Limits{
		PerAddress: c.limiter("api-address:", c.Limits.APIAddress, batch),
		PerAccount: c.limiter("api-account:", c.Limits.APIAccount, batch), TrustProxy: c.TrustProxy, Uploads: uploads}}
	if c.Hooks != nil { // a nil *webhook.Service would make a non-nil interface
		accounts.Hooks = c.Hooks
	}

	mux := http.NewServeMux()
	build := buildinfo.Read()
	health, err := json.Marshal(struct {
		Status string `json:"status"`
		buildinfo.Info
	}{"ok", build})
	if err != nil {
		return nil, err
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(health)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := c.Store.Ping(r.Context()); err != nil {
			c.Log.WarnContext(r.Context(), "not ready", "err", err)
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	api.New(accounts).Mount(mux)
	auth.Mount(mux)
	pages.Mount(mux) // and "not found" for every other address

	var h http.Handler = mux
	if c.Metrics != nil {
		c.Metrics.Set("taskd_build_info", "The build: module version, commit and Go version; always 1.", 1,
			"version", build.Version, "commit", build.Commit, "goversion", build.GoVersion)
		mux.Handle("GET /metrics", c.Metrics.Handler())
		h = withMetrics(c.Metrics, h)
	}
	if c.secure() {
		h = withHSTS(h)
	}
	return withRecover(c.Log, pages.Error, withAccessLog(c.Log, h)), nil
}
