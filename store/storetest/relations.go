package storetest

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// relFixture is the fixture's account with a project of tasks a…e (each
// from 2026-03-02 to 2026-03-04), a user bob, and a task "hidden" that
// only the owner sees.
type relFixture struct {
	*Fixture
	bob     taskd.Actor
	project taskd.Project
	task    map[string]taskd.Task
}

func newRelFixture(t *testing.T, f *Fixture) *relFixture {
	t.Helper()
	ctx, s, by := t.Context(), f.Store, f.Owner
	r := &relFixture{Fixture: f, bob: member(t, f, "bob", taskd.RoleUser), project: newProject(t, f), task: map[string]taskd.Task{}}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		r.task[n] = must(s.CreateTask(ctx, by, r.project.ID, 0, taskd.TaskInput{Name: new(n), DateStart: new("2026-03-02"), DateEnd: new("2026-03-04")}))(t)
	}
	r.task["hidden"] = must(s.CreateTask(ctx, by, r.project.ID, 0, taskd.TaskInput{Name: new("secret-rel-h1"), Hidden: []string{by.Person.Email}}))(t)
	return r
}

// rel is the relation from one named task to another.
func (f *relFixture) rel(from, to, typ string) taskd.Relation {
	return taskd.Relation{From: f.task[from].ID, To: f.task[to].ID, Type: typ}
}

func (f *relFixture) mustAdd(t *testing.T, from, to, typ string) {
	t.Helper()
	if err := f.Store.AddRelation(t.Context(), f.Owner, f.rel(from, to, typ)); err != nil {
		t.Fatalf("%s → %s: %v", from, to, err)
	}
}

// events is every event of the project that v sees.
func (f *relFixture) events(t *testing.T, v taskd.Viewer) []taskd.StoredEvent {
	t.Helper()
	return must(f.Store.Events(t.Context(), v, time.Time{}, f.project.ID))(t)
}

// relationsOf is what Relations answers v for one task, as "a>b" pairs
// of task names (from, then to), or "none" without an entry.
func (f *relFixture) relationsOf(t *testing.T, v taskd.Viewer, name string) string {
	t.Helper()
	id := f.task[name].ID
	rels, ok := must(f.Store.Relations(t.Context(), v, []int64{id}))(t)[id]
	if !ok {
		return "none"
	}
	names := map[int64]string{}
	for n, task := range f.task {
		names[task.ID] = n
	}
	var out []string
	for _, r := range append(rels.From, rels.To...) {
		out = append(out, names[r.From]+">"+names[r.To]+":"+r.Type)
	}
	return strings.Join(out, " ")
}

// relationEvent is the body of an update_task a relation wrote.
type relationEvent struct {
	Event  string                     `json:"event"`
	Object struct{ ID string }        `json:"object"`
	New    map[string]json.RawMessage `json:"new"`
	Old    map[string]json.RawMessage `json:"old"`
}

// checkRelationEvent: the last event of the project is update_task of the
// relation's dependent task with the relation in "new" when it was added
// and {"relation_from":null} there and the relation in "old" when it was
// deleted (docs/api.md "Task relations").
func (f *relFixture) checkRelationEvent(t *testing.T, r taskd.Relation, added bool) {
	t.Helper()
	evs := f.events(t, f.Owner.Viewer())
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	last := evs[len(evs)-1]
	var body relationEvent
	noErr(t, json.Unmarshal(last.Body, &body))
	if body.Event != "update_task" || body.Object.ID != itoa(r.To) {
		t.Errorf("the relation %d → %d wrote %s of %s, want update_task of %d: %s", r.From, r.To, body.Event, body.Object.ID, r.To, last.Body)
	}
	rel, other := body.New, body.Old
	if !added {
		rel, other = body.Old, body.New
	}
	if wantOther := `"old":{}`; added && len(other) != 0 {
		t.Errorf("the relation %d → %d added: %s, want %s", r.From, r.To, last.Body, wantOther)
	}
	if wantOther := `"new":{"relation_from":null}`; !added && (len(other) != 1 || string(other["relation_from"]) != "null") {
		t.Errorf("the relation %d → %d deleted: %s, want %s", r.From, r.To, last.Body, wantOther)
	}
	var got struct{ Type, Task string }
	if err := json.Unmarshal(rel["relation_from"], &got); err != nil || got.Type != r.Type || got.Task != itoa(r.From) || len(rel) != 1 {
		t.Errorf("the relation %d → %d (added %v): %s, want relation_from {type %s, task %d}", r.From, r.To, added, last.Body, r.Type, r.From)
	}
}

