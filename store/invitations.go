package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/taskd/taskd"
)

var _ taskd.InvitationStore = (*DB)(nil)

const invitationColumns = `i.id, a.id, a.slug, a.name, p.id, p.email, p.first_name, p.last_name, i.role,
	COALESCE(b.first_name, ''), COALESCE(b.last_name, ''), COALESCE(b.email, ''), i.created_at
	FROM invitations i JOIN accounts a ON a.id = i.account_id JOIN persons p ON p.id = i.person_id
	LEFT JOIN persons b ON b.id = i.invited_by`

func scanInvitation(s interface{ Scan(...any) error }) (taskd.Invitation, error) {
	var inv taskd.Invitation
	var p, by taskd.Person
	var role string
	var added int64
	err := s.Scan(&inv.ID, &inv.Account.ID, &inv.Account.Slug, &inv.Account.Name, &p.ID, &p.Email, &p.FirstName, &p.LastName,
		&role, &by.FirstName, &by.LastName, &by.Email, &added)
	inv.Person, inv.Role, inv.Added = p.Ref(), taskd.Role(role), fromMS(added)
	if by.Email != "" {
		inv.InvitedBy = by.DisplayName()
	}
	return inv, err
}

// Invite invites the person with np's e-mail to the account, creating the
// person when they are new to taskd. A conflict when they are already a
// member or invited.
func (db *DB) Invite(ctx context.Context, accountID int64, np taskd.NewPerson, role taskd.Role, by int64) (taskd.Invitation, error) {
	if role != taskd.RoleAdmin && role != taskd.RoleUser {
		return taskd.Invitation{}, taskd.Invalid("role", "Role must be user or admin")
	}
	var id int64
	err := db.tx(ctx, "invite", func(tx querier) error {
		p, err := db.personByEmail(ctx, tx, np.Email)
		if taskd.IsNotFound(err) {
			p, err = db.createPerson(ctx, tx, np)
		}
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM members WHERE account_id = ? AND person_id = ?`), accountID, p.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return taskd.Conflict(taskd.ReasonNone, "email", "This person is already a member of the account")
		}
		var inviter any
		if by > 0 {
			inviter = by
		}
		err = tx.QueryRowContext(ctx, db.d.q(`INSERT INTO invitations (account_id, person_id, role, invited_by, created_at)
			VALUES (?, ?, ?, ?, ?) RETURNING id`), accountID, p.ID, string(role), inviter, ms(db.now())).Scan(&id)
		if isUnique(err) {
			return taskd.Conflict(taskd.ReasonNone, "email", "This person is already invited")
		}
		return err
	})
	if err != nil {
		return taskd.Invitation{}, err
	}
	return db.invitation(ctx, db.write, id)
}

func (db *DB) invitation(ctx context.Context, q querier, id int64) (taskd.Invitation, error) {
	inv, err := scanInvitation(q.QueryRowContext(ctx, db.d.q(`SELECT `+invitationColumns+` WHERE i.id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return inv, taskd.NotFound("invitation")
	}
	if err != nil {
		return inv, taskd.Internal("invitation", err)
	}
	return inv, nil
}

// AccountInvitations lists the account's pending invitations, oldest first.
func (db *DB) AccountInvitations(ctx context.Context, accountID int64) ([]taskd.Invitation, error) {
	return all(ctx, db.reader, "invitations", db.d.q(`SELECT `+invitationColumns+` WHERE i.account_id = ? ORDER BY i.id`), scanInvitation, accountID)
}

// PersonInvitations lists the invitations waiting for the person, oldest
// first.
func (db *DB) PersonInvitations(ctx context.Context, personID int64) ([]taskd.Invitation, error) {
	return all(ctx, db.reader, "invitations", db.d.q(`SELECT `+invitationColumns+` WHERE i.person_id = ? ORDER BY i.id`), scanInvitation, personID)
}

// AcceptInvitation turns the person's invitation into a membership.
func (db *DB) AcceptInvitation(ctx context.Context, personID, id int64) (taskd.Account, error) {
	var inv taskd.Invitation
	err := db.tx(ctx, "accept invitation", func(tx querier) error {
		var err error
		if inv, err = db.invitation(ctx, tx, id); err != nil {
			return err
		}
		if inv.Person.ID != personID {
			return taskd.NotFound("invitation")
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM invitations WHERE id = ?`), id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`INSERT INTO members (account_id, person_id, role, created_at) VALUES (?, ?, ?, ?)`),
			inv.Account.ID, personID, string(inv.Role), ms(db.now()))
		return err
	})
	return inv.Account, err
}

// DeclineInvitation deletes the person's invitation.
func (db *DB) DeclineInvitation(ctx context.Context, personID, id int64) error {
	return db.tx(ctx, "decline invitation", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM invitations WHERE id = ? AND person_id = ?`), id, personID)
		return oneRow(res, err, "invitation")
	})
}

// CancelInvitation deletes the account's invitation.
func (db *DB) CancelInvitation(ctx context.Context, accountID, id int64) error {
	return db.tx(ctx, "cancel invitation", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM invitations WHERE id = ? AND account_id = ?`), id, accountID)
		return oneRow(res, err, "invitation")
	})
}
