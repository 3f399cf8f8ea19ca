package store

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

var _ taskd.NotificationStore = (*DB)(nil)

// notify writes a notification of a change to a task for everyone who
// follows it (its subscribers and its assignee) but the person who made
// the change: members of the account who have notifications on and may
// see the task: the rule of store/viewer.go, for every follower at once
// (guests and readers on the project's team, hidden tasks where listed).
//
// A hidden task (HiddenStore) is told only to those who may see it, and a
// hidden comment only to the people it is visible to (visibleTo).
func (db *DB) notify(ctx context.Context, tx querier, by taskd.Actor, t taskd.Task, line string, visibleTo []string) error {
	if by.Imported {
		// Imported history tells nobody: no digest (issue 36).
		return nil
	}
	only, args := "", []any{}
	if len(visibleTo) > 0 {
		only = ` AND p.email IN (?` + strings.Repeat(`, ?`, len(visibleTo)-1) + `)`
		for _, e := range visibleTo {
			args = append(args, e)
		}
	}
	_, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO notifications (account_id, person_id, task_id, task_name, task_page, line, created_at)
		SELECT ?, p.id, ?, ?, ?, ?, ? FROM persons p JOIN members m ON m.person_id = p.id AND m.account_id = ?
		WHERE p.notify = 1 AND p.id <> ?
		AND (p.id = ? OR p.id IN (SELECT person_id FROM task_subscribers WHERE task_id = ?))
		AND `+memberSeesProject("m", "?")+`
		AND ? NOT IN (`+hiddenTasks("p.id")+`)`+only),
		append([]any{t.AccountID, t.ID, t.Name, t.Page(), line, ms(db.now()), t.AccountID, by.Person.ID, t.Assignee.ID, t.ID, t.ProjectID,
			t.ID, t.AccountID}, args...)...)
	return err
}

// DigestsDue lists people whose oldest notification is older than before.
func (db *DB) DigestsDue(ctx context.Context, before time.Time, limit int) ([]int64, error) {
	return all(ctx, db.reader, "digests due", db.d.q(`SELECT person_id FROM notifications GROUP BY person_id
		HAVING MIN(created_at) < ? ORDER BY MIN(created_at) LIMIT ?`), func(s scanner) (int64, error) {
		var id int64
		return id, s.Scan(&id)
	}, ms(before), limit)
}

// WaitingDigests lists the people whose oldest notification is older
// than before, up to limit, oldest first, and how long after before the
// oldest notification of the next person was made (zero when no one else
// waits).
func (db *DB) WaitingDigests(ctx context.Context, before time.Time, limit int) ([]int64, time.Duration, error) {
	type row struct {
		person, oldest int64
	}
	rows, err := all(ctx, db.reader, "digests due", db.d.q(`SELECT person_id, MIN(created_at) FROM notifications GROUP BY person_id
		ORDER BY MIN(created_at) LIMIT ?`), func(s scanner) (row, error) {
		var r row
		return r, s.Scan(&r.person, &r.oldest)
	}, limit+1)
	var due []int64
	for _, r := range rows {
		if r.oldest >= ms(before) || len(due) == limit {
			// Due once before passes it (the test is oldest < before).
			return due, max(time.Duration(r.oldest-ms(before)+1)*time.Millisecond, time.Millisecond), err
		}
		due = append(due, r.person)
	}
	return due, 0, err
}

// SendDigests turns a person's waiting notifications into one mail per
// account, deleting them in the same transaction.
func (db *DB) SendDigests(ctx context.Context, personID int64, compose func(taskd.Digest) (taskd.QueuedMail, error)) (int, error) {
	sent := 0
	err := db.mailTx(ctx, "send digests", func(tx querier, queued *bool) error {
		sent = 0
		p, err := db.personByID(ctx, tx, personID)
		if err != nil {
			return err
		}
		lines, err := allOnce(ctx, tx, db.d.q(`DELETE FROM notifications WHERE person_id = ?
			RETURNING id, account_id, person_id, task_id, task_name, task_page, line, created_at`), func(s scanner) (taskd.Notification, error) {
			var n taskd.Notification
			var added int64
			err := s.Scan(&n.ID, &n.AccountID, &n.PersonID, &n.TaskID, &n.TaskName, &n.TaskPage, &n.Line, &added)
			n.Added = fromMS(added)
			return n, err
		}, personID)
		if err != nil || len(lines) == 0 || !p.Notify {
			return err
		}
		byAccount := map[int64][]taskd.Notification{}
		var order []int64
		for _, n := range lines {
			if _, ok := byAccount[n.AccountID]; !ok {
				order = append(order, n.AccountID)
			}
			byAccount[n.AccountID] = append(byAccount[n.AccountID], n)
		}
		for _, aid := range order {
			var a taskd.Account
			err := tx.QueryRowContext(ctx, db.d.q(`SELECT a.id, a.slug, a.name FROM accounts a JOIN members m ON m.account_id = a.id
				WHERE a.id = ? AND m.person_id = ?`), aid, personID).Scan(&a.ID, &a.Slug, &a.Name)
			if err != nil {
				continue // no longer a member: nothing to tell
			}
			ls := byAccount[aid]
			sortByTask(ls)
			m, err := compose(taskd.Digest{Person: p, Account: a, Lines: ls})
			if err != nil {
				return err
			}
			if _, err := db.queueMail(ctx, tx, m); err != nil {
				return err
			}
			sent++
			*queued = true
		}
		return nil
	})
	return sent, err
}

// sortByTask orders lines by task, then by time, keeping each task's
// changes together in the order the tasks first changed.
func sortByTask(ls []taskd.Notification) {
	first := map[int64]int64{}
	for _, n := range ls {
		if f, ok := first[n.TaskID]; !ok || n.ID < f {
			first[n.TaskID] = n.ID
		}
	}
	slices.SortStableFunc(ls, func(a, b taskd.Notification) int {
		return cmp.Or(cmp.Compare(first[a.TaskID], first[b.TaskID]), cmp.Compare(a.ID, b.ID))
	})
}

// SetNotify turns a person's e-mail notifications on or off.
func (db *DB) SetNotify(ctx context.Context, personID int64, on bool) error {
	res, err := db.exec(ctx, "set notify", `UPDATE persons SET notify = ? WHERE id = ?`, flag(on), personID)
	return oneRow(res, err, "person")
}
