package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// relFixture is an account with a project of tasks a..e, a member bob,
// and a task hidden from bob.
type relFixture struct {
	db      *store.DB
	acct    taskd.Account
	by      taskd.Actor
	bob     taskd.Viewer
	project taskd.Project
	task    map[string]taskd.Task
}

func newRelFixture(t *testing.T, d testdb.DB) *relFixture {
	ctx := context.Background()
	db := d.Open(t)
	acct, by := storetest.NewAccount(t, db, "rel")
	bob, err := db.AddMember(ctx, acct.ID, taskd.NewPerson{Email: "bob-" + acct.Slug + "@example.com", PasswordHash: "x", FirstName: "Bob"}, taskd.RoleUser)
	if err != nil {
		t.Fatal(err)
	}
	name := func(s string) *string { return &s }
	p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: name("P")})
	if err != nil {
		t.Fatal(err)
	}
	f := &relFixture{db: db, acct: acct, by: by, bob: taskd.PersonViewer(acct.ID, bob.ID, taskd.RoleUser), project: p, task: map[string]taskd.Task{}}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		in := taskd.TaskInput{Name: name(n), DateStart: name("2026-03-02"), DateEnd: name("2026-03-04")}
		if f.task[n], err = db.CreateTask(ctx, by, p.ID, 0, in); err != nil {
			t.Fatal(err)
		}
	}
	if f.task["hidden"], err = db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: name("secret-rel-h1"), Hidden: []string{by.Person.Email}}); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *relFixture) add(t *testing.T, from, to, typ string) error {
	t.Helper()
	return f.db.AddRelation(context.Background(), f.by, taskd.Relation{From: f.task[from].ID, To: f.task[to].ID, Type: typ})
}

func (f *relFixture) mustAdd(t *testing.T, from, to, typ string) {
	t.Helper()
	if err := f.add(t, from, to, typ); err != nil {
		t.Fatalf("%s → %s: %v", from, to, err)
	}
}

// TestRelationRules: relations of both types; refused: cycles of any
// length across types, self-relations, duplicates either way, unknown
// types and tasks of another account; a deleted task takes its
// relations.
func TestRelationRules(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		f := newRelFixture(t, d)
		f.mustAdd(t, "a", "b", taskd.RelationFinishToStart)
		f.mustAdd(t, "b", "c", taskd.RelationStartToStart)
		f.mustAdd(t, "c", "d", taskd.RelationFinishToStart)
		for _, tc := range []struct {
			from, to, typ string
			kind          taskd.Kind
			field         string
		}{
			{"d", "a", taskd.RelationFinishToStart, taskd.KindInvalid, "id_task_to"},  // a cycle of four, across types
			{"c", "a", taskd.RelationStartToStart, taskd.KindInvalid, "id_task_to"},   // of three
			{"b", "a", taskd.RelationFinishToStart, taskd.KindConflict, "id_task_to"}, // the pair is related already
			{"a", "b", taskd.RelationStartToStart, taskd.KindConflict, "id_task_to"},  // a duplicate of another type
			{"a", "a", taskd.RelationFinishToStart, taskd.KindInvalid, "id_task_to"},
			{"a", "e", "finish-to-finish", taskd.KindInvalid, "type"},
		} {
			err := f.add(t, tc.from, tc.to, tc.typ)
			var te *taskd.Error
			if !errors.As(err, &te) || te.Kind != tc.kind || te.Field != tc.field {
				t.Errorf("%s → %s (%s): %v, want %v on %s", tc.from, tc.to, tc.typ, err, tc.kind, tc.field)
			}
		}
		f.mustAdd(t, "a", "d", taskd.RelationFinishToStart) // a shortcut is no cycle

		other, obyActor := storetest.NewAccount(t, f.db, "relother")
		name := "foreign"
		op, err := f.db.CreateProject(ctx, obyActor, taskd.ProjectInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		foreign, err := f.db.CreateTask(ctx, obyActor, op.ID, 0, taskd.TaskInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		_ = other
		err = f.db.AddRelation(ctx, f.by, taskd.Relation{From: f.task["a"].ID, To: foreign.ID, Type: taskd.RelationFinishToStart})
		if te := (*taskd.Error)(nil); !errors.As(err, &te) || te.Kind != taskd.KindNotFound || te.Field != "task_to" {
			t.Errorf("a task of another account: %v, want not found (task_to)", err)
		}

		rels, err := f.db.Relations(ctx, f.by.Viewer(), []int64{f.task["b"].ID})
		if err != nil {
			t.Fatal(err)
		}
		b := rels[f.task["b"].ID]
		if len(b.From) != 1 || b.From[0].From != f.task["a"].ID || b.From[0].Type != taskd.RelationFinishToStart ||
			len(b.To) != 1 || b.To[0].To != f.task["c"].ID || b.To[0].Type != taskd.RelationStartToStart {
			t.Errorf("b's relations: %+v", b)
		}

		if err := f.db.DeleteRelation(ctx, f.by, f.task["a"].ID, f.task["b"].ID); err != nil {
			t.Fatal(err)
		}
		checkDeleteEvent(t, f, "a", "b", taskd.RelationFinishToStart)
		err = f.db.DeleteRelation(ctx, f.by, f.task["a"].ID, f.task["b"].ID)
		if te := (*taskd.Error)(nil); !errors.As(err, &te) || te.Kind != taskd.KindNotFound || te.Field != "relation" {
			t.Errorf("deleting a relation twice: %v, want not found (relation)", err)
		}
		// Without a → b, b → a closes no cycle.
		f.mustAdd(t, "b", "a", taskd.RelationFinishToStart)

		if err := f.db.DeleteTask(ctx, f.by, f.task["c"].ID); err != nil {
			t.Fatal(err)
		}
		if n, err := f.db.RelationRowsForTest(ctx, f.task["c"].ID); err != nil || n != 0 {
			t.Errorf("relations of the deleted task c left: %d %v", n, err)
		}
		rels, err = f.db.Relations(ctx, f.by.Viewer(), []int64{f.task["b"].ID, f.task["d"].ID})
		if err != nil {
			t.Fatal(err)
		}
		if got := rels[f.task["b"].ID]; len(got.From) != 0 || len(got.To) != 1 || got.To[0].To != f.task["a"].ID {
			t.Errorf("after c was deleted, b's relations: %+v; want only to a", got)
		}
		if got := rels[f.task["d"].ID]; len(got.From) != 1 || got.From[0].From != f.task["a"].ID || len(got.To) != 0 {
			t.Errorf("after c was deleted, d's relations: %+v; want only from a", got)
		}
	})
}

