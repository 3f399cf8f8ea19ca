package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

const mapSource = "https://source.example/a/mapped"

// mapKey is the key of a source object of the account.
func mapKey(accountID int64, family, id string) taskd.ImportKey {
	return taskd.ImportKey{AccountID: accountID, Source: mapSource, Family: family, SourceID: id}
}

// record is the record of an import's creation of the source object key.
func record(key taskd.ImportKey, fingerprint string, added time.Time) *taskd.ImportRecord {
	return &taskd.ImportRecord{Key: key, Fingerprint: fingerprint, Added: added}
}

// mappings reads the account's mappings of a family of mapSource.
func mappings(t *testing.T, db *store.DB, accountID int64, family string) map[string]taskd.ImportMapping {
	t.Helper()
	m, err := db.ImportMappings(context.Background(), accountID, mapSource, family)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestImportMappingOnlyForItsCreation: a creation's taskd.ImportRecord
// writes its mapping and keeps the source's date only for an actor marked
// Imported, only for the key's family and only for the actor's own
// account; any other creation with it writes no mapping (in either
// account) and is dated now (issue 36).
func TestImportMappingOnlyForItsCreation(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, owner := storetest.NewAccount(t, db, "mapone")
		other, _ := storetest.NewAccount(t, db, "maptwo")
		imp := owner
		imp.Imported = true
		added := time.Date(2021, 2, 3, 4, 5, 0, 0, time.UTC)
		project := must(db.CreateProject(ctx, imp,
			taskd.ProjectInput{Name: new("Launch"), Import: record(mapKey(acct.ID, "project", "p1"), "fp-p1", added)}))(t)
		if !project.DateAdded.Equal(added) {
			t.Errorf("the imported project is dated %v, want the source's %v", project.DateAdded, added)
		}
		task := func(rec *taskd.ImportRecord, by taskd.Actor, name string) taskd.Task {
			t.Helper()
			return must(db.CreateTask(ctx, by, project.ID, 0, taskd.TaskInput{Name: &name, Import: rec}))(t)
		}

		mapped := task(record(mapKey(acct.ID, "task", "1"), "fp1", added), imp, "Mapped")
		if !mapped.DateAdded.Equal(added) {
			t.Errorf("the imported task is dated %v, want the source's %v", mapped.DateAdded, added)
		}
		comment := must(db.PostComment(ctx, imp, mapped.ID,
			taskd.CommentInput{Text: "Started", Import: record(mapKey(acct.ID, "comment", "c1"), "fp-c1", added)}))(t)
		if !comment.DateAdded.Equal(added) {
			t.Errorf("the imported comment is dated %v, want the source's %v", comment.DateAdded, added)
		}
		for what, c := range map[string]struct {
			by  taskd.Actor
			key taskd.ImportKey
		}{
			"an actor not marked Imported": {owner, mapKey(acct.ID, "task", "2")},
			"a key of another family":      {imp, mapKey(acct.ID, "comment", "3")},
			"a key of another account":     {imp, mapKey(other.ID, "task", "4")},
		} {
			got := task(record(c.key, "fp", added), c.by, what)
			if got.DateAdded.Equal(added) {
				t.Errorf("%s: the task took the source's date", what)
			}
		}
		want := map[string]taskd.ImportMapping{"1": {LocalID: mapped.ID, Fingerprint: "fp1"}}
		eqMappings(t, "the account's tasks", mappings(t, db, acct.ID, "task"), want)
		eqMappings(t, "the account's comments", mappings(t, db, acct.ID, "comment"),
			map[string]taskd.ImportMapping{"c1": {LocalID: comment.ID, Fingerprint: "fp-c1"}})
		eqMappings(t, "the account's projects", mappings(t, db, acct.ID, "project"),
			map[string]taskd.ImportMapping{"p1": {LocalID: project.ID, Fingerprint: "fp-p1"}})
		eqMappings(t, "the other account's tasks", mappings(t, db, other.ID, "task"), nil)
	})
}

// TestImportMappingsPerAccount: the mappings of one source in two
// accounts are apart; each account reads only its own (issue 36: one
// source imported into two accounts makes everything twice).
func TestImportMappingsPerAccount(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		one, _ := storetest.NewAccount(t, db, "mapa")
		two, _ := storetest.NewAccount(t, db, "mapb")
		for _, m := range []struct {
			k taskd.ImportKey
			m taskd.ImportMapping
		}{
			{mapKey(one.ID, "task", "1"), taskd.ImportMapping{LocalID: 11, Fingerprint: "one"}},
			{mapKey(two.ID, "task", "1"), taskd.ImportMapping{LocalID: 21, Fingerprint: "two"}},
			{mapKey(two.ID, "task", "2"), taskd.ImportMapping{LocalID: 22, Fingerprint: "two"}},
		} {
			if err := db.SetImportMapping(ctx, m.k, m.m); err != nil {
				t.Fatal(err)
			}
		}
		eqMappings(t, "the first account's", mappings(t, db, one.ID, "task"),
			map[string]taskd.ImportMapping{"1": {LocalID: 11, Fingerprint: "one"}})
		eqMappings(t, "the second account's", mappings(t, db, two.ID, "task"),
			map[string]taskd.ImportMapping{"1": {LocalID: 21, Fingerprint: "two"}, "2": {LocalID: 22, Fingerprint: "two"}})
	})
}

