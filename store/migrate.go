package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
)

//go:embed migrations
var migrations embed.FS

// migrate applies the dialect's migrations that are not yet recorded, each in
// its own transaction. Concurrent starts are safe: SQLite serialises write
// transactions and PostgreSQL takes an advisory lock.
func (db *DB) migrate(ctx context.Context) error {
	dir := "migrations/" + db.d.name
	entries, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return fmt.Errorf("store: read migrations: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	if _, err := db.write.ExecContext(ctx,
		`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)`); err != nil {
		return fmt.Errorf("store: create schema_migrations: %w", err)
	}
	for _, e := range entries {
		version, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("store: migration %s: name must start with a number", e.Name())
		}
		body, err := migrations.ReadFile(dir + "/" + e.Name())
		if err != nil {
			return fmt.Errorf("store: read migration %s: %w", e.Name(), err)
		}
		err = db.tx(ctx, "migrate", func(tx querier) error {
			if db.d.name == "postgres" {
				if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7210001)`); err != nil {
					return err
				}
			}
			var n int
			if err := tx.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("apply %s: %w", e.Name(), err)
			}
			_, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO schema_migrations (version) VALUES (?)`), version)
			return err
		})
		if err != nil {
			return fmt.Errorf("store: %w", taskd.AsError(err).Err)
		}
	}
	return nil
}
