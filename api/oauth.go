package api

import (
	"context"
	"net/http"

	"github.com/taskd/taskd"
)

// TokenVerifier checks access tokens; package oauth implements it.
type TokenVerifier interface {
	// VerifyToken returns the grant of a current access token, or a
	// *taskd.Error of KindUnauthenticated (code 2 here) whose message says
	// why (an expired token's is "Access token is expired").
	VerifyToken(ctx context.Context, token string) (taskd.Grant, error)
}

// tokenAPI serves {account_url}/api/oauth2: the administrative API's actions
// plus me, called with an access token and limited by its scopes.
type tokenAPI struct {
	*adminAPI
	tokens  TokenVerifier
	actions map[string]action
}

// ServeHTTP authenticates the token, checks its scope and dispatches.
func (h *tokenAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, err := h.serve(w, r)
	if err != nil {
		switch e := asError(err); e.Code {
		case CodeAuth:
			if w.Header().Get("WWW-Authenticate") == "" {
				w.Header().Set("WWW-Authenticate", `Bearer realm="taskd", error="invalid_token", error_description="`+e.Message+`"`)
			}
		case CodeForbidden:
			if e.Details != "" && taskd.HasScope(taskd.Scopes, e.Details) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="taskd", error="insufficient_scope", scope="`+e.Details+`"`)
			}
		}
		writeError(w, r, h.log, err)
		return
	}
	h.respond(w, r, data)
}

func (h *tokenAPI) serve(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := h.allowAddress(r); err != nil {
		return nil, err
	}
	req, err := parseRequest(w, r, h.limits.Uploads)
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
		return nil, failf(CodeAuth, "", "Access token is required")
	}
	grant, err := h.tokens.VerifyToken(ctx, token)
	if err != nil {
		return nil, err
	}
	invalid := failf(CodeAuth, "", "Access token is invalid")
	acct, err := h.store.AccountBySlug(ctx, r.PathValue("slug"))
	if taskd.IsNotFound(err) || (err == nil && acct.ID != grant.AccountID) {
		return nil, invalid // a token works only on its own account's URL
	}
	if err != nil {
		return nil, err
	}
	m, err := h.store.Member(ctx, acct.ID, grant.PersonID)
	if taskd.IsNotFound(err) {
		return nil, invalid // no longer a member
	}
	if err != nil {
		return nil, err
	}
	if err := h.allowAccount(ctx, acct); err != nil {
		return nil, err
	}
	return dispatch(ctx, h.actions, &call{store: h.store, directory: h.directory, now: h.now, lists: h.lists, hooks: h.hooks, people: h.people, p: params,
		who: &caller{account: acct, person: &m, scopes: grant.Scopes}, parts: req.parts, fileLimits: h.fileLimits})
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
	return ok(renderUser(*c.who.person, false)), nil
}
