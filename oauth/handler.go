package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/ratelimit"
)

// maxForm bounds the body of a token request.
const maxForm = 64 << 10

// Mount registers the JSON endpoints under {auth_url} on mux: token,
// refresh, resource, revoke, introspect, JWKS and the RFC 8414 metadata.
// The authorize endpoint is a page, served by package web.
func (s *Server) Mount(mux *http.ServeMux) {
	mux.HandleFunc("/oauth2/token", s.endpoint(s.token))
	mux.HandleFunc("/oauth2/refresh", s.endpoint(s.refresh))
	mux.HandleFunc("/oauth2/resource", s.endpoint(s.resource))
	mux.HandleFunc("/oauth2/revoke", s.endpoint(s.revoke))
	mux.HandleFunc("/oauth2/introspect", s.endpoint(s.introspect))
	mux.HandleFunc("GET /oauth2/jwks", s.jwks)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	// Other methods on the two documents: 405, not the site's "not found".
	getOnly := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "invalid_request",
			"error_description": "Use GET", "errorDescription": "Use GET"})
	}
	mux.HandleFunc("/oauth2/jwks", getOnly)
	mux.HandleFunc("/.well-known/oauth-authorization-server", getOnly)
}

// form is a token request's parameters.
type form struct {
	v      url.Values
	header http.Header
}

func (f form) get(name string) string { return f.v.Get(name) }

// endpoint parses a token-style request (POST form; GET query unless
// Strict), then calls fn and writes its answer or error.
func (s *Server) endpoint(fn func(context.Context, form) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if l := s.cfg.Limits.PerAddress; l != nil {
			if wait, ok := l.Allow(r.Context(), ratelimit.ClientAddress(r, s.cfg.Limits.TrustProxy)); !ok {
				s.writeError(w, r, tooMany(wait))
				return
			}
		}
		f, err := s.parse(w, r)
		if err == nil {
			var out any
			if out, err = fn(r.Context(), f); err == nil {
				writeJSON(w, http.StatusOK, out)
				return
			}
		}
		s.writeError(w, r, err)
	}
}

func (s *Server) parse(w http.ResponseWriter, r *http.Request) (form, error) {
	f := form{header: r.Header}
	switch r.Method {
	case http.MethodPost:
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if ct != "application/x-www-form-urlencoded" {
			return f, oerr(400, "invalid_request", "The body must be application/x-www-form-urlencoded")
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := r.ParseForm(); err != nil {
			return f, oerr(400, "invalid_request", "The form body cannot be parsed")
		}
		if r.URL.RawQuery != "" && !s.cfg.Strict {
			// Merge, so that clients that send some parameters in the query still work.
			for k, v := range r.URL.Query() {
				if _, ok := r.PostForm[k]; !ok {
					r.PostForm[k] = v
				}
			}
		}
		f.v = r.PostForm
	case http.MethodGet:
		if s.cfg.Strict {
			return f, oerr(405, "invalid_request", "Use POST with a form body")
		}
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return f, oerr(400, "invalid_request", "The query cannot be parsed")
		}
		f.v = q
	default:
		return f, oerr(405, "invalid_request", "Use POST with a form body")
	}
	for k, v := range f.v {
		if len(v) > 1 {
			return f, oerr(400, "invalid_request", "The parameter "+k+" is repeated")
		}
	}
	return f, nil
}

// credentials reads the client's credentials: HTTP Basic (form-encoded,
// RFC 6749 §2.3.1) or client_id and client_secret in the form, not both.
func credentials(f form) (clientAuth, error) {
	id, sec := f.get("client_id"), f.get("client_secret")
	if auth := f.header.Get("Authorization"); strings.HasPrefix(strings.ToLower(auth), "basic ") {
		if sec != "" {
			return clientAuth{}, oerr(400, "invalid_request", "Use one client authentication method, not two")
		}
		r := http.Request{Header: http.Header{"Authorization": {auth}}}
		u, p, ok := r.BasicAuth()
		if !ok {
			return clientAuth{}, errInvalidClient
		}
		bu, err1 := url.QueryUnescape(u)
		bp, err2 := url.QueryUnescape(p)
		if err1 != nil || err2 != nil || (id != "" && id != bu) {
			return clientAuth{}, errInvalidClient
		}
		id, sec = bu, bp
	}
	return clientAuth{id: id, secret: sec}, nil
}

