package taskd

import "context"

// HiddenStore makes comments with `hidden`: the people listed and the
// author only may see them (Viewer; the administrative key sees
// everything). A subtask of a hidden task is hidden as its parent is.
type HiddenStore interface {
	// CreateHiddenComment creates a comment that only the members with the
	// e-mails, and its author, may see.
	CreateHiddenComment(ctx context.Context, by Actor, taskID int64, text string, visibleTo []string) (Comment, error)
}