// testRelationRules: relations of both types, across projects and between
// a task and its subtask; refused, writing nothing: cycles of any length
// across types, self-relations, duplicates either way, unknown types and
// tasks of another account or none; deleting writes its event, twice or
// the other way is not found; a deleted task takes its relations, which
// then close no cycle.
func testRelationRules(t *testing.T, f0 *Fixture) {
	ctx, s, by := t.Context(), f0.Store, f0.Owner
	f := newRelFixture(t, f0)
	f.mustAdd(t, "a", "b", taskd.RelationFinishToStart)
	f.checkRelationEvent(t, f.rel("a", "b", taskd.RelationFinishToStart), true)
	f.mustAdd(t, "b", "c", taskd.RelationStartToStart)
	f.checkRelationEvent(t, f.rel("b", "c", taskd.RelationStartToStart), true)
	f.mustAdd(t, "c", "d", taskd.RelationFinishToStart)
	before := len(f.events(t, by.Viewer()))
	for _, tc := range []struct {
		name, from, to, typ string
		kind                taskd.Kind
		field               string
	}{
		{"a cycle of four, across types", "d", "a", taskd.RelationFinishToStart, taskd.KindInvalid, "id_task_to"},
		{"a cycle of three", "c", "a", taskd.RelationStartToStart, taskd.KindInvalid, "id_task_to"},
		{"another of three, start-to-start", "d", "b", taskd.RelationStartToStart, taskd.KindInvalid, "id_task_to"},
		{"the pair related the other way", "b", "a", taskd.RelationFinishToStart, taskd.KindConflict, "id_task_to"},
		{"the pair related already", "a", "b", taskd.RelationFinishToStart, taskd.KindConflict, "id_task_to"},
		{"a duplicate of another type", "a", "b", taskd.RelationStartToStart, taskd.KindConflict, "id_task_to"},
		{"a task with itself", "a", "a", taskd.RelationFinishToStart, taskd.KindInvalid, "id_task_to"},
		{"a task with itself, start-to-start", "e", "e", taskd.RelationStartToStart, taskd.KindInvalid, "id_task_to"},
		{"an unknown type", "a", "e", "finish-to-finish", taskd.KindInvalid, "type"},
		{"no type", "a", "e", "", taskd.KindInvalid, "type"},
	} {
		r := f.rel(tc.from, tc.to, tc.typ)
		err := s.AddRelation(ctx, by, r)
		want(t, err, tc.kind, tc.field)
		switch {
		case tc.field == "type":
		case tc.kind == taskd.KindConflict:
			if msg := taskd.AsError(err).Message; msg != taskd.ErrRelationExists(r).Message {
				t.Errorf("%s: %q, want %q", tc.name, msg, taskd.ErrRelationExists(r).Message)
			}
		case r.From != r.To:
			if msg := taskd.AsError(err).Message; msg != taskd.ErrRelationCycle(r).Message {
				t.Errorf("%s: %q, want %q", tc.name, msg, taskd.ErrRelationCycle(r).Message)
			}
		}
	}
	if after := len(f.events(t, by.Viewer())); after != before {
		t.Errorf("refused relations wrote %d events", after-before)
	}
	if got := f.relationsOf(t, by.Viewer(), "a"); got != "a>b:finish-to-start" {
		t.Errorf("a's relations after the refusals: %s", got)
	}
	f.mustAdd(t, "a", "d", taskd.RelationFinishToStart) // a shortcut is no cycle

	// Any two tasks of the account: a subtask and its parent, either way,
	// and a task of another project.
	sub := must(s.CreateTask(ctx, by, f.project.ID, f.task["e"].ID, taskd.TaskInput{Name: new("e's step")}))(t)
	noErr(t, s.AddRelation(ctx, by, taskd.Relation{From: f.task["e"].ID, To: sub.ID, Type: taskd.RelationStartToStart}))
	subsub := must(s.CreateTask(ctx, by, f.project.ID, sub.ID, taskd.TaskInput{Name: new("its step")}))(t)
	noErr(t, s.AddRelation(ctx, by, taskd.Relation{From: subsub.ID, To: f.task["e"].ID, Type: taskd.RelationFinishToStart}))
	elsewhere := must(s.CreateTask(ctx, by, newProject(t, f0).ID, 0, taskd.TaskInput{Name: new("elsewhere")}))(t)
	noErr(t, s.AddRelation(ctx, by, taskd.Relation{From: f.task["d"].ID, To: elsewhere.ID, Type: taskd.RelationFinishToStart}))

	_, theirs := NewAccount(t, s, "relother")
	foreign := must(s.CreateTask(ctx, theirs, must(s.CreateProject(ctx, theirs, taskd.ProjectInput{Name: new("foreign")}))(t).ID, 0,
		taskd.TaskInput{Name: new("foreign")}))(t)
	for _, r := range []struct {
		name  string
		rel   taskd.Relation
		field string
	}{
		{"to a task of another account", taskd.Relation{From: f.task["a"].ID, To: foreign.ID, Type: taskd.RelationFinishToStart}, "task_to"},
		{"from a task of another account", taskd.Relation{From: foreign.ID, To: f.task["e"].ID, Type: taskd.RelationFinishToStart}, "task_from"},
		{"to no task", taskd.Relation{From: f.task["a"].ID, To: 1 << 40, Type: taskd.RelationFinishToStart}, "task_to"},
		{"from no task", taskd.Relation{From: 1 << 40, To: f.task["a"].ID, Type: taskd.RelationFinishToStart}, "task_from"},
	} {
		t.Run(r.name, func(t *testing.T) { want(t, s.AddRelation(ctx, by, r.rel), taskd.KindNotFound, r.field) })
	}
	want(t, s.DeleteRelation(ctx, theirs, f.task["a"].ID, f.task["b"].ID), taskd.KindNotFound, "task_from")

	rels := must(s.Relations(ctx, by.Viewer(), []int64{f.task["b"].ID}))(t)
	b := rels[f.task["b"].ID]
	if len(b.From) != 1 || b.From[0].From != f.task["a"].ID || b.From[0].Type != taskd.RelationFinishToStart ||
		len(b.To) != 1 || b.To[0].To != f.task["c"].ID || b.To[0].Type != taskd.RelationStartToStart {
		t.Errorf("b's relations: %+v", b)
	}

	// Deleting: the relation that way only.
	want(t, s.DeleteRelation(ctx, by, f.task["b"].ID, f.task["a"].ID), taskd.KindNotFound, "relation")
	want(t, s.DeleteRelation(ctx, by, f.task["a"].ID, f.task["e"].ID), taskd.KindNotFound, "relation")
	noErr(t, s.DeleteRelation(ctx, by, f.task["a"].ID, f.task["b"].ID))
	f.checkRelationEvent(t, f.rel("a", "b", taskd.RelationFinishToStart), false)
	want(t, s.DeleteRelation(ctx, by, f.task["a"].ID, f.task["b"].ID), taskd.KindNotFound, "relation")
	if got := f.relationsOf(t, by.Viewer(), "b"); got != "b>c:start-to-start" {
		t.Errorf("b's relations once a → b is deleted: %s", got)
	}
	// Without a → b, b → a closes no cycle.
	f.mustAdd(t, "b", "a", taskd.RelationFinishToStart)

	// A deleted task takes its relations, and a path through it is gone:
	// b → c → e made e → b a cycle until c was deleted.
	f.mustAdd(t, "c", "e", taskd.RelationStartToStart)
	want(t, s.AddRelation(ctx, by, f.rel("e", "b", taskd.RelationFinishToStart)), taskd.KindInvalid, "id_task_to")
	events := len(f.events(t, by.Viewer()))
	noErr(t, s.DeleteTask(ctx, by, f.task["c"].ID))
	if got := len(f.events(t, by.Viewer())); got != events+1 {
		t.Errorf("deleting a task with three relations wrote %d events, want its delete_task only", got-events)
	}
	rels = must(s.Relations(ctx, by.Viewer(), []int64{f.task["b"].ID, f.task["d"].ID, f.task["e"].ID}))(t)
	if got := rels[f.task["b"].ID]; len(got.From) != 0 || len(got.To) != 1 || got.To[0].To != f.task["a"].ID {
		t.Errorf("after c was deleted, b's relations: %+v; want only to a", got)
	}
	if got := rels[f.task["d"].ID]; len(got.From) != 1 || got.From[0].From != f.task["a"].ID || len(got.To) != 1 || got.To[0].To != elsewhere.ID {
		t.Errorf("after c was deleted, d's relations: %+v; want from a and to elsewhere", got)
	}
	if got := rels[f.task["e"].ID]; len(got.From) != 1 || got.From[0].From != subsub.ID {
		t.Errorf("after c was deleted, e's relations: %+v; want only from its sub-subtask", got)
	}
	f.mustAdd(t, "e", "b", taskd.RelationFinishToStart)
}

