package work

import (
	"context"
	"io"

	"github.com/taskd/taskd"
)

// Files keeps uploads within the server's limits and attaches them.
type Files struct {
	store  Store
	limits taskd.FileLimits
}

// Upload stores what r yields as a new upload of by's, not attached yet:
// a change that names it attaches it (taskd.TaskInput.Files and the
// others); one left unattached is swept.
func (s *Files) Upload(ctx context.Context, by taskd.Actor, name, contentType string, r io.Reader) (taskd.File, error) {
	return s.store.CreateFile(ctx, by, name, contentType, r, s.limits)
}

// Attach attaches by's uploads to a project, task or comment it sees.
func (s *Files) Attach(ctx context.Context, by taskd.Actor, ids []int64, owner string, ownerID int64) error {
	return s.store.AttachFiles(ctx, by, ids, owner, ownerID)
}

// Delete deletes a file, if by may (taskd.CanChangeFile).
func (s *Files) Delete(ctx context.Context, by taskd.Actor, id int64) error {
	return s.store.DeleteFile(ctx, by, id)
}
