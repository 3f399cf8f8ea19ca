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
	return db.trustTx(ctx, "delete session", func(tx querier) error {
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

// scanFunc is a scanner made of a function.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// SessionPage reads in one query what an authorization page needs: the
// person of a current session, the accounts they belong to (by account
// name, as Memberships) and, when clientID is not empty, that application
// (a zero Client when there is none). Nothing is cached, so a session
// ended, a member removed or an application deleted counts at once on
// every replica. Not found ("session") for an unknown or expired session.
func (db *DB) SessionPage(ctx context.Context, hash, clientID string) (taskd.Person, []taskd.Membership, taskd.Client, error) {
	rows, err := db.reader.QueryContext(ctx, db.d.q(`SELECT `+personColumns+`,
		COALESCE(a.id, 0), COALESCE(a.slug, ''), COALESCE(a.name, ''), COALESCE(a.created_at, 0), COALESCE(m.role, ''),
		COALESCE(c.id, 0), COALESCE(c.account_id, 0), COALESCE(c.client_id, ''), COALESCE(c.secret_hash, ''),
		COALESCE(c.name, ''), COALESCE(c.redirect_uris, ''), COALESCE(c.created_at, 0), COALESCE(ca.name, '')
		FROM sessions s JOIN persons p ON p.id = s.person_id
		LEFT JOIN members m ON m.person_id = p.id LEFT JOIN accounts a ON a.id = m.account_id
		LEFT JOIN clients c ON c.client_id = ? AND ? <> '' LEFT JOIN accounts ca ON ca.id = c.account_id
		WHERE s.hash = ? AND s.expires_at > ? ORDER BY a.name, a.id`), clientID, clientID, hash, ms(db.now()))
	if err != nil {
		return taskd.Person{}, nil, taskd.Client{}, taskd.Internal("session page", err)
	}
	defer rows.Close()
	var p taskd.Person
	var list []taskd.Membership
	var c taskd.Client
	found := false
	for rows.Next() {
		var m taskd.Membership
		var added int64
		var role string
		p, err = scanPerson(scanFunc(func(pd ...any) error {
			var err error
			c, err = scanClient(scanFunc(func(cd ...any) error {
				return rows.Scan(append(append(pd, &m.Account.ID, &m.Account.Slug, &m.Account.Name, &added, &role), cd...)...)
			}))
			return err
		}))
		if err != nil {
			return p, nil, c, taskd.Internal("session page", err)
		}
		found = true
		if m.Account.ID != 0 {
			m.Account.Added, m.Role = fromMS(added), taskd.Role(role)
			list = append(list, m)
		}
	}
	if err := rows.Err(); err != nil {
		return p, nil, c, taskd.Internal("session page", err)
	}
	if !found {
		return p, nil, c, taskd.NotFound("session")
	}
	if c.ID == 0 {
		c = taskd.Client{}
	}
	return p, list, c, nil
}
