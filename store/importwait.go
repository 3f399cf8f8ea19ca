package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/taskd/taskd"
)

// What an import wrote without an invited person and keeps for them
// (table import_waiting, issue 36): the roles (taskd.WaitingRole) they
// take on an object when they accept the invitation.

// waitFamily is the family of the object of each role.
var waitFamily = map[string]string{
	taskd.WaitTaskAssignee: taskd.ImportTask, taskd.WaitTaskAuthor: taskd.ImportTask, taskd.WaitTaskSubscriber: taskd.ImportTask,
	taskd.WaitCommentAuthor: taskd.ImportComment, taskd.WaitCostAuthor: taskd.ImportCost,
	taskd.WaitProjectAuthor: taskd.ImportProject, taskd.WaitProjectManager: taskd.ImportProject, taskd.WaitProjectMember: taskd.ImportProject,
	taskd.WaitFileAuthor: taskd.ImportFile,
}

// SetImportWaiting keeps the roles that wait on an existing object (an
// import's update of it) for invited people; keeping one twice is no error.
func (db *DB) SetImportWaiting(ctx context.Context, accountID, objectID int64, waits []taskd.WaitingRole) error {
	return db.tx(ctx, "set import waiting", func(tx querier) error {
		return db.putWaiting(ctx, tx, accountID, objectID, "", waits)
	})
}