// testRelationVisibility: a relation with a task hidden from a viewer
// never reaches them: not in Relations, RelatedTasks or Dependents, nor in
// the events (which name the other task). To them a hidden task is not
// found, exactly as a missing one; and a cycle closed through it is
// refused with words that name only the two tasks given.
func testRelationVisibility(t *testing.T, f0 *Fixture) {
	ctx, s, by := t.Context(), f0.Store, f0.Owner
	f := newRelFixture(t, f0)
	bob := f.bob.Viewer()
	f.mustAdd(t, "a", "hidden", taskd.RelationFinishToStart)
	f.mustAdd(t, "hidden", "b", taskd.RelationStartToStart)
	f.mustAdd(t, "a", "c", taskd.RelationFinishToStart)

	ids := []int64{f.task["a"].ID, f.task["b"].ID, f.task["c"].ID}
	rels := must(s.Relations(ctx, bob, ids))(t)
	if a := rels[f.task["a"].ID]; len(a.To) != 1 || a.To[0].To != f.task["c"].ID {
		t.Errorf("bob sees a's relations %+v; want only a → c", a)
	}
	if b, ok := rels[f.task["b"].ID]; ok {
		t.Errorf("bob sees b's relation with the hidden task: %+v", b)
	}
	if a := must(s.Relations(ctx, by.Viewer(), ids))(t)[f.task["a"].ID]; len(a.To) != 2 {
		t.Errorf("the owner sees a's relations %+v; want two", a)
	}

	from, to, err := s.RelatedTasks(ctx, bob, f.task["b"].ID)
	if err != nil || len(from)+len(to) != 0 {
		t.Errorf("bob's related tasks of b: %v %v %v; want none", from, to, err)
	}
	from, _, err = s.RelatedTasks(ctx, by.Viewer(), f.task["b"].ID)
	if err != nil || len(from) != 1 || from[0].Task.Name != "secret-rel-h1" || from[0].Type != taskd.RelationStartToStart {
		t.Errorf("the owner's related tasks of b: %v %v", from, err)
	}
	if from, to, err := s.RelatedTasks(ctx, bob, f.task["hidden"].ID); err != nil || len(from)+len(to) != 0 {
		t.Errorf("bob's related tasks of the hidden task: %v %v %v; want none", from, to, err)
	}

	if deps := must(s.Dependents(ctx, bob, f.task["a"].ID))(t); len(deps) != 1 || deps[0].ID != f.task["c"].ID {
		t.Errorf("bob's dependents of a: %v; want c only", deps)
	}
	if deps := must(s.Dependents(ctx, by.Viewer(), f.task["a"].ID))(t); len(deps) != 3 {
		t.Errorf("the owner's dependents of a: %v; want hidden, c, b", deps)
	}
	_, err = s.Dependents(ctx, bob, f.task["hidden"].ID)
	want(t, err, taskd.KindNotFound, "task")

	hid := `"task":"` + itoa(f.task["hidden"].ID) + `"`
	for _, v := range []struct {
		who     string
		viewer  taskd.Viewer
		related int
	}{{"bob", bob, 1}, {"owner", by.Viewer(), 3}} {
		n := 0
		for _, e := range f.events(t, v.viewer) {
			if strings.Contains(string(e.Body), "relation_from") {
				n++
			}
			if v.who == "bob" && (strings.Contains(string(e.Body), hid) || strings.Contains(string(e.Body), "secret-rel")) {
				t.Errorf("bob sees an event naming the hidden task: %s", e.Body)
			}
		}
		if n != v.related {
			t.Errorf("%s sees %d relation events, want %d", v.who, n, v.related)
		}
	}

	// To bob the hidden task is not found, in the words of a missing one.
	for _, tc := range []struct{ hidden, missing taskd.Relation }{
		{f.rel("e", "hidden", taskd.RelationFinishToStart), taskd.Relation{From: f.task["e"].ID, To: 1 << 40, Type: taskd.RelationFinishToStart}},
		{f.rel("hidden", "e", taskd.RelationFinishToStart), taskd.Relation{From: 1 << 40, To: f.task["e"].ID, Type: taskd.RelationFinishToStart}},
	} {
		err, missing := s.AddRelation(ctx, f.bob, tc.hidden), s.AddRelation(ctx, f.bob, tc.missing)
		if !taskd.IsNotFound(err) || missing == nil || err.Error() != missing.Error() {
			t.Errorf("bob relating the hidden task: %v; a missing task: %v", err, missing)
		}
	}
	want(t, s.DeleteRelation(ctx, f.bob, f.task["a"].ID, f.task["hidden"].ID), taskd.KindNotFound, "task_to")
	want(t, s.DeleteRelation(ctx, f.bob, f.task["hidden"].ID, f.task["b"].ID), taskd.KindNotFound, "task_from")

	// b → a would close a → hidden → b: refused for bob too, in the words
	// the owner gets, which name a and b only.
	events := len(f.events(t, by.Viewer()))
	r := f.rel("b", "a", taskd.RelationFinishToStart)
	for _, who := range []taskd.Actor{f.bob, by} {
		err := s.AddRelation(ctx, who, r)
		want(t, err, taskd.KindInvalid, "id_task_to")
		msg := taskd.AsError(err).Message
		if msg != taskd.ErrRelationCycle(r).Message || strings.Contains(msg, "secret") {
			t.Errorf("a cycle through the hidden task, by %s: %q, want %q", who.Person.Email, msg, taskd.ErrRelationCycle(r).Message)
		}
		for _, n := range regexp.MustCompile(`[0-9]+`).FindAllString(msg, -1) {
			if n != itoa(r.From) && n != itoa(r.To) {
				t.Errorf("a cycle through the hidden task, by %s: %q names %s, not only tasks %d and %d", who.Person.Email, msg, n, r.From, r.To)
			}
		}
	}
	if got := len(f.events(t, by.Viewer())); got != events {
		t.Errorf("the refused cycle wrote %d events", got-events)
	}
	if got := f.relationsOf(t, by.Viewer(), "b"); got != "hidden>b:start-to-start" {
		t.Errorf("b's relations after the refused cycle: %s", got)
	}
}

