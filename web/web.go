// Package web serves taskd's HTML pages: sign-in and sign-out, the OAuth
// authorization pages (user selection and consent), an account's projects,
// tasks, people and invitations, and its settings (API key, applications,
// webhooks). Pages are rendered on the server with html/template; static
// files are embedded. errors.go is the one table from the domain's error
// kinds to pages, and inAccount (account.go) admits members to an
// account's pages.
//
// Each area lists its own addresses and template functions in the file of
// its handlers (tasks.go: taskRoutes and taskFuncs, calendar.go:
// calendarRoutes …); web.go holds the server, the middleware every page
// goes through (page, form, headers) and the assembly of the areas.
package web

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/admit"
	"github.com/taskd/taskd/internal/upload"
	"github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/secret"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config configures the pages.
type Config struct {
	// The work of an account, by family: each reads as a viewer and
	// changes as an actor (taskd.Actor), checking who may do what, with
	// an object's files, events and notifications in one transaction.
	Projects  taskd.ProjectStore
	Tasks     taskd.TaskStore
	Comments  taskd.CommentStore
	Costs     taskd.CostStore // cost lines, rates and timers
	Tags      taskd.TagStore
	Fields    taskd.CustomFieldStore
	Files     taskd.FileStore // uploads within FileLimits
	Teams     taskd.ProjectTeamStore
	Relations taskd.RelationStore

	// The other stores, by topic (stores.go).
	Accounts    AccountStore
	Directory   taskd.DirectoryStore
	Invitations taskd.InvitationStore
	Sessions    SessionStore
	Apps        AppStore
	Webhooks    taskd.WebhookStore // the webhook pages read attempts and deliveries
	Counts      ratelimit.Store    // sign-in limits

	OAuth  Authorizer
	Hooks  WebhookService
	Sealer *secret.Sealer
	Log    *slog.Logger
	Now    func() time.Time
	// AccountURL returns an account's absolute URL.
	AccountURL func(slug string) string
	// Secure marks cookies Secure (HTTPS deployments).
	Secure bool
	// TrustProxy takes the client address from X-Forwarded-For.
	TrustProxy bool
	// People sends invitations and one-time links by e-mail.
	People Mailer
	// ShowMail serves Outbox at /dev/mail (--dev).
	ShowMail bool
	Outbox   *mail.Outbox
	// FileLimits bound the files an account stores; zero:
	// taskd.DefaultFileLimits.
	FileLimits taskd.FileLimits
	// Uploads admits and paces the files of forms; nil: no bound in
	// flight, the default pace.
	Uploads *upload.Gate
	// Calendar keeps the iCalendar feeds' secrets and reads activity
	// feeds (issue 35); nil: no feeds.
	Calendar CalendarStore
	// Live opens the pages' live streams (GET /a/{slug}/live, live.js);
	// nil: the pages do not update live. LiveHeartbeat is how often an
	// idle stream sends a comment (25 s when zero); LiveMaxAge is how long
	// a stream lasts before it ends and the page opens it again from its
	// last event (30 minutes when zero).
	Live          LiveStore
	LiveHeartbeat time.Duration
	LiveMaxAge    time.Duration
	// LiveStreams bounds the live streams this process serves at once,
	// per person, per account and in all; nil: no bound.
	LiveStreams *admit.Gate
	// Passwords hashes the passwords people choose; the zero value is
	// the production cost.
	Passwords secret.Hasher
}

// accountPath is an account's pages' path on this server.
func (c Config) accountPath(a taskd.Account) string { return "/a/" + a.Slug }

// Server serves the pages.
type Server struct {
	cfg  Config
	tmpl *template.Template
	// signIns limit failed sign-ins per e-mail and per client address.
	signInsPerEmail, signInsPerAddress *ratelimit.Strict
	// dummyHash makes a sign-in with an unknown e-mail cost what a real
	// one does: a hash of cfg.Passwords.
	dummyHash string
}

// New parses the templates.
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.FileLimits == (taskd.FileLimits{}) {
		cfg.FileLimits = taskd.DefaultFileLimits
	}
	if cfg.ShowMail && cfg.Outbox == nil {
		return nil, errors.New("web: Config.ShowMail needs Config.Outbox")
	}
	funcs, err := templateFuncs()
	if err != nil {
		return nil, err
	}
	t, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	dummyHash, err := cfg.Passwords.Hash(secret.Token(16))
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	return &Server{cfg: cfg, tmpl: t, dummyHash: dummyHash,
		signInsPerEmail:   ratelimit.NewStrict("signin-email:", cfg.Counts, signInLimitPerEmail, cfg.Now),
		signInsPerAddress: ratelimit.NewStrict("signin-address:", cfg.Counts, signInLimitPerAddress, cfg.Now),
	}, nil
}

// route is one address of the pages and its handler.
type route struct {
	pattern string
	handler http.HandlerFunc
}

