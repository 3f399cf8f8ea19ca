package store

import (
	"context"

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
