package api

import (
	"slices"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
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
func tagMap(tags []taskd.Tag) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	m := make(map[string]string, len(tags))
	for _, t := range tags {
		m[strconv.FormatInt(t.ID, 10)] = t.Title
	}
	return m
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

// titles reads a comma list of titles, each one line of at most 200
// bytes, without repeats.
func (c *call) titles(name string) ([]string, error) {
	v, err := c.required(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range strings.Split(v, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if _, err := taskd.TagTitle(t); err != nil {
			return nil, failf(CodeInvalidValue, t, "A title is one line of at most %d bytes", taskd.MaxTitleLen)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fail(CodeFieldRequired, name)
	}
	return out, nil
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
		titles, err := c.titles("title")
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		list, err := c.work.Tags.AddGroups(c.ctx, by, kind, typ, access, titles)
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
		return ok(renderEach(list, func(t taskd.Tag) tagOut {
			g := renderTagGroup(t.Group)
			return tagOut{Title: t.Title, ID: strconv.FormatInt(t.ID, 10), Group: &g}
		})), nil
	}
}

func addTags(kind string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		group, err := c.required("group")
		if err != nil {
			return nil, err
		}
		titles, err := c.titles("title")
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		list, err := c.work.Tags.Add(c.ctx, by, kind, strings.TrimSpace(group), titles)
		if err != nil {
			return nil, err
		}
		return ok(renderEach(list, func(t taskd.Tag) tagOut { return tagOut{Title: t.Title, ID: strconv.FormatInt(t.ID, 10)} })), nil
	}
}

// tokens reads a comma list of tag ids or titles.
func (c *call) tokens(name string) []string {
	var out []string
	for _, t := range strings.Split(c.p[name], ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// updateTags is update_task_tags and update_project_tags: minus, then
// plus; without either (the PHP SDK's call, C2) nothing changes.
func updateTags(kind, idName string, code Code) func(*call) (any, error) {
	return func(c *call) (any, error) {
		id, by, err := c.target(idName, code)
		if err != nil {
			return nil, err
		}
		if err := c.work.Tags.Set(c.ctx, by, kind, id, c.tokens("plus"), c.tokens("minus")); err != nil {
			return nil, err
		}
		return okBody{Status: "ok"}, nil
	}
}