// TestImportMappingInObjectsTransaction: a creation whose mapping's write
// fails (what waits on it names a role the store does not know) is not
// made: the mapping is written in the object's own transaction, so a
// run stopped or failing between the two finds neither, never an object
// without its mapping that the next run would make again (issue 36).
// Made again with what it should carry, it is there once, mapped.
func TestImportMappingInObjectsTransaction(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, owner := storetest.NewAccount(t, db, "maptx")
		v := owner.Viewer()
		imp := owner
		imp.Imported = true
		project := must(db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Site")}))(t)
		first := must(db.CreateTask(ctx, owner, project.ID, 0, taskd.TaskInput{Name: new("First")}))(t)
		second := must(db.CreateTask(ctx, owner, project.ID, 0, taskd.TaskInput{Name: new("Second")}))(t)
		bad := []taskd.WaitingRole{{Email: "someone@example.com", Role: "no-such-role"}}
		minutes := int64(15)

		for _, c := range []struct {
			family string
			create func(rec *taskd.ImportRecord) error
			count  func() int // of the objects the creation makes
		}{
			{"project", func(rec *taskd.ImportRecord) error {
				_, err := db.CreateProject(ctx, imp, taskd.ProjectInput{Name: new("Imported"), Import: rec})
				return err
			}, func() int { return len(must(db.Projects(ctx, v, ""))(t)) }},
			{"task", func(rec *taskd.ImportRecord) error {
				_, err := db.CreateTask(ctx, imp, project.ID, 0, taskd.TaskInput{Name: new("Imported"), Import: rec})
				return err
			}, func() int { return len(must(db.Tasks(ctx, taskd.TaskQuery{Viewer: v, ProjectID: project.ID}))(t)) }},
			{"comment", func(rec *taskd.ImportRecord) error {
				_, err := db.PostComment(ctx, imp, first.ID, taskd.CommentInput{Text: "Imported", Import: rec})
				return err
			}, func() int { return len(must(db.Comments(ctx, v, first.ID))(t)) }},
			{"cost", func(rec *taskd.ImportRecord) error {
				_, err := db.AddCost(ctx, imp, first.ID, taskd.CostInput{Minutes: &minutes, Import: rec})
				return err
			}, func() int { return len(must(db.Costs(ctx, taskd.CostQuery{Viewer: v, ProjectID: project.ID}))(t)) }},
			{"contact", func(rec *taskd.ImportRecord) error {
				_, err := db.AddImportedContact(ctx, imp, taskd.Contact{Email: "carl@vendor.example", FirstName: "Carl"}, *rec)
				return err
			}, func() int { return len(must(db.Contacts(ctx, acct.ID))(t)) }},
			{"relation", func(rec *taskd.ImportRecord) error {
				return db.AddImportedRelation(ctx, imp, taskd.Relation{From: first.ID, To: second.ID, Type: taskd.RelationFinishToStart}, *rec)
			}, func() int { return len(must(db.Relations(ctx, v, []int64{second.ID}))(t)[second.ID].From) }},
		} {
			before := c.count()
			key := mapKey(acct.ID, c.family, "1")
			failing := record(key, "fp", time.Time{})
			failing.Waiting = bad
			if err := c.create(failing); err == nil {
				t.Fatalf("%s: made though its mapping's write failed", c.family)
			}
			if n := c.count(); n != before {
				t.Errorf("%s: %d made though its mapping's write failed", c.family, n-before)
			}
			if m := mappings(t, db, acct.ID, c.family); len(m) != 0 {
				t.Errorf("%s: mapped though the write failed: %v", c.family, m)
			}
			if err := c.create(record(key, "fp", time.Time{})); err != nil {
				t.Fatalf("%s made again: %v", c.family, err)
			}
			if n := c.count(); n != before+1 {
				t.Errorf("%s made again: %d made, want 1", c.family, n-before)
			}
			if m := mappings(t, db, acct.ID, c.family); len(m) != 1 || m["1"].LocalID == 0 {
				t.Errorf("%s made again: mappings %v", c.family, m)
			}
		}
	})
}

func eqMappings(t *testing.T, what string, got, want map[string]taskd.ImportMapping) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s mappings: %v, want %v", what, got, want)
		return
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s mappings: %v, want %v", what, got, want)
			return
		}
	}
}
