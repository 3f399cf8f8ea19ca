package api

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// tagGroupOut is a tag group; its id is a bare number (spec §10).
type tagGroupOut struct {
	ID     int64  `json:"id"`
	Title  string `json:"title"`
	Type   string `json:"type"`
	Access string `json:"access"`
}

// tagOut is a tag with its group; add_*_tags answers id and title only.
type tagOut struct {
	Title string       `json:"title"`
	ID    string       `json:"id"`
	Group *tagGroupOut `json:"group,omitempty"`
}

func renderTagGroup(g taskd.TagGroup) tagGroupOut {
	return tagGroupOut{ID: g.ID, Title: g.Title, Type: g.Type, Access: g.Access}
}

// tagMap is an object's tags field: {"id": "title"}.
func tagMap(tags []taskd.Tag) tagObject {
	if len(tags) == 0 {
		return nil
	}
	return tagObject(tags)
}

// tagObject is an object's tags as the API writes them, {"id": "title"},
// in the tags' order (their groups' order, then each group's), which a
// map would lose: JSON's objects keep the order they are written in for
// every client that reads them in order (PHP's arrays among them).
type tagObject []taskd.Tag

// MarshalJSON writes the object in the tags' order.
func (o tagObject) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, t := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, strconv.FormatInt(t.ID, 10))
		title, err := json.Marshal(t.Title)
		if err != nil {
			return nil, err
		}
		b = append(append(b, ':'), title...)
	}
	return append(b, '}'), nil
}

// tagFilters reads type and access (empty: any).
func (c *call) tagFilters() (string, string, error) {
	typ, err := c.choice("type", "status", "label")
	if err != nil {
		return "", "", err
	}
	access, err := c.choice("access", "public", "private")
	return typ, access, err
}

func getTagGroups(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		typ, access, err := c.tagFilters()
		if err != nil {
			return nil, err
		}
		list, err := c.store.TagGroups(c.ctx, c.accountID(), kind, typ, access)
		if err != nil {
			return nil, err
		}
		return ok(renderEach(list, renderTagGroup)), nil
	}
}

// addTagGroups: type and access default to label and public when absent
// (the Python SDK sends no type for project groups, C28); a status group
// is always public.
func addTagGroups(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		typ, access, err := c.tagFilters()
		if err != nil {
			return nil, err
		}
		if typ == "" {
			typ = "label"
		}
		if access == "" {
			access = "public"
		}
		if err := taskd.CheckTagGroup(typ, access); err != nil {
			return nil, err
		}
		titles, err := wire.ParseTitles("title", c.p["title"])
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		list, err := c.store.AddTagGroups(c.ctx, by, kind, typ, access, titles)
		if err != nil {
			return nil, err
		}
		return ok(renderEach(list, renderTagGroup)), nil
	}
}

func getTags(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		typ, access, err := c.tagFilters()
		if err != nil {
			return nil, err
		}
		list, err := c.store.Tags(c.ctx, c.accountID(), kind, strings.TrimSpace(c.p["group"]), typ, access)
		if err != nil {
			return nil, err
		}
		return ok(renderEach(list, renderTag)), nil
	}
}

// renderTag is a tag with its group, as get_task_tags lists them.
func renderTag(t taskd.Tag) tagOut {
	g := renderTagGroup(t.Group)
	return tagOut{Title: t.Title, ID: strconv.FormatInt(t.ID, 10), Group: &g}
}

func addTags(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		group, err := c.required("group")
		if err != nil {
			return nil, err
		}
		titles, err := wire.ParseTitles("title", c.p["title"])
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		list, err := c.store.AddTags(c.ctx, by, kind, strings.TrimSpace(group), titles)
		if err != nil {
			return nil, err
		}
		return ok(renderEach(list, func(t taskd.Tag) tagOut { return tagOut{Title: t.Title, ID: strconv.FormatInt(t.ID, 10)} })), nil
	}
}

// updateTags is update_task_tags and update_project_tags: minus, then
// plus; without either (the PHP SDK's call, C2) nothing changes.
func updateTags(kind, idName string, code Code) func(*call) (any, error) {
	return func(c *call) (any, error) {
		id, by, err := c.target(idName, code)
		if err != nil {
			return nil, err
		}
		if err := c.store.SetTags(c.ctx, by, kind, id, wire.ParseTokens(c.p["plus"]), wire.ParseTokens(c.p["minus"])); err != nil {
			return nil, err
		}
		return okBody{Status: "ok"}, nil
	}
}

// The taskd extensions that change the tags themselves (issue 33):
// renames, order and deletions, for task and project tags alike. A tag is
// named by `tag` (an id, or an exact title that one tag of the kind has),
// a group by `group` (a title or an id), as add_task_tags names it.

// updateTagGroup is update_task_tag_group and update_project_tag_group:
// group* and title*, the group's new title; it answers the group.
func updateTagGroup(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		group, err := c.required("group")
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		g, err := c.store.RenameTagGroup(c.ctx, by, kind, strings.TrimSpace(group), c.p["title"])
		if err != nil {
			return nil, err
		}
		return ok(renderTagGroup(g)), nil
	}
}

// updateTag is update_task_tag and update_project_tag: tag* and title*,
// the tag's new title; it answers the tag with its group.
func updateTag(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		tag, err := c.required("tag")
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		t, err := c.store.RenameTag(c.ctx, by, kind, strings.TrimSpace(tag), c.p["title"])
		if err != nil {
			return nil, err
		}
		return ok(renderTag(t)), nil
	}
}

// order reads the required comma list of ids or titles of an order.
func (c *call) order() ([]string, error) {
	order := wire.ParseTokens(c.p["order"])
	if len(order) == 0 {
		return nil, fail(CodeFieldRequired, "order")
	}
	return order, nil
}

// sortTagGroups is sort_task_tag_groups and sort_project_tag_groups:
// order*, the groups' ids or titles (those not named follow, in their
// order); it answers every group in the new order.
func sortTagGroups(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		order, err := c.order()
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		list, err := c.store.SortTagGroups(c.ctx, by, kind, order)
		if err != nil {
			return nil, err
		}
		return ok(renderEach(list, renderTagGroup)), nil
	}
}

// sortTags is sort_task_tags and sort_project_tags: group* and order*,
// the group's tags by id or title; it answers the group's tags in the new
// order, which a board's columns follow.
func sortTags(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		group, err := c.required("group")
		if err != nil {
			return nil, err
		}
		order, err := c.order()
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		list, err := c.store.SortTags(c.ctx, by, kind, strings.TrimSpace(group), order)
		if err != nil {
			return nil, err
		}
		return ok(renderEach(list, renderTag)), nil
	}
}

// deleteTag is delete_task_tag and delete_project_tag: tag*, and move_to,
// another tag of its group for the objects that carry it, or none. A
// status in use without move_to is refused (10, naming move_to, with the
// count in the message).
func deleteTag(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		tag, err := c.required("tag")
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		return ok(nil), c.store.DeleteTag(c.ctx, by, kind, strings.TrimSpace(tag), wire.ParseTagDeletion(c.opt))
	}
}

// deleteTagGroup is delete_task_tag_group and delete_project_tag_group:
// group*; its tags go off every object that carries them.
func deleteTagGroup(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		group, err := c.required("group")
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		return ok(nil), c.store.DeleteTagGroup(c.ctx, by, kind, strings.TrimSpace(group))
	}
}
