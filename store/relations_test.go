package store_test

import (
	"context"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// TestDeletedTaskTakesItsRelationRows: deleting a task deletes the rows of
// its relations, either way, from the table. The reads join both tasks, so
// a row left behind would show through no interface (the conformance case
// RelationRules checks what they show); it would only lie in the database.
func TestDeletedTaskTakesItsRelationRows(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		_, by := storetest.NewAccount(t, db, "relrows")
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: new("P")})
		if err != nil {
			t.Fatal(err)
		}
		var a, b, c taskd.Task
		for _, x := range []*taskd.Task{&a, &b, &c} {
			if *x, err = db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("t")}); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range []taskd.Relation{{From: a.ID, To: b.ID}, {From: b.ID, To: c.ID}} {
			r.Type = taskd.RelationFinishToStart
			if err := db.AddRelation(ctx, by, r); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := db.RelationRowsForTest(ctx, b.ID); err != nil || n != 2 {
			t.Fatalf("b's relation rows: %d %v, want 2", n, err)
		}
		if err := db.DeleteTask(ctx, by, b.ID); err != nil {
			t.Fatal(err)
		}
		if n, err := db.RelationRowsForTest(ctx, b.ID); err != nil || n != 0 {
			t.Errorf("relation rows of the deleted task b left: %d %v", n, err)
		}
	})
}
