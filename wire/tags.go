package wire

import (
	"slices"
	"strings"

	"github.com/taskd/taskd"
)

// ParseTitles reads a comma list of titles of tags or tag groups, as
// add_task_tags and the tags page take them ("a, b, c" is three): each
// trimmed and checked by taskd.TagTitle, blank entries skipped, a repeat
// kept once. At least one is required (the field named).
func ParseTitles(field, v string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(v, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		t, err := taskd.TagTitle(part)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, taskd.Required(field)
	}
	return out, nil
}

// ParseTokens reads a comma list of ids or titles (update_task_tags' plus
// and minus, an order of tags): each trimmed, blank entries and repeats
// skipped.
func ParseTokens(v string) []string {
	var out []string
	for _, t := range strings.Split(v, ",") {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// TagOff is the move_to of a deletion that takes the deleted tag off the
// objects that carry it.
const TagOff = "none"

// ParseTagDeletion reads move_to, what becomes of the objects that carry
// a tag being deleted: another tag of its group (an id or an exact title),
// or "none" (any case) to take the tag off them. Absent or blank, nothing
// is decided.
func ParseTagDeletion(p Params) taskd.TagDeletion {
	v, _ := p("move_to")
	switch v = strings.TrimSpace(v); {
	case v == "":
		return taskd.TagDeletion{}
	case strings.EqualFold(v, TagOff):
		return taskd.TagDeletion{Decided: true}
	}
	return taskd.TagDeletion{Decided: true, MoveTo: v}
}
