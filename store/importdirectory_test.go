package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// TestImportedDirectoryMappings: an imported contact and relation write
// their mappings (taskd.ImportRecord) in their own transactions, the
// contact with the source's date. The directory's own rules are the
// conformance case DirectoryChanges.
func TestImportedDirectoryMappings(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, by := storetest.NewAccount(t, db, "dir")
		imp := by
		imp.Imported, imp.Key = true, true
		src := "https://source.example/a/x"
		added := time.Date(2024, 1, 16, 10, 0, 0, 0, time.UTC)
		key := taskd.ImportKey{AccountID: acct.ID, Source: src, Family: "contact", SourceID: "7"}
		c, err := db.AddImportedContact(ctx, imp, taskd.Contact{Email: "cy@client.example"},
			taskd.ImportRecord{Key: key, Fingerprint: "fp", Added: added})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := db.ImportMappings(ctx, acct.ID, src, "contact")
		if err != nil || ms["7"] != (taskd.ImportMapping{LocalID: c.ID, Fingerprint: "fp"}) || !c.Added.Equal(added) {
			t.Fatalf("contact mapping %+v %v, added %v", ms, err, c.Added)
		}
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: new("P")})
		if err != nil {
			t.Fatal(err)
		}
		a, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("a")})
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("b")})
		if err != nil {
			t.Fatal(err)
		}
		key = taskd.ImportKey{AccountID: acct.ID, Source: src, Family: "relation", SourceID: "1>2"}
		if err := db.AddImportedRelation(ctx, imp, taskd.Relation{From: a.ID, To: b.ID, Type: taskd.RelationStartToStart},
			taskd.ImportRecord{Key: key, Fingerprint: taskd.RelationStartToStart}); err != nil {
			t.Fatal(err)
		}
		ms, err = db.ImportMappings(ctx, acct.ID, src, "relation")
		if err != nil || ms["1>2"] != (taskd.ImportMapping{LocalID: b.ID, Fingerprint: taskd.RelationStartToStart}) {
			t.Fatalf("relation mapping %+v %v", ms, err)
		}
	})
}