// TestRelationVisibility: a relation with a task hidden from a viewer
// never reaches them: not in Relations, RelatedTasks or Dependents, and
// not in the events (which name the other task).
func TestRelationVisibility(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		f := newRelFixture(t, d)
		f.mustAdd(t, "a", "hidden", taskd.RelationFinishToStart)
		f.mustAdd(t, "hidden", "b", taskd.RelationStartToStart)
		f.mustAdd(t, "a", "c", taskd.RelationFinishToStart)

		ids := []int64{f.task["a"].ID, f.task["b"].ID, f.task["c"].ID}
		rels, err := f.db.Relations(ctx, f.bob, ids)
		if err != nil {
			t.Fatal(err)
		}
		if a := rels[f.task["a"].ID]; len(a.To) != 1 || a.To[0].To != f.task["c"].ID {
			t.Errorf("bob sees a's relations %+v; want only a → c", a)
		}
		if b, ok := rels[f.task["b"].ID]; ok {
			t.Errorf("bob sees b's relation with the hidden task: %+v", b)
		}
		owner, err := f.db.Relations(ctx, f.by.Viewer(), ids)
		if err != nil {
			t.Fatal(err)
		}
		if a := owner[f.task["a"].ID]; len(a.To) != 2 {
			t.Errorf("the owner sees a's relations %+v; want two", a)
		}

		from, to, err := f.db.RelatedTasks(ctx, f.bob, f.task["b"].ID)
		if err != nil || len(from)+len(to) != 0 {
			t.Errorf("bob's related tasks of b: %v %v %v; want none", from, to, err)
		}
		from, _, err = f.db.RelatedTasks(ctx, f.by.Viewer(), f.task["b"].ID)
		if err != nil || len(from) != 1 || from[0].Task.Name != "secret-rel-h1" {
			t.Errorf("the owner's related tasks of b: %v %v", from, err)
		}

		deps, err := f.db.Dependents(ctx, f.bob, f.task["a"].ID)
		if err != nil || len(deps) != 1 || deps[0].ID != f.task["c"].ID {
			t.Errorf("bob's dependents of a: %v %v; want c only", deps, err)
		}
		deps, err = f.db.Dependents(ctx, f.by.Viewer(), f.task["a"].ID)
		if err != nil || len(deps) != 3 {
			t.Errorf("the owner's dependents of a: %v %v; want hidden, c, b", deps, err)
		}

		hid := `"task":"` + itoa(f.task["hidden"].ID) + `"`
		for _, v := range []struct {
			who     string
			viewer  taskd.Viewer
			related int
		}{{"bob", f.bob, 1}, {"owner", f.by.Viewer(), 3}} {
			evs, err := f.db.Events(ctx, v.viewer, time.Time{}, f.project.ID)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range evs {
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
	})
}