// testRelationsWho: a member who may work adds and deletes any relation of
// tasks they see, whoever made it; a reader changes none, nor shifts; a
// guest reaches only the tasks of the projects on whose team they are.
func testRelationsWho(t *testing.T, f0 *Fixture) {
	ctx, s, by := t.Context(), f0.Store, f0.Owner
	f := newRelFixture(t, f0)
	rita := member(t, f0, "rita", taskd.RoleReader)
	gus := member(t, f0, "gus", taskd.RoleGuest)
	noErr(t, second(s.SetProjectMembers(ctx, by, f.project.ID, []string{rita.Person.Email}, true)))

	f.mustAdd(t, "a", "b", taskd.RelationFinishToStart)
	events := len(f.events(t, by.Viewer()))
	want(t, s.AddRelation(ctx, rita, f.rel("b", "c", taskd.RelationFinishToStart)), taskd.KindForbidden, "")
	want(t, s.DeleteRelation(ctx, rita, f.task["a"].ID, f.task["b"].ID), taskd.KindForbidden, "")
	_, err := s.ShiftDependents(ctx, rita, f.task["a"].ID, 1)
	want(t, err, taskd.KindForbidden, "")
	if got := len(f.events(t, by.Viewer())); got != events {
		t.Errorf("the reader's refused changes wrote %d events", got-events)
	}
	if got := f.relationsOf(t, rita.Viewer(), "b"); got != "a>b:finish-to-start" {
		t.Errorf("the reader reads b's relations as %s", got)
	}
	if got := must(s.Task(ctx, by.Viewer(), f.task["b"].ID))(t); got.DateStart != "2026-03-02" {
		t.Errorf("the reader's refused shift moved b to %s", got.DateStart)
	}

	// The guest, off the team, sees no task of the project.
	want(t, s.AddRelation(ctx, gus, f.rel("b", "c", taskd.RelationFinishToStart)), taskd.KindNotFound, "task_from")
	want(t, s.DeleteRelation(ctx, gus, f.task["a"].ID, f.task["b"].ID), taskd.KindNotFound, "task_from")
	if got := f.relationsOf(t, gus.Viewer(), "b"); got != "none" {
		t.Errorf("the guest off the team reads b's relations as %s", got)
	}
	noErr(t, second(s.SetProjectMembers(ctx, by, f.project.ID, []string{gus.Person.Email}, true)))
	noErr(t, s.AddRelation(ctx, gus, f.rel("b", "c", taskd.RelationFinishToStart)))
	noErr(t, s.DeleteRelation(ctx, gus, f.task["a"].ID, f.task["b"].ID)) // the owner's relation

	// A user deletes the guest's relation and makes another.
	noErr(t, s.DeleteRelation(ctx, f.bob, f.task["b"].ID, f.task["c"].ID))
	noErr(t, s.AddRelation(ctx, f.bob, f.rel("c", "d", taskd.RelationStartToStart)))
	if got := f.relationsOf(t, by.Viewer(), "c"); got != "c>d:start-to-start" {
		t.Errorf("c's relations: %s", got)
	}
}

