package api

import (
	"github.com/taskd/taskd"
)

func getProjects(c *call) (any, error) {
	status, err := c.choice("filter", taskd.ProjectActive, taskd.ProjectArchive)
	if err != nil {
		return nil, err
	}
	list, err := c.store.Projects(c.ctx, c.accountID(), status)
	if err != nil {
		return nil, err
	}
	out := make([]projectOut, len(list))
	for i, p := range list {
		out[i] = renderProject(p, c.extra("text"))
	}
	return ok(out), nil
}

func getProject(c *call) (any, error) {
	id, err := c.id("id_project", CodeProjectInvalid)
	if err != nil {
		return nil, err
	}
	p, err := c.store.Project(c.ctx, c.accountID(), id)
	if err != nil {
		return nil, err
	}
	return ok(renderProject(p, true)), nil
}

func postProject(c *call) (any, error) {
	if _, err := c.required("title"); err != nil {
		return nil, err
	}
	in, err := taskd.ParseProjectInput(c.opt)
	if err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	p, err := c.store.CreateProject(c.ctx, by, in)
	if err != nil {
		return nil, err
	}
	return ok(renderProject(p, true)), nil
}

func updateProject(c *call) (any, error) {
	id, err := c.id("id_project", CodeProjectInvalid)
	if err != nil {
		return nil, err
	}
	in, err := taskd.ParseProjectInput(c.opt)
	if err != nil {
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
	return ok(renderProject(p, true)), nil
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
		return ok(renderProject(p, true)), nil
	}
}
