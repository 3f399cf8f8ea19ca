// Package api serves the account APIs: the actions of
// {account_url}/api/admin/v2 (administrative key) and
// {account_url}/api/oauth2 (access token). It parses and authenticates
// requests, dispatches actions to the store and renders the
// Worksection-compatible envelope; errors.go is the one table from the
// domain's error kinds to the API's numeric codes.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/upload"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/secret"
)

// adminAPI serves the administrative API of one account, named by the path
// value "slug".
type adminAPI struct {
	store     Store
	directory taskd.DirectoryStore
	sealer    *secret.Sealer
	log       *slog.Logger
	now       func() time.Time
	actions   map[string]action
	lists     *listCache
	// verified remembers the hashes that verified (authenticate).
	verified *verifiedHashes
	hooks    WebhookService
	people   Inviter
	limits   Limits
	// fileLimits bound the files an account stores.
	fileLimits taskd.FileLimits

	// streams admits the streamed answers (stream.go): as many at once as
	// there are cores, fewer than the read connections (2 or 4 per core).
	streams streams
}

// Limits are the API's rate limits; a nil limiter allows everything.
type Limits struct {
	// PerAddress counts every request by client address, before the
	// caller is authenticated.
	PerAddress *ratelimit.Shared
	// PerAccount counts an account's authenticated calls, by key and by
	// token alike.
	PerAccount *ratelimit.Shared
	// TrustProxy takes the client address from X-Forwarded-For.
	TrustProxy bool
	// Uploads admits and paces the files of multipart requests; nil: no
	// bound in flight, the default pace.
	Uploads *upload.Gate
}

// Inviter invites people by e-mail (people.Service).
type Inviter interface {
	Invite(ctx context.Context, by taskd.Actor, acct taskd.Account, in people.Invitation) (taskd.Invitation, error)
}

// Config configures the account APIs.
type Config struct {
	Store Store
	// Directory keeps the account's teams, contacts and folders.
	Directory taskd.DirectoryStore
	Sealer    *secret.Sealer
	Log       *slog.Logger
	Now       func() time.Time // time.Now when nil
	// Hooks serves the webhook actions; nil leaves them unavailable.
	Hooks WebhookService
	// Tokens checks access tokens; nil serves no access-token API.
	Tokens TokenVerifier
	// People invites people by e-mail (add_user); nil leaves add_user
	// unavailable.
	People Inviter
	Limits Limits
	// FileLimits bound the files an account stores; zero:
	// taskd.DefaultFileLimits.
	FileLimits taskd.FileLimits
}

// API is both account APIs of every account.
type API struct {
	admin  *adminAPI
	bearer *tokenAPI // nil without Config.Tokens
}

// New returns the account APIs.
func New(cfg Config) *API {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.FileLimits == (taskd.FileLimits{}) {
		cfg.FileLimits = taskd.DefaultFileLimits
	}
	table := func() map[string]action {
		t := actions()
		if cfg.People == nil {
			delete(t, "add_user")
		}
		return t
	}
	a := &API{admin: &adminAPI{store: cfg.Store, directory: cfg.Directory, sealer: cfg.Sealer, log: cfg.Log, now: cfg.Now, actions: table(),
		lists: newListCache(64 << 20), streams: newStreams(runtime.GOMAXPROCS(0)), verified: newVerifiedHashes(maxVerifiedHashes), hooks: cfg.Hooks, people: cfg.People, limits: cfg.Limits, fileLimits: cfg.FileLimits}}
	if cfg.Tokens != nil {
		table := table()
		table["me"] = action{anyScope, read, nil, me}
		a.bearer = &tokenAPI{adminAPI: a.admin, tokens: cfg.Tokens, actions: table}
	}
	return a
}

