package store

import (
	"context"

	"github.com/taskd/taskd"
)

// UpdateContact changes a contact (c.ID) to c: its e-mail, names, title,
// folder (by title, made when missing; "" for none), phones and
// addresses. Not found ("contact") for a contact of no account of by's; a
// conflict when another contact has the e-mail.
func (db *DB) UpdateContact(ctx context.Context, by taskd.Actor, c taskd.Contact) (taskd.Contact, error) {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return c, err
	}
	err := db.tx(ctx, "update contact", func(tx querier) error {
		var folder any
		if c.Folder != "" {
			fid, _, err := db.namedID(ctx, tx, "contact_folders", by.AccountID, c.Folder, false)
			if err != nil {
				return err
			}
			folder = fid
		}
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE contacts SET email = ?, first_name = ?, last_name = ?, title = ?, folder_id = ?,
			phone = ?, phone2 = ?, phone3 = ?, phone4 = ?, address = ?, address2 = ? WHERE id = ? AND account_id = ?`),
			c.Email, c.FirstName, c.LastName, c.Title, folder, c.Phone, c.Phone2, c.Phone3, c.Phone4, c.Address, c.Address2,
			c.ID, by.AccountID)
		if isUnique(err) {
			return taskd.Conflict(taskd.ReasonNone, "email", "The account has a contact with this e-mail")
		}
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = taskd.NotFound("contact")
			}
			return err
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	return scanContact(db.write.QueryRowContext(ctx, db.d.q(`SELECT `+contactColumns+` WHERE c.id = ?`), c.ID))
}

// SetMemberTeam puts a member (personID) on the team with the title, made
// when missing, or on none when team is "". Not found ("member") when
// they are not a member of by's account.
func (db *DB) SetMemberTeam(ctx context.Context, by taskd.Actor, personID int64, team string) error {
	if err := taskd.Authorize(by, taskd.PermManagePeople); err != nil {
		return err
	}
	return db.tx(ctx, "set member team", func(tx querier) error {
		var teamID any
		if team != "" {
			title, err := cleanTitle(team)
			if err != nil {
				return taskd.Invalid("group", "A team's title is one line of at most %d bytes", taskd.MaxTitleLen)
			}
			if teamID, _, err = db.namedID(ctx, tx, "teams", by.AccountID, title, false); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE members SET team_id = ? WHERE account_id = ? AND person_id = ?`),
			teamID, by.AccountID, personID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = taskd.NotFound("member")
			}
			return err
		}
		return nil
	})
}
