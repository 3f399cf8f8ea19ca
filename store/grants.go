package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

const grantColumns = `g.id, g.client_id, c.client_id, c.name, g.account_id, a.slug, g.person_id, g.scope, g.redirect_uri,
	g.code_challenge, g.code_expires_at, g.code_used, COALESCE(g.access_jti, ''), g.access_expires_at,
	COALESCE(g.refresh_hash, ''), g.refresh_expires_at, g.created_at, g.updated_at, g.revoked
	FROM grants g JOIN clients c ON c.id = g.client_id JOIN accounts a ON a.id = g.account_id`

func scanGrant(s interface{ Scan(...any) error }) (taskd.Grant, error) {
	var g taskd.Grant
	var scope string
	var codeExp, accessExp, refreshExp, added, updated int64
	var used, revoked int
	err := s.Scan(&g.ID, &g.ClientPK, &g.ClientID, &g.ClientName, &g.AccountID, &g.AccountSlug, &g.PersonID, &scope,
		&g.RedirectURI, &g.CodeChallenge, &codeExp, &used, &g.AccessJTI, &accessExp, &g.RefreshHash, &refreshExp,
		&added, &updated, &revoked)
	g.Scopes = strings.Fields(scope)
	g.CodeExpires, g.AccessExpires, g.RefreshExpires = fromMS(codeExp), fromMS(accessExp), fromMS(refreshExp)
	g.Added, g.Updated = fromMS(added), fromMS(updated)
	g.CodeUsed, g.Revoked = used != 0, revoked != 0
	return g, err
}

// CreateGrant stores a new authorization with the hash of its code.
func (db *DB) CreateGrant(ctx context.Context, g taskd.Grant, codeHash string) (taskd.Grant, error) {
	g.Added = db.now().UTC()
	g.Updated = g.Added
	err := db.tx(ctx, "create grant", func(tx querier) error {
		return tx.QueryRowContext(ctx, db.d.q(`INSERT INTO grants (client_id, account_id, person_id, scope, redirect_uri,
			code_hash, code_challenge, code_expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			g.ClientPK, g.AccountID, g.PersonID, strings.Join(g.Scopes, " "), g.RedirectURI, codeHash, g.CodeChallenge,
			ms(g.CodeExpires), ms(g.Added), ms(g.Updated)).Scan(&g.ID)
	})
	return g, err
}

func (db *DB) grantWhere(ctx context.Context, op, where string, arg any) (taskd.Grant, error) {
	g, err := scanGrant(db.reader.QueryRow(ctx, db.d.q(`SELECT `+grantColumns+` WHERE `+where), arg))
	if errors.Is(err, sql.ErrNoRows) {
		return g, taskd.NotFound("grant")
	}
	if err != nil {
		return g, taskd.Internal(op, err)
	}
	return g, nil
}

// clientGrantColumns are a client's columns (clientColumns' order) and its
// grant's (grantColumns' order), read together by the token endpoint.
const clientGrantColumns = `c.id, c.account_id, c.client_id, c.secret_hash, c.name, c.redirect_uris, c.created_at, ca.name,
	` + grantColumns + ` JOIN accounts ca ON ca.id = c.account_id`

// clientGrantWhere reads a grant of the client with the client_id and the
// client, in one query; not found ("grant") when the client has no such
// grant, whether or not the client exists.
func (db *DB) clientGrantWhere(ctx context.Context, op, clientID, where string, arg any) (taskd.Client, taskd.Grant, error) {
	var c taskd.Client
	dest, done := clientDest(&c)
	row := db.reader.QueryRow(ctx, db.d.q(`SELECT `+clientGrantColumns+` WHERE c.client_id = ? AND `+where), clientID, arg)
	g, err := scanGrant(prefixed{row, dest})
	done()
	if errors.Is(err, sql.ErrNoRows) {
		return c, g, taskd.NotFound("grant")
	}
	if err != nil {
		return c, g, taskd.Internal(op, err)
	}
	return c, g, nil
}

// prefixed scans the first columns of a row into dest and the rest into
// what its Scan is given.
type prefixed struct {
	s    scanner
	dest []any
}

func (p prefixed) Scan(rest ...any) error {
	return p.s.Scan(append(append(make([]any, 0, len(p.dest)+len(rest)), p.dest...), rest...)...)
}

// ClientGrantByCode returns the grant of an authorization code, with its
// client, when the client has the client_id; not found otherwise. The
// token endpoint reads both in this one query and authenticates the client
// from it.
func (db *DB) ClientGrantByCode(ctx context.Context, clientID, codeHash string) (taskd.Client, taskd.Grant, error) {
	return db.clientGrantWhere(ctx, "client and grant by code", clientID, `g.code_hash = ?`, codeHash)
}

// ClientGrantByRefresh returns the grant whose current refresh token has
// the hash, with its client, when the client has the client_id; not found
// otherwise.
func (db *DB) ClientGrantByRefresh(ctx context.Context, clientID, refreshHash string) (taskd.Client, taskd.Grant, error) {
	return db.clientGrantWhere(ctx, "client and grant by refresh token", clientID, `g.refresh_hash = ?`, refreshHash)
}

// GrantByRefresh returns the grant whose current refresh token has the hash.
func (db *DB) GrantByRefresh(ctx context.Context, refreshHash string) (taskd.Grant, error) {
	return db.grantWhere(ctx, "grant by refresh token", `g.refresh_hash = ?`, refreshHash)
}

// GrantByAccess returns the grant whose current access token has the id.
func (db *DB) GrantByAccess(ctx context.Context, jti string) (taskd.Grant, error) {
	return db.grantWhere(ctx, "grant by access token", `g.access_jti = ?`, jti)
}

// RedeemCode marks an unused code used and stores the grant's first tokens.
func (db *DB) RedeemCode(ctx context.Context, grantID int64, t taskd.Tokens) (bool, error) {
	var done bool
	err := db.tx(ctx, "redeem code", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE grants SET code_used = 1, access_jti = ?, access_expires_at = ?,
			refresh_hash = ?, refresh_expires_at = ?, updated_at = ? WHERE id = ? AND code_used = 0 AND revoked = 0`),
			t.AccessJTI, ms(t.AccessExpires), t.RefreshHash, ms(t.RefreshExpires), ms(db.now()), grantID)
		done, err = changed(res, err)
		return err
	})
	return done, err
}

