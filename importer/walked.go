package importer

import (
	"context"

	"github.com/taskd/taskd/importer/source"
)

// taskRef is what the families after the tasks (relations, comments,
// files) need of a source task: its id, its files and its dependencies. A
// run keeps these, some tens of bytes a task, rather than the tasks read
// (a kilobyte and more each, with their text, people and tags), so that
// its memory stays nearly flat however large the account.
type taskRef struct {
	id       string
	files    []source.File
	from, to []source.Relation
}

// keep records what the later families need of a project's tasks, in the
// walk's order (each task before its subtasks).
func (r *run) keep(projectID string, order []*source.Task) {
	if r.walked == nil {
		r.walked = map[string][]taskRef{}
	}
	refs := make([]taskRef, len(order))
	for i, t := range order {
		refs[i] = taskRef{id: t.ID, files: t.Files, from: t.From, to: t.To}
	}
	r.walked[projectID] = refs
}

// eachTree calls fn with the tasks of each imported project in turn: as
// the tasks family kept them (flat, in the walk's order, with only their
// id, files and dependencies), or read from the source when that family
// did not run (--only). Either way one project's tasks are whole at a
// time, dropped after fn.
func (r *run) eachTree(ctx context.Context, fn func(p source.Project, tree []source.Task) error) error {
	if err := r.ensureProjects(ctx); err != nil {
		return err
	}
	for _, p := range r.sourceProjects {
		if _, ok := r.projects[p.ID]; !ok {
			continue
		}
		var tree []source.Task
		if refs, ok := r.walked[p.ID]; ok {
			tree = make([]source.Task, len(refs))
			for i, t := range refs {
				tree[i] = source.Task{ID: t.id, ProjectID: p.ID, Files: t.files, From: t.from, To: t.to}
			}
		} else {
			var err error
			if tree, err = r.src.Tasks(ctx, p.ID); err != nil {
				return err
			}
		}
		if err := fn(p, tree); err != nil {
			return err
		}
	}
	return nil
}
