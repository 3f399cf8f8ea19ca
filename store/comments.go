package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

const commentColumns = `c.id, c.account_id, c.task_id, c.text, c.created_at,
	c.author_id, COALESCE(a.email, ''), COALESCE(a.first_name, ''), COALESCE(a.last_name, ''),
	t.project_id, COALESCE(t.parent_id, 0), pr.name
	FROM comments c JOIN tasks t ON t.id = c.task_id JOIN projects pr ON pr.id = t.project_id
	LEFT JOIN persons a ON a.id = c.author_id`

func scanComment(s interface{ Scan(...any) error }) (taskd.Comment, error) {
	var c taskd.Comment
	var added, aid, parent int64
	var ae, af, al string
	err := s.Scan(&c.ID, &c.AccountID, &c.TaskID, &c.Text, &added, &aid, &ae, &af, &al, &c.Project.ID, &parent, &c.Project.Name)
	c.DateAdded, c.Author = fromMS(added), personRef(aid, ae, af, al)
	c.TaskPage = taskd.TaskPage(c.Project.ID, parent, c.TaskID)
	return c, err
}

// Comments lists the comments of a task the viewer sees that they see,
// oldest first; not found ("task") for a task they do not see.
func (db *DB) Comments(ctx context.Context, v taskd.Viewer, taskID int64) ([]taskd.Comment, error) {
	if _, err := db.task(ctx, db.reader, v, taskID, false); err != nil {
		return nil, err
	}
	seen := commentSeen(v)
	return all(ctx, db.reader, "comments", db.d.q(`SELECT `+commentColumns+` WHERE c.account_id = ? AND c.task_id = ?`+seen.where()+` ORDER BY c.id`),
		scanComment, append([]any{v.AccountID, taskID}, seen.args...)...)
}

// Comment returns one comment the viewer sees; not found ("comment")
// otherwise.
func (db *DB) Comment(ctx context.Context, v taskd.Viewer, id int64) (taskd.Comment, error) {
	return db.comment(ctx, db.reader, v, id, false)
}

func (db *DB) comment(ctx context.Context, q querier, v taskd.Viewer, id int64, lock bool) (taskd.Comment, error) {
	seen := commentSeen(v)
	query := `SELECT ` + commentColumns + ` WHERE c.account_id = ? AND c.id = ?` + seen.where()
	if lock && db.d.forUpdate != "" {
		query += db.d.forUpdate + ` OF c`
	}
	c, err := scanComment(q.QueryRowContext(ctx, db.d.q(query), append([]any{v.AccountID, id}, seen.args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return c, taskd.NotFound("comment")
	}
	if err != nil {
		return c, taskd.Internal("comment", err)
	}
	return c, nil
}

func (db *DB) emitComment(ctx context.Context, tx querier, by taskd.Actor, action string, c taskd.Comment, before, after map[string]any) error {
	return db.emitChange(ctx, tx, by, action, taskd.ObjectComment, c.ID, c.Page(), c.Project, subject{task: c.TaskID, comment: c.ID}, before, after)
}

// CreateComment adds a comment to a task and writes post_comment. Not found
// ("task") for an unknown task.
func (db *DB) CreateComment(ctx context.Context, by taskd.Actor, taskID int64, text string) (taskd.Comment, error) {
	return db.PostComment(ctx, by, taskID, taskd.CommentInput{Text: text})
}

// PostComment creates a comment, visible only to the members with the
// e-mails (and its author) when there are any, with its files, in one
// transaction.
func (db *DB) PostComment(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CommentInput) (taskd.Comment, error) {
	text, visibleTo := in.Text, in.VisibleTo
	c := taskd.Comment{AccountID: by.AccountID, TaskID: taskID, Text: text, Author: by.Person, DateAdded: db.importedAdded(in.Import, by, taskd.ImportComment)}
	err := db.change(ctx, by, "create comment", func(tx querier) error {
		t, err := db.task(ctx, tx, by.Viewer(), taskID, true)
		if err != nil {
			return err
		}
		c.TaskPage, c.Project = t.Page(), t.Project
		err = tx.QueryRowContext(ctx, db.d.q(`INSERT INTO comments (account_id, task_id, author_id, text, created_at)
			VALUES (?, ?, ?, ?, ?) RETURNING id`), c.AccountID, c.TaskID, c.Author.ID, c.Text, ms(c.DateAdded)).Scan(&c.ID)
		if err != nil {
			return err
		}
		if err := db.hide(ctx, tx, "comment_viewers", "comment_id", c.ID, by.AccountID, visibleTo); err != nil {
			return err
		}
		if err := db.attach(ctx, tx, by, in.Files, taskd.OwnerComment, c.ID, t.ProjectID, t.ID); err != nil {
			return err
		}
		if err := db.notify(ctx, tx, by, t, taskd.NoticeCommented(by, c.Text), visibleTo); err != nil {
			return err
		}
		if err := db.writeImported(ctx, tx, by, taskd.ImportComment, c.ID, in.Import); err != nil {
			return err
		}
		return db.emitComment(ctx, tx, by, taskd.ActionPost, c, nil, wire.CommentFields(c))
	})
	return c, err
}

// UpdateComment changes a comment's text and writes update_comment. Not
// found ("comment") for an unknown comment, forbidden when by may not change it (taskd.CanChangeComment).
func (db *DB) UpdateComment(ctx context.Context, by taskd.Actor, id int64, text string) (taskd.Comment, error) {
	var c taskd.Comment
	err := db.change(ctx, by, "update comment", func(tx querier) error {
		var err error
		if c, err = db.comment(ctx, tx, by.Viewer(), id, true); err != nil {
			return err
		}
		if err := taskd.CanChangeComment(by, c); err != nil {
			return err
		}
		before := wire.CommentFields(c)
		c.Text = text
		if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE comments SET text = ? WHERE id = ? AND account_id = ?`), text, id, by.AccountID); err != nil {
			return err
		}
		return db.emitComment(ctx, tx, by, taskd.ActionUpdate, c, before, wire.CommentFields(c))
	})
	return c, err
}

// DeleteComment deletes a comment and writes delete_comment. Not found
// ("comment") for an unknown comment, forbidden when by may not change it (taskd.CanChangeComment).
func (db *DB) DeleteComment(ctx context.Context, by taskd.Actor, id int64) error {
	return db.change(ctx, by, "delete comment", func(tx querier) error {
		c, err := db.comment(ctx, tx, by.Viewer(), id, true)
		if err != nil {
			return err
		}
		if err := taskd.CanChangeComment(by, c); err != nil {
			return err
		}
		// The event first: it records whether the comment was hidden
		// (events.hidden) while its viewers are still listed.
		if err := db.emitComment(ctx, tx, by, taskd.ActionDelete, c, wire.CommentFields(c), nil); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`DELETE FROM comments WHERE id = ? AND account_id = ?`), id, by.AccountID)
		return err
	})
}