// Rotate replaces the grant's token pair if its refresh token is still the
// one presented, and remembers the old one as spent, in one transaction.
func (db *DB) Rotate(ctx context.Context, grantID int64, oldRefreshHash string, t taskd.Tokens) (bool, error) {
	var done bool
	err := db.tx(ctx, "rotate tokens", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE grants SET access_jti = ?, access_expires_at = ?, refresh_hash = ?,
			refresh_expires_at = ?, updated_at = ? WHERE id = ? AND refresh_hash = ? AND revoked = 0`),
			t.AccessJTI, ms(t.AccessExpires), t.RefreshHash, ms(t.RefreshExpires), ms(db.now()), grantID, oldRefreshHash)
		if done, err = changed(res, err); err != nil || !done {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`INSERT INTO spent_refresh_tokens (hash, grant_id, spent_at) VALUES (?, ?, ?)`),
			oldRefreshHash, grantID, ms(db.now()))
		return err
	})
	return done, err
}

// SpentRefresh returns the grant of a rotated refresh token and when it was
// rotated; not found otherwise.
func (db *DB) SpentRefresh(ctx context.Context, refreshHash string) (int64, time.Time, error) {
	var id, at int64
	err := db.reader.QueryRow(ctx, db.d.q(`SELECT grant_id, spent_at FROM spent_refresh_tokens WHERE hash = ?`), refreshHash).Scan(&id, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, taskd.NotFound("refresh_token")
	}
	if err != nil {
		return 0, time.Time{}, taskd.Internal("spent refresh token", err)
	}
	return id, fromMS(at), nil
}

// RevokeGrant ends a grant: its code and tokens stop working.
func (db *DB) RevokeGrant(ctx context.Context, grantID int64) error {
	return db.tx(ctx, "revoke grant", func(tx querier) error {
		_, err := tx.ExecContext(ctx, db.d.q(`UPDATE grants SET revoked = 1, updated_at = ? WHERE id = ?`), ms(db.now()), grantID)
		return err
	})
}

// RevokeClientGrants revokes every grant the person gave the application.
func (db *DB) RevokeClientGrants(ctx context.Context, personID int64, clientID string) error {
	return db.tx(ctx, "revoke client grants", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE grants SET revoked = 1, updated_at = ?
			WHERE person_id = ? AND revoked = 0 AND client_id = (SELECT id FROM clients WHERE client_id = ?)`),
			ms(db.now()), personID, clientID)
		return oneRow(res, err, "client")
	})
}

// PersonGrants lists the person's grants that are in force (code redeemed,
// not revoked, refresh token not expired), newest first.
func (db *DB) PersonGrants(ctx context.Context, personID int64) ([]taskd.Grant, error) {
	return all(ctx, db.reader, "person grants", db.d.q(`SELECT `+grantColumns+` WHERE g.person_id = ? AND g.revoked = 0
		AND g.code_used = 1 AND g.refresh_expires_at > ? ORDER BY g.updated_at DESC, g.id DESC`), scanGrant, personID, ms(db.now()))
}

// changed reports whether an UPDATE changed a row.
func changed(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
