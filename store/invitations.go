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

// Invite invites the person with in.Person's e-mail to the account,
// creating the person when they are new to taskd, and writes the link and
// the mail with it. A conflict when they are already a member or invited.
func (db *DB) Invite(ctx context.Context, in taskd.InviteInput) (taskd.Invitation, error) {
	if _, err := taskd.ParseRole(string(in.Role)); err != nil || in.Role == taskd.RoleOwner {
		return taskd.Invitation{}, taskd.Invalid("role", "Role must be admin, user, guest or reader")
	}
	var inv taskd.Invitation
	err := db.mailTx(ctx, "invite", func(tx querier, queued *bool) error {
		var id int64
		p, err := db.personByEmail(ctx, tx, in.Person.Email)
		if taskd.IsNotFound(err) {
			p, err = db.createPerson(ctx, tx, in.Person)
		}
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM members WHERE account_id = ? AND person_id = ?`), in.AccountID, p.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return taskd.Conflict(taskd.ReasonNone, "email", "This person is already a member of the account")
		}
		if in.By > 0 {
			if err := db.mayGrant(ctx, tx, in.AccountID, in.By, in.Role); err != nil {
				return err
			}
		}
		var team any
		if in.Team != "" {
			title, err := cleanTitle(in.Team)
			if err != nil {
				return taskd.Invalid("group", "A team's title is one line of at most %d bytes", taskd.MaxTitleLen)
			}
			if team, _, err = db.namedID(ctx, tx, "teams", in.AccountID, title, false); err != nil {
				return err
			}
		}
		err = tx.QueryRowContext(ctx, db.d.q(`INSERT INTO invitations (account_id, person_id, role, invited_by, created_at, team_id, department)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`), in.AccountID, p.ID, string(in.Role), nullID(in.By), ms(db.now()), team, in.Department).Scan(&id)
		if isUnique(err) {
			return taskd.Conflict(taskd.ReasonNone, "email", "This person is already invited")
		}
		if err != nil {
			return err
		}
		if in.Link != nil {
			if err := db.addLink(ctx, tx, "invite", p.ID, id, "", *in.Link); err != nil {
				return err
			}
		}
		if in.Mail != nil {
			if _, err := db.queueMail(ctx, tx, *in.Mail); err != nil {
				return err
			}
			*queued = true
		}
		// Read in the transaction: a change of the inviter's trust may
		// cancel it as soon as it commits.
		inv, err = db.invitation(ctx, tx, id)
		return err
	})
	return accountSide(inv), err
}

// accountSide is an invitation as its account sees it: the person named by
// the e-mail alone, so that nothing tells whether the address had a person
// in taskd before (their id, their names).
func accountSide(inv taskd.Invitation) taskd.Invitation {
	inv.Person = taskd.PersonRef{Email: inv.Person.Email, Name: inv.Person.Email}
	return inv
}

// mayGrant checks that the person is, now, a member of the account who
// may grant the role (taskd.Role.MayGrant): forbidden ("role") otherwise.
// Their membership stays locked to the end of the transaction, so that a
// change of their role waits for it, and then sees what it made.
func (db *DB) mayGrant(ctx context.Context, q querier, accountID, personID int64, role taskd.Role) error {
	var r string
	err := q.QueryRowContext(ctx, db.d.q(`SELECT role FROM members WHERE account_id = ? AND person_id = ?`+db.d.forUpdate), accountID, personID).Scan(&r)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if !taskd.Role(r).MayGrant(role) {
		return taskd.Forbidden("role", "You may not invite someone as %s", role)
	}
	return nil
}

// InvitationByLink returns the invitation of a live link, and whether its
// person has a password.
func (db *DB) InvitationByLink(ctx context.Context, hash string) (taskd.Invitation, bool, error) {
	l, err := db.link(ctx, db.reader, hash, "invite")
	if err != nil {
		return taskd.Invitation{}, false, err
	}
	inv, err := db.invitation(ctx, db.reader, l.invitationID)
	if taskd.IsNotFound(err) {
		return inv, false, taskd.NotFound("link")
	}
	if err != nil {
		return inv, false, err
	}
	p, err := db.PersonByID(ctx, inv.Person.ID)
	return inv, p.PasswordHash != "", err
}

// JoinByLink sets the password of a person who has none from their
// invitation's link, and makes them a member.
func (db *DB) JoinByLink(ctx context.Context, hash string, np taskd.NewPerson) (taskd.Account, taskd.Person, error) {
	var acct taskd.Account
	var p taskd.Person
	err := db.tx(ctx, "join", func(tx querier) error {
		l, err := db.takeLink(ctx, tx, hash, "invite")
		if err != nil {
			return err
		}
		if p, err = db.personByID(ctx, tx, l.personID); err != nil {
			return err
		}
		if p.PasswordHash != "" {
			return taskd.Conflict(taskd.ReasonNone, "email", "You already have a password: sign in to accept the invitation")
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE persons SET password_hash = ?, first_name = ?, last_name = ? WHERE id = ?`),
			np.PasswordHash, np.FirstName, np.LastName, p.ID); err != nil {
			return err
		}
		p.PasswordHash, p.FirstName, p.LastName = np.PasswordHash, np.FirstName, np.LastName
		acct, err = db.acceptInvitation(ctx, tx, p.ID, l.invitationID)
		return err
	})
	return acct, p, err
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

