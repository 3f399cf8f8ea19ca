package store

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
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
	var have int
	if err := db.write.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return fmt.Errorf("store: read schema_migrations: %w", err)
	}
	if newest := newestMigration(db.d); have > newest {
		return fmt.Errorf("store: the database was migrated by a newer taskd (schema %d; this one knows up to %d): run that version, or restore a backup made before the upgrade", have, newest)
	}
	for _, e := range entries {
		version, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("store: migration %s: name must start with a number", e.Name())
		}
		if db.schema != 0 && version > db.schema {
			break
		}
		body, err := migrations.ReadFile(dir + "/" + e.Name())
		if err != nil {
			return fmt.Errorf("store: read migration %s: %w", e.Name(), err)
		}
		apply := db.applyMigration
		if db.d.name == "sqlite" && strings.HasPrefix(string(body), foreignKeysOff+"\n") {
			apply = db.applyWithoutForeignKeys
		}
		if err := apply(ctx, e.Name(), version, string(body)); err != nil {
			return fmt.Errorf("store: %w", taskd.AsError(err).Err)
		}
	}
	return nil
}

// applyMigration applies one migration in a transaction of its own,
// unless another process has applied it meanwhile.
func (db *DB) applyMigration(ctx context.Context, name string, version int, body string) error {
	return db.tx(ctx, "migrate", func(tx querier) error {
		if db.d.name == "postgres" {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7210001)`); err != nil {
				return err
			}
		}
		if done, err := db.migrated(ctx, tx, version); done || err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, body); err != nil {
			return fmt.Errorf("apply %s: %w", name, err)
		}
		return db.recordMigration(ctx, tx, version)
	})
}

// migrated reports whether the migration of the version is recorded.
func (db *DB) migrated(ctx context.Context, q querier, version int) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), version).Scan(&n)
	return n > 0, err
}

// recordMigration records the migration of the version as applied.
func (db *DB) recordMigration(ctx context.Context, q querier, version int) error {
	_, err := q.ExecContext(ctx, db.d.q(`INSERT INTO schema_migrations (version) VALUES (?)`), version)
	return err
}

// newestMigration is the highest migration version the binary carries
// for the dialect d.
func newestMigration(d dialect) int {
	entries, _ := fs.ReadDir(migrations, "migrations/"+d.name)
	newest := 0
	for _, e := range entries {
		if v, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0]); err == nil {
			newest = max(newest, v)
		}
	}
	return newest
}

// MigrationsDigest names the migrations this binary carries, for both
// databases: a hash of their names and text. Two binaries with the same
// digest make the same schema (tests keep one migrated database per
// digest to copy, internal/testdb).
func MigrationsDigest() string {
	h := sha256.New()
	for _, dialect := range []string{"sqlite", "postgres"} {
		entries, _ := fs.ReadDir(migrations, "migrations/"+dialect)
		for _, e := range entries {
			body, _ := migrations.ReadFile("migrations/" + dialect + "/" + e.Name())
			fmt.Fprintf(h, "%s/%s %d\n", dialect, e.Name(), len(body))
			h.Write(body)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
