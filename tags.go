package taskd

import (
	"context"
	"fmt"
	"strings"
)

// Tag kinds: task tags and project tags are separate namespaces.
const (
	TagsOfTasks    = "task"
	TagsOfProjects = "project"
)

// TagGroup is a group of tags: a status group (at most one of its tags on
// an object) or a label group (any number), public or private. The
// account orders the groups of a kind, and the tags of a group (a board's
// columns): lists give them in that order.
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

	// TagUse counts, for each tag of the kind that some carry, the tasks
	// or projects the viewer sees that carry it.
	TagUse(ctx context.Context, v Viewer, kind string) (map[int64]int, error)
	// RenameTagGroup gives a group (a title or an id) a new title; a
	// conflict when another group of the kind has it. Objects keep their
	// tags, whose ids do not change, and no event is written.
	RenameTagGroup(ctx context.Context, by Actor, kind, group, title string) (TagGroup, error)
	// RenameTag gives a tag (an id, or an exact title that one tag of the
	// kind has) a new title; a conflict when another tag of its group has
	// it. No event is written, as for a group.
	RenameTag(ctx context.Context, by Actor, kind, tag, title string) (Tag, error)
	// SortTagGroups puts the account's groups of the kind in the order of
	// the ids or titles given; those not named follow, in their order. It
	// returns every group in the new order.
	SortTagGroups(ctx context.Context, by Actor, kind string, order []string) ([]TagGroup, error)
	// SortTags puts a group's tags in the order of the ids or titles
	// given, as SortTagGroups does, and returns them in the new order.
	SortTags(ctx context.Context, by Actor, kind, group string, order []string) ([]Tag, error)
	// DeleteTag deletes a tag. The tasks or projects that carry it lose it
	// or, as d says, get another tag of its group instead; a status that
	// tasks or projects the actor sees carry is not deleted until d says
	// which (StatusInUse). Each task changed writes update_task, as
	// SetTags does.
	DeleteTag(ctx context.Context, by Actor, kind, tag string, d TagDeletion) error
	// DeleteTagGroup deletes a group and its tags; the tasks and projects
	// that carry them lose them, each task changed with update_task.
	DeleteTagGroup(ctx context.Context, by Actor, kind, group string) error
}

// TagDeletion says what becomes of the tasks or projects that carry a tag
// being deleted.
type TagDeletion struct {
	// Decided reports that the caller said: without it, a status in use
	// is not deleted.
	Decided bool
	// MoveTo is another tag of the same group (an id or an exact title)
	// that they get instead; "" takes the deleted tag off them.
	MoveTo string
}

// StatusInUse is the error of deleting a status, without a TagDeletion,
// that count tasks or projects (kind) carry: it names the count and the
// choices, and the field move_to.
func StatusInUse(t Tag, count int) *Error {
	noun := t.Group.Kind
	if count != 1 {
		noun += "s"
	}
	verb := "have"
	if count == 1 {
		verb = "has"
	}
	return &Error{Kind: KindInvalid, Reason: ReasonRequired, Field: "move_to", Message: fmt.Sprintf(
		"%d %s %s the status %s: choose another status of %s to move them to (move_to), or none to take it off them",
		count, noun, verb, t.Title, t.Group.Title)}
}

// TagTitle checks the title of a tag or a tag group and returns it
// trimmed: one line of at most MaxTitleLen bytes, not blank, without a
// comma (lists of tags and groups are comma lists, so a title with one
// could never be named in them).
func TagTitle(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", Required("title")
	case len(s) > MaxTitleLen || strings.ContainsAny(s, "\r\n"):
		return "", &Error{Kind: KindInvalid, Field: "title", Value: s, Message: fmt.Sprintf("A title is one line of at most %d bytes", MaxTitleLen)}
	case strings.Contains(s, ","):
		return "", &Error{Kind: KindInvalid, Field: "title", Value: s, Message: "A title has no commas: lists of tags are separated by them"}
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
