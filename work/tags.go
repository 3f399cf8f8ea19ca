package work

import (
	"context"

	"github.com/taskd/taskd"
)

// Tags changes tag groups, tags and the tags of projects and tasks.
type Tags struct{ store Store }

// AddGroups adds tag groups of a kind (taskd.TagsOfTasks or of projects).
func (s *Tags) AddGroups(ctx context.Context, by taskd.Actor, kind, typ, access string, titles []string) ([]taskd.TagGroup, error) {
	return s.store.AddTagGroups(ctx, by, kind, typ, access, titles)
}

// Add adds tags to a group.
func (s *Tags) Add(ctx context.Context, by taskd.Actor, kind, group string, titles []string) ([]taskd.Tag, error) {
	return s.store.AddTags(ctx, by, kind, group, titles)
}

// Set puts tags on a project or task and takes others off.
func (s *Tags) Set(ctx context.Context, by taskd.Actor, kind string, objectID int64, plus, minus []string) error {
	return s.store.SetTags(ctx, by, kind, objectID, plus, minus)
}
