package taskd

import (
	"context"
	"strings"
)

// Tag kinds: task tags and project tags are separate namespaces.
const (
	TagsOfTasks    = "task"
	TagsOfProjects = "project"
)

// TagGroup is a group of tags: a status group (at most one of its tags on
// an object) or a label group (any number), public or private.
type TagGroup struct {
	ID     int64
	Kind   string // TagsOfTasks or TagsOfProjects
	Title  string
	Type   string // status or label
	Access string // public or private
}

// Tag is a tag with its group.
type Tag struct {
	ID    int64
	Title string
	Group TagGroup
}

// TagStore keeps tag groups, tags and the tags of tasks and projects.
type TagStore interface {
	// TagGroups lists the account's groups of the kind; type and access
	// filter when not empty.
	TagGroups(ctx context.Context, accountID int64, kind, typ, access string) ([]TagGroup, error)
	// AddTagGroups makes each named group that does not exist and returns
	// the group of every title, in order.
	AddTagGroups(ctx context.Context, by Actor, kind, typ, access string, titles []string) ([]TagGroup, error)
	// Tags lists the account's tags of the kind, of the group named by
	// title or id when group is not empty, filtered by type and access.
	Tags(ctx context.Context, accountID int64, kind, group, typ, access string) ([]Tag, error)
	// AddTags makes each named tag missing from the group (a title or an
	// id) and returns the tag of every title, in order.
	AddTags(ctx context.Context, by Actor, kind, group string, titles []string) ([]Tag, error)
	// SetTags removes the minus tags from a task or project, then adds the
	// plus ones (each a tag id or an exact title), replacing a status of
	// the same group; both idempotent. A task's change writes update_task.
	// With neither list nothing changes, but the task or project must be
	// one by sees (not found otherwise).
	SetTags(ctx context.Context, by Actor, kind string, objectID int64, plus, minus []string) error
	// ObjectTags returns the tags of the tasks or projects with the ids that
	// the viewer sees.
	ObjectTags(ctx context.Context, v Viewer, kind string, ids []int64) (map[int64][]Tag, error)
}

// TagTitle checks the title of a tag or a tag group and returns it
// trimmed: one line of at most MaxTitleLen bytes, not blank.
func TagTitle(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", Required("title")
	case len(s) > MaxTitleLen || strings.ContainsAny(s, "\r\n"):
		return "", Invalid("title", "A title is one line of at most %d bytes", MaxTitleLen)
	}
	return s, nil
}

// CheckTagGroup checks a new group's type (status or label) and access
// (public or private): a status group is always public.
func CheckTagGroup(typ, access string) error {
	switch {
	case typ != "status" && typ != "label":
		return Invalid("type", "A group's type is status or label")
	case access != "public" && access != "private":
		return Invalid("access", "A group's access is public or private")
	case typ == "status" && access == "private":
		return Invalid("access", "Status groups are always public")
	}
	return nil
}