// Mount registers the APIs' addresses on mux: {account_url}/api/admin/v2,
// {account_url}/api/oauth2, and a "not found" in the JSON envelope for
// every other address under {account_url}/api/, since API clients read
// JSON, not pages.
func (a *API) Mount(mux *http.ServeMux) {
	mux.Handle("/a/{slug}/api/admin/v2", a.admin)
	mux.Handle("/a/{slug}/api/admin/v2/{$}", a.admin)
	if a.bearer != nil {
		mux.Handle("/a/{slug}/api/oauth2", a.bearer)
		mux.Handle("/a/{slug}/api/oauth2/{$}", a.bearer)
	}
	mux.HandleFunc("/a/{slug}/api/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody{Status: "error", StatusCode: 0, Message: "Not found"})
	})
}

// allowAddress counts a request under its client address.
func (h *adminAPI) allowAddress(r *http.Request) error {
	if h.limits.PerAddress == nil {
		return nil
	}
	if wait, ok := h.limits.PerAddress.Allow(r.Context(), ratelimit.ClientAddress(r, h.limits.TrustProxy)); !ok {
		return taskd.RateLimited(wait)
	}
	return nil
}

// allowAccount counts an authenticated call under its account.
func (h *adminAPI) allowAccount(ctx context.Context, acct taskd.Account) error {
	if wait, ok := h.limits.PerAccount.Allow(ctx, strconv.FormatInt(acct.ID, 10)); !ok {
		return taskd.RateLimited(wait)
	}
	return nil
}

// ServeHTTP parses, authenticates and dispatches one call.
func (h *adminAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, err := h.serve(w, r)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	h.respond(w, r, data)
}

func (h *adminAPI) serve(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := h.allowAddress(r); err != nil {
		return nil, err
	}
	req, err := parseRequest(w, r, h.limits.Uploads)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	acct, owner, known, err := h.account(ctx, r.PathValue("slug"), req)
	if err != nil {
		return nil, err
	}
	if len(acct.APIKey) == 0 {
		// Revoked with the trust of the person it was shown to
		// (taskd.TrustEnded): nothing can be signed with no key.
		return nil, fail(CodeAuth, "")
	}
	params, err := h.authenticate(r, req, acct)
	if err != nil {
		return nil, err
	}
	if err := h.allowAccount(ctx, acct); err != nil {
		return nil, err
	}
	return dispatch(ctx, h.actions, &call{store: h.store, directory: h.directory, now: h.now, lists: h.lists, hooks: h.hooks, people: h.people, p: params, who: &caller{account: acct, owner: owner},
		parts: req.parts, fileLimits: h.fileLimits, known: known})
}

// account reads the account of a call with the administrative key. For a
// get_tasks call it reads the project's version in the same query (one
// read of the database for an answer from the rendered-list cache), for a
// change that acts as the owner the owner (nil otherwise); the parameters
// as sent only choose the query: the action reads the version only for the
// project its authenticated parameters name (call.version), and acts as
// the owner only when they name no other member (call.actor).
func (h *adminAPI) account(ctx context.Context, slug string, req *request) (taskd.Account, *taskd.Member, knownVersion, error) {
	if req.actsAsOwner() {
		acct, owner, found, err := h.store.AccountAndOwner(ctx, slug)
		if err != nil || found {
			return acct, &owner, knownVersion{}, err
		}
	}
	pid := req.listProject()
	if pid == 0 {
		acct, err := h.store.AccountBySlug(ctx, slug)
		return acct, nil, knownVersion{}, err
	}
	acct, version, seen, err := h.store.AccountAndProjectVersion(ctx, slug, pid)
	if err != nil {
		return acct, nil, knownVersion{}, err
	}
	return acct, nil, knownVersion{project: pid, version: version, seen: seen}, nil
}

