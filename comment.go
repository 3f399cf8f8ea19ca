package taskd

import (
	"strconv"
	"time"
)

// Comment is a remark on a task.
type Comment struct {
	ID        int64
	AccountID int64
	TaskID    int64
	Text      string
	Author    PersonRef
	DateAdded time.Time
	// Page of the task it belongs to, set by the store.
	TaskPage string
	Project  ProjectRef
}

// CommentPage is the page of a comment relative to the account URL (compat).
func CommentPage(taskPage string, id int64) string {
	return taskPage + "#com" + strconv.FormatInt(id, 10)
}

// Page is the comment's page relative to the account URL.
func (c Comment) Page() string { return CommentPage(c.TaskPage, c.ID) }

// CommentInput is a new comment.
type CommentInput struct {
	Text string
	// VisibleTo lists members, by e-mail, who alone (with the author) may
	// see the comment; empty: everyone who sees its task.
	VisibleTo []string
	// Files are uploads of the author's, not attached yet, to attach to
	// the comment in the same transaction.
	Files []int64
	// Import, set by an import only, is recorded with the new comment in
	// its transaction (ImportRecord); a change ignores it.
	Import *ImportRecord
}
