package oauth

import (
	"context"
	"net/url"
	"regexp"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// Request is a validated authorization request.
type Request struct {
	Client      taskd.Client
	RedirectURI string
	State       string
	Scopes      []string
	Challenge   string // PKCE S256 code_challenge, or empty
}

// Params returns the request as the query parameters it came with, for
// carrying it through the sign-in and selection pages.
func (r Request) Params() url.Values {
	v := url.Values{
		"client_id": {r.Client.ClientID}, "response_type": {"code"}, "redirect_uri": {r.RedirectURI},
		"state": {r.State}, "scope": {strings.Join(r.Scopes, " ")},
	}
	if r.Challenge != "" {
		v.Set("code_challenge", r.Challenge)
		v.Set("code_challenge_method", "S256")
	}
	return v
}

// RequestError is an invalid authorization request. When Redirect is set the
// redirect URI was validated and the error goes back to the client there;
// otherwise it must be shown on an error page and never redirected.
type RequestError struct {
	Code        string
	Description string
	Redirect    string // the error redirect, when the redirect URI is trusted
}

func (e *RequestError) Error() string { return "oauth: " + e.Code + ": " + e.Description }

var challengeRE = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// authorizeParams are the parameters /oauth2/authorize understands; others
// are ignored (RFC 6749 §3.1).
var authorizeParams = []string{"client_id", "response_type", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method"}

// ParseRequest validates an authorization request's parameters. Errors are
// *RequestError.
func (s *Server) ParseRequest(ctx context.Context, q url.Values) (Request, error) {
	page := func(desc string) (Request, error) {
		return Request{}, &RequestError{Code: "invalid_request", Description: desc}
	}
	for _, name := range authorizeParams {
		if len(q[name]) > 1 {
			return page("The parameter " + name + " is repeated")
		}
	}
	clientID := q.Get("client_id")
	if clientID == "" {
		return page("client_id is required")
	}
	c, err := s.cfg.Store.Client(ctx, clientID)
	if taskd.IsNotFound(err) {
		return page("The application is not registered (unknown client_id)")
	}
	if err != nil {
		return Request{}, err
	}
	return s.CheckRequest(q, c)
}

// CheckRequest is ParseRequest with the application already read: c is
// the client of q's client_id, or a zero Client when there is none. The
// pages read it with the session, in one query.
func (s *Server) CheckRequest(q url.Values, c taskd.Client) (Request, error) {
	page := func(desc string) (Request, error) {
		return Request{}, &RequestError{Code: "invalid_request", Description: desc}
	}
	for _, name := range authorizeParams {
		if len(q[name]) > 1 {
			return page("The parameter " + name + " is repeated")
		}
	}
	switch {
	case q.Get("client_id") == "":
		return page("client_id is required")
	case c.ID == 0 || c.ClientID != q.Get("client_id"):
		return page("The application is not registered (unknown client_id)")
	}
	var r Request
	r.Client = c
	r.RedirectURI = q.Get("redirect_uri")
	if r.RedirectURI == "" {
		return page("redirect_uri is required")
	}
	if !registered(c, r.RedirectURI) {
		return page("redirect_uri is not one of the application's registered HTTPS redirect URIs")
	}
	r.State = q.Get("state")
	redirect := func(code, desc string) (Request, error) {
		return Request{}, &RequestError{Code: code, Description: desc, Redirect: s.ErrorRedirect(r, code, desc)}
	}
	if q.Get("response_type") != "code" {
		return redirect("unsupported_response_type", "response_type must be code")
	}
	if r.State == "" {
		return redirect("invalid_request", "state is required")
	}
	scopes, err := taskd.ParseScope(q.Get("scope"))
	if err != nil {
		return redirect("invalid_scope", "scope must list known scopes, separated by spaces or commas")
	}
	r.Scopes = scopes
	r.Challenge = q.Get("code_challenge")
	method := q.Get("code_challenge_method")
	switch {
	case r.Challenge == "" && method != "":
		return redirect("invalid_request", "code_challenge_method without code_challenge")
	case r.Challenge != "" && method != "S256":
		return redirect("invalid_request", "code_challenge_method must be S256")
	case r.Challenge != "" && !challengeRE.MatchString(r.Challenge):
		return redirect("invalid_request", "code_challenge is malformed")
	}
	return r, nil
}

// registered reports whether uri is exactly one of the client's redirect
// URIs; only HTTPS URIs without fragments are ever registered.
func registered(c taskd.Client, uri string) bool {
	for _, u := range c.RedirectURIs {
		if u == uri {
			return ValidRedirectURI(uri) == nil
		}
	}
	return false
}

// ValidRedirectURI checks a redirect URI for registration: absolute HTTPS,
// a host, no fragment, no user information.
func ValidRedirectURI(uri string) error {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Fragment != "" || u.User != nil || strings.ContainsAny(uri, " \t\r\n#") || len(uri) > 2000 {
		return taskd.Invalid("redirect_uri", "A redirect URI must be an absolute https:// URL without a fragment")
	}
	return nil
}

// ErrorRedirect returns the redirect URI carrying an error (RFC 6749 §4.1.2.1).
func (s *Server) ErrorRedirect(r Request, code, desc string) string {
	return s.redirect(r, url.Values{"error": {code}, "error_description": {desc}})
}

func (s *Server) redirect(r Request, v url.Values) string {
	u, _ := url.Parse(r.RedirectURI) // validated
	q := u.Query()
	for k, vv := range v {
		q[k] = vv
	}
	if r.State != "" {
		q.Set("state", r.State)
	}
	q.Set("iss", s.cfg.Issuer)
	u.RawQuery = q.Encode()
	return u.String()
}

// GrantedScopes returns the scopes a member of the role may grant
// (taskd.Role.MayGrantScope): all of those requested, except
// administrative for plain users.
func GrantedScopes(requested []string, role taskd.Role) []string {
	out := make([]string, 0, len(requested))
	for _, sc := range requested {
		if !role.MayGrantScope(sc) {
			continue
		}
		out = append(out, sc)
	}
	return out
}

// Approve records the person's consent for the account and returns the
// redirect that carries the new authorization code.
func (s *Server) Approve(ctx context.Context, r Request, person taskd.Person, m taskd.Membership) (string, error) {
	scopes := GrantedScopes(r.Scopes, m.Role)
	if len(scopes) == 0 {
		return s.ErrorRedirect(r, "invalid_scope", "None of the requested scopes can be granted by this user"), nil
	}
	code := secret.Token(32)
	g := taskd.Grant{ClientPK: r.Client.ID, AccountID: m.Account.ID, PersonID: person.ID, Scopes: scopes,
		RedirectURI: r.RedirectURI, CodeChallenge: r.Challenge, CodeExpires: s.cfg.Now().Add(CodeTTL)}
	if _, err := s.cfg.Store.CreateGrant(ctx, g, secret.HashToken(code)); err != nil {
		return "", err
	}
	return s.redirect(r, url.Values{"code": {code}}), nil
}

// Deny returns the redirect that tells the client the person refused.
func (s *Server) Deny(r Request) string {
	return s.ErrorRedirect(r, "access_denied", "The user denied access")
}

// NewClient returns a client to register and its secret, shown once.
func NewClient(accountID int64, name string, redirectURIs []string) (taskd.Client, string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return taskd.Client{}, "", &taskd.Error{Kind: taskd.KindInvalid, Reason: taskd.ReasonRequired, Field: "name", Message: "The application needs a name (up to 200 characters)"}
	}
	if len(redirectURIs) == 0 {
		return taskd.Client{}, "", &taskd.Error{Kind: taskd.KindInvalid, Reason: taskd.ReasonRequired, Field: "redirect_uri", Message: "At least one redirect URI is required"}
	}
	for _, u := range redirectURIs {
		if err := ValidRedirectURI(u); err != nil {
			return taskd.Client{}, "", err
		}
	}
	sec := secret.Token(32)
	return taskd.Client{AccountID: accountID, ClientID: secret.Token(16), SecretHash: secret.HashToken(sec), Name: name,
		RedirectURIs: redirectURIs}, sec, nil
}

// NewSecret returns a new client secret and its hash.
func NewSecret() (plain, hash string) {
	sec := secret.Token(32)
	return sec, secret.HashToken(sec)
}
