package api

import (
	"strconv"
	"strings"

	"github.com/taskd/taskd"
)

// Task relations (issue 35, docs/api.md "Task relations"): read with
// extra=relations on get_task, get_tasks, get_all_tasks (and
// search_tasks), changed with add_task_relation and delete_task_relation,
// and the dependents moved with shift_dependent_tasks.

// relationsOut is a task's relations field: from are the relations that
// come to it (the tasks it depends on), to those that go from it.
type relationsOut struct {
	From []relationOut `json:"from"`
	To   []relationOut `json:"to"`
}

// relationOut is one relation: its type and the task at its other end.
type relationOut struct {
	Type string `json:"type"`
	Task string `json:"task"`
}

// renderRelations renders one task's relations; empty lists when it has
// none.
func renderRelations(r taskd.TaskRelations) *relationsOut {
	out := &relationsOut{From: make([]relationOut, 0, len(r.From)), To: make([]relationOut, 0, len(r.To))}
	for _, x := range r.From {
		out.From = append(out.From, relationOut{Type: x.Type, Task: strconv.FormatInt(x.From, 10)})
	}
	for _, x := range r.To {
		out.To = append(out.To, relationOut{Type: x.Type, Task: strconv.FormatInt(x.To, 10)})
	}
	return out
}

// withRelations sets the relations of the tasks (a flat list: each task
// rendered must be in it), with extra=relations.
func (c *call) withRelations(v *taskView, tasks []taskd.Task) error {
	if !c.extra("relations") {
		return nil
	}
	return c.loadRelations(v, tasks)
}

// loadRelations sets the relations of the tasks, as the viewer sees them.
func (c *call) loadRelations(v *taskView, tasks []taskd.Task) error {
	ids := make([]int64, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	var err error
	v.relations, err = c.store.Relations(c.ctx, c.viewer(), ids)
	return err
}

// addTaskRelation makes id_task_to depend on id_task_from, of type type
// (finish-to-start when absent), and answers the dependent task with its
// relations.
func addTaskRelation(c *call) (any, error) {
	r, by, err := c.relation()
	if err != nil {
		return nil, err
	}
	if r.Type = strings.TrimSpace(c.p["type"]); r.Type == "" {
		r.Type = taskd.RelationFinishToStart
	}
	if err := c.store.AddRelation(c.ctx, by, r); err != nil {
		return nil, err
	}
	return c.renderDependent(r.To)
}

// deleteTaskRelation removes the relation from id_task_from to
// id_task_to, and answers the dependent task with its relations.
func deleteTaskRelation(c *call) (any, error) {
	r, by, err := c.relation()
	if err != nil {
		return nil, err
	}
	if err := c.store.DeleteRelation(c.ctx, by, r.From, r.To); err != nil {
		return nil, err
	}
	return c.renderDependent(r.To)
}

// relation reads id_task_from and id_task_to, and who changes them.
func (c *call) relation() (taskd.Relation, taskd.Actor, error) {
	var r taskd.Relation
	var err error
	if r.From, err = c.id("id_task_from", CodeTaskInvalid); err != nil {
		return r, taskd.Actor{}, err
	}
	if r.To, err = c.id("id_task_to", CodeTaskInvalid); err != nil {
		return r, taskd.Actor{}, err
	}
	by, err := c.actor()
	return r, by, err
}

// renderDependent answers a task with its relations (and its text and
// project, as get_task).
func (c *call) renderDependent(id int64) (any, error) {
	t, err := c.store.Task(c.ctx, c.viewer(), id)
	if err != nil {
		return nil, err
	}
	v := taskView{viewer: c.personID(), text: true, project: true}
	if err := c.withTags(&v, []taskd.Task{t}); err != nil {
		return nil, err
	}
	if err := c.loadRelations(&v, []taskd.Task{t}); err != nil {
		return nil, err
	}
	return ok(v.render(t)), nil
}

// shiftDependentTasks moves the dates of the tasks that depend on id_task,
// transitively, by days (an integer, negative to move them earlier), and
// answers the tasks moved.
func shiftDependentTasks(c *call) (any, error) {
	id, by, err := c.target("id_task", CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	raw, err := c.required("days")
	if err != nil {
		return nil, err
	}
	days, perr := strconv.Atoi(strings.TrimSpace(raw))
	if perr != nil {
		return nil, failf(CodeInvalidValue, "days", "Days must be a whole number")
	}
	moved, err := c.store.ShiftDependents(c.ctx, by, id, days)
	if err != nil {
		return nil, err
	}
	v := taskView{viewer: c.personID(), project: true}
	if err := c.withTags(&v, moved); err != nil {
		return nil, err
	}
	return ok(v.renderAll(moved)), nil
}
