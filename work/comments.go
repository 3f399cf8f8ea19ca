package work

import (
	"context"

	"github.com/taskd/taskd"
)

// Comments changes comments.
type Comments struct{ store Store }

// Post makes a comment on a task, hidden to all but in.VisibleTo when
// set, with the files of in.Files attached, in one transaction.
func (s *Comments) Post(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CommentInput) (taskd.Comment, error) {
	return s.store.PostComment(ctx, by, taskID, in)
}

// Update changes a comment's text, if by may (taskd.CanChangeComment).
func (s *Comments) Update(ctx context.Context, by taskd.Actor, id int64, text string) (taskd.Comment, error) {
	return s.store.UpdateComment(ctx, by, id, text)
}

// Delete deletes a comment, if by may.
func (s *Comments) Delete(ctx context.Context, by taskd.Actor, id int64) error {
	return s.store.DeleteComment(ctx, by, id)
}
