// Package oauth is taskd's OAuth 2.0 authorization server: authorization
// codes, ES256 access tokens, rotating refresh tokens, and the JSON
// endpoints of the interface and of RFC 7009, 7662 and 8414. The sign-in and
// consent pages are in package web; they call Server to validate requests
// and issue codes.
package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/secret"
)

// Lifetimes (spec Limits).
const (
	CodeTTL    = 10 * time.Minute
	AccessTTL  = 24 * time.Hour
	RefreshTTL = 30 * 24 * time.Hour
)

// Store is what the authorization server keeps: applications, grants
// and signing keys, and the people it issues tokens for.
type Store interface {
	taskd.ClientStore
	taskd.GrantStore
	taskd.SigningKeyStore
	PersonByID(ctx context.Context, id int64) (taskd.Person, error)
}

// Config configures a Server.
type Config struct {
	Store  Store
	Sealer *secret.Sealer
	// Issuer is {auth_url}, the server's public URL without a trailing slash.
	Issuer string
	// AccountURL returns an account's absolute URL.
	AccountURL func(slug string) string
	// Strict refuses token requests sent as GET with query parameters.
	Strict bool
	// Limits are the token endpoints' rate limits.
	Limits Limits
	Now    func() time.Time
	Log    *slog.Logger
}

// Limits are rate limits of the token endpoints (token, refresh, resource,
// revoke, introspect); a nil limiter allows everything.
type Limits struct {
	// PerAddress counts every request by client address.
	PerAddress *ratelimit.Shared
	// PerAccount counts the requests of authenticated clients by the
	// account that registered them.
	PerAccount *ratelimit.Shared
	// TrustProxy takes the client address from X-Forwarded-For.
	TrustProxy bool
}

// Server issues and checks codes and tokens.
type Server struct {
	cfg      Config
	keys     *keyring
	verified verified
}

