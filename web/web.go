// Package web serves taskd's HTML pages: sign-in and sign-out, the OAuth
// authorization pages (user selection and consent), an account's projects,
// tasks, people and invitations, and its settings (API key, applications,
// webhooks). Pages are rendered on the server with html/template; static
// files are embedded. errors.go is the one table from the domain's error
// kinds to pages, and inAccount (account.go) admits members to an
// account's pages.
package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/admit"
	"github.com/taskd/taskd/internal/upload"
	"github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/webhook"
	"github.com/taskd/taskd/wire"
	"github.com/taskd/taskd/work"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config configures the pages.
type Config struct {
	// The stores, by topic (stores.go).
	Reads       ReadStore
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
	// taskd.DefaultFileLimits. They are Work's when it is given.
	FileLimits taskd.FileLimits
	// Work makes every change to projects, tasks, comments, costs,
	// timers, tags, subscriptions and files: the use cases the account
	// API shares. Required.
	Work *work.Services
	// Uploads admits and paces the files of forms; nil: no bound in
	// flight, the default pace.
	Uploads *upload.Gate
	// Calendar keeps the iCalendar feeds' secrets and reads activity
	// feeds (issue 35); nil: no feeds.
	Calendar CalendarStore
	// Live opens the pages' live streams (GET /a/{slug}/live, live.js);
	// nil: the pages do not update live. LiveHeartbeat is how often an
	// idle stream sends a comment (25 s when zero).
	Live          LiveStore
	LiveHeartbeat time.Duration
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
	if cfg.Work == nil {
		return nil, errors.New("web: Config.Work is required")
	}
	if cfg.ShowMail && cfg.Outbox == nil {
		return nil, errors.New("web: Config.ShowMail needs Config.Outbox")
	}
	t, err := template.New("").Funcs(template.FuncMap{
		"scopeText":   scopeText,
		"linked":      linked,
		"ms":          func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) },
		"has":         func(m map[string]bool, k string) bool { return m[k] },
		"joinIDs":     taskd.JoinIDs,
		"page":        func(base, page string) string { return base + page },
		"value":       formValue,
		"priorities":  func() []int { return []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10} },
		"errorFor":    errorFor,
		"canEdit":     func(by taskd.Actor, c taskd.Comment) bool { return taskd.CanChangeComment(by, c) == nil },
		"canChange":   func(by taskd.Actor, c taskd.Cost) bool { return taskd.CanChangeCost(by, c) == nil },
		"hm":          wire.FormatCostTime,
		"hours":       wire.FormatHours,
		"optionsText": optionsText,
		"money":       wire.FormatMoney,
		"amount":      func(cents int64, currency string) string { return wire.FormatMoney(cents) + " " + currency },
		"clock":       clockOf,
		"rate":        rateText,
		"minus":       func(a, b int64) int64 { return a - b },
		"size":        sizeText,
		"files":       newFileList,
		"kind":        fileKind,
		"canDelete":   func(by taskd.Actor, f taskd.File) bool { return taskd.CanChangeFile(by, f) == nil },
		"isOwner":     func(m taskd.Member) bool { return m.Role == taskd.RoleOwner },
		"initials":    initials,
		"fields":      newTaskFields,
		"who":         who,
		"assignee":    assignee,
		"managerName": func(p taskd.PersonRef) string {
			if p.ID == 0 || p.ID == taskd.NobodyID || p.ID == taskd.AnyoneID {
				return ""
			}
			return p.Name
		},
		"rowContext": func(base string, v *view, canWrite bool, ret, back string, showDone, showProject bool) rowContext {
			return rowContext{Base: base, CSRF: v.CSRF, CanWrite: canWrite, Return: ret, Back: back, ShowDone: showDone, ShowProject: showProject, Today: v.Today()}
		},
		"taskRow":   newTaskRowView,
		"rowPeople": withPeople,
		"asRow":     func(t taskd.Task) taskRow { return taskRow{Task: t} },
		"tagMoves": func(base, csrf, kind, group, up, down, name string) tagMoves {
			return tagMoves{Base: base, CSRF: csrf, Kind: kind, Group: group, Up: up, Down: down, Name: name}
		},
		"secretShown": func(what, why, value string) secretShown {
			return secretShown{What: what, Why: why, Value: value}
		},
		"reason": webhook.Explain,
		// Task relations (issue 35): relations.go.
		"relationList":     newRelationList,
		"relationTypeName": relationTypeName,
	}).ParseFS(templateFS, "templates/*.html")
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

