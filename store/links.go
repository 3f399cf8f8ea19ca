package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/taskd/taskd"
)

var _ taskd.LinkStore = (*DB)(nil)

// link is a live one-time link.
type link struct {
	id, personID, invitationID int64
	newEmail                   string
	endGrants                  bool
}

func (db *DB) addLink(ctx context.Context, tx querier, kind string, personID, invitationID int64, newEmail string, l taskd.Link) error {
	var inv any
	if invitationID > 0 {
		inv = invitationID
	}
	_, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO person_tokens (hash, kind, person_id, invitation_id, new_email, created_at,
		expires_at, end_grants) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), l.Hash, kind, personID, inv, newEmail, ms(db.now()), ms(l.Expires),
		boolInt(l.EndGrants))
	return err
}

// link returns the live link of the kind with the hash; not found ("link")
// when it is unknown, of another kind, or expired.
func (db *DB) link(ctx context.Context, q querier, hash, kind string) (link, error) {
	var l link
	var inv sql.NullInt64
	err := q.QueryRowContext(ctx, db.d.q(`SELECT id, person_id, invitation_id, new_email FROM person_tokens
		WHERE hash = ? AND kind = ? AND expires_at > ?`), hash, kind, ms(db.now())).Scan(&l.id, &l.personID, &inv, &l.newEmail)
	l.invitationID = inv.Int64
	if errors.Is(err, sql.ErrNoRows) {
		return l, taskd.NotFound("link")
	}
	if err != nil {
		return l, taskd.Internal("link", err)
	}
	return l, nil
}

// takeLink deletes the live link of the kind with the hash and returns
// it: of two transactions using one link at once, one gets it. Not found
// ("link") as link.
func (db *DB) takeLink(ctx context.Context, tx querier, hash, kind string) (link, error) {
	var l link
	var inv sql.NullInt64
	var end int
	err := tx.QueryRowContext(ctx, db.d.q(`DELETE FROM person_tokens WHERE hash = ? AND kind = ? AND expires_at > ?
		RETURNING id, person_id, invitation_id, new_email, end_grants`), hash, kind, ms(db.now())).
		Scan(&l.id, &l.personID, &inv, &l.newEmail, &end)
	l.invitationID, l.endGrants = inv.Int64, end != 0
	if errors.Is(err, sql.ErrNoRows) {
		return l, taskd.NotFound("link")
	}
	if err != nil {
		return l, taskd.Internal("link", err)
	}
	return l, nil
}

// credentialsChanged ends what the person's old password or address could
// still do: every other reset or e-mail link, and every session.
func (db *DB) credentialsChanged(ctx context.Context, tx querier, personID int64) error {
	if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM person_tokens WHERE person_id = ? AND kind IN ('reset', 'email')`), personID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM sessions WHERE person_id = ?`), personID)
	return err
}

func (db *DB) personByID(ctx context.Context, q querier, id int64) (taskd.Person, error) {
	p, err := scanPerson(q.QueryRowContext(ctx, db.d.q(`SELECT `+personColumns+` FROM persons p WHERE p.id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return p, taskd.NotFound("person")
	}
	return p, err
}

// RequestReset records a reset link for the person with the address and
// queues its mail, in one transaction.
func (db *DB) RequestReset(ctx context.Context, email string, l taskd.Link, mail func(taskd.Person) taskd.QueuedMail) error {
	return db.mailTx(ctx, "request reset", func(tx querier, queued *bool) error {
		p, err := db.personByEmail(ctx, tx, email)
		if err != nil {
			return err
		}
		// Expired links of anyone go here, where links are made.
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM person_tokens WHERE expires_at <= ?`), ms(db.now())); err != nil {
			return err
		}
		if err := db.addLink(ctx, tx, "reset", p.ID, 0, "", l); err != nil {
			return err
		}
		_, err = db.queueMail(ctx, tx, mail(p))
		*queued = true
		return err
	})
}

// ResetPassword sets the password of the link's person and signs them out
// everywhere; every reset link of theirs stops working, and every
// authorization of an application they gave ends, and their calendar
// feed's secret: a reset is for an account whose password may be known
// to someone else.
func (db *DB) ResetPassword(ctx context.Context, hash, passwordHash string) (taskd.Person, error) {
	var p taskd.Person
	err := db.trustTx(ctx, "reset password", func(tx querier) error {
		l, err := db.takeLink(ctx, tx, hash, "reset")
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE persons SET password_hash = ? WHERE id = ?`), passwordHash, l.personID); err != nil {
			return err
		}
		if err := db.credentialsChanged(ctx, tx, l.personID); err != nil {
			return err
		}
		if _, err := db.endPersonGrants(ctx, tx, l.personID); err != nil {
			return err
		}
		if _, err := db.endFeed(ctx, tx, l.personID); err != nil {
			return err
		}
		p, err = db.personByID(ctx, tx, l.personID)
		return err
	})
	return p, err
}

// RequestEmailChange records a link that moves the person to newEmail and
// queues its mail.
func (db *DB) RequestEmailChange(ctx context.Context, personID int64, newEmail string, l taskd.Link, mail taskd.QueuedMail) error {
	return db.mailTx(ctx, "request e-mail change", func(tx querier, queued *bool) error {
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM person_tokens WHERE person_id = ? AND kind = 'email'`), personID); err != nil {
			return err
		}
		if err := db.addLink(ctx, tx, "email", personID, 0, newEmail, l); err != nil {
			return err
		}
		_, err := db.queueMail(ctx, tx, mail)
		*queued = true
		return err
	})
}

// ConfirmEmail moves the link's person to the link's address, and ends
// their authorizations of applications when the link was asked so.
func (db *DB) ConfirmEmail(ctx context.Context, hash string) (taskd.Person, error) {
	var p taskd.Person
	err := db.tx(ctx, "confirm e-mail", func(tx querier) error {
		l, err := db.takeLink(ctx, tx, hash, "email")
		if err != nil {
			return err
		}
		// What an import keeps for them waits under their address (issue 36).
		if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE import_waiting SET email = ?
			WHERE email = (SELECT email FROM persons WHERE id = ?)`), l.newEmail, l.personID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`UPDATE persons SET email = ? WHERE id = ?`), l.newEmail, l.personID)
		if isUnique(err) {
			return taskd.Conflict(taskd.ReasonNone, "email", "Another person has this address now")
		}
		if err != nil {
			return err
		}
		if err := db.renamed(ctx, tx, l.personID); err != nil {
			return err
		}
		// Links sent to the old address stop working; sessions stay
		// (the person proved both the password and the new address).
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM person_tokens WHERE person_id = ? AND kind IN ('reset', 'email')`), l.personID); err != nil {
			return err
		}
		if l.endGrants {
			if _, err := db.endPersonGrants(ctx, tx, l.personID); err != nil {
				return err
			}
		}
		p, err = db.personByID(ctx, tx, l.personID)
		return err
	})
	return p, err
}