// TestShiftDependents: the tasks that depend on a task, transitively and
// by both types, move by the days given, each with an update_task; tasks
// without dates stay.
func TestShiftDependents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		f := newRelFixture(t, d)
		// A diamond: c waits for b and d, which wait for a (c is reached
		// twice, moved once, and only through others).
		f.mustAdd(t, "a", "b", taskd.RelationFinishToStart)
		f.mustAdd(t, "a", "d", taskd.RelationStartToStart)
		f.mustAdd(t, "b", "c", taskd.RelationStartToStart)
		f.mustAdd(t, "d", "c", taskd.RelationFinishToStart)
		name := "undated"
		undated, err := f.db.CreateTask(ctx, f.by, f.project.ID, 0, taskd.TaskInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.db.AddRelation(ctx, f.by, taskd.Relation{From: f.task["c"].ID, To: undated.ID, Type: taskd.RelationFinishToStart}); err != nil {
			t.Fatal(err)
		}
		moved, err := f.db.ShiftDependents(ctx, f.by, f.task["a"].ID, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(moved) != 3 {
			t.Fatalf("moved %d tasks, want b, d and c", len(moved))
		}
		for _, n := range []string{"b", "c", "d"} {
			got, err := f.db.Task(ctx, f.by.Viewer(), f.task[n].ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.DateStart != "2026-03-05" || got.DateEnd != "2026-03-07" {
				t.Errorf("%s: %s..%s, want 2026-03-05..2026-03-07", n, got.DateStart, got.DateEnd)
			}
		}
		for _, n := range []string{"a", "e"} {
			got, _ := f.db.Task(ctx, f.by.Viewer(), f.task[n].ID)
			if got.DateStart != "2026-03-02" {
				t.Errorf("%s moved to %s", n, got.DateStart)
			}
		}
		evs, err := f.db.Events(ctx, f.by.Viewer(), time.Time{}, f.project.ID)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range evs {
			if e.Name == "update_task" && strings.Contains(string(e.Body), `"date_start":"2026-03-05"`) {
				n++
			}
		}
		if n != 3 {
			t.Errorf("%d update_task events moved a date, want 3", n)
		}
		// The hidden part of a chain is not walked for bob.
		if err := f.db.AddRelation(ctx, f.by, taskd.Relation{From: undated.ID, To: f.task["hidden"].ID, Type: taskd.RelationFinishToStart}); err != nil {
			t.Fatal(err)
		}
		f.mustAdd(t, "hidden", "e", taskd.RelationFinishToStart)
		bob := taskd.Actor{AccountID: f.acct.ID, Person: taskd.PersonRef{ID: f.bob.PersonID}, Role: taskd.RoleUser}
		moved, err = f.db.ShiftDependents(ctx, bob, undated.ID, -1)
		if err != nil || len(moved) != 0 {
			t.Errorf("bob shifting d's dependents: %v %v; want none (behind the hidden task)", moved, err)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// checkDeleteEvent: the last event is delete_task_relation's: update_task
// of the dependent task with "new":{"relation_from":null} and the
// relation in "old" (docs/api.md "Task relations (issue 35)").
func checkDeleteEvent(t *testing.T, f *relFixture, from, to, typ string) {
	t.Helper()
	evs, err := f.db.Events(context.Background(), f.by.Viewer(), time.Time{}, f.project.ID)
	if err != nil || len(evs) == 0 {
		t.Fatalf("events: %d %v", len(evs), err)
	}
	last := evs[len(evs)-1]
	var body struct {
		Event  string                     `json:"event"`
		Object struct{ ID string }        `json:"object"`
		New    map[string]json.RawMessage `json:"new"`
		Old    map[string]json.RawMessage `json:"old"`
	}
	if err := json.Unmarshal(last.Body, &body); err != nil {
		t.Fatalf("the last event %s: %v", last.Body, err)
	}
	if body.Event != "update_task" || body.Object.ID != itoa(f.task[to].ID) {
		t.Errorf("deleting %s → %s wrote %s of %s, want update_task of %s: %s", from, to, body.Event, body.Object.ID, to, last.Body)
	}
	if got, ok := body.New["relation_from"]; !ok || string(got) != "null" || len(body.New) != 1 {
		t.Errorf("deleting %s → %s: new is %s, want {\"relation_from\":null}", from, to, last.Body)
	}
	var old struct{ Type, Task string }
	if err := json.Unmarshal(body.Old["relation_from"], &old); err != nil || old.Type != typ || old.Task != itoa(f.task[from].ID) || len(body.Old) != 1 {
		t.Errorf("deleting %s → %s: old is %s, want relation_from {type %s, task %d}", from, to, last.Body, typ, f.task[from].ID)
	}
}
