package store

import (
	"context"
	"slices"
	"strings"

	"github.com/taskd/taskd"
)

// newSubscribers are the people a new task starts followed by without a
// lookup by e-mail (its author and its assignee, already resolved): their
// ids, their e-mails, and once written how many were.
type newSubscribers struct {
	ids     []any
	emails  []string
	written int64
	done    bool // written is known
}

// subscribersOf lists the people, skipping Nobody, Anyone and repeats.
func subscribersOf(people ...taskd.PersonRef) newSubscribers {
	var s newSubscribers
	for _, p := range people {
		if p.ID < taskd.FirstPersonID || slices.Contains(s.ids, any(p.ID)) {
			continue
		}
		s.ids, s.emails = append(s.ids, p.ID), append(s.emails, p.Email)
	}
	return s
}

// insert is the statement that subscribes the people to a task, the members among
// them only: the task's id is its first argument, the account's its second,
// then the people's ids. It reads the task's id from taskID (a placeholder,
// or on PostgreSQL the column of the CTE that inserted the task).
func (s newSubscribers) insert(taskID, from string) string {
	return `INSERT INTO task_subscribers (task_id, person_id)
		SELECT ` + taskID + `, m.person_id FROM ` + from + `members m WHERE m.account_id = ? AND m.person_id IN (?` +
		strings.Repeat(`, ?`, len(s.ids)-1) + `) ON CONFLICT DO NOTHING`
}

// treeKeys are the stored tree keys of a new task with the parent and
// grandparent given (0 for none): top_id and sub_id (migration 0030, and
// treeOrder), nil for NULL.
func treeKeys(parent, grandparent int64) (top, sub any) {
	switch {
	case parent == 0:
		return nil, 0
	case grandparent == 0:
		return parent, nil
	}
	return grandparent, parent
}

// insertTask writes t's row and sets t.ID. On PostgreSQL the subscribers'
// rows are written by the same statement (a CTE), saving a round trip.
func (db *DB) insertTask(ctx context.Context, tx querier, t *taskd.Task, parent any, subs *newSubscribers) error {
	insert := `INSERT INTO tasks (account_id, project_id, parent_id, top_id, sub_id, name, text, status, priority,
		author_id, assignee_id, date_start, date_end, created_at, max_minutes, max_cents)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`
	top, sub := treeKeys(t.ParentID, t.GrandparentID)
	args := []any{t.AccountID, t.ProjectID, parent, top, sub, t.Name, t.Text, t.Status, t.Priority, t.Author.ID, t.Assignee.ID,
		t.DateStart, t.DateEnd, ms(t.DateAdded), t.MaxMinutes, t.MaxCents}
	if !db.d.numbered || len(subs.ids) == 0 { // SQLite has no INSERT in a WITH
		return tx.QueryRowContext(ctx, db.d.q(insert), args...).Scan(&t.ID)
	}
	query := `WITH t AS (` + insert + `), s AS (` + subs.insert("t.id", "t, ") + ` RETURNING 1)
		SELECT t.id, (SELECT count(*) FROM s) FROM t`
	err := tx.QueryRowContext(ctx, db.d.q(query), append(append(args, t.AccountID), subs.ids...)...).Scan(&t.ID, &subs.written)
	subs.done = err == nil
	return err
}

// subscribeNew subscribes the new task's people (subscribersOf), in one
// statement that checks they are members as it inserts, unless insertTask
// did. A person who is no member fails as subscribeAll does ("member",
// their e-mail).
func (db *DB) subscribeNew(ctx context.Context, tx querier, t taskd.Task, subs *newSubscribers) error {
	if len(subs.ids) == 0 {
		return nil
	}
	if !subs.done {
		res, err := tx.ExecContext(ctx, db.d.q(subs.insert("?", "")), append([]any{t.ID, t.AccountID}, subs.ids...)...)
		if err != nil {
			return err
		}
		if subs.written, err = res.RowsAffected(); err != nil {
			return err
		}
	}
	if subs.written == int64(len(subs.ids)) {
		return nil
	}
	return db.subscribeAll(ctx, tx, t, subs.emails) // names who is no member
}
