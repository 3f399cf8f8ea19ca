package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// trustChanged ends, in the transaction that changed a member's standing,
// what their old standing gave them beyond the new one (taskd.TrustEnded).
// role is the new role, "" when they left the account; the members and
// project_members rows already say what they are now.
func (db *DB) trustChanged(ctx context.Context, tx querier, accountID, personID int64, role taskd.Role) (taskd.TrustEnded, error) {
	var ended taskd.TrustEnded
	var err error
	if ended.Invitations, err = db.endInvitations(ctx, tx, accountID, personID, role); err != nil {
		return ended, err
	}
	if ended.Grants, err = db.endAccountGrants(ctx, tx, accountID, personID, role); err != nil {
		return ended, err
	}
	if !role.Can(taskd.PermAdministrative) {
		if ended.Webhooks, err = db.disableWebhooksBy(ctx, tx, accountID, personID, role); err != nil {
			return ended, err
		}
	}
	if !role.Can(taskd.PermSettings) {
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE accounts SET api_key = ?, api_key_by = NULL WHERE id = ? AND api_key_by = ?`),
			[]byte{}, accountID, personID)
		if ended.APIKey, err = changed(res, err); err != nil {
			return ended, err
		}
	}
	ended.Timer, err = db.endBeyondReach(ctx, tx, accountID, personID)
	return ended, err
}

// endInvitations cancels the account's pending invitations that the
// person sent of a role they may no longer grant (and what an import kept
// for their people), and returns how many.
func (db *DB) endInvitations(ctx context.Context, tx querier, accountID, personID int64, role taskd.Role) (int, error) {
	var beyond []any
	for _, r := range []taskd.Role{taskd.RoleAdmin, taskd.RoleUser, taskd.RoleGuest, taskd.RoleReader} {
		if !role.MayGrant(r) {
			beyond = append(beyond, string(r))
		}
	}
	if len(beyond) == 0 {
		return 0, nil
	}
	n, err := count(tx.ExecContext(ctx, db.d.q(`DELETE FROM invitations WHERE account_id = ? AND invited_by = ? AND role IN (?`+
		strings.Repeat(`, ?`, len(beyond)-1)+`)`), append([]any{accountID, personID}, beyond...)...))
	if err != nil || n == 0 {
		return n, err
	}
	// What an import kept for the people invited goes with the invitations.
	return n, db.dropWaiting(ctx, tx, accountID)
}

// endAccountGrants revokes the person's authorizations of applications in
// the account that hold a scope the role may not grant (every one when
// the role is "": they left), and returns how many.
func (db *DB) endAccountGrants(ctx context.Context, tx querier, accountID, personID int64, role taskd.Role) (int, error) {
	where := ``
	if role != "" {
		var beyond []string
		for _, sc := range taskd.Scopes {
			if !role.MayGrantScope(sc) {
				// Scopes are kept space-separated; each is a plain word.
				beyond = append(beyond, `(' ' || scope || ' ') LIKE '% `+sc+` %'`)
			}
		}
		if len(beyond) == 0 {
			return 0, nil
		}
		where = ` AND (` + strings.Join(beyond, ` OR `) + `)`
	}
	res, err := tx.ExecContext(ctx, db.d.q(`UPDATE grants SET revoked = 1, updated_at = ?
		WHERE account_id = ? AND person_id = ? AND revoked = 0`+where), ms(db.now()), accountID, personID)
	return count(res, err)
}

// endPersonGrants revokes every authorization of an application the
// person gave, in every account, and returns how many.
func (db *DB) endPersonGrants(ctx context.Context, tx querier, personID int64) (int, error) {
	res, err := tx.ExecContext(ctx, db.d.q(`UPDATE grants SET revoked = 1, updated_at = ? WHERE person_id = ? AND revoked = 0`),
		ms(db.now()), personID)
	return count(res, err)
}

// disableWebhooksBy disables the account's enabled webhooks that act for
// the person, saying why, and returns how many.
func (db *DB) disableWebhooksBy(ctx context.Context, tx querier, accountID, personID int64, role taskd.Role) (int, error) {
	p, err := db.personByID(ctx, tx, personID)
	if err != nil {
		return 0, err
	}
	why := "Its maker, " + p.DisplayName() + ", left the account"
	if role != "" {
		why = "Its maker, " + p.DisplayName() + ", may no longer manage webhooks"
	}
	res, err := tx.ExecContext(ctx, db.d.q(`UPDATE webhooks SET enabled = 0, disabled_reason = ?
		WHERE account_id = ? AND by_person = ? AND enabled = 1`), why, accountID, personID)
	return count(res, err)
}

// endBeyondReach ends what the person keeps running in the account that
// their membership as it is now does not reach: their timer, stopped and
// its time recorded, unless they may still work on its task (a member who
// may work, and for guests on the project's team); and their notifications
// waiting to be mailed about projects they may no longer see. It reports
// whether a timer was stopped.
func (db *DB) endBeyondReach(ctx context.Context, tx querier, accountID, personID int64) (bool, error) {
	var role string
	err := tx.QueryRowContext(ctx, db.d.q(`SELECT role FROM members WHERE account_id = ? AND person_id = ?`), accountID, personID).Scan(&role)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	r := taskd.Role(role) // "" when they left
	// Which tasks are beyond their reach now: those of the projects they
	// no longer see by the rule of viewer.go (none, those whose team they
	// are not on for guests and readers, or all when they left).
	seen := projectSeen(taskd.PersonViewer(accountID, personID, r), "project_id")
	unseen := not(seen)
	if seen.sql != "" { // some project is out of sight: its waiting notifications go
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM notifications WHERE account_id = ? AND person_id = ?
			AND task_id IN (SELECT id FROM tasks WHERE `+unseen.sql+`)`), append([]any{accountID, personID}, unseen.args...)...); err != nil {
			return false, err
		}
	}
	tm, err := db.timer(ctx, tx, accountID, `r.person_id = ?`, personID)
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var beyond int
	if err := tx.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM tasks WHERE id = ? AND `+unseen.sql), append([]any{tm.Task.ID}, unseen.args...)...).
		Scan(&beyond); err != nil {
		return false, err
	}
	if beyond == 0 && r.Can(taskd.PermWork) {
		return false, nil
	}
	var zone string
	if err := tx.QueryRowContext(ctx, db.d.q(`SELECT CASE WHEN p.time_zone <> '' THEN p.time_zone ELSE a.time_zone END
		FROM persons p JOIN accounts a ON a.id = ? WHERE p.id = ?`), accountID, personID).Scan(&zone); err != nil {
		return false, err
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	_, err = db.recordTimer(ctx, tx, tm, "", loc)
	return err == nil, err
}

// count is the number of rows a statement changed.
func count(res sql.Result, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
