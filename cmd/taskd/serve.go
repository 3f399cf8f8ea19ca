package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	netmail "net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/metrics"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/server"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/webhook"
)

type serveFlags struct {
	storageFlags
	addr            string
	dev             bool
	demo            bool
	demoHookURL     string
	tlsCert         string
	tlsKey          string
	trustProxy      bool
	logFormat       string
	logLevel        string
	shutdownTimeout time.Duration
	strictOAuth     bool
	hookPrivate     bool
	hookWorkers     int
	hookLease       time.Duration
	limits          server.Limits
	fileMB          int64 // --max-file-mb
	accountFilesMB  int64 // --max-account-files-mb
	debugAddr       string
	smtpURL         string
	mailFrom        string
}

func serve(ctx context.Context, e env, args []string) error {
	var f serveFlags
	fs := newFlags("serve", "Run the taskd server on --addr: the pages, the account API and the OAuth server; it delivers webhooks and e-mail. It applies pending migrations first.")
	f.register(fs, e.stderr, withKey|withOldKeys)
	fs.StringVar(&f.publicURL, "public-url", "", "the server's public URL; account URLs are {public-url}/a/{slug}. Must be https outside --dev (default http://ADDR with --dev)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.BoolVar(&f.dev, "dev", false, "development mode: plain HTTP on loopback; relaxed checks are printed at start")
	fs.BoolVar(&f.demo, "demo", false, "with --dev: create (or reuse) the demo account and print how to use it")
	fs.StringVar(&f.demoHookURL, "demo-webhook-url", demoHookURL, "with --demo: where the demo's webhook points when the demo is made (an http:// URL, for a taskd listen)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate file (PEM); with --tls-key the server speaks HTTPS")
	fs.StringVar(&f.tlsKey, "tls-key", "", "TLS private key file (PEM)")
	fs.BoolVar(&f.trustProxy, "trust-proxy", false, "run behind a TLS-terminating proxy that serves --public-url")
	fs.StringVar(&f.logFormat, "log-format", "", "log format: json or text (default json; text with --dev)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug (adds one line per request), info, warn or error")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 15*time.Second, "how long shutdown waits for requests in flight")
	fs.BoolVar(&f.hookPrivate, "webhook-allow-private", false, "let webhooks reach loopback and private addresses (on with --dev)")
	fs.IntVar(&f.hookWorkers, "webhook-workers", 16, "deliveries in flight at once (at most one per webhook)")
	fs.DurationVar(&f.hookLease, "webhook-lease", 30*time.Second, "how long a replica's claim on a webhook lasts; a crashed replica's webhooks move after it")
	fs.IntVar(&f.limits.APIAccount, "api-rate-limit", 1200, "account API calls per minute per account, by key and token together (0: no limit)")
	fs.IntVar(&f.limits.APIAddress, "api-rate-limit-address", 2400, "account API requests per minute per client address, counted before authentication (0: no limit)")
	fs.IntVar(&f.limits.TokenAccount, "token-rate-limit", 600, "OAuth token-endpoint requests per minute per account of the authenticated application (0: no limit)")
	fs.IntVar(&f.limits.TokenAddress, "token-rate-limit-address", 300, "OAuth token-endpoint requests per minute per client address (0: no limit)")
	ml := people.DefaultMailLimits
	fs.IntVar(&f.limits.Mail.AccountHour, "mail-invitations-per-hour", ml.AccountHour, "invitations one account may send in any hour (0: no limit)")
	fs.IntVar(&f.limits.Mail.AccountDay, "mail-invitations-per-day", ml.AccountDay, "invitations one account may send in any 24 hours (0: no limit)")
	fs.IntVar(&f.limits.Mail.RecipientDay, "mail-per-recipient-per-day", ml.RecipientDay, "mails others may cause to one address in any 24 hours: invitations, reset links, address confirmations (0: no limit)")
	fs.IntVar(&f.limits.Mail.PersonDay, "mail-address-changes-per-day", ml.PersonDay, "address changes one person may ask for in any 24 hours (0: no limit)")
	fs.IntVar(&f.limits.Uploads.PerPerson, "uploads-per-person", 4, "requests uploading files at once per person, on each replica (0: no limit)")
	fs.IntVar(&f.limits.Uploads.PerAccount, "uploads-per-account", 16, "requests uploading files at once per account, on each replica (0: no limit)")
	fs.IntVar(&f.limits.Live.PerPerson, "live-streams-per-person", 10, "pages with live updates one person may hold open at once, on each replica (0: no limit)")
	fs.IntVar(&f.limits.Live.Total, "live-streams", 5000, "pages with live updates open at once on each replica, of which one account may hold a quarter (0: no limit)")
	fs.StringVar(&f.debugAddr, "debug-addr", "", "loopback address to serve Go's profiles on (/debug/pprof/); off when empty")
	fs.StringVar(&f.smtpURL, "smtp-url", "", "mail server: smtp://user:pass@host:587 (STARTTLS required) or smtps://user:pass@host:465; without it mail is kept unsent (shown at /dev/mail with --dev)")
	fs.StringVar(&f.mailFrom, "mail-from", "", `the sender of every e-mail, e.g. "Acme tasks <tasks@acme.example>" (default taskd@ the public URL's host)`)
	fs.Int64Var(&f.fileMB, "max-file-mb", taskd.DefaultFileLimits.MaxFileBytes>>20, "the largest file one may attach, in MB")
	fs.Int64Var(&f.accountFilesMB, "max-account-files-mb", taskd.DefaultFileLimits.MaxAccountBytes>>20, "the most all of an account's files may take, in MB")
	fs.BoolVar(&f.strictOAuth, "strict-oauth", false, "refuse token requests sent as GET with query parameters (accepted by default for the official SDKs)")
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	log, err := newLogger(e.stderr, f.logFormat, f.logLevel, f.dev)
	if err != nil {
		return err
	}
	f.warn = func(msg string) { log.Warn(msg) }
	if err := f.check(); err != nil {
		return err
	}
	reg := metrics.New()
	db, sealer, err := f.openWith(ctx, store.Options{Retried: func(op string) {
		reg.Add("taskd_db_retries_total", "Reads and transactions run again after the database dropped their connection.", 1, "op", op)
	}})
	if err != nil {
		return err
	}
	defer db.Close()

	ln, err := listenOn(f.addr, "addr")
	if err != nil {
		return err
	}
	base := f.baseURL(ln.Addr().String())
	if f.dev {
		log.Warn("development mode: plain HTTP, loopback only, webhooks may reach private addresses; do not expose this server", "public_url", base)
	}
	if f.debugAddr != "" {
		addr, err := serveDebug(ctx, f.debugAddr, log)
		if err != nil {
			ln.Close()
			return err
		}
		log.Info("profiles served", "addr", "http://"+addr.String()+"/debug/pprof/")
	}
	hooks := webhook.NewService(db, sealer, webhook.NewHTTPClient(f.hookPrivate || f.dev), time.Now, log)
	outbox, err := f.outbox(base, log)
	if err != nil {
		ln.Close()
		return err
	}
	outbox.Store, outbox.Sealer = db, sealer
	outbox.Observe = func(result string) {
		reg.Add("taskd_mail_attempts_total", "E-mail attempts by result: sent, retry, failed, kept (no mail server).", 1, "result", result)
	}
	if f.demo {
		folks := &people.Service{Store: db, Outbox: outbox, PublicURL: base}
		if err := seedDemo(ctx, e.stdout, db, sealer, hooks, folks, base, f.demoHookURL); err != nil {
			ln.Close()
			return fmt.Errorf("demo: %w", err)
		}
	}
	srv, err := server.New(ctx, server.Config{Store: db, Sealer: sealer, Log: log, PublicURL: base,
		TrustProxy: f.trustProxy, StrictOAuth: f.strictOAuth, Hooks: hooks, Metrics: reg, Limits: f.limits,
		Dispatch: webhook.DispatcherConfig{Workers: f.hookWorkers, Lease: f.hookLease}, Mail: outbox, ShowMail: f.dev,
		TLSCert: f.tlsCert, TLSKey: f.tlsKey, ShutdownTimeout: f.shutdownTimeout,
		FileLimits: taskd.FileLimits{MaxFileBytes: f.fileMB << 20, MaxAccountBytes: f.accountFilesMB << 20}})
	if err != nil {
		ln.Close()
		return err
	}
	scheme := "http"
	if f.tlsCert != "" {
		scheme = "https"
	}
	fmt.Fprintf(e.stdout, "taskd listening on %s://%s (public URL %s, %s database)\n", scheme, ln.Addr(), base, db.Dialect())
	log.Info("listening", "addr", ln.Addr().String(), "public_url", base, "database", db.Dialect())
	return srv.Serve(ctx, ln)
}

