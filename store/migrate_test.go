package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
)

// TestNewerSchemaRefused: a database that a newer taskd migrated (an
// upgrade rolled back without its backup) is refused with a message that
// says so, rather than run on by code that does not know its schema.
func TestNewerSchemaRefused(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		d.Open(t).Close()
		driver, dsn := "sqlite", "file:"+filepath.Join(d.Dir, "taskd.db")
		if d.URL != "" {
			driver, dsn = "pgx", d.URL
		}
		raw, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		if _, err := raw.Exec(`INSERT INTO schema_migrations (version) VALUES (9999)`); err != nil {
			t.Fatal(err)
		}
		db, err := store.Open(context.Background(), d.Options())
		if err == nil {
			db.Close()
			t.Fatal("a database at schema 9999 was opened")
		}
		if !strings.Contains(err.Error(), "newer taskd (schema 9999") {
			t.Fatalf("error %q does not say the database is newer", err)
		}
	})
}