// routes lists the pages' addresses. Every POST goes through s.form.
func (s *Server) routes() []route {
	rs := []route{
		{"GET /{$}", s.page(s.home)},
		{"GET /login", s.page(s.loginPage)},
		{"POST /login", s.form(s.login)},
		{"POST /logout", s.form(s.logout)},
		{"GET /oauth2/authorize", s.authorizeRoute(false)},
		{"POST /oauth2/authorize", s.authorizeRoute(true)},
		{"GET /settings/applications", s.page(s.applications)},
		{"POST /settings/applications/revoke", s.form(s.revokeApplication)},
		{"GET /a/{slug}/settings/api", s.page(s.inAccount(taskd.PermSettings, s.clients))},
		{"POST /a/{slug}/settings/api", s.form(s.inAccount(taskd.PermSettings, s.createClient))},
		{"POST /a/{slug}/settings/api/rotate", s.form(s.inAccount(taskd.PermSettings, s.rotateClient))},
		{"POST /a/{slug}/settings/api/delete", s.form(s.inAccount(taskd.PermSettings, s.deleteClient))},
		{"GET /a/{slug}/{$}", s.page(s.inAccount(taskd.PermRead, s.projects))},
		{"POST /a/{slug}/projects", s.form(s.inAccount(taskd.PermWork, s.createProject))},
		{"POST /a/{slug}/project/{pid}/archive", s.form(s.inAccount(taskd.PermWork, s.setProjectStatus(taskd.ProjectArchive)))},
		{"POST /a/{slug}/project/{pid}/activate", s.form(s.inAccount(taskd.PermWork, s.setProjectStatus(taskd.ProjectActive)))},
		{"GET /a/{slug}/project/{pid}/{$}", s.page(s.inAccount(taskd.PermRead, s.projectPage))},
		{"POST /a/{slug}/project/{pid}/members", s.form(s.inAccount(taskd.PermWork, s.setProjectTeam(true)))},
		{"POST /a/{slug}/project/{pid}/members/remove", s.form(s.inAccount(taskd.PermWork, s.setProjectTeam(false)))},
		{"POST /a/{slug}/project/{pid}/tasks", s.upload(s.inAccount(taskd.PermWork, s.createTask))},
		{"POST /a/{slug}/project/{pid}/update", s.form(s.inAccount(taskd.PermWork, s.updateProject))},
		{"POST /a/{slug}/project/{pid}/budget", s.form(s.inAccount(taskd.PermWork, s.setBudget))},
		{"GET /a/{slug}/project/{pid}/board", s.page(s.inAccount(taskd.PermRead, s.board))},
		{"GET /a/{slug}/project/{pid}/timeline", s.page(s.inAccount(taskd.PermRead, s.timeline(timelineOfProject)))},
		{"POST /a/{slug}/project/{pid}/timeline", s.form(s.inAccount(taskd.PermWork, s.reschedule(timelineOfProject)))},
		{"GET /a/{slug}/my/timeline", s.page(s.inAccount(taskd.PermRead, s.timeline(timelineOfMine)))},
		{"POST /a/{slug}/my/timeline", s.form(s.inAccount(taskd.PermWork, s.reschedule(timelineOfMine)))},
		{"GET /a/{slug}/people/teams/{team}/timeline", s.page(s.inAccount(taskd.PermRead, s.timeline(timelineOfTeam)))},
		{"POST /a/{slug}/people/teams/{team}/timeline", s.form(s.inAccount(taskd.PermWork, s.reschedule(timelineOfTeam)))},
		{"POST /a/{slug}/project/{pid}/tags", s.form(s.inAccount(taskd.PermWork, s.setProjectTags))},
		{"GET /a/{slug}/tags", s.page(s.inAccount(taskd.PermRead, s.tagsPage))},
		{"GET /a/{slug}/timesheet", s.page(s.inAccount(taskd.PermRead, s.timesheet))},
		{"GET /a/{slug}/timesheet.csv", s.page(s.inAccount(taskd.PermRead, s.timesheetCSV))},
		{"POST /a/{slug}/tags", s.form(s.inAccount(taskd.PermWork, s.addTag))},
		{"POST /a/{slug}/tags/groups", s.form(s.inAccount(taskd.PermWork, s.addTagGroup))},
		{"POST /a/{slug}/tags/sort", s.form(s.inAccount(taskd.PermWork, s.sortTags))},
		{"POST /a/{slug}/tags/{tagid}/update", s.form(s.inAccount(taskd.PermWork, s.changeTag(false)))},
		{"POST /a/{slug}/tags/{tagid}/delete", s.form(s.inAccount(taskd.PermWork, s.changeTag(true)))},
		{"POST /a/{slug}/tags/groups/{groupid}/update", s.form(s.inAccount(taskd.PermWork, s.changeTagGroup(false)))},
		{"POST /a/{slug}/tags/groups/{groupid}/delete", s.form(s.inAccount(taskd.PermWork, s.changeTagGroup(true)))},
		{"POST /a/{slug}/tasks/{tid}/tags", s.form(s.inAccount(taskd.PermWork, s.taskChange("tags", s.setTaskTags)))},
		{"POST /a/{slug}/tasks/{tid}/move", s.form(s.inAccount(taskd.PermWork, s.taskChange("tags", s.moveTask)))},
		{"GET /a/{slug}/project/{pid}/{tid}/{$}", s.page(s.inAccount(taskd.PermRead, s.taskPage))},
		{"GET /a/{slug}/project/{pid}/{parent}/{tid}/{$}", s.page(s.inAccount(taskd.PermRead, s.taskPage))},
		{"POST /a/{slug}/tasks/{tid}/subscribers", s.form(s.inAccount(taskd.PermWork, s.subscribe))},
		{"POST /a/{slug}/tasks/{tid}/update", s.form(s.inAccount(taskd.PermWork, s.taskChange("edit", s.updateTask)))},
		{"GET /a/{slug}/tasks/{tid}/quick", s.page(s.inAccount(taskd.PermWork, s.quickEdit))}, // issue 35
		// Task relations (issue 35): relations.go.
		{"POST /a/{slug}/tasks/{tid}/relations", s.form(s.inAccount(taskd.PermWork, s.taskChange("relations", s.addRelation)))},
		{"POST /a/{slug}/tasks/{tid}/relations/delete", s.form(s.inAccount(taskd.PermWork, s.taskChange("relations", s.deleteRelation)))},
		{"POST /a/{slug}/tasks/{tid}/shift", s.form(s.inAccount(taskd.PermWork, s.taskChange("relations", s.shiftDependents)))},
		{"POST /a/{slug}/tasks/{tid}/complete", s.form(s.inAccount(taskd.PermWork, s.taskChange("status", s.completeTask)))},
		{"POST /a/{slug}/tasks/{tid}/reopen", s.form(s.inAccount(taskd.PermWork, s.taskChange("status", s.reopenTask)))},
		{"POST /a/{slug}/tasks/{tid}/delete", s.form(s.inAccount(taskd.PermWork, s.taskChange("status", s.deleteTask)))},
		{"POST /a/{slug}/tasks/{tid}/comments", s.upload(s.inAccount(taskd.PermWork, s.taskChange("comment", s.addComment)))},
		{"POST /a/{slug}/tasks/{tid}/files", s.upload(s.inAccount(taskd.PermWork, s.taskChange("files", s.addTaskFiles)))},
		{"POST /a/{slug}/project/{pid}/files", s.upload(s.inAccount(taskd.PermWork, s.addProjectFiles))},
		{"POST /a/{slug}/files/{fileid}/delete", s.form(s.inAccount(taskd.PermWork, s.deleteFile))},
		{"GET /a/{slug}/download/{fileid}", s.page(s.inAccount(taskd.PermRead, s.downloadFile))},
		{"POST /a/{slug}/comments/{cid}/update", s.form(s.inAccount(taskd.PermWork, s.commentChange(false)))},
		{"POST /a/{slug}/comments/{cid}/delete", s.form(s.inAccount(taskd.PermWork, s.commentChange(true)))},
		{"POST /a/{slug}/tasks/{tid}/costs", s.form(s.inAccount(taskd.PermWork, s.taskChange("costs", s.addCost)))},
		{"POST /a/{slug}/costs/{costid}/update", s.form(s.inAccount(taskd.PermWork, s.costChange(false)))},
		{"POST /a/{slug}/costs/{costid}/delete", s.form(s.inAccount(taskd.PermWork, s.costChange(true)))},
		{"POST /a/{slug}/tasks/{tid}/timer", s.form(s.inAccount(taskd.PermWork, s.startTimer))},
		{"POST /a/{slug}/timer/stop", s.form(s.inAccount(taskd.PermWork, s.stopTimer(false)))},
		{"POST /a/{slug}/timer/discard", s.form(s.inAccount(taskd.PermWork, s.stopTimer(true)))},
		{"POST /a/{slug}/people/{person}/rate", s.form(s.inAccount(taskd.PermManagePeople, s.setRate))},
		{"GET /join", s.page(s.joinPage)},
		{"POST /join", s.form(s.join)},
		{"GET /reset", s.page(s.resetRequestPage)},
		{"POST /reset", s.form(s.resetRequest)},
		{"GET /reset/password", s.page(s.resetPage)},
		{"POST /reset/password", s.form(s.resetPassword)},
		{"GET /confirm-email", s.page(s.confirmEmailPage)},
		{"POST /confirm-email", s.form(s.confirmEmail)},
		{"GET /notifications/off", s.page(s.unsubscribePage)},
		{"POST /notifications/off", s.form(s.unsubscribe)},
		{"GET /invitations", s.page(s.invitations)},
		{"POST /invitations/{id}/accept", s.form(s.answerInvitation(true))},
		{"POST /invitations/{id}/decline", s.form(s.answerInvitation(false))},
		{"POST /a/{slug}/invitations/{id}/cancel", s.form(s.inAccount(taskd.PermManagePeople, s.cancelInvitation))},
		{"GET /a/{slug}/people", s.page(s.inAccount(taskd.PermRead, s.people))},
		{"POST /a/{slug}/people", s.form(s.inAccount(taskd.PermManagePeople, s.addPerson))},
		{"POST /a/{slug}/people/{person}/remove", s.form(s.inAccount(taskd.PermManagePeople, s.removeMember))},
		{"GET /a/{slug}/people/{person}/schedule", s.page(s.inAccount(taskd.PermRead, s.schedulePage))},
		{"POST /a/{slug}/people/{person}/schedule", s.form(s.inAccount(taskd.PermManagePeople, s.setSchedule))},
		{"POST /a/{slug}/teams", s.form(s.inAccount(taskd.PermManagePeople, s.addTeam))},
		{"GET /a/{slug}/contacts", s.page(s.inAccount(taskd.PermRead, s.contacts))},
		{"GET /a/{slug}/my", s.page(s.inAccount(taskd.PermRead, s.myTasks))},
		{"POST /a/{slug}/quickadd", s.form(s.inAccount(taskd.PermWork, s.quickAdd))},
		{"POST /a/{slug}/contacts", s.form(s.inAccount(taskd.PermWork, s.addContact))},
		{"GET /profile", s.page(s.profilePage)},
		{"POST /profile", s.form(s.saveProfile)},
		{"POST /profile/email", s.form(s.changeEmail)},
		{"POST /profile/password", s.form(s.changePassword)},
		{"POST /a/{slug}/people/{person}/role", s.form(s.inAccount(taskd.PermManagePeople, s.setRole))},
		{"GET /a/{slug}/settings", s.page(s.inAccount(taskd.PermSettings, s.settingsIndex))},
		{"GET /a/{slug}/settings/{$}", s.page(s.inAccount(taskd.PermSettings, s.settingsIndex))},
		{"GET /a/{slug}/settings/account", s.page(s.inAccount(taskd.PermSettings, s.accountZonePage))},
		{"POST /a/{slug}/settings/account", s.form(s.inAccount(taskd.PermSettings, s.setAccountZone))},
		{"GET /a/{slug}/settings/apikey", s.page(s.inAccount(taskd.PermSettings, s.apiKey))},
		{"GET /a/{slug}/settings/fields", s.page(s.inAccount(taskd.PermSettings, s.fieldsPage))},
		{"POST /a/{slug}/settings/fields", s.form(s.inAccount(taskd.PermSettings, s.addField))},
		{"POST /a/{slug}/settings/fields/{fid}/update", s.form(s.inAccount(taskd.PermSettings, s.changeField(false)))},
		{"POST /a/{slug}/settings/fields/{fid}/delete", s.form(s.inAccount(taskd.PermSettings, s.changeField(true)))},
		{"POST /a/{slug}/settings/apikey", s.form(s.inAccount(taskd.PermSettings, s.rotateAPIKey))},
	}
	rs = append(rs, s.calendarRoutes()...)
	if s.cfg.ShowMail {
		rs = append(rs,
			route{"GET /dev/mail", s.page(s.devMail)},
			route{"GET /dev/mail/{id}", s.page(s.devMailMessage)},
		)
	}
	if s.cfg.Live != nil {
		rs = append(rs, route{"GET /a/{slug}/live", s.page(s.inAccount(taskd.PermRead, s.live))})
	}
	if s.cfg.Hooks != nil {
		rs = append(rs,
			route{"GET /a/{slug}/settings/webhooks", s.page(s.inAccount(taskd.PermSettings, s.webhooks))},
			route{"POST /a/{slug}/settings/webhooks", s.form(s.inAccount(taskd.PermSettings, s.createWebhook))},
			route{"GET /a/{slug}/settings/webhooks/{id}", s.page(s.inAccount(taskd.PermSettings, s.webhookPage))},
			route{"POST /a/{slug}/settings/webhooks/{id}/enable", s.form(s.inAccount(taskd.PermSettings, s.webhookOp(s.enableWebhook)))},
			route{"POST /a/{slug}/settings/webhooks/{id}/disable", s.form(s.inAccount(taskd.PermSettings, s.webhookOp(s.disableWebhook)))},
			route{"POST /a/{slug}/settings/webhooks/{id}/test", s.form(s.inAccount(taskd.PermSettings, s.webhookOp(s.testWebhook)))},
			route{"POST /a/{slug}/settings/webhooks/{id}/rotate", s.form(s.inAccount(taskd.PermSettings, s.webhookOp(s.rotateWebhook)))},
			route{"POST /a/{slug}/settings/webhooks/{id}/redeliver", s.form(s.inAccount(taskd.PermSettings, s.webhookOp(s.redeliver)))},
			route{"POST /a/{slug}/settings/webhooks/{id}/delete", s.form(s.inAccount(taskd.PermSettings, s.deleteWebhook))},
		)
	}
	return rs
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
func (s *Server) Mount(mux *http.ServeMux) {
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

// Error answers with the error page of an HTTP status, in words safe for
// anyone to read.
func (s *Server) Error(w http.ResponseWriter, r *http.Request, status int) {
	msg := "Something went wrong on our side. Please try again."
	if status == http.StatusNotFound {
		msg = "There is no such page."
	}
	s.fail(w, r, status, msg)
}

// who names an assignee in a sentence.
func who(p taskd.PersonRef) string {
	switch p.ID {
	case taskd.NobodyID:
		return "nobody"
	case taskd.AnyoneID:
		return "anyone"
	}
	return p.Name
}

// assignee names an assignee where it stands alone, as a field's value:
// "Unassigned" rather than who's "nobody".
func assignee(p taskd.PersonRef) string {
	switch p.ID {
	case taskd.NobodyID:
		return "Unassigned"
	case taskd.AnyoneID:
		return "Anyone"
	}
	return p.Name
}

// taskFields fills the task form's shared fields.
type taskFields struct {
	ID                   string
	People               []taskd.Member
	Priority             int
	Assignee, Start, End string
}

func newTaskFields(id string, people []taskd.Member, priority any, assignee, start, end string) taskFields {
	f := taskFields{ID: id, People: people, Priority: 1, Assignee: assignee, Start: start, End: end}
	switch p := priority.(type) {
	case int:
		f.Priority = p
	case string:
		if n, err := wire.ParsePriority(p); err == nil {
			f.Priority = n
		}
	}
	if f.Assignee == "" {
		f.Assignee = "NOONE"
	}
	return f
}

// formValue is a submitted form's value, to refill the form after an error.
func formValue(values map[string][]string, name string) string {
	if v := values[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// errorFor returns the error message when it belongs to the named form.
func errorFor(fe *formError, form string) string {
	if fe != nil && fe.Form == form {
		return fe.Message
	}
	return ""
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

// view is what every template gets.
type view struct {
	Title  string
	CSRF   string
	Person *taskd.Person
	Nav    *nav // set on an account's pages
	Data   any
}

// Zone is where the page's times are shown: the person's time zone, else
// the account's, else UTC.
func (v *view) Zone() *time.Location { return taskd.Zone(v.personZone(), v.accountZone()) }

func (v *view) personZone() string {
	if v.Person == nil {
		return ""
	}
	return v.Person.TimeZone
}

func (v *view) accountZone() string {
	if v.Nav == nil {
		return ""
	}
	return v.Nav.Account.TimeZone
}

// Date shows a time in the page's zone, with the zone's abbreviation.
func (v *view) Date(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(v.Zone()).Format("2006-01-02 15:04 MST")
}

// Initials are the signed-in person's initials, for the header's avatar.
func (v *view) Initials() string {
	if v.Person == nil {
		return ""
	}
	return initials(v.Person.DisplayName())
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

// render writes a template with status 200.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, v *view) error {
	return s.renderStatus(w, r, http.StatusOK, name, v)
}

func (s *Server) renderStatus(w http.ResponseWriter, r *http.Request, status int, name string, v *view) error {
	var buf bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&buf, name, v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// fail shows the error page with a message safe for the user.
// The page keeps the header of whoever is signed in, so they can go on.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	v := &view{Title: failTitle(status), Data: msg, CSRF: s.csrfToken(w, r)}
	if p, ok, err := s.person(r.Context(), r); err == nil && ok {
		v.Person = &p
	}
	if err := s.renderStatus(w, r, status, "error.html", v); err != nil {
		s.cfg.Log.ErrorContext(r.Context(), "render error page", "err", err)
	}
}

// secretShown is a secret shown once, for the "secret" template.
type secretShown struct{ What, Why, Value string }

// failTitle is an error page's heading: what happened, in plain words,
// not the status's name.
func failTitle(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "This request could not be read"
	case http.StatusUnauthorized:
		return "Please sign in"
	case http.StatusForbidden:
		return "You cannot do this"
	case http.StatusNotFound:
		return "Nothing here"
	case http.StatusConflict:
		return "This cannot be done now"
	case http.StatusRequestEntityTooLarge:
		return "This is too large"
	case http.StatusUnprocessableEntity:
		return "Please check what you entered"
	case http.StatusTooManyRequests:
		return "Too many attempts"
	}
	if status >= 500 {
		return "Something went wrong"
	}
	return "This did not work"
}

func (s *Server) internal(w http.ResponseWriter, r *http.Request, err error) {
	s.cfg.Log.ErrorContext(r.Context(), "page failed", "path", r.URL.Path, "err", err)
	s.fail(w, r, http.StatusInternalServerError, "Something went wrong on our side. Please try again.")
}

// see303 answers with a redirect to a page of this server (Post/Redirect/
// Get). Whatever to holds, the browser stays on this server: a target
// localPath does not accept becomes "/". Redirects to an OAuth client go
// through toClient instead.
func see303(w http.ResponseWriter, r *http.Request, to string) error {
	http.Redirect(w, r, localPath(to), http.StatusSeeOther)
	return nil
}

// toClient redirects to an OAuth client's redirect URI; uri must come from
// package oauth, which validated it against the client's registered URIs.
func toClient(w http.ResponseWriter, r *http.Request, uri string) error {
	http.Redirect(w, r, uri, http.StatusSeeOther)
	return nil
}

// localPath returns next when it is a path on this server, else "/".
// Browsers read URLs by the WHATWG URL Standard: they drop TAB, CR and LF
// anywhere in the string, strip leading and trailing C0 controls and spaces,
// and read "\" as "/" in http(s) URLs, so "/\t/evil.example" or
// "/\evil.example" would take the user to another origin. Any control
// character, backslash, scheme, host or leading "//" is refused, and what
// passes is re-serialised from its parsed form, so the Location header holds
// exactly what was checked.
func localPath(next string) string {
	if next == "" || next[0] != '/' || len(next) > 4000 {
		return "/"
	}
	for i := 0; i < len(next); i++ {
		if c := next[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return "/"
	}
	out := u.EscapedPath()
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		out += "#" + u.EscapedFragment()
	}
	if !strings.HasPrefix(out, "/") || strings.HasPrefix(out, "//") {
		return "/"
	}
	return out
}

// scopeTexts says in plain words what each scope allows.
var scopeTexts = map[string]string{
	"projects_read": "See your projects", "projects_write": "Create, edit, archive and reopen projects",
	"tasks_read": "See tasks and subtasks", "tasks_write": "Create, edit, complete, reopen and delete tasks",
	"costs_read": "See time and costs", "costs_write": "Record time and costs",
	"tags_read": "See tags", "tags_write": "Create and change tags",
	"comments_read": "Read comments", "comments_write": "Write, edit and delete comments",
	"files_read": "Download files", "files_write": "Upload and delete files",
	"users_read": "See the people in the account", "users_write": "Invite and change people",
	"contacts_read": "See contacts", "contacts_write": "Change contacts",
	"administrative": "Manage webhooks and read the account's change history",
}

func scopeText(scope string) string {
	if t, ok := scopeTexts[scope]; ok {
		return t
	}
	return scope
}

// initials are up to two letters of a name, for an avatar.
func initials(name string) string {
	var out []rune
	for _, w := range strings.Fields(name) {
		for _, r := range w {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				out = append(out, unicode.ToUpper(r))
				break
			}
		}
		if len(out) == 2 {
			break
		}
	}
	return string(out)
}