// New returns a Server, creating the first signing key if there is none.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	cfg.Issuer = strings.TrimSuffix(cfg.Issuer, "/")
	s := &Server{cfg: cfg, keys: &keyring{store: cfg.Store, sealer: cfg.Sealer, now: cfg.Now}}
	if err := s.keys.ensure(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// RotateKey adds a signing key, which takes over signing once it has been
// published in the JWKS for ten minutes.
func (s *Server) RotateKey(ctx context.Context) error { return s.keys.rotate(ctx) }

// Error is an OAuth error response (RFC 6749 §5.2).
type Error struct {
	Code        string // invalid_request, invalid_client, invalid_grant, …
	Description string
	Status      int           // HTTP status
	RetryAfter  time.Duration // with status 429
}

// tooMany is the answer to a client over a rate limit: HTTP 429 with
// Retry-After. RFC 6749 names no error code for it; too_many_requests is
// what other servers send.
func tooMany(wait time.Duration) *Error {
	return &Error{Code: "too_many_requests", Description: "Too many requests; retry later", Status: 429, RetryAfter: wait}
}

func (e *Error) Error() string { return "oauth: " + e.Code + ": " + e.Description }

func oerr(status int, code, desc string) *Error {
	return &Error{Code: code, Description: desc, Status: status}
}

var (
	errInvalidClient = oerr(401, "invalid_client", "Client authentication failed")
	errInvalidGrant  = oerr(400, "invalid_grant", "The code or refresh token is invalid, expired or already used")
	// errRedirectMismatch is RFC 6749 §4.1.3's check, said plainly.
	errRedirectMismatch = oerr(400, "invalid_grant", "redirect_uri must be exactly the one of the authorization request")
	errInvalidToken     = oerr(401, "invalid_token", "Access token is invalid")
	errExpiredToken     = oerr(401, "invalid_token", "Access token is expired")
)

// TokenSet is the token and refresh response (spec Token set, plus scope).
type TokenSet struct {
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	AccountURL   string `json:"account_url"`
	Scope        string `json:"scope"`
}

// AuthenticateClient checks client credentials in constant time.
func (s *Server) AuthenticateClient(ctx context.Context, clientID, clientSecret string) (taskd.Client, error) {
	if !plausible(clientID, clientSecret) {
		return taskd.Client{}, errInvalidClient
	}
	c, err := s.cfg.Store.Client(ctx, clientID)
	if taskd.IsNotFound(err) {
		return c, errInvalidClient
	}
	if err != nil {
		return c, err
	}
	if !secretMatches(c, clientSecret) {
		return c, errInvalidClient
	}
	return c, nil
}

// plausible reports whether client credentials are worth a query.
func plausible(clientID, clientSecret string) bool {
	return clientID != "" && clientSecret != "" && len(clientID) <= 200 && len(clientSecret) <= 200
}

// secretMatches compares a presented secret with the client's, in constant
// time.
func secretMatches(c taskd.Client, clientSecret string) bool {
	got := secret.HashToken(clientSecret)
	return subtle.ConstantTimeCompare([]byte(got), []byte(c.SecretHash)) == 1
}

// clientAuth is how the client of a token request is admitted: by the
// credentials it sent, or as a client its caller already authenticated
// (client set).
type clientAuth struct {
	id, secret string
	client     *taskd.Client
}

// authenticate reads and authenticates the client alone and counts the
// request against its account's limit.
func (s *Server) authenticate(ctx context.Context, a clientAuth) (taskd.Client, error) {
	if a.client != nil {
		return *a.client, nil
	}
	c, err := s.AuthenticateClient(ctx, a.id, a.secret)
	if err != nil {
		return c, err
	}
	return c, s.limit(ctx, c)
}

// admit authenticates c, the client read with the grant its request names,
// and counts the request against its account's limit.
func (s *Server) admit(ctx context.Context, a clientAuth, c taskd.Client) error {
	if a.client != nil {
		return nil
	}
	if !secretMatches(c, a.secret) {
		return errInvalidClient
	}
	return s.limit(ctx, c)
}

// limit counts a request of an authenticated client against the limit of
// the account that registered it.
func (s *Server) limit(ctx context.Context, c taskd.Client) error {
	if wait, ok := s.cfg.Limits.PerAccount.Allow(ctx, strconv.FormatInt(c.AccountID, 10)); !ok {
		return tooMany(wait)
	}
	return nil
}

// refuse answers a request refused before its client was read with a
// grant: the client is authenticated alone first, so that one that fails
// hears invalid_client (and a limited one too_many_requests), as it would
// before anything else.
func (s *Server) refuse(ctx context.Context, a clientAuth, err error) error {
	if _, aerr := s.authenticate(ctx, a); aerr != nil {
		return aerr
	}
	return err
}

// Exchange redeems an authorization code (grant_type=authorization_code)
// of c, a client the caller authenticated. A code presented a second time
// revokes every token issued from it.
func (s *Server) Exchange(ctx context.Context, c taskd.Client, code, redirectURI, verifier string) (TokenSet, error) {
	return s.exchange(ctx, clientAuth{id: c.ClientID, client: &c}, code, redirectURI, verifier)
}

// exchange is Exchange for the token endpoint: it reads the code's grant
// with its client in one query and authenticates the client from that row
// (nothing is cached: a deleted client or a changed secret counts at once).
func (s *Server) exchange(ctx context.Context, a clientAuth, code, redirectURI, verifier string) (TokenSet, error) {
	if a.client == nil && !plausible(a.id, a.secret) {
		return TokenSet{}, errInvalidClient
	}
	if code == "" || len(code) > 200 {
		return TokenSet{}, s.refuse(ctx, a, errInvalidGrant)
	}
	c, g, err := s.cfg.Store.ClientGrantByCode(ctx, a.id, secret.HashToken(code))
	if taskd.IsNotFound(err) {
		return TokenSet{}, s.refuse(ctx, a, errInvalidGrant)
	}
	if err != nil {
		return TokenSet{}, err
	}
	if err := s.admit(ctx, a, c); err != nil {
		return TokenSet{}, err
	}
	if g.CodeUsed {
		if err := s.cfg.Store.RevokeGrant(ctx, g.ID); err != nil {
			return TokenSet{}, err
		}
		s.cfg.Log.WarnContext(ctx, "authorization code reused; grant revoked", "grant", g.ID, "client", c.ClientID)
		return TokenSet{}, errInvalidGrant
	}
	if g.Revoked || !s.cfg.Now().Before(g.CodeExpires) {
		return TokenSet{}, errInvalidGrant
	}
	if g.RedirectURI != redirectURI { // the client is authenticated: its own URI is no secret
		return TokenSet{}, errRedirectMismatch
	}
	if err := checkPKCE(g.CodeChallenge, verifier); err != nil {
		return TokenSet{}, err
	}
	set, t, err := s.issue(ctx, g)
	if err != nil {
		return TokenSet{}, err
	}
	ok, err := s.cfg.Store.RedeemCode(ctx, g.ID, t)
	if err != nil {
		return TokenSet{}, err
	}
	if !ok { // redeemed by a concurrent request: this one is the second redemption
		if err := s.cfg.Store.RevokeGrant(ctx, g.ID); err != nil {
			return TokenSet{}, err
		}
		return TokenSet{}, errInvalidGrant
	}
	return set, nil
}

// checkPKCE verifies an S256 code verifier (RFC 7636). A verifier sent for a
// code that was issued without a challenge is a downgrade and is refused.
func checkPKCE(challenge, verifier string) error {
	switch {
	case challenge == "" && verifier == "":
		return nil
	case challenge == "":
		return oerr(400, "invalid_grant", "code_verifier sent for a code issued without code_challenge")
	case verifier == "":
		return oerr(400, "invalid_grant", "code_verifier is required")
	}
	sum := sha256.Sum256([]byte(verifier))
	if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) != 1 {
		return oerr(400, "invalid_grant", "code_verifier does not match code_challenge")
	}
	return nil
}

