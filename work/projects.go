package work

import (
	"context"

	"github.com/taskd/taskd"
)

// Projects changes projects and their teams.
type Projects struct{ store Store }

// Create makes an active project (post_project).
func (s *Projects) Create(ctx context.Context, by taskd.Actor, in taskd.ProjectInput) (taskd.Project, error) {
	return s.store.CreateProject(ctx, by, in)
}

// Update changes a project's fields (update_project).
func (s *Projects) Update(ctx context.Context, by taskd.Actor, id int64, in taskd.ProjectInput) (taskd.Project, error) {
	return s.store.UpdateProject(ctx, by, id, in)
}

// SetStatus archives or activates a project.
func (s *Projects) SetStatus(ctx context.Context, by taskd.Actor, id int64, status string) (taskd.Project, error) {
	return s.store.SetProjectStatus(ctx, by, id, status)
}

// SetTeam adds members to a project's team, or takes them off (add
// false); a guest or reader taken off loses what the team gave them
// (taskd.TrustEnded).
func (s *Projects) SetTeam(ctx context.Context, by taskd.Actor, id int64, emails []string, add bool) (taskd.TrustEnded, error) {
	return s.store.SetProjectMembers(ctx, by, id, emails, add)
}