// AccountInvitations lists the account's pending invitations, oldest
// first, as the account sees them (accountSide).
func (db *DB) AccountInvitations(ctx context.Context, accountID int64) ([]taskd.Invitation, error) {
	return all(ctx, db.reader, "invitations", db.d.q(`SELECT `+invitationColumns+` WHERE i.account_id = ? ORDER BY i.id`),
		func(s scanner) (taskd.Invitation, error) {
			inv, err := scanInvitation(s)
			return accountSide(inv), err
		}, accountID)
}

// PersonInvitations lists the invitations waiting for the person, oldest
// first.
func (db *DB) PersonInvitations(ctx context.Context, personID int64) ([]taskd.Invitation, error) {
	return all(ctx, db.reader, "invitations", db.d.q(`SELECT `+invitationColumns+` WHERE i.person_id = ? ORDER BY i.id`), scanInvitation, personID)
}

// AcceptInvitation turns the person's invitation into a membership.
func (db *DB) AcceptInvitation(ctx context.Context, personID, id int64) (taskd.Account, error) {
	var acct taskd.Account
	err := db.tx(ctx, "accept invitation", func(tx querier) error {
		var err error
		acct, err = db.acceptInvitation(ctx, tx, personID, id)
		return err
	})
	return acct, err
}

// acceptInvitation makes the person a member with the role of their
// invitation and deletes it (and so its links), and gives them what an
// import kept for them (applyWaiting). JoinByLink and AcceptInvitation,
// the two ways to accept, both come here.
func (db *DB) acceptInvitation(ctx context.Context, tx querier, personID, id int64) (taskd.Account, error) {
	inv, err := db.invitation(ctx, tx, id)
	if err != nil {
		return inv.Account, err
	}
	if inv.Person.ID != personID {
		return inv.Account, taskd.NotFound("invitation")
	}
	// The inviter's trust is checked now, not when they invited: an
	// invitation is worth what its inviter may still grant.
	var inviter sql.NullInt64
	if err := tx.QueryRowContext(ctx, db.d.q(`SELECT invited_by FROM invitations WHERE id = ?`), id).Scan(&inviter); err != nil {
		return inv.Account, err
	}
	if inviter.Valid {
		if err := db.mayGrant(ctx, tx, inv.Account.ID, inviter.Int64, inv.Role); err != nil {
			return inv.Account, taskd.NotFound("invitation")
		}
	}
	_, err = tx.ExecContext(ctx, db.d.q(`INSERT INTO members (account_id, person_id, role, created_at, team_id, department)
		SELECT account_id, person_id, role, ?, team_id, department FROM invitations WHERE id = ?`), ms(db.now()), id)
	if err != nil {
		return inv.Account, err
	}
	if _, err = tx.ExecContext(ctx, db.d.q(`DELETE FROM invitations WHERE id = ?`), id); err != nil {
		return inv.Account, err
	}
	// What an import kept for them is theirs now (issue 36).
	m, err := db.memberByEmail(ctx, tx, inv.Account.ID, inv.Person.Email)
	if err != nil {
		return inv.Account, err
	}
	return inv.Account, db.applyWaiting(ctx, tx, inv.Account.ID, m)
}

// DeclineInvitation deletes the person's invitation, and what an import
// kept for them in its account.
func (db *DB) DeclineInvitation(ctx context.Context, personID, id int64) error {
	return db.tx(ctx, "decline invitation", func(tx querier) error {
		var accountID int64
		err := tx.QueryRowContext(ctx, db.d.q(`SELECT account_id FROM invitations WHERE id = ? AND person_id = ?`), id, personID).Scan(&accountID)
		if errors.Is(err, sql.ErrNoRows) {
			return taskd.NotFound("invitation")
		}
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM invitations WHERE id = ? AND person_id = ?`), id, personID)
		if err := oneRow(res, err, "invitation"); err != nil {
			return err
		}
		return db.dropWaiting(ctx, tx, accountID)
	})
}

// CancelInvitation deletes the account's invitation, and what an import
// kept for its person.
func (db *DB) CancelInvitation(ctx context.Context, accountID, id int64) error {
	return db.tx(ctx, "cancel invitation", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM invitations WHERE id = ? AND account_id = ?`), id, accountID)
		if err := oneRow(res, err, "invitation"); err != nil {
			return err
		}
		return db.dropWaiting(ctx, tx, accountID)
	})
}