// putWaiting keeps each wait (of family, when given) for its invited
// person. Their invitation is locked first (shared): an acceptance, a
// decline or a cancellation either committed before (no invitation: the
// member takes the role at once, someone else gets nothing), or waits for
// this transaction and then finds the rows. On PostgreSQL one that holds
// the invitation already, and may wait for a row this transaction holds
// (the parent of a subtask, say), fails this one at once rather than
// deadlock: the import reports the object and makes it on its next run.
func (db *DB) putWaiting(ctx context.Context, tx querier, accountID, objectID int64, family string, waits []taskd.WaitingRole) error {
	for _, w := range waits {
		f, ok := waitFamily[w.Role]
		if !ok {
			return fmt.Errorf("import waiting: unknown role %q", w.Role)
		}
		if family != "" && f != family {
			continue
		}
		var inv int64
		lock := ""
		if db.d.name == "postgres" {
			lock = " FOR SHARE NOWAIT"
		}
		err := tx.QueryRowContext(ctx, db.d.q(`SELECT id FROM invitations WHERE account_id = ?
			AND person_id = (SELECT id FROM persons WHERE email = ?)`+lock), accountID, w.Email).Scan(&inv)
		if errors.Is(err, sql.ErrNoRows) {
			m, err := db.memberByEmail(ctx, tx, accountID, w.Email)
			if taskd.IsNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			if _, err := db.applyWait(ctx, tx, accountID, m, w.Role, objectID); err != nil {
				return err
			}
			if err := db.bumpVersions(ctx, tx, accountID); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO import_waiting (account_id, email, role, object_id, created_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`), accountID, w.Email, w.Role, objectID, ms(db.now())); err != nil {
			return err
		}
	}
	return nil
}

// applyWaiting gives the new member m of the account what waits for them
// and deletes it, in the transaction that made them a member. A row whose
// object was deleted or changed since (assigned to someone else, given a
// manager), or does not fit (applyWait), is dropped. It writes no event and sends no
// notification: the history is imported, as the objects' creations were.
// The cached task lists of the account get new versions.
func (db *DB) applyWaiting(ctx context.Context, tx querier, accountID int64, m taskd.Member) error {
	type row struct {
		role   string
		object int64
	}
	rows, err := all(ctx, tx, "import waiting", db.d.q(`SELECT role, object_id FROM import_waiting
		WHERE account_id = ? AND email = ? ORDER BY role, object_id`), func(s scanner) (r row, err error) {
		return r, s.Scan(&r.role, &r.object)
	}, accountID, m.Email)
	if err != nil || len(rows) == 0 {
		return err
	}
	applied := false
	for _, r := range rows {
		ok, err := db.applyWait(ctx, tx, accountID, m, r.role, r.object)
		if err != nil {
			return err
		}
		applied = applied || ok
	}
	if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM import_waiting WHERE account_id = ? AND email = ?`), accountID, m.Email); err != nil {
		return err
	}
	if !applied {
		return nil
	}
	return db.bumpVersions(ctx, tx, accountID)
}

// waitApply is, per role, the statement that gives it: its arguments are
// the person, the object and the account. Each changes nothing where the
// object is gone or changed since.
var waitApply = map[string]string{
	taskd.WaitTaskAssignee: `UPDATE tasks SET assignee_id = ? WHERE id = ? AND account_id = ? AND assignee_id = 1`,
	taskd.WaitTaskAuthor: `UPDATE tasks SET author_id = ? WHERE id = ? AND account_id = ?
		AND (NOT EXISTS (SELECT 1 FROM task_viewers v WHERE v.task_id = tasks.id)
			OR EXISTS (SELECT 1 FROM task_viewers v WHERE v.task_id = tasks.id AND v.person_id = tasks.author_id))`,
	taskd.WaitTaskSubscriber: `INSERT INTO task_subscribers (task_id, person_id) SELECT id, ? FROM tasks
		WHERE id = ? AND account_id = ? ON CONFLICT DO NOTHING`,
	taskd.WaitCommentAuthor: `UPDATE comments SET author_id = ? WHERE id = ? AND account_id = ?
		AND (NOT EXISTS (SELECT 1 FROM comment_viewers v WHERE v.comment_id = comments.id)
			OR EXISTS (SELECT 1 FROM comment_viewers v WHERE v.comment_id = comments.id AND v.person_id = comments.author_id))`,
	taskd.WaitCostAuthor:     `UPDATE costs SET person_id = ? WHERE id = ? AND account_id = ?`,
	taskd.WaitProjectAuthor:  `UPDATE projects SET author_id = ? WHERE id = ? AND account_id = ?`,
	taskd.WaitProjectManager: `UPDATE projects SET manager_id = ? WHERE id = ? AND account_id = ? AND manager_id = 1`,
	taskd.WaitFileAuthor:     `UPDATE files SET author_id = ? WHERE id = ? AND account_id = ?`,
	taskd.WaitProjectMember: `INSERT INTO project_members (project_id, person_id) SELECT id, ? FROM projects
		WHERE id = ? AND account_id = ? ON CONFLICT DO NOTHING`,
}

// applyWait gives member m one role on the object, and reports whether
// anything changed. An author is only someone who may work (a reader is
// not). The author of a task or comment that lists its viewers sees it
// whoever is listed: its authorship moves only when the author it has is
// listed (and so still sees it). Lists are written by their object's
// creation and by the import (SetViewers) only, which always lists the
// one who wrote the object: such a list is the import's, made from the
// source's, where the new author saw it as its author. One that leaves
// the author off keeps its author. Being assigned subscribes, as an
// assignment does.
func (db *DB) applyWait(ctx context.Context, tx querier, accountID int64, m taskd.Member, role string, objectID int64) (bool, error) {
	switch role {
	case taskd.WaitTaskAuthor, taskd.WaitCommentAuthor, taskd.WaitCostAuthor, taskd.WaitProjectAuthor, taskd.WaitFileAuthor:
		if !m.Role.Can(taskd.PermWork) {
			return false, nil
		}
	}
	q, ok := waitApply[role]
	if !ok {
		return false, fmt.Errorf("import waiting: unknown role %q", role)
	}
	changed, err := count(tx.ExecContext(ctx, db.d.q(q), m.ID, objectID, accountID))
	if err != nil || changed == 0 {
		return false, err
	}
	if role == taskd.WaitTaskAssignee {
		if err := db.subscribe(ctx, tx, objectID, m.ID, true); err != nil {
			return false, err
		}
	}
	return true, nil
}

// dropWaiting deletes what waits in the account for people it no longer
// invites (declined, cancelled), after their invitations were deleted.
func (db *DB) dropWaiting(ctx context.Context, tx querier, accountID int64) error {
	_, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM import_waiting WHERE account_id = ? AND email NOT IN
		(SELECT p.email FROM invitations i JOIN persons p ON p.id = i.person_id WHERE i.account_id = ?)`), accountID, accountID)
	return err
}

// bumpVersions gives every project of the account a new version: their
// cached task lists name people.
func (db *DB) bumpVersions(ctx context.Context, tx querier, accountID int64) error {
	_, err := tx.ExecContext(ctx, db.d.q(`UPDATE projects SET version = version + 1 WHERE account_id = ?`), accountID)
	return err
}