// check refuses configurations that would be insecure outside --dev.
func (f *serveFlags) check() error {
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if f.demo && !f.dev {
		return errors.New("--demo needs --dev")
	}
	if u, err := url.Parse(f.demoHookURL); err != nil || u.Scheme != "http" || u.Host == "" {
		return errors.New("--demo-webhook-url must be an http:// URL, such as http://127.0.0.1:9000/")
	}
	if f.fileMB < 1 || f.accountFilesMB < f.fileMB || f.accountFilesMB > 1<<30 {
		return errors.New("--max-file-mb must be at least 1 and --max-account-files-mb at least as large")
	}
	if f.publicURL != "" {
		u, err := url.Parse(f.publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			return errors.New("--public-url must be an absolute http(s) URL")
		}
		if u.Scheme != "https" && !f.dev {
			return errors.New("--public-url must use https (or use --dev on loopback)")
		}
	}
	if f.dev {
		host, _, err := net.SplitHostPort(f.addr)
		if err != nil {
			return fmt.Errorf("--addr: %w", err)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return errors.New("--dev listens on loopback only (e.g. --addr 127.0.0.1:8080)")
		}
		return nil
	}
	if f.tlsCert == "" && !f.trustProxy {
		return errors.New("serve HTTPS with --tls-cert/--tls-key, or run behind a TLS proxy with --trust-proxy; --dev allows plain HTTP on loopback")
	}
	if f.publicURL == "" {
		return errors.New("--public-url is required outside --dev")
	}
	return nil
}

// outbox returns the mail outbox of the flags: sending through --smtp-url,
// or keeping every message when there is none.
func (f *serveFlags) outbox(base string, log *slog.Logger) (*mail.Outbox, error) {
	from := f.mailFrom
	if from == "" {
		u, _ := url.Parse(base)
		from = "taskd <taskd@" + u.Hostname() + ">"
	}
	if _, err := netmail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("--mail-from %q is not an e-mail address", from)
	}
	o := &mail.Outbox{From: from, Log: log}
	if f.smtpURL == "" {
		if !f.dev {
			log.Warn("no mail server (--smtp-url): invitations, password resets and notifications are kept, not sent")
		}
		return o, nil
	}
	srv, err := mail.ParseURL(f.smtpURL)
	if err != nil {
		return nil, err
	}
	o.Sender = srv
	log.Info("mail", "server", srv.String(), "from", from)
	return o, nil
}

func newLogger(w io.Writer, format, level string, dev bool) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	if format == "" {
		format = "json"
		if dev {
			format = "text"
		}
	}
	switch strings.ToLower(format) {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, errors.New("--log-format must be json or text")
}
