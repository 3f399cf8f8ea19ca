package api

import (
	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

func getProjects(c *call) (any, error) {
	status, err := c.choice("filter", taskd.ProjectActive, taskd.ProjectArchive)
	if err != nil {
		return nil, err
	}
	list, err := c.store.Projects(c.ctx, c.viewer(), status)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(list))
	for i, p := range list {
		ids[i] = p.ID
	}
	tags, err := c.store.ObjectTags(c.ctx, c.viewer(), taskd.TagsOfProjects, ids)
	if err != nil {
		return nil, err
	}
	values, err := c.withValues(taskd.ObjectProject, ids, false)
	if err != nil {
		return nil, err
	}
	out := make([]projectOut, 0, len(list))
	for _, p := range list {
		po := renderProject(p, c.extra("text"))
		po.Tags = tagMap(tags[p.ID])
		if values != nil {
			po.CustomFields = renderValues(values[p.ID])
		}
		if err := c.withExtras(&po, p); err != nil {
			return nil, err
		}
		out = append(out, po)
	}
	return ok(out), nil
}

// withExtras adds the project's team with extra=users, and its options
// with extra=options.
func (c *call) withExtras(po *projectOut, p taskd.Project) error {
	if c.extra("options") {
		po.Options = renderOptions(p.Options)
	}
	if !c.extra("users") {
		return nil
	}
	team, err := c.store.ProjectMembers(c.ctx, c.accountID(), p.ID)
	if team == nil {
		team = []taskd.PersonRef{}
	}
	po.Users = team
	return err
}

// renderProjectCall renders one project with its text and the extras;
// its custom field values also when values is set (the call set some).
func (c *call) renderProjectCall(p taskd.Project, values bool) (any, error) {
	po := renderProject(p, true)
	tags, err := c.store.ObjectTags(c.ctx, c.viewer(), taskd.TagsOfProjects, []int64{p.ID})
	if err != nil {
		return nil, err
	}
	po.Tags = tagMap(tags[p.ID])
	vs, err := c.withValues(taskd.ObjectProject, []int64{p.ID}, values)
	if err != nil {
		return nil, err
	}
	if vs != nil {
		po.CustomFields = renderValues(vs[p.ID])
	}
	if err := c.withExtras(&po, p); err != nil {
		return nil, err
	}
	return ok(po), nil
}

func getProject(c *call) (any, error) {
	id, err := c.id("id_project", CodeProjectInvalid)
	if err != nil {
		return nil, err
	}
	p, err := c.store.Project(c.ctx, c.viewer(), id)
	if err != nil {
		return nil, err
	}
	return c.renderProjectCall(p, false)
}

func postProject(c *call) (any, error) {
	if _, err := c.required("title"); err != nil {
		return nil, err
	}
	in, err := wire.ParseProjectInput(c.opt)
	if err != nil {
		return nil, err
	}
	if in.Fields, err = c.fieldValues(); err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	for _, f := range c.uploads {
		in.Files = append(in.Files, f.ID)
	}
	p, err := c.store.CreateProject(c.ctx, by, in)
	if err != nil {
		return nil, err
	}
	c.uploads = nil // attached
	return c.renderProjectCall(p, in.Fields != nil)
}

func updateProject(c *call) (any, error) {
	id, err := c.id("id_project", CodeProjectInvalid)
	if err != nil {
		return nil, err
	}
	in, err := wire.ParseProjectInput(c.opt)
	if err != nil {
		return nil, err
	}
	if in.Fields, err = c.fieldValues(); err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	p, err := c.store.UpdateProject(c.ctx, by, id, in)
	if err != nil {
		return nil, err
	}
	return c.renderProjectCall(p, in.Fields != nil)
}

func projectStatus(status string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		id, by, err := c.target("id_project", CodeProjectInvalid)
		if err != nil {
			return nil, err
		}
		p, err := c.store.SetProjectStatus(c.ctx, by, id, status)
		if err != nil {
			return nil, err
		}
		return c.renderProjectCall(p, false)
	}
}