// testShiftDependents: the tasks that depend on a task, transitively and
// by both types, move by the days given, each once and with an
// update_task; tasks without dates stay; a walk stops at a task hidden
// from the actor.
func testShiftDependents(t *testing.T, f0 *Fixture) {
	ctx, s, by := t.Context(), f0.Store, f0.Owner
	f := newRelFixture(t, f0)
	// A diamond: c waits for b and d, which wait for a (c is reached
	// twice, moved once, and only through others).
	f.mustAdd(t, "a", "b", taskd.RelationFinishToStart)
	f.mustAdd(t, "a", "d", taskd.RelationStartToStart)
	f.mustAdd(t, "b", "c", taskd.RelationStartToStart)
	f.mustAdd(t, "d", "c", taskd.RelationFinishToStart)
	undated := must(s.CreateTask(ctx, by, f.project.ID, 0, taskd.TaskInput{Name: new("undated")}))(t)
	noErr(t, s.AddRelation(ctx, by, taskd.Relation{From: f.task["c"].ID, To: undated.ID, Type: taskd.RelationFinishToStart}))
	if moved := must(s.ShiftDependents(ctx, by, f.task["a"].ID, 3))(t); len(moved) != 3 {
		t.Fatalf("moved %d tasks, want b, d and c", len(moved))
	}
	for _, n := range []string{"b", "c", "d"} {
		got := must(s.Task(ctx, by.Viewer(), f.task[n].ID))(t)
		if got.DateStart != "2026-03-05" || got.DateEnd != "2026-03-07" {
			t.Errorf("%s: %s..%s, want 2026-03-05..2026-03-07", n, got.DateStart, got.DateEnd)
		}
	}
	for _, n := range []string{"a", "e"} {
		if got := must(s.Task(ctx, by.Viewer(), f.task[n].ID))(t); got.DateStart != "2026-03-02" {
			t.Errorf("%s moved to %s", n, got.DateStart)
		}
	}
	n := 0
	for _, e := range f.events(t, by.Viewer()) {
		if e.Name == "update_task" && strings.Contains(string(e.Body), `"date_start":"2026-03-05"`) {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d update_task events moved a date, want 3", n)
	}
	// The hidden part of a chain is not walked for bob.
	noErr(t, s.AddRelation(ctx, by, taskd.Relation{From: undated.ID, To: f.task["hidden"].ID, Type: taskd.RelationFinishToStart}))
	f.mustAdd(t, "hidden", "e", taskd.RelationFinishToStart)
	moved, err := s.ShiftDependents(ctx, f.bob, undated.ID, -1)
	if err != nil || len(moved) != 0 {
		t.Errorf("bob shifting the undated task's dependents: %v %v; want none (behind the hidden task)", moved, err)
	}
	_, err = s.ShiftDependents(ctx, f.bob, f.task["hidden"].ID, 1)
	want(t, err, taskd.KindNotFound, "task")
}
