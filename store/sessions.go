package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/taskd/taskd"
)

// SigningKeys returns every stored signing key, oldest first.
func (db *DB) SigningKeys(ctx context.Context) ([]taskd.SigningKey, error) {
	return all(ctx, db.reader, "signing keys", `SELECT kid, private_key, created_at FROM signing_keys ORDER BY created_at, kid`, func(s scanner) (taskd.SigningKey, error) {
		var k taskd.SigningKey
		var added int64
		err := s.Scan(&k.KID, &k.Private, &added)
		k.Added = fromMS(added)
		return k, err
	})
}

// AddSigningKey stores a new signing key.
func (db *DB) AddSigningKey(ctx context.Context, k taskd.SigningKey) error {
	return db.tx(ctx, "add signing key", func(tx querier) error {
		_, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO signing_keys (kid, private_key, created_at) VALUES (?, ?, ?)`),
			k.KID, k.Private, ms(k.Added))
		return err
	})
}

// CreateSession stores a sign-in session under the hash of its cookie.
func (db *DB) CreateSession(ctx context.Context, hash string, personID int64, expires time.Time) error {
	return db.tx(ctx, "create session", func(tx querier) error {
		now := db.now()
		// Sessions are few per person; expired ones go when a new one starts.
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM sessions WHERE person_id = ? AND expires_at <= ?`), personID, ms(now)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO sessions (hash, person_id, created_at, expires_at) VALUES (?, ?, ?, ?)`),
			hash, personID, ms(now), ms(expires))
		return err
	})
}

// SessionPerson returns the person signed in by the session; not found when
// the session is unknown or expired.
func (db *DB) SessionPerson(ctx context.Context, hash string) (taskd.Person, error) {
	p, err := scanPerson(db.reader.QueryRow(ctx, db.d.q(`SELECT `+personColumns+`
		FROM sessions s JOIN persons p ON p.id = s.person_id WHERE s.hash = ? AND s.expires_at > ?`), hash, ms(db.now())))
	if errors.Is(err, sql.ErrNoRows) {
		return p, taskd.NotFound("session")
	}
	if err != nil {
		return p, taskd.Internal("session", err)
	}
	return p, nil
}

// DeleteSession ends a session (sign-out).
func (db *DB) DeleteSession(ctx context.Context, hash string) error {
	return db.tx(ctx, "delete session", func(tx querier) error {
		_, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM sessions WHERE hash = ?`), hash)
		return err
	})
}

// PersonByID returns a person; not found ("person") otherwise.
func (db *DB) PersonByID(ctx context.Context, id int64) (taskd.Person, error) {
	p, err := db.personByID(ctx, db.reader, id)
	if err != nil && !taskd.IsNotFound(err) {
		return p, taskd.Internal("person", err)
	}
	return p, err
}

// Memberships lists the accounts the person belongs to, by account name.
func (db *DB) Memberships(ctx context.Context, personID int64) ([]taskd.Membership, error) {
	return all(ctx, db.reader, "memberships", db.d.q(`SELECT a.id, a.slug, a.name, a.created_at, m.role
		FROM members m JOIN accounts a ON a.id = m.account_id WHERE m.person_id = ? ORDER BY a.name, a.id`), func(s scanner) (taskd.Membership, error) {
		var m taskd.Membership
		var added int64
		var role string
		err := s.Scan(&m.Account.ID, &m.Account.Slug, &m.Account.Name, &added, &role)
		m.Account.Added, m.Role = fromMS(added), taskd.Role(role)
		return m, err
	}, personID)
}

// Member returns the person's membership of the account; not found ("member") otherwise.
func (db *DB) Member(ctx context.Context, accountID, personID int64) (taskd.Member, error) {
	m, err := scanMember(db.reader.QueryRow(ctx, db.d.q(`SELECT `+memberColumns+` WHERE m.account_id = ? AND m.person_id = ?`),
		accountID, personID))
	if errors.Is(err, sql.ErrNoRows) {
		return m, taskd.NotFound("member")
	}
	if err != nil {
		return m, taskd.Internal("member", err)
	}
	return m, nil
}