// Refresh rotates a grant's tokens (grant_type=refresh_token) for c, a
// client the caller authenticated. Of several concurrent refreshes with
// one token exactly one succeeds; a refresh token presented after it was
// rotated revokes the whole grant.
func (s *Server) Refresh(ctx context.Context, c taskd.Client, refreshToken string) (TokenSet, error) {
	return s.refreshGrant(ctx, clientAuth{id: c.ClientID, client: &c}, refreshToken)
}

// refreshGrant is Refresh for the token endpoints: the grant and its
// client are read in one query, as in exchange.
func (s *Server) refreshGrant(ctx context.Context, a clientAuth, refreshToken string) (TokenSet, error) {
	if a.client == nil && !plausible(a.id, a.secret) {
		return TokenSet{}, errInvalidClient
	}
	if refreshToken == "" || len(refreshToken) > 200 {
		return TokenSet{}, s.refuse(ctx, a, errInvalidGrant)
	}
	hash := secret.HashToken(refreshToken)
	c, g, err := s.cfg.Store.ClientGrantByRefresh(ctx, a.id, hash)
	if taskd.IsNotFound(err) { // not a current token of this client: reused, or not ours
		c, err := s.authenticate(ctx, a)
		if err != nil {
			return TokenSet{}, err
		}
		return TokenSet{}, s.refreshReuse(ctx, c, hash)
	}
	if err != nil {
		return TokenSet{}, err
	}
	if err := s.admit(ctx, a, c); err != nil {
		return TokenSet{}, err
	}
	if g.Revoked || !s.cfg.Now().Before(g.RefreshExpires) {
		return TokenSet{}, errInvalidGrant
	}
	set, t, err := s.issue(ctx, g)
	if err != nil {
		return TokenSet{}, err
	}
	ok, err := s.cfg.Store.Rotate(ctx, g.ID, hash, t)
	if err != nil {
		return TokenSet{}, err
	}
	if !ok { // a concurrent refresh rotated it first
		return TokenSet{}, errInvalidGrant
	}
	return set, nil
}

// raceWindow is how long after a rotation a second presentation of the old
// refresh token is taken for a concurrent request of the same client (which
// fails) rather than for reuse (which revokes the grant). Nothing is issued
// either way.
const raceWindow = 10 * time.Second

// refreshReuse handles a refresh token that is not current: when it is one
// that was rotated, the grant is revoked (RFC 9700 §4.14.2).
func (s *Server) refreshReuse(ctx context.Context, c taskd.Client, hash string) error {
	id, spent, err := s.cfg.Store.SpentRefresh(ctx, hash)
	if taskd.IsNotFound(err) {
		return errInvalidGrant
	}
	if err != nil {
		return err
	}
	if s.cfg.Now().Sub(spent) < raceWindow {
		return errInvalidGrant
	}
	if err := s.cfg.Store.RevokeGrant(ctx, id); err != nil {
		return err
	}
	s.cfg.Log.WarnContext(ctx, "rotated refresh token reused; grant revoked", "grant", id, "client", c.ClientID)
	return errInvalidGrant
}

