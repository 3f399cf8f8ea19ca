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

// RenameGroup gives a tag group (a title or an id) a new title. Objects
// keep their tags; no event is written.
func (s *Tags) RenameGroup(ctx context.Context, by taskd.Actor, kind, group, title string) (taskd.TagGroup, error) {
	return s.store.RenameTagGroup(ctx, by, kind, group, title)
}

// Rename gives a tag (an id or an exact title) a new title; no event is
// written.
func (s *Tags) Rename(ctx context.Context, by taskd.Actor, kind, tag, title string) (taskd.Tag, error) {
	return s.store.RenameTag(ctx, by, kind, tag, title)
}

// SortGroups puts the groups of a kind in the order given (ids or
// titles; those not named follow in their order).
func (s *Tags) SortGroups(ctx context.Context, by taskd.Actor, kind string, order []string) ([]taskd.TagGroup, error) {
	return s.store.SortTagGroups(ctx, by, kind, order)
}

// Sort puts the tags of a group in the order given, as SortGroups does:
// a board's columns follow it.
func (s *Tags) Sort(ctx context.Context, by taskd.Actor, kind, group string, order []string) ([]taskd.Tag, error) {
	return s.store.SortTags(ctx, by, kind, group, order)
}

// Delete deletes a tag; d says what the objects that carry it get
// instead (taskd.TagStore.DeleteTag).
func (s *Tags) Delete(ctx context.Context, by taskd.Actor, kind, tag string, d taskd.TagDeletion) error {
	return s.store.DeleteTag(ctx, by, kind, tag, d)
}

// DeleteGroup deletes a tag group and its tags, taking them off what
// carries them.
func (s *Tags) DeleteGroup(ctx context.Context, by taskd.Actor, kind, group string) error {
	return s.store.DeleteTagGroup(ctx, by, kind, group)
}
