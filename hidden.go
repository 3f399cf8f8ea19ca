package taskd

import "context"

// HiddenStore answers who may see tasks and comments made with `hidden`:
// the people listed and the author only (the administrative key sees
// everything). A subtask of a hidden task is hidden as its parent is.
type HiddenStore interface {
	// CanSeeTask reports whether the person may see the task (and its
	// parent). An unknown task is seen (the caller reports it).
	CanSeeTask(ctx context.Context, accountID, personID, taskID int64) (bool, error)
	// CanSeeComment reports whether the person may see the comment and its
	// task.
	CanSeeComment(ctx context.Context, accountID, personID, commentID int64) (bool, error)
	// HiddenFrom returns the ids of the account's tasks and comments the
	// person may not see.
	HiddenFrom(ctx context.Context, accountID, personID int64) (tasks, comments map[int64]bool, err error)
	// CommentsFor lists a task's comments the person may see (0: all).
	CommentsFor(ctx context.Context, accountID, taskID, viewer int64) ([]Comment, error)
	// CreateHiddenComment creates a comment that only the members with the
	// e-mails, and its author, may see.
	CreateHiddenComment(ctx context.Context, by Actor, taskID int64, text string, visibleTo []string) (Comment, error)
}