// routes lists the pages' addresses. Each area lists its own, in the file
// of its handlers (calendar.go: calendarRoutes …); every POST goes
// through s.form, or s.upload for files.
func (s *Server) routes() []route {
	return slices.Concat(
		s.signInRoutes(),
		s.linkRoutes(),
		s.notificationRoutes(),
		s.authorizeRoutes(),
		s.settingsRoutes(),
		s.profileRoutes(),
		s.fieldRoutes(),
		s.projectRoutes(),
		s.boardRoutes(),
		s.timelineRoutes(),
		s.taskRoutes(),
		s.quickEditRoutes(),
		s.relationRoutes(),
		s.taggingRoutes(),
		s.tagRoutes(),
		s.fileRoutes(),
		s.costRoutes(),
		s.timesheetRoutes(),
		s.myTaskRoutes(),
		s.quickAddRoutes(),
		s.peopleRoutes(),
		s.teamRoutes(),
		s.scheduleRoutes(),
		s.invitationRoutes(),
		s.calendarRoutes(),
		s.devMailRoutes(),
		s.liveRoutes(),
		s.webhookRoutes(),
	)
}

// templateFuncs gathers the template functions of every area; a name
// two areas define is an error.
func templateFuncs() (template.FuncMap, error) {
	all := template.FuncMap{}
	for _, area := range []template.FuncMap{
		viewFuncs(),
		authorizeFuncs(),
		devMailFuncs(),
		webhookFuncs(),
		costFuncs(),
		fileFuncs(),
		peopleFuncs(),
		taskFuncs(),
		taskListFuncs(),
		projectFuncs(),
		tagFuncs(),
		relationFuncs(),
	} {
		for name, f := range area {
			if _, dup := all[name]; dup {
				return nil, fmt.Errorf("web: template function %q is defined twice", name)
			}
			all[name] = f
		}
	}
	return all, nil
}

// Patterns lists the patterns of the pages, for tests and tools that walk
// every page.
func (s *Server) Patterns() []string {
	var out []string
	for _, r := range s.routes() {
		out = append(out, r.pattern)
	}
	return out
}

// Mount registers the pages on mux, with the page "not found" for every
// address no other package serves. Every page carries the security
// headers; POSTs are checked against cross-origin requests (Sec-Fetch-Site
// / Origin) and carry a form token.
func (s *Server) Mount(mux *http.ServeMux) { s.mount(mux) }

// handlerMux is where mount registers the pages: an *http.ServeMux, or a
// test's list of patterns.
type handlerMux interface {
	Handle(pattern string, h http.Handler)
}

func (s *Server) mount(mux handlerMux) {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusForbidden, "This form was sent from another site and was refused.")
	}))
	mux.Handle("GET /static/", headers(http.FileServerFS(staticFS)))
	for _, r := range s.routes() {
		mux.Handle(r.pattern, headers(cop.Handler(r.handler)))
	}
	mux.Handle("/", headers(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.Error(w, r, http.StatusNotFound) })))
}

// headers sets the security headers every page carries.
func headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		if !strings.HasPrefix(r.URL.Path, "/static/") {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

// handler is a page or form handler; it returns an error to show.
type handler func(w http.ResponseWriter, r *http.Request, v *view) error

// page wraps a GET handler.
func (s *Server) page(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.run(w, r, h)
	}
}

// form wraps a POST handler: a bounded body and a valid form token.
func (s *Server) form(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20) // the API's limit: texts may be 100 KB
		if err := r.ParseForm(); err != nil {
			s.fail(w, r, http.StatusBadRequest, "The form could not be read.")
			return
		}
		if s.refuseForm(w, r) {
			return
		}
		s.run(w, r, h)
	}
}

// plainText reports whether every name and value is valid UTF-8 without
// NUL, as the databases store text (PostgreSQL refuses anything else).
func plainText(form url.Values) bool {
	for k, vs := range form {
		if !utf8.ValidString(k) || strings.ContainsRune(k, 0) {
			return false
		}
		for _, v := range vs {
			if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
				return false
			}
		}
	}
	return true
}

func (s *Server) run(w http.ResponseWriter, r *http.Request, h handler) {
	v := &view{CSRF: s.csrfToken(w, r)}
	p, ok, err := s.person(r.Context(), r)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	if ok {
		v.Person = &p
	}
	if err := h(w, r, v); err != nil {
		s.internal(w, r, err)
	}
}

// refuseForm answers a parsed form that lacks this browser's token or
// holds what is not text, and reports whether it did; multipart uploads
// and plain forms share it.
func (s *Server) refuseForm(w http.ResponseWriter, r *http.Request) bool {
	if !s.checkCSRF(r) {
		s.fail(w, r, http.StatusForbidden, "The form has expired. Go back, reload the page and try again.")
		return true
	}
	if !plainText(r.Form) {
		s.fail(w, r, http.StatusBadRequest, "The form holds characters that are not text. Check what you typed or pasted and try again.")
		return true
	}
	return false
}
