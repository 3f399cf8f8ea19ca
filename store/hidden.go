package store

import (
	"context"

	"github.com/taskd/taskd"
)

var _ taskd.HiddenStore = (*DB)(nil)

// seenTask is the condition that the person who (an argument "?" or a
// column) may see the task of alias: its author, listed, or the task lists
// nobody.
func seenTask(alias, who string) string {
	return `(` + alias + `.author_id = ` + who + ` OR NOT EXISTS (SELECT 1 FROM task_viewers v WHERE v.task_id = ` + alias + `.id)
		OR EXISTS (SELECT 1 FROM task_viewers v WHERE v.task_id = ` + alias + `.id AND v.person_id = ` + who + `))`
}

// unseenTasks selects the ids of the account's tasks hidden from a person:
// they list viewers, and the person is neither one of them nor the
// author. Three arguments: the account, the person, the person.
const unseenTasks = `SELECT v.task_id FROM task_viewers v JOIN tasks h ON h.id = v.task_id
	WHERE v.account_id = ? AND h.author_id <> ?
	AND NOT EXISTS (SELECT 1 FROM task_viewers w WHERE w.task_id = v.task_id AND w.person_id = ?)`

// seenInList is seenTaskAndParent for lists: the hidden set is read once
// per query rather than probed for each task. Six arguments: (account,
// person, person) twice.
const seenInList = `t.id NOT IN (` + unseenTasks + `) AND (t.parent_id IS NULL OR t.parent_id NOT IN (` + unseenTasks + `))`

// seenTaskAndParent is seenTask for task t and its parent: with who "?",
// four arguments.
func seenTaskAndParent(who string) string {
	return seenTask("t", who) + ` AND (t.parent_id IS NULL OR EXISTS (SELECT 1 FROM tasks pt WHERE pt.id = t.parent_id AND ` + seenTask("pt", who) + `))`
}

// seenComment is the condition on comment c: four arguments (the person).
const seenComment = `(c.author_id = ? OR NOT EXISTS (SELECT 1 FROM comment_viewers v WHERE v.comment_id = c.id)
	OR EXISTS (SELECT 1 FROM comment_viewers v WHERE v.comment_id = c.id AND v.person_id = ?))`

// CanSeeTask reports whether the person may see the task and its parent.
func (db *DB) CanSeeTask(ctx context.Context, accountID, personID, taskID int64) (bool, error) {
	var n int
	err := db.reader.QueryRow(ctx, db.d.q(`SELECT COUNT(*) FROM tasks t WHERE t.account_id = ? AND t.id = ? AND NOT (`+seenTaskAndParent("?")+`)`),
		accountID, taskID, personID, personID, personID, personID).Scan(&n)
	if err != nil {
		return false, taskd.Internal("can see task", err)
	}
	return n == 0, nil
}

// CanSeeComment reports whether the person may see the comment and its task.
func (db *DB) CanSeeComment(ctx context.Context, accountID, personID, commentID int64) (bool, error) {
	c, err := db.Comment(ctx, accountID, commentID)
	if taskd.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if ok, err := db.CanSeeTask(ctx, accountID, personID, c.TaskID); err != nil || !ok {
		return false, err
	}
	var n int
	err = db.reader.QueryRow(ctx, db.d.q(`SELECT COUNT(*) FROM comments c WHERE c.id = ? AND NOT `+seenComment), commentID, personID, personID).Scan(&n)
	if err != nil {
		return false, taskd.Internal("can see comment", err)
	}
	return n == 0, nil
}

// CommentsFor lists a task's comments the viewer may see.
func (db *DB) CommentsFor(ctx context.Context, accountID, taskID, viewer int64) ([]taskd.Comment, error) {
	if _, err := db.task(ctx, db.reader, accountID, taskID, false); err != nil {
		return nil, err
	}
	if viewer == 0 {
		return all(ctx, db.reader, "comments", db.d.q(`SELECT `+commentColumns+` WHERE c.account_id = ? AND c.task_id = ? ORDER BY c.id`), scanComment,
			accountID, taskID)
	}
	return all(ctx, db.reader, "comments", db.d.q(`SELECT `+commentColumns+` WHERE c.account_id = ? AND c.task_id = ? AND `+seenComment+` ORDER BY c.id`),
		scanComment, accountID, taskID, viewer, viewer)
}

// CreateHiddenComment creates a comment only the listed members and its
// author may see, in one transaction.
func (db *DB) CreateHiddenComment(ctx context.Context, by taskd.Actor, taskID int64, text string, visibleTo []string) (taskd.Comment, error) {
	return db.createComment(ctx, by, taskID, text, visibleTo)
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

// HiddenFrom returns the ids of the tasks and comments hidden from the
// person.
func (db *DB) HiddenFrom(ctx context.Context, accountID, personID int64) (map[int64]bool, map[int64]bool, error) {
	id := func(s scanner) (int64, error) {
		var v int64
		return v, s.Scan(&v)
	}
	tasks, err := all(ctx, db.reader, "hidden tasks", db.d.q(`SELECT t.id FROM tasks t WHERE t.account_id = ? AND NOT (`+seenTaskAndParent("?")+`)`),
		id, accountID, personID, personID, personID, personID)
	if err != nil {
		return nil, nil, err
	}
	comments, err := all(ctx, db.reader, "hidden comments", db.d.q(`SELECT c.id FROM comments c JOIN tasks t ON t.id = c.task_id
		WHERE c.account_id = ? AND (NOT `+seenComment+` OR NOT (`+seenTaskAndParent("?")+`))`),
		id, accountID, personID, personID, personID, personID, personID, personID)
	if err != nil {
		return nil, nil, err
	}
	set := func(ids []int64) map[int64]bool {
		m := make(map[int64]bool, len(ids))
		for _, v := range ids {
			m[v] = true
		}
		return m
	}
	return set(tasks), set(comments), nil
}