// issue makes a new token pair for the grant.
func (s *Server) issue(ctx context.Context, g taskd.Grant) (TokenSet, taskd.Tokens, error) {
	k, err := s.keys.signer(ctx)
	if err != nil {
		return TokenSet{}, taskd.Tokens{}, err
	}
	now := s.cfg.Now()
	t := taskd.Tokens{AccessJTI: secret.Token(16), AccessExpires: now.Add(AccessTTL), RefreshExpires: now.Add(RefreshTTL)}
	scope := strings.Join(g.Scopes, " ")
	access, err := sign(k.priv, k.kid, Claims{
		Issuer: s.cfg.Issuer, Subject: strconv.FormatInt(g.PersonID, 10), Audience: s.cfg.AccountURL(g.AccountSlug),
		ClientID: g.ClientID, Scope: scope, IssuedAt: now.Unix(), Expires: t.AccessExpires.Unix(), ID: t.AccessJTI,
		Account: g.AccountSlug,
	})
	if err != nil {
		return TokenSet{}, t, fmt.Errorf("oauth: sign: %w", err)
	}
	refresh := secret.Token(32)
	t.RefreshHash = secret.HashToken(refresh)
	return TokenSet{TokenType: "bearer", ExpiresIn: int(AccessTTL / time.Second), AccessToken: access, RefreshToken: refresh,
		AccountURL: s.cfg.AccountURL(g.AccountSlug), Scope: scope}, t, nil
}

// Access is a verified access token and the grant it belongs to.
type Access struct {
	Claims Claims
	Grant  taskd.Grant
}

// Verify checks an access token's signature, issuer and expiry, and that it
// is still its grant's current token (so a refresh or revocation ends it at
// once). Errors are *Error with code invalid_token; an expired token's
// description is "Access token is expired".
func (s *Server) Verify(ctx context.Context, token string) (Access, error) {
	c, err := s.signed(ctx, token)
	if err != nil {
		return Access{}, err
	}
	if s.cfg.Now().Unix() >= c.Expires {
		return Access{}, errExpiredToken
	}
	g, err := s.cfg.Store.GrantByAccess(ctx, c.ID)
	if taskd.IsNotFound(err) {
		return Access{}, errInvalidToken
	}
	if err != nil {
		return Access{}, err
	}
	if g.Revoked || g.AccountSlug != c.Account {
		return Access{}, errInvalidToken
	}
	return Access{Claims: c, Grant: g}, nil
}

// signed returns the claims of a token signed by one of our keys and issued
// by this server.
func (s *Server) signed(ctx context.Context, token string) (Claims, error) {
	if c, ok := s.verified.get(token); ok {
		return c, nil
	}
	kid, verify, err := parse(token)
	if err != nil {
		return Claims{}, errInvalidToken
	}
	pub, ok := s.keys.public(ctx, kid)
	if !ok {
		return Claims{}, errInvalidToken
	}
	c, err := verify(pub)
	if err != nil || c.Issuer != s.cfg.Issuer || c.ID == "" {
		return Claims{}, errInvalidToken
	}
	s.verified.put(token, c)
	return c, nil
}

// Revoke ends the grant that a token (access or refresh) of the client
// belongs to (RFC 7009). Unknown tokens and other clients' tokens are
// ignored, as the RFC requires.
func (s *Server) Revoke(ctx context.Context, c taskd.Client, token string) error {
	g, ok, err := s.lookup(ctx, token)
	if err != nil || !ok || g.ClientPK != c.ID {
		return err
	}
	return s.cfg.Store.RevokeGrant(ctx, g.ID)
}

// lookup finds the live grant of an access or refresh token.
func (s *Server) lookup(ctx context.Context, token string) (taskd.Grant, bool, error) {
	if a, err := s.Verify(ctx, token); err == nil {
		return a.Grant, true, nil
	} else if !isOAuth(err) {
		return taskd.Grant{}, false, err
	}
	if len(token) > 200 {
		return taskd.Grant{}, false, nil
	}
	g, err := s.cfg.Store.GrantByRefresh(ctx, secret.HashToken(token))
	if taskd.IsNotFound(err) {
		return g, false, nil
	}
	if err != nil {
		return g, false, err
	}
	return g, !g.Revoked && s.cfg.Now().Before(g.RefreshExpires), nil
}

func isOAuth(err error) bool {
	var oe *Error
	return errors.As(err, &oe)
}

// VerifyToken is Verify for the account API: it returns the grant, or a
// *taskd.Error of KindUnauthenticated carrying the reason as its message.
func (s *Server) VerifyToken(ctx context.Context, token string) (taskd.Grant, error) {
	a, err := s.Verify(ctx, token)
	var oe *Error
	if errors.As(err, &oe) {
		return taskd.Grant{}, taskd.Unauthenticated("%s", oe.Description)
	}
	return a.Grant, err
}
