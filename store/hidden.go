package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/taskd/taskd"
)

var _ taskd.HiddenStore = (*DB)(nil)

// CreateHiddenComment creates a comment only the listed members and its
// author may see, in one transaction.
func (db *DB) CreateHiddenComment(ctx context.Context, by taskd.Actor, taskID int64, text string, visibleTo []string) (taskd.Comment, error) {
	return db.PostComment(ctx, by, taskID, taskd.CommentInput{Text: text, VisibleTo: visibleTo})
}

// hide records who alone may see a new task or comment.
func (db *DB) hide(ctx context.Context, tx querier, table, column string, id, accountID int64, emails []string) error {
	for _, e := range emails {
		m, err := db.memberByEmail(ctx, tx, accountID, e)
		if err != nil {
			return err
		}
		insert, args := `INSERT INTO `+table+` (`+column+`, person_id) VALUES (?, ?)`, []any{id, m.ID}
		if table == "task_viewers" {
			insert, args = `INSERT INTO task_viewers (task_id, person_id, account_id) VALUES (?, ?, ?)`, append(args, accountID)
		}
		if _, err := tx.ExecContext(ctx, db.d.q(insert+` ON CONFLICT DO NOTHING`), args...); err != nil {
			return err
		}
	}
	return nil
}

// SetViewers changes who alone may see a task or a comment (kind "task"
// or "comment") to the members with the e-mails, in one transaction; none
// makes it seen by everyone who sees its project. Only the import calls
// it, to follow a source whose hidden list changed (issue 36): an object
// hidden from someone in the source is hidden from them here too. Not
// found for an object of no account of by's or an e-mail of no member.
func (db *DB) SetViewers(ctx context.Context, by taskd.Actor, kind string, id int64, emails []string) error {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return err
	}
	table, column, owner := "task_viewers", "task_id", `SELECT 1 FROM tasks WHERE id = ? AND account_id = ?`
	if kind == "comment" {
		table, column, owner = "comment_viewers", "comment_id", `SELECT 1 FROM comments WHERE id = ? AND account_id = ?`
	} else if kind != "task" {
		return taskd.Invalid("kind", "Unknown kind of hidden object")
	}
	return db.tx(ctx, "set viewers", func(tx querier) error {
		var one int
		if err := tx.QueryRowContext(ctx, db.d.q(owner), id, by.AccountID).Scan(&one); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return taskd.NotFound(kind)
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM `+table+` WHERE `+column+` = ?`), id); err != nil {
			return err
		}
		return db.hide(ctx, tx, table, column, id, by.AccountID, emails)
	})
}

// HiddenLists answers, by id, who alone may see each of the tasks or
// comments (kind "task" or "comment") of v's account with the ids: the
// members its hidden list names (its author sees it too), by name. An
// object that lists nobody, that v does not see, or of another account
// has no entry. A task's list is its own: a subtask of a hidden task
// lists nobody, hidden as it is by its parent's list. One query for every
// few hundred ids (issue 36: the API's extra=hidden, which the import
// reads).
func (db *DB) HiddenLists(ctx context.Context, v taskd.Viewer, kind string, ids []int64) (map[int64][]taskd.PersonRef, error) {
	var from string
	var seen cond
	switch kind {
	case "task":
		from, seen = ` FROM task_viewers hv JOIN tasks t ON t.id = hv.task_id`, taskSeen(v, "t")
	case "comment":
		from, seen = ` FROM comment_viewers hv JOIN comments c ON c.id = hv.comment_id JOIN tasks t ON t.id = c.task_id`, commentSeen(v)
	default:
		return nil, taskd.Invalid("kind", "Unknown kind of hidden object")
	}
	column := "hv." + kind + "_id"
	type row struct {
		id  int64
		ref taskd.PersonRef
	}
	out := make(map[int64][]taskd.PersonRef)
	for start := 0; start < len(ids); start += queuePage {
		chunk := ids[start:min(start+queuePage, len(ids))]
		args := []any{v.AccountID}
		for _, id := range chunk {
			args = append(args, id)
		}
		rows, err := all(ctx, db.reader, "hidden lists", db.d.q(`SELECT `+column+`, p.id, p.email, p.first_name, p.last_name`+from+`
			JOIN persons p ON p.id = hv.person_id
			WHERE t.account_id = ? AND `+column+` IN (?`+strings.Repeat(`, ?`, len(chunk)-1)+`)`+seen.where()+`
			ORDER BY `+column+`, p.email`), func(s scanner) (row, error) {
			var r row
			var id int64
			var email, first, last string
			err := s.Scan(&r.id, &id, &email, &first, &last)
			r.ref = personRef(id, email, first, last)
			return r, err
		}, append(args, seen.args...)...)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.id] = append(out[r.id], r.ref)
		}
	}
	return out, nil
}
