package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// TestImportFileMapping: an import's file is mapped by its attach
// (AttachImportedFile), in the attach's transaction, and keeps the
// source's date from then; its upload alone writes nothing, nor does an
// attach that fails, one by an actor not marked Imported, or one carrying
// another family's record (issue 36).
func TestImportFileMapping(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, owner := storetest.NewAccount(t, db, "impfile")
		name := "P"
		p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		imported := owner
		imported.Imported = true
		key := func(id string) taskd.ImportKey {
			return taskd.ImportKey{AccountID: acct.ID, Source: "https://src.example/a/x", Family: "file", SourceID: id}
		}
		added := time.Date(2024, 5, 6, 7, 8, 0, 0, time.UTC)
		upload := func(by taskd.Actor) taskd.File {
			t.Helper()
			f, err := db.CreateFile(ctx, by, "plan.txt", "text/plain", strings.NewReader("the plan"), taskd.DefaultFileLimits)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		mapped := func() map[string]taskd.ImportMapping {
			t.Helper()
			m, err := db.ImportMappings(ctx, acct.ID, "https://src.example/a/x", "file")
			if err != nil {
				t.Fatal(err)
			}
			return m
		}

		rec := taskd.ImportRecord{Key: key("1"), Fingerprint: "fp1", Added: added}
		f := upload(imported)
		if m := mapped(); len(m) != 0 {
			t.Fatalf("an upload alone is mapped: %v", m)
		}
		// An attach that fails (no such owner) maps nothing.
		if err := db.AttachImportedFile(ctx, imported, f.ID, taskd.OwnerProject, p.ID+1000, rec); err == nil {
			t.Fatal("attached to a project that is not there")
		}
		if m := mapped(); len(m) != 0 {
			t.Fatalf("a failed attach is mapped: %v", m)
		}
		if err := db.AttachImportedFile(ctx, imported, f.ID, taskd.OwnerProject, p.ID, rec); err != nil {
			t.Fatal(err)
		}
		if m := mapped(); len(m) != 1 || m["1"] != (taskd.ImportMapping{LocalID: f.ID, Fingerprint: "fp1"}) {
			t.Fatalf("the attach's mapping: %v", m)
		}
		got, err := db.File(ctx, owner.Viewer(), f.ID)
		if err != nil || !got.Added.Equal(added) || got.Owner != taskd.OwnerProject {
			t.Fatalf("the imported file %+v %v: want it attached, added %v", got, err, added)
		}

		// Not marked Imported, or with a task's record: no mapping, and
		// the file's date is its upload's.
		for i, c := range []struct {
			by  taskd.Actor
			rec taskd.ImportRecord
		}{
			{owner, taskd.ImportRecord{Key: key("2"), Fingerprint: "fp2", Added: added}},
			{imported, taskd.ImportRecord{Key: taskd.ImportKey{AccountID: acct.ID, Source: "https://src.example/a/x", Family: "task", SourceID: "2"},
				Fingerprint: "fp2", Added: added}},
		} {
			f := upload(c.by)
			if err := db.AttachImportedFile(ctx, c.by, f.ID, taskd.OwnerProject, p.ID, c.rec); err != nil {
				t.Fatal(err)
			}
			if m := mapped(); len(m) != 1 {
				t.Errorf("case %d: mappings %v", i, m)
			}
			if got, err := db.File(ctx, owner.Viewer(), f.ID); err != nil || got.Added.Equal(added) {
				t.Errorf("case %d: the file %+v %v took the source's date", i, got, err)
			}
		}
	})
}
