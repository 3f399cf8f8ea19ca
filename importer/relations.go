package importer

import (
	"context"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
)

// relationGone is the fingerprint of a relation removed here because the
// source no longer has it.
const relationGone = "removed"

// sourceRelation is a dependency read from the source: to depends on from.
type sourceRelation struct{ from, to, typ string }

// relations brings over the dependencies between the imported tasks
// (add_task_relation's use case), each mapped under "FROM>TO" (source
// ids) in its own transaction, its type as the fingerprint. A type changed
// in the source is written again (the relation removed and added); a
// relation the source no longer has is removed here.
func (r *run) relations(ctx context.Context, c *Count) error {
	if err := r.taskMap(ctx); err != nil {
		return err
	}
	done, err := r.mappings(ctx, "relation")
	if err != nil {
		return err
	}
	// Each relation is listed by both of its tasks: From of the dependent
	// one, To of the other.
	seen := map[string]sourceRelation{}
	var order []string
	add := func(x sourceRelation) {
		k := x.from + ">" + x.to
		if _, ok := seen[k]; !ok {
			seen[k] = x
			order = append(order, k)
		}
	}
	err = r.eachTree(ctx, func(_ source.Project, tree []source.Task) error {
		source.Walk(tree, func(t *source.Task) {
			for _, x := range t.From {
				add(sourceRelation{from: x.Task, to: t.ID, typ: x.Type})
			}
			for _, x := range t.To {
				add(sourceRelation{from: t.ID, to: x.Task, typ: x.Type})
			}
		})
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range order {
		if err := r.relation(ctx, c, k, seen[k], done); err != nil {
			return err
		}
	}
	for k, m := range done {
		if _, ok := seen[k]; ok || m.Fingerprint == relationGone {
			continue
		}
		if err := r.unrelate(ctx, c, k, m); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) relation(ctx context.Context, c *Count, k string, x sourceRelation, done map[string]taskd.ImportMapping) error {
	c.Read++
	from, okFrom := r.tasks[x.from]
	to, okTo := r.tasks[x.to]
	if !okFrom || !okTo {
		r.skip(FamilyRelations, k, "the dependency of task %s on task %s: a task of it was not imported", x.to, x.from)
		return nil
	}
	rel := taskd.Relation{From: from, To: to, Type: x.typ}
	_, err := r.sync(ctx, c, done, object{family: FamilyRelations, kind: "relation", id: k,
		what: "the dependency of task " + x.to + " on task " + x.from, fingerprint: x.typ,
		create: func(ctx context.Context, rec *taskd.ImportRecord) (int64, error) {
			return to, r.dst.Store.AddImportedRelation(ctx, r.owner, rel, *rec)
		},
		update: func(ctx context.Context, _ int64) error {
			if err := r.dst.Store.DeleteRelation(ctx, r.owner, from, to); err != nil && !taskd.IsNotFound(err) {
				return err
			}
			return r.dst.Store.AddRelation(ctx, r.owner, rel)
		},
	})
	return err
}

// unrelate removes a relation the source no longer has, when both of its
// tasks are still mapped; one removed here already is no error.
func (r *run) unrelate(ctx context.Context, c *Count, k string, m taskd.ImportMapping) error {
	fromID, toID, _ := strings.Cut(k, ">")
	from, okFrom := r.tasks[fromID]
	to, okTo := r.tasks[toID]
	if !okFrom || !okTo {
		return nil
	}
	c.Updated++
	if r.opts.DryRun {
		return nil
	}
	if err := r.dst.Store.DeleteRelation(ctx, r.owner, from, to); err != nil && !taskd.IsNotFound(err) {
		r.skip(FamilyRelations, k, "removing the dependency of task %s on task %s: %v", toID, fromID, err)
		return nil
	}
	return r.dst.Store.SetImportMapping(ctx, r.key("relation", k), taskd.ImportMapping{LocalID: m.LocalID, Fingerprint: relationGone})
}
