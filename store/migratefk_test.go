package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testdb"
)

// TestMigrationWithForeignKeysOff: a SQLite migration marked
// "-- taskd: foreign keys off" runs with them off, so that rebuilding a
// parent table (dropping it) deletes no child row; it is refused whole,
// committing nothing, when it leaves a row naming a missing parent, or
// fails; foreign keys are on again after each, and the store writes on.
func TestMigrationWithForeignKeysOff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t, "sqlite").Open(t)
	rebuild := `CREATE TABLE parent (id INTEGER PRIMARY KEY);
		CREATE TABLE child (parent_id INTEGER NOT NULL REFERENCES parent (id) ON DELETE CASCADE);
		INSERT INTO parent (id) VALUES (1), (2);
		INSERT INTO child (parent_id) VALUES (1), (2);
		CREATE TABLE new_parent (id INTEGER PRIMARY KEY AUTOINCREMENT);
		INSERT INTO new_parent SELECT * FROM parent;
		DROP TABLE parent;
		ALTER TABLE new_parent RENAME TO parent;`
	if err := db.ApplyWithoutForeignKeysForTest(ctx, 9001, rebuild); err != nil {
		t.Fatal(err)
	}
	count := func(query string) int {
		t.Helper()
		var n int
		if err := db.QueryRowForTest(ctx, query, &n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	if n := count(`SELECT COUNT(*) FROM child`); n != 2 {
		t.Errorf("%d rows of child after its parent table was rebuilt, want 2", n)
	}
	foreignKeysOn := func(after string) {
		t.Helper()
		if on, err := db.ForeignKeysForTest(ctx); err != nil || on != 1 {
			t.Errorf("after %s: foreign keys %d %v, want on", after, on, err)
		}
	}
	foreignKeysOn("a migration")
	if err := db.ApplyWithoutForeignKeysForTest(ctx, 9001, `DROP TABLE child`); err != nil {
		t.Errorf("a migration applied already: %v", err)
	}

	for _, c := range []struct{ name, body, err string }{
		{"one that leaves an orphan", `INSERT INTO child (parent_id) VALUES (3); DELETE FROM parent WHERE id = 1`, "row 3 of child names a missing parent"},
		{"one that fails", `DELETE FROM parent WHERE id = 1; SELECT * FROM nowhere`, "no such table"},
	} {
		err := db.ApplyWithoutForeignKeysForTest(ctx, 9002, c.body)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.err)
		}
		if n := count(`SELECT COUNT(*) FROM child`) + count(`SELECT COUNT(*) FROM parent`); n != 4 {
			t.Errorf("%s: %d rows of parent and child left, want the 4 before", c.name, n)
		}
		if n := count(`SELECT COUNT(*) FROM schema_migrations WHERE version = 9002`); n != 0 {
			t.Errorf("%s: recorded as applied", c.name)
		}
		foreignKeysOn(c.name)
	}
	if err := db.ExecForTest(ctx, `DELETE FROM parent WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT COUNT(*) FROM child`); n != 1 {
		t.Errorf("%d rows of child after one parent's deletion, want 1: its cascade is on again", n)
	}
}
