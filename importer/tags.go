package importer

import (
	"context"
	"strconv"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
)

// tags brings over the tag groups and tags of tasks and of projects, in
// the source's order. Groups and tags are found by title (adding them is
// idempotent), so a run killed half way adds what is missing next time;
// the order is set again when the source's differs from the account's.
func (r *run) tags(ctx context.Context, c *Count) error {
	for _, kind := range []source.TagKind{source.TaskTags, source.ProjectTags} {
		if err := r.tagsOf(ctx, c, kind); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) tagsOf(ctx context.Context, c *Count, kind source.TagKind) error {
	k := string(kind) // taskd.TagsOfTasks, taskd.TagsOfProjects
	groups, err := r.src.TagGroups(ctx, kind)
	if err != nil {
		return err
	}
	tags, err := r.src.Tags(ctx, kind)
	if err != nil {
		return err
	}
	done, err := r.mappings(ctx, k+"_tag")
	if err != nil {
		return err
	}
	// The source's order, as a fingerprint of the whole kind.
	var order []string
	for _, g := range groups {
		order = append(order, "g:"+g.Title)
	}
	for _, t := range tags {
		order = append(order, t.Group.Title+":"+t.Title)
	}
	fp := fingerprint(struct {
		Groups []source.TagGroup
		Order  []string
	}{groups, order})
	c.Read += len(groups) + len(tags)
	if m, ok := done["*"]; ok && m.Fingerprint == fp {
		for _, t := range tags {
			if m, ok := done[t.ID]; ok {
				r.tagIDs[k+":"+t.ID] = strconv.FormatInt(m.LocalID, 10)
			}
		}
		c.Unchanged += len(groups) + len(tags)
		return nil
	}
	if r.opts.DryRun {
		c.Created += len(groups) + len(tags)
		return nil
	}
	by := r.owner
	var groupOrder []string
	for _, g := range groups {
		typ, access := g.Type, g.Access
		if typ == "" {
			typ = "label"
		}
		if access == "" {
			access = "public"
		}
		made, err := r.dst.Store.AddTagGroups(ctx, by, k, typ, access, []string{g.Title})
		if err != nil {
			r.skip(FamilyTags, g.ID, "tag group %q: %v", g.Title, err)
			continue
		}
		groupOrder = append(groupOrder, strconv.FormatInt(made[0].ID, 10))
	}
	byGroup := map[string][]string{} // group title → local tag ids in order
	var groupTitles []string
	for _, t := range tags {
		made, err := r.dst.Store.AddTags(ctx, by, k, t.Group.Title, []string{t.Title})
		if err != nil {
			r.skip(FamilyTags, t.ID, "tag %q: %v", t.Title, err)
			continue
		}
		id := strconv.FormatInt(made[0].ID, 10)
		r.tagIDs[k+":"+t.ID] = id
		if _, ok := done[t.ID]; ok {
			c.Unchanged++
		} else {
			c.Created++
		}
		if err := r.dst.Store.SetImportMapping(ctx, r.key(k+"_tag", t.ID), taskd.ImportMapping{LocalID: made[0].ID, Fingerprint: t.Title}); err != nil {
			return err
		}
		if _, ok := byGroup[t.Group.Title]; !ok {
			groupTitles = append(groupTitles, t.Group.Title)
		}
		byGroup[t.Group.Title] = append(byGroup[t.Group.Title], id)
	}
	// Groups are found by title: written again when the kind changed.
	if _, ok := done["*"]; ok {
		c.Updated += len(groups)
	} else {
		c.Created += len(groups)
	}
	if len(groupOrder) > 0 {
		if _, err := r.dst.Store.SortTagGroups(ctx, by, k, groupOrder); err != nil {
			r.skip(FamilyTags, "", "the order of the %s tag groups: %v", k, err)
		}
	}
	for _, g := range groupTitles {
		if _, err := r.dst.Store.SortTags(ctx, by, k, g, byGroup[g]); err != nil {
			r.skip(FamilyTags, "", "the order of the tags of %q: %v", g, err)
		}
	}
	return r.dst.Store.SetImportMapping(ctx, r.key(k+"_tag", "*"), taskd.ImportMapping{Fingerprint: fp})
}

// localTags are the local ids of an object's source tags of a kind; a tag
// not imported is reported.
func (r *run) localTags(family, id string, kind string, refs []source.TagRef) []string {
	var out []string
	for _, t := range refs {
		if local, ok := r.tagIDs[kind+":"+t.ID]; ok {
			out = append(out, local)
		} else {
			r.skip(family, id, "tag %q (%s) was not imported", t.Title, t.ID)
		}
	}
	return out
}
