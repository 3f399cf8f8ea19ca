package taskd

import "context"

// HiddenStore makes comments with `hidden`: the people listed and the
// author only may see them (Viewer; the administrative key sees
// everything). A hidden task hides its whole subtree: its subtasks and
// their sub-subtasks are hidden as it is.
type HiddenStore interface {
	// CreateHiddenComment creates a comment that only the members with the
	// e-mails, and its author, may see.
	CreateHiddenComment(ctx context.Context, by Actor, taskID int64, text string, visibleTo []string) (Comment, error)
}
