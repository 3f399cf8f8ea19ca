package testdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"github.com/taskd/taskd/store"
)

// Every test's database is a copy of one migrated per version of the
// migrations (store.MigrationsDigest) and kept for the next runs: a SQLite
// file in the system's temporary directory, a PostgreSQL template
// database. Migrating a SQLite database took 2.4 s under the race
// detector (0.1 s without), and most tests make two or more databases.

// sqliteTemplates makes each process's template once.
var sqliteTemplates struct {
	once sync.Once
	path string
	err  error
}

// copySQLiteTemplate puts a copy of the migrated template in dir as the
// store's file, readable by its owner alone.
func copySQLiteTemplate(dir string) error {
	sqliteTemplates.once.Do(func() { sqliteTemplates.path, sqliteTemplates.err = sqliteTemplate() })
	if sqliteTemplates.err != nil {
		return sqliteTemplates.err
	}
	in, err := os.Open(sqliteTemplates.path)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(filepath.Join(dir, "taskd.db"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sqliteTemplate returns the path of the migrated template of this
// version of the migrations, making it when no earlier run (or another
// package's tests, at the same time) did.
func sqliteTemplate() (string, error) {
	dir := filepath.Join(os.TempDir(), "taskd-testdb")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "sqlite-"+store.MigrationsDigest()+".db")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	work, err := os.MkdirTemp(dir, "make-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{DataDir: work})
	if err != nil {
		return "", fmt.Errorf("migrate the template: %w", err)
	}
	db.Close()
	// A checked copy, made whole under another name and linked in place:
	// another process making it at the same time loses the race harmlessly.
	if _, err := store.BackupSQLite(ctx, work, path); err != nil {
		if _, statErr := os.Stat(path); statErr == nil {
			return path, nil
		}
		return "", fmt.Errorf("copy the template: %w", err)
	}
	return path, nil
}

// postgresTemplates makes each process's template once.
var postgresTemplates struct {
	once sync.Once
	name string
	err  error
}

// postgresTemplate returns the name of the migrated template database of
// this version of the migrations on the server, making it when no earlier
// run did. Runs making it at the same time take turns (an advisory lock);
// it is made under another name and renamed when whole.
func postgresTemplate(ctx context.Context, admin *sql.DB, base *url.URL) (string, error) {
	postgresTemplates.once.Do(func() { postgresTemplates.name, postgresTemplates.err = makePostgresTemplate(ctx, admin, base) })
	return postgresTemplates.name, postgresTemplates.err
}

// templatePrefix names the template databases; the sweep leaves them.
const templatePrefix = "taskd_template_"

func makePostgresTemplate(ctx context.Context, admin *sql.DB, base *url.URL) (string, error) {
	name := templatePrefix + store.MigrationsDigest()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(7210002)`); err != nil {
		return "", err
	}
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(7210002)`)
	var exists bool
	if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_making"
	conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)")
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+building); err != nil {
		return "", fmt.Errorf("create the template: %w", err)
	}
	u := *base
	u.Path = "/" + building
	db, err := store.Open(ctx, store.Options{URL: u.String()})
	if err != nil {
		return "", errors.Join(fmt.Errorf("migrate the template: %w", err), dropNow(ctx, conn, building))
	}
	db.Close()
	if _, err := conn.ExecContext(ctx, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		return "", fmt.Errorf("name the template: %w", err)
	}
	return name, nil
}

// dropNow drops a database, closing its connections.
func dropNow(ctx context.Context, conn *sql.Conn, name string) error {
	_, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	return err
}