// authenticate checks the Admin header or the hash and returns the
// parameters the credential covers: with the header, every source (it
// signs the action and the time, not parameters); with a hash, only the
// signed source, and a request with parameters elsewhere is refused.
//
// A hash that verified once against the account's sealed key is
// remembered (verifiedHashes): the same signed text with the same sealed
// key verifies again, so it is not checked again; a new key is new sealed
// bytes, which nothing verified with yet.
func (h *adminAPI) authenticate(r *http.Request, req *request, acct taskd.Account) (map[string]string, error) {
	if header := r.Header.Get("Authorization"); strings.HasPrefix(header, "Admin ") {
		params, err := req.merged()
		if err != nil {
			return nil, err
		}
		key, err := h.sealer.OpenAPIKey(acct.Slug, acct.APIKey)
		if err != nil {
			return nil, taskd.Internal("open api key", err)
		}
		if !checkAdminHeader(header, params["action"], key, h.now()) {
			return nil, fail(CodeAuth, "")
		}
		return params, nil
	}
	src, err := req.signed()
	if err != nil {
		return nil, err
	}
	if h.verified.has(acct.ID, acct.Slug, acct.APIKey, src.form) {
		return src.params, nil
	}
	key, err := h.sealer.OpenAPIKey(acct.Slug, acct.APIKey)
	if err != nil {
		return nil, taskd.Internal("open api key", err)
	}
	if !checkHash(src.form, src.params["hash"], key) {
		return nil, fail(CodeAuth, "")
	}
	h.verified.add(acct.ID, acct.Slug, acct.APIKey, src.form)
	return src.params, nil
}

// caller is who makes a call: the account, and for token calls the person
// and the token's scopes.
type caller struct {
	account taskd.Account
	// person is the token's person; nil for administrative-key calls, which
	// act as the account owner (or as email_user_from where accepted).
	person *taskd.Member
	// owner is the account's owner when read with the account
	// (adminAPI.account), for administrative-key calls; nil when not read.
	owner  *taskd.Member
	scopes []string // the token's scopes
}

// permits checks that the caller may run a. A token needs the action's
// scope, and an action without a scope is refused, so an action added
// without an entry is never open to tokens. The caller's role must allow
// the action's permission (taskd.Authorize): the token's person's current
// role, or the owner's for the administrative key.
func (w *caller) permits(a action) error {
	role := taskd.RoleOwner
	if w.person != nil {
		role = w.person.Role
		switch {
		case a.scope == "":
			return failf(CodeForbidden, "action", "This action cannot be called with an access token")
		case a.scope != anyScope && !taskd.HasScope(w.scopes, a.scope):
			return failf(CodeForbidden, a.scope, "The access token lacks the scope %s", a.scope)
		}
	}
	return taskd.Authorize(taskd.Actor{AccountID: w.account.ID, Role: role}, a.perm)
}

// dispatch checks the action, the caller's right to it and its parameters,
// and runs it.
func dispatch(ctx context.Context, table map[string]action, c *call) (any, error) {
	params := c.p
	name, ok := params["action"]
	if !ok || name == "" {
		return nil, fail(CodeActionRequired, "action")
	}
	a, ok := table[name]
	if !ok {
		return nil, fail(CodeActionInvalid, name)
	}
	if err := c.who.permits(a); err != nil {
		return nil, err
	}
	if err := c.who.checkCredential(name); err != nil {
		return nil, err
	}
	for k := range params {
		if k != "action" && k != "hash" && k != "access_token" && !a.accepts(k) {
			return nil, fail(CodeUnknownParam, k)
		}
	}
	c.ctx = ctx
	if err := c.receiveFiles(name); err != nil {
		return nil, err
	}
	out, err := a.run(c)
	if err != nil || len(c.uploads) > 0 { // nothing of a failed call stays
		c.dropUploads()
	}
	return out, err
}

// respond writes an action's answer: a file's content for download, a
// streamed list as it is read (stream.go), the JSON envelope for
// everything else.
func (h *adminAPI) respond(w http.ResponseWriter, r *http.Request, data any) {
	switch b := data.(type) {
	case fileBody:
		if err := writeFile(w, b); err != nil {
			h.log.Warn("download cut short", "file", b.file.ID, "err", err)
		}
	case streamBody:
		writeStream(w, r, h.log, h.streams, b)
	default:
		writeJSON(w, http.StatusOK, data)
	}
}
