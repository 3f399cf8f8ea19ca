// Package server is taskd's HTTP server: it puts the account API, the OAuth
// endpoints and the pages on one address, wraps them in the middleware every
// request passes (panic recovery, access log, metrics, HSTS), and runs the
// webhook dispatcher and the live hub for as long as it serves.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/admit"
	"github.com/taskd/taskd/internal/upload"
	"github.com/taskd/taskd/live"
	"github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/metrics"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/webhook"
)

// Config is what the server needs. Store, Sealer and PublicURL are
// required; the rest have defaults.
type Config struct {
	Store  *store.DB
	Sealer *secret.Sealer
	Log    *slog.Logger     // discards when nil
	Now    func() time.Time // time.Now when nil
	// PublicURL is {auth_url}, the server's address as clients reach it.
	PublicURL string
	// TrustProxy takes client addresses from X-Forwarded-For: taskd runs
	// behind a TLS-terminating proxy.
	TrustProxy bool
	// StrictOAuth refuses token requests sent as GET with query parameters.
	StrictOAuth bool
	// Hooks serves the webhook actions and pages; nil leaves them out.
	Hooks *webhook.Service
	// Dispatch configures the webhook dispatcher that Serve runs.
	Dispatch webhook.DispatcherConfig
	// Mail is the outbox Serve sends from; nil: an outbox that keeps
	// every message unsent. Its Store and Sealer are filled in.
	Mail *mail.Outbox
	// ShowMail serves the outbox at /dev/mail (--dev).
	ShowMail bool
	// NotifyWindow is how long a task change waits for more before its
	// digest is mailed (2 minutes when zero); NotifyPoll how often digests
	// are looked for (30 s when zero).
	NotifyWindow, NotifyPoll time.Duration
	// Metrics is served at /metrics and fed by every request; nil: none.
	Metrics *metrics.Registry
	Limits  Limits

	// TLSCert and TLSKey are PEM files; with both, Serve speaks HTTPS.
	TLSCert, TLSKey string
	// ShutdownTimeout is how long Serve waits for requests in flight
	// when it stops; 15 seconds when zero.
	ShutdownTimeout time.Duration
	// FileLimits bound the files an account stores; zero:
	// taskd.DefaultFileLimits.
	FileLimits taskd.FileLimits
	// Passwords hashes the passwords people choose on the pages; the
	// zero value is the production cost (tests lower it).
	Passwords secret.Hasher
}

// Limits are requests per minute; 0 turns a limit off.
type Limits struct {
	APIAccount, APIAddress     int // both account APIs
	TokenAccount, TokenAddress int // the OAuth token endpoints
	// Mail bounds the mail people cause to addresses they choose; zero:
	// no bound.
	Mail people.MailLimits
	// Uploads bounds the uploads in flight on this process and paces
	// them; zero: no bound in flight, the default pace.
	Uploads upload.Limits
	// Live bounds the pages' live streams this process serves at once;
	// zero: no bound. With a Total and no PerAccount, an account may hold
	// a quarter of the Total (liveStreams).
	Live admit.Limits
	// Flush is how long the rate-limit counts of a request wait in memory
	// before they reach the database with the others' (a second when
	// zero); Serve flushes them when it stops.
	Flush time.Duration
}

// liveStreams are the bounds of live streams: Live, with no account
// holding more than a quarter of the replica's when no other share is set.
func (l Limits) liveStreams() admit.Limits {
	live := l.Live
	if live.Total > 0 && live.PerAccount == 0 {
		live.PerAccount = max(1, live.Total/4)
	}
	return live
}

// Server is a configured taskd HTTP server.
type Server struct {
	cfg     Config
	handler http.Handler
	counts  *ratelimit.Batch // the rate limiters' counts not yet in the database
	live    *live.Hub        // the pages' live streams, fed while Serve runs
}

// New builds the routes and middleware.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 15 * time.Second
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if cfg.Mail == nil {
		cfg.Mail = &mail.Outbox{From: "taskd <taskd@localhost>"}
	}
	cfg.Mail.Store, cfg.Mail.Sealer = cfg.Store, cfg.Sealer
	if cfg.Mail.Log == nil {
		cfg.Mail.Log = cfg.Log
	}
	if cfg.Mail.Now == nil {
		cfg.Mail.Now = cfg.Now
	}
	counts := ratelimit.NewBatch(cfg.Store, cfg.Limits.Flush, cfg.Now, cfg.Log)
	hub := live.New(cfg.Store, live.Config{Now: cfg.Now})
	h, err := routes(ctx, cfg, counts, hub)
	if err != nil {
		return nil, err
	}
	return &Server{cfg: cfg, handler: h, counts: counts, live: hub}, nil
}

