package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/store"
)

// TestRestoreKeepsEveryDatabase: each restore keeps the database it
// replaces beside the new one, even two restores in one second: the second
// is kept under a name of its own, and the first kept file still holds
// what it held (docs/operations.md: "the old database is kept beside the
// new one").
func TestRestoreKeepsEveryDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	addAccount := func(slug string) {
		t.Helper()
		db, err := store.Open(ctx, store.Options{DataDir: data})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		testaccount.New(t, db, testaccount.Options{Slug: slug})
	}
	addAccount("one")
	backup := filepath.Join(dir, "one.db")
	if _, err := store.BackupSQLite(ctx, data, backup); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var kept []string
	for _, slug := range []string{"two", "three"} {
		addAccount(slug) // the live database now differs from the backup
		_, previous, err := store.RestoreSQLite(ctx, backup, data, now)
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, previous)
	}
	if kept[0] == kept[1] {
		t.Fatalf("both restores kept the database as %s", kept[0])
	}
	for i, want := range []string{"two", "three"} {
		if !holds(t, kept[i], want) {
			t.Errorf("%s, kept by restore %d, lost account %q", filepath.Base(kept[i]), i+1, want)
		}
	}
	if !holds(t, filepath.Join(data, "taskd.db"), "one") || holds(t, filepath.Join(data, "taskd.db"), "two") {
		t.Error("the restored database is not the backup")
	}
}

// holds reports whether the SQLite file at path has the account slug.
func holds(t *testing.T, path, slug string) bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM accounts WHERE slug = ?`, slug).Scan(&n); err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return n == 1
}
