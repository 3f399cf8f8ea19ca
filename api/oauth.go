package api

import (
	"context"
	"net/http"

	"github.com/taskd/taskd"
)

// TokenVerifier checks access tokens; package oauth implements it.
type TokenVerifier interface {
	// VerifyToken returns the grant of a current access token, or a
	// *taskd.Error with code 2 whose message says why (an expired token's
	// is "Access token is expired").
	VerifyToken(ctx context.Context, token string) (taskd.Grant, error)
}

// scopes maps each action to the scope an access token needs for it (DESIGN
// §5); actions missing here need no scope beyond a valid token.
var scopes = map[string]string{
	"get_projects": "projects_read", "get_project": "projects_read",
	"post_project": "projects_write", "update_project": "projects_write",
	"close_project": "projects_write", "activate_project": "projects_write",
	"get_tasks": "tasks_read", "get_all_tasks": "tasks_read", "get_task": "tasks_read", "search_tasks": "tasks_read",
	"post_task": "tasks_write", "update_task": "tasks_write", "complete_task": "tasks_write",
	"reopen_task": "tasks_write", "delete_task": "tasks_write",
	"get_comments": "comments_read",
	"post_comment": "comments_write", "update_comment": "comments_write", "delete_comment": "comments_write",
	"get_users":  "users_read",
	"get_events": taskd.ScopeAdministrative, "get_webhooks": taskd.ScopeAdministrative,
	"add_webhook": taskd.ScopeAdministrative, "delete_webhook": taskd.ScopeAdministrative,
	"enable_webhook": taskd.ScopeAdministrative, "disable_webhook": taskd.ScopeAdministrative,
}

// OAuth serves {account_url}/api/oauth2: the administrative API's actions
// plus me, called with an access token and limited by its scopes.
type OAuth struct {
	*Admin
	tokens  TokenVerifier
	actions map[string]action
}

// OAuth returns the access-token API, sharing the administrative API's
// store and caches.
func (h *Admin) OAuth(tokens TokenVerifier) *OAuth {
	table := actions()
	table["me"] = action{nil, me}
	return &OAuth{Admin: h, tokens: tokens, actions: table}
}

// ServeHTTP authenticates the token, checks its scope and dispatches.
func (h *OAuth) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, err := h.serve(w, r)
	if err != nil {
		switch e := taskd.AsError(err); e.Code {
		case taskd.CodeAuth:
			if w.Header().Get("WWW-Authenticate") == "" {
				w.Header().Set("WWW-Authenticate", `Bearer realm="taskd", error="invalid_token", error_description="`+e.Message+`"`)
			}
		case taskd.CodeForbidden:
			if e.Details != "" && taskd.HasScope(taskd.Scopes, e.Details) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="taskd", error="insufficient_scope", scope="`+e.Details+`"`)
			}
		}
		WriteError(w, r, h.log, err)
		return
	}
	writeJSON(w, http.StatusOK, data)
}

func (h *OAuth) serve(w http.ResponseWriter, r *http.Request) (any, error) {
	req, err := parseRequest(w, r)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	params, err := req.merged()
	if err != nil {
		return nil, err
	}
	token, ok := bearer(r)
	if !ok {
		token = params["access_token"]
	}
	if token == "" { // no credentials: a challenge without an error code (RFC 6750 §3.1)
		w.Header().Set("WWW-Authenticate", `Bearer realm="taskd"`)
		return nil, taskd.Errorf(taskd.CodeAuth, "", "Access token is required")
	}
	grant, err := h.tokens.VerifyToken(ctx, token)
	if err != nil {
		return nil, err
	}
	invalid := taskd.Errorf(taskd.CodeAuth, "", "Access token is invalid")
	acct, err := h.store.AccountBySlug(ctx, r.PathValue("slug"))
	if taskd.ErrorCode(err) == taskd.CodeAuth || (err == nil && acct.ID != grant.AccountID) {
		return nil, invalid // a token works only on its own account's URL
	}
	if err != nil {
		return nil, err
	}
	m, err := h.store.Member(ctx, acct.ID, grant.PersonID)
	if taskd.ErrorCode(err) == taskd.CodeUserInvalid {
		return nil, invalid // no longer a member
	}
	if err != nil {
		return nil, err
	}
	name := params["action"]
	if err := permitted(name, grant.Scopes, m.Role); err != nil {
		return nil, err
	}
	return dispatch(ctx, h.actions, &call{store: h.store, now: h.now, lists: h.lists, hooks: h.hooks, p: params, who: &caller{account: acct, person: &m}})
}

// permitted checks the token's scopes and, for administrative actions, that
// the person is still an owner or admin. Unknown actions pass, so that
// dispatch reports them.
func permitted(action string, granted []string, role taskd.Role) error {
	need, ok := scopes[action]
	if !ok {
		return nil
	}
	if !taskd.HasScope(granted, need) {
		return taskd.Errorf(taskd.CodeForbidden, need, "The access token lacks the scope %s", need)
	}
	if need == taskd.ScopeAdministrative && role != taskd.RoleOwner && role != taskd.RoleAdmin {
		return taskd.Errorf(taskd.CodeForbidden, "role", "Only account owners and admins may use administrative actions")
	}
	return nil
}

func bearer(r *http.Request) (string, bool) {
	auth := r.Header.Get("Authorization")
	if len(auth) > 7 && (auth[:7] == "Bearer " || auth[:7] == "bearer ") {
		return auth[7:], true
	}
	return "", false
}

// me returns the token's person in this account.
func me(c *call) (any, error) {
	return ok(renderUser(*c.who.person)), nil
}