// ServeHTTP answers one request through the routes and the middleware,
// without the background work that Serve also runs.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// secure reports whether the public URL is HTTPS: cookies are then marked
// Secure and browsers are told to use HTTPS only (HSTS).
func (c Config) secure() bool { return strings.HasPrefix(c.PublicURL, "https://") }

// AccountURL is an account's absolute URL in the path-based layout.
func AccountURL(publicURL, slug string) string {
	return fmt.Sprintf("%s/a/%s", strings.TrimRight(publicURL, "/"), slug)
}

// Serve answers on ln, delivers webhooks and feeds the pages' live
// streams, until ctx ends. Then it stops accepting, ends the live streams
// (the pages reconnect to another replica), waits up to ShutdownTimeout
// for requests in flight, adds the rate-limit counts still in memory to
// the database, and stops the live hub, and the dispatcher once its
// deliveries in flight are done.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.cfg.Hooks != nil {
		dctx, stopDispatch := context.WithCancel(context.WithoutCancel(ctx))
		dispatched := make(chan struct{})
		dispatch := s.cfg.Dispatch
		dispatch.Observe = s.observeDelivery
		go func() {
			defer close(dispatched)
			webhook.NewDispatcher(s.cfg.Hooks, s.cfg.Store, dispatch).Run(dctx)
		}()
		defer func() { stopDispatch(); <-dispatched }()
	}
	mctx, stopMail := context.WithCancel(context.WithoutCancel(ctx))
	mailed := make(chan struct{})
	go func() {
		defer close(mailed)
		s.cfg.Mail.Run(mctx)
	}()
	notified := make(chan struct{})
	go func() {
		defer close(notified)
		(&people.Notifier{Store: s.cfg.Store, Outbox: s.cfg.Mail, Sealer: s.cfg.Sealer, PublicURL: s.cfg.PublicURL,
			Window: s.cfg.NotifyWindow, Poll: s.cfg.NotifyPoll, Now: s.cfg.Now, Log: s.cfg.Log}).Run(mctx)
	}()
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		s.sweepFiles(mctx)
	}()
	defer func() { stopMail(); <-mailed; <-notified; <-swept }()
	lctx, stopLive := context.WithCancel(context.WithoutCancel(ctx))
	lived := make(chan struct{})
	go func() {
		defer close(lived)
		s.live.Run(lctx)
	}()
	defer func() { stopLive(); <-lived }()
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(s.live.EndStreams) // pages reconnect to another replica
	errc := make(chan error, 1)
	go func() {
		if s.cfg.TLSCert != "" {
			errc <- srv.ServeTLS(ln, s.cfg.TLSCert, s.cfg.TLSKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.cfg.Log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	s.flushCounts()
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// flushCounts adds the rate-limit counts of the last requests to the
// database, so that the other replicas see them, however the shutdown
// went (it has its own few seconds).
func (s *Server) flushCounts() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.counts.Flush(ctx)
}

// observeDelivery counts and times webhook delivery attempts, and the
// connections they opened.
func (s *Server) observeDelivery(r webhook.Result) {
	if s.cfg.Metrics == nil {
		return
	}
	result := "ok"
	if !r.OK {
		result = "failed"
	}
	s.cfg.Metrics.Add("taskd_webhook_attempts_total", "Webhook delivery attempts by result.", 1, "result", result)
	s.cfg.Metrics.Observe("taskd_webhook_attempt_duration_seconds", "Time a destination took to answer.", r.Latency)
	if r.NewConnection {
		s.cfg.Metrics.Add("taskd_webhook_connections_total", "Connections opened to webhook destinations (the rest reuse idle ones).", 1)
	}
}

// Uploads left unattached this long are deleted, with files whose storing
// never finished; the sweep runs this often.
const (
	unattachedFor = 24 * time.Hour
	sweepEvery    = time.Hour
)

// sweepFiles deletes unattached uploads, unfinished files and the files of
// deleted tasks and comments, every sweepEvery until ctx ends. Replicas
// may sweep at once: the deletes are idempotent.
func (s *Server) sweepFiles(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		if n, err := s.cfg.Store.DeleteUnattachedFiles(ctx, s.cfg.Now().Add(-unattachedFor)); err != nil && ctx.Err() == nil {
			s.cfg.Log.Warn("sweep files", "err", err)
		} else if n > 0 {
			s.cfg.Log.Info("swept files", "files", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
