package taskd

import (
	"context"
	"strings"
	"time"
)

// Scopes are the permissions an application may request (spec list).
var Scopes = []string{
	"projects_read", "projects_write", "tasks_read", "tasks_write", "costs_read", "costs_write",
	"tags_read", "tags_write", "comments_read", "comments_write", "files_read", "files_write",
	"users_read", "users_write", "contacts_read", "contacts_write", "administrative",
}

// ScopeAdministrative is granted only to owners and admins.
const ScopeAdministrative = "administrative"

// ParseScope splits a scope parameter (space or comma separated) into known
// scopes in the order of Scopes, without duplicates. An unknown or empty
// scope is invalid, naming it.
func ParseScope(s string) ([]string, error) {
	want := make(map[string]bool)
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
		if !HasScope(Scopes, f) {
			return nil, Invalid(f, "Unknown scope")
		}
		want[f] = true
	}
	if len(want) == 0 {
		return nil, Invalid("scope", "At least one scope is required")
	}
	out := make([]string, 0, len(want))
	for _, sc := range Scopes {
		if want[sc] {
			out = append(out, sc)
		}
	}
	return out, nil
}

// HasScope reports whether scopes holds s.
func HasScope(scopes []string, s string) bool {
	for _, v := range scopes {
		if v == s {
			return true
		}
	}
	return false
}

// Client is an application registered in an account's API settings.
type Client struct {
	ID           int64
	AccountID    int64
	ClientID     string
	SecretHash   string // SHA-256 of the secret, hex
	Name         string
	AccountName  string // of the account that registered it (read only)
	RedirectURIs []string
	Added        time.Time
}

// Grant is one authorization of a client by a person for an account: the
// code it starts with and the current access and refresh token.
type Grant struct {
	ID            int64
	ClientPK      int64 // Client.ID
	ClientID      string
	ClientName    string
	AccountID     int64
	AccountSlug   string
	PersonID      int64
	Scopes        []string
	RedirectURI   string
	CodeChallenge string // PKCE S256 challenge; empty when none was sent
	CodeExpires   time.Time
	CodeUsed      bool
	Tokens
	Added   time.Time
	Updated time.Time
	Revoked bool
}

// Tokens are the current token pair of a grant, as stored: the access
// token's id and the refresh token's hash.
type Tokens struct {
	AccessJTI      string
	AccessExpires  time.Time
	RefreshHash    string
	RefreshExpires time.Time
}

// SigningKey is a key access tokens are signed with.
type SigningKey struct {
	KID     string
	Private []byte // sealed PKCS #8
	Added   time.Time
}

// ClientStore keeps the applications registered in accounts. Unknown
// applications are not found ("client").
type ClientStore interface {
	CreateClient(ctx context.Context, c Client) (Client, error)
	Client(ctx context.Context, clientID string) (Client, error)
	Clients(ctx context.Context, accountID int64) ([]Client, error)
	SetClientSecret(ctx context.Context, accountID int64, clientID, secretHash string) error
	DeleteClient(ctx context.Context, accountID int64, clientID string) error
}

// GrantStore keeps authorizations: codes and token pairs. Unknown codes,
// tokens and grants are not found.
type GrantStore interface {
	CreateGrant(ctx context.Context, g Grant, codeHash string) (Grant, error)
	// ClientGrantByCode returns the grant of a code with its client, when
	// the client has clientID; not found ("grant") otherwise.
	ClientGrantByCode(ctx context.Context, clientID, codeHash string) (Client, Grant, error)
	// RedeemCode stores the first tokens of an unused code's grant; false
	// when the code was used (or the grant revoked) meanwhile.
	RedeemCode(ctx context.Context, grantID int64, t Tokens) (bool, error)
	GrantByRefresh(ctx context.Context, refreshHash string) (Grant, error)
	// ClientGrantByRefresh is GrantByRefresh with the grant's client, when
	// the client has clientID; not found ("grant") otherwise.
	ClientGrantByRefresh(ctx context.Context, clientID, refreshHash string) (Client, Grant, error)
	// SpentRefresh returns the grant a rotated refresh token belonged to
	// and when it was rotated.
	SpentRefresh(ctx context.Context, refreshHash string) (grantID int64, spent time.Time, err error)
	// Rotate replaces the grant's tokens if its refresh token is still
	// oldRefreshHash; false when another request rotated it first.
	Rotate(ctx context.Context, grantID int64, oldRefreshHash string, t Tokens) (bool, error)
	GrantByAccess(ctx context.Context, jti string) (Grant, error)
	RevokeGrant(ctx context.Context, grantID int64) error
	// RevokeClientGrants revokes every grant a person gave a client.
	RevokeClientGrants(ctx context.Context, personID int64, clientID string) error
	PersonGrants(ctx context.Context, personID int64) ([]Grant, error)
}

// SigningKeyStore keeps the keys access tokens are signed with.
type SigningKeyStore interface {
	SigningKeys(ctx context.Context) ([]SigningKey, error)
	AddSigningKey(ctx context.Context, k SigningKey) error
}