// client authenticates the client of a request and counts the request
// against its account's limit.
func (s *Server) client(ctx context.Context, f form) (taskd.Client, error) {
	a, err := credentials(f)
	if err != nil {
		return taskd.Client{}, err
	}
	c, err := s.authenticate(ctx, a)
	if err != nil {
		return taskd.Client{}, err
	}
	return c, nil
}

func required(f form, names ...string) error {
	for _, n := range names {
		if f.get(n) == "" {
			return oerr(400, "invalid_request", n+" is required")
		}
	}
	return nil
}

func (s *Server) token(ctx context.Context, f form) (any, error) {
	switch f.get("grant_type") {
	case "authorization_code":
		return s.grant(ctx, f, "code", "redirect_uri")
	case "refresh_token":
		return s.grant(ctx, f, "refresh_token")
	case "":
		return nil, oerr(400, "invalid_request", "grant_type is required")
	}
	return nil, oerr(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
}

func (s *Server) refresh(ctx context.Context, f form) (any, error) {
	switch f.get("grant_type") {
	case "refresh_token":
		return s.grant(ctx, f, "refresh_token")
	case "":
		return nil, oerr(400, "invalid_request", "grant_type is required")
	}
	return nil, oerr(400, "unsupported_grant_type", "grant_type must be refresh_token")
}

// grant redeems the code or refresh token. The client is authenticated
// before anything is consumed or refused for another reason, from the row
// that also holds the grant (one query), or alone when there is no such
// grant.
func (s *Server) grant(ctx context.Context, f form, params ...string) (any, error) {
	a, err := credentials(f)
	if err != nil {
		return nil, err
	}
	if err := required(f, params...); err != nil {
		return nil, s.refuse(ctx, a, err)
	}
	if params[0] == "code" {
		return s.exchange(ctx, a, f.get("code"), f.get("redirect_uri"), f.get("code_verifier"))
	}
	return s.refreshGrant(ctx, a, f.get("refresh_token"))
}

// User is the resource endpoint's answer (spec OAuth user).
type User struct {
	ID         string `json:"id"`
	FirstName  string `json:"first_name"`
	LastName   string `json:"last_name"`
	Email      string `json:"email"`
	AccountURL string `json:"account_url"`
}

func (s *Server) resource(ctx context.Context, f form) (any, error) {
	c, err := s.client(ctx, f)
	if err != nil {
		return nil, err
	}
	token := f.get("access_token")
	if b, ok := BearerToken(f.header); ok && token == "" {
		token = b
	}
	if token == "" {
		return nil, oerr(400, "invalid_request", "access_token is required")
	}
	a, err := s.Verify(ctx, token)
	if err != nil {
		return nil, err
	}
	if a.Grant.ClientPK != c.ID {
		return nil, errInvalidToken
	}
	p, err := s.cfg.Store.PersonByID(ctx, a.Grant.PersonID)
	if err != nil {
		return nil, err
	}
	return User{ID: a.Claims.Subject, FirstName: p.FirstName, LastName: p.LastName, Email: p.Email,
		AccountURL: s.cfg.AccountURL(a.Grant.AccountSlug)}, nil
}

func (s *Server) revoke(ctx context.Context, f form) (any, error) {
	c, err := s.client(ctx, f)
	if err != nil {
		return nil, err
	}
	if err := required(f, "token"); err != nil {
		return nil, err
	}
	if err := s.Revoke(ctx, c, f.get("token")); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// introspection is an RFC 7662 answer.
type introspection struct {
	Active    bool   `json:"active"`
	Scope     string `json:"scope,omitempty"`
	ClientID  string `json:"client_id,omitempty"`
	Username  string `json:"username,omitempty"`
	TokenType string `json:"token_type,omitempty"`
	Exp       int64  `json:"exp,omitempty"`
	Iat       int64  `json:"iat,omitempty"`
	Sub       string `json:"sub,omitempty"`
	Aud       string `json:"aud,omitempty"`
	Iss       string `json:"iss,omitempty"`
	Jti       string `json:"jti,omitempty"`
	Account   string `json:"account,omitempty"`
}

// introspect describes a token of the calling client; any other token, and
// a token of another client, is inactive.
func (s *Server) introspect(ctx context.Context, f form) (any, error) {
	c, err := s.client(ctx, f)
	if err != nil {
		return nil, err
	}
	if err := required(f, "token"); err != nil {
		return nil, err
	}
	a, err := s.Verify(ctx, f.get("token"))
	if err != nil {
		if isOAuth(err) {
			return introspection{}, nil
		}
		return nil, err
	}
	if a.Grant.ClientPK != c.ID {
		return introspection{}, nil
	}
	cl := a.Claims
	return introspection{Active: true, Scope: cl.Scope, ClientID: cl.ClientID, TokenType: "Bearer", Exp: cl.Expires,
		Iat: cl.IssuedAt, Sub: cl.Subject, Aud: cl.Audience, Iss: cl.Issuer, Jti: cl.ID, Account: cl.Account}, nil
}

func (s *Server) jwks(w http.ResponseWriter, r *http.Request) {
	keys, err := s.keys.published(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	set := struct {
		Keys []jwk `json:"keys"`
	}{Keys: make([]jwk, 0, len(keys))}
	for _, k := range keys {
		j, err := toJWK(k)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		set.Keys = append(set.Keys, j)
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, set)
}

func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	iss := s.cfg.Issuer
	w.Header().Set("Cache-Control", "public, max-age=3600")
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         iss,
		"authorization_endpoint":                         iss + "/oauth2/authorize",
		"token_endpoint":                                 iss + "/oauth2/token",
		"jwks_uri":                                       iss + "/oauth2/jwks",
		"revocation_endpoint":                            iss + "/oauth2/revoke",
		"introspection_endpoint":                         iss + "/oauth2/introspect",
		"scopes_supported":                               taskd.Scopes,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_post", "client_secret_basic"},
		"revocation_endpoint_auth_methods_supported":     []string{"client_secret_post", "client_secret_basic"},
		"introspection_endpoint_auth_methods_supported":  []string{"client_secret_post", "client_secret_basic"},
		"code_challenge_methods_supported":               []string{"S256"},
		"authorization_response_iss_parameter_supported": true,
	})
}

// BearerToken returns the token of an "Authorization: Bearer" header.
func BearerToken(h http.Header) (string, bool) {
	auth := h.Get("Authorization")
	if len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
		return strings.TrimSpace(auth[7:]), true
	}
	return "", false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
		h.Set("Pragma", "no-cache")
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeError writes an RFC 6749 error with the compat errorDescription;
// anything that is not an OAuth error is a server_error without internals.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var oe *Error
	if !errors.As(err, &oe) {
		s.cfg.Log.ErrorContext(r.Context(), "oauth endpoint failed", "path", r.URL.Path, "err", err)
		oe = oerr(500, "server_error", "The server could not handle the request")
	}
	switch oe.Code {
	case "invalid_client":
		w.Header().Set("WWW-Authenticate", `Basic realm="taskd", charset="UTF-8"`)
	case "invalid_token":
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+oe.Description+`"`)
	}
	switch oe.Status {
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", "POST")
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", strconv.Itoa(int(max(oe.RetryAfter, time.Second)/time.Second)))
	}
	writeJSON(w, oe.Status, map[string]string{"error": oe.Code, "error_description": oe.Description, "errorDescription": oe.Description})
}
