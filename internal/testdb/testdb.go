// Package testdb gives every test its own database: a SQLite file in the
// test's temporary directory, and, when TASKD_TEST_POSTGRES names a
// PostgreSQL server, a new PostgreSQL database with a unique name that is
// dropped when the test ends. Tests never share data, so one test's rows,
// clock or webhook dispatcher cannot reach another's, and two test runs on
// one machine never drop each other's database.
//
// TASKD_TEST_POSTGRES is a URL of any database on the server (for example
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable); its role must
// be allowed to create databases.
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// EnvPostgres is the variable that names the PostgreSQL server of the tests.
const EnvPostgres = "TASKD_TEST_POSTGRES"

// masterKey is the 32-byte server key of every test.
var masterKey = []byte("taskd-test-master-key-32-bytes!!")

// MasterKey returns the server key of the tests, a fresh copy each call.
func MasterKey() []byte { return append([]byte(nil), masterKey...) }

// MasterKeyBase64 is MasterKey as the --master-key flag takes it.
func MasterKeyBase64() string { return base64.StdEncoding.EncodeToString(masterKey) }

// Sealer returns a sealer with the tests' master key.
func Sealer(t testing.TB) *secret.Sealer {
	t.Helper()
	s, err := secret.NewSealer(MasterKey())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Backends names the databases tests run on: "sqlite" always, and
// "postgres" when TASKD_TEST_POSTGRES is set.
func Backends() []string {
	if os.Getenv(EnvPostgres) != "" {
		return []string{"sqlite", "postgres"}
	}
	return []string{"sqlite"}
}

// DB is one fresh, empty database of a test. Open it as often as the test
// needs: every opening (a second replica, a command-line run) sees the same
// data.
type DB struct {
	Backend string // "sqlite" or "postgres"
	URL     string // the PostgreSQL database; empty for SQLite
	Dir     string // the data directory: SQLite's file and a server's key file
}

// Options are the store options that reach this database.
func (d DB) Options() store.Options { return store.Options{URL: d.URL, DataDir: d.Dir} }

// Open opens the database (migrating it on first use) until the test ends.
func (d DB) Open(t testing.TB) *store.DB {
	t.Helper()
	return d.OpenWith(t, d.Options())
}

// OpenWith opens the database with options such as a clock; URL and DataDir
// are this database's.
func (d DB) OpenWith(t testing.TB, o store.Options) *store.DB {
	t.Helper()
	o.URL, o.DataDir = d.URL, d.Dir
	db, err := store.Open(context.Background(), o)
	if err != nil {
		t.Fatalf("testdb: open %s: %v", d.Backend, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// New returns a fresh database on the backend, migrated, removed when the
// test ends. It is a copy of a template migrated once (template.go):
// migrating anew took most of a test's time under the race detector.
func New(t testing.TB, backend string) DB {
	t.Helper()
	d := Blank(t, backend)
	switch backend {
	case "sqlite":
		if err := copySQLiteTemplate(d.Dir); err != nil {
			t.Fatalf("testdb: %v", err)
		}
	case "postgres":
		d.URL = newPostgres(t, true)
	}
	return d
}

// Blank is New without the schema: an empty database, for the tests of
// migrations themselves.
func Blank(t testing.TB, backend string) DB {
	t.Helper()
	d := DB{Backend: backend, Dir: t.TempDir()}
	switch backend {
	case "sqlite":
	case "postgres":
		d.URL = newPostgres(t, false)
	default:
		t.Fatalf("testdb: unknown backend %q", backend)
	}
	return d
}

// Each runs fn as a parallel subtest per backend, each with a fresh database.
func Each(t *testing.T, fn func(t *testing.T, d DB)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			fn(t, New(t, b))
		})
	}
}

// namePrefix starts the name of every test database; the Unix time after it
// lets a later run drop what a killed run left behind.
const namePrefix = "taskd_t_"

// staleAfter is how old a test database must be before another run drops it.
const staleAfter = 6 * time.Hour

var sweepOnce sync.Once

// newPostgres creates a database on the server of TASKD_TEST_POSTGRES,
// migrated (a copy of the template) or empty, and returns its URL; the
// test's cleanup drops it.
func newPostgres(t testing.TB, migrated bool) string {
	t.Helper()
	base := os.Getenv(EnvPostgres)
	if base == "" {
		t.Fatalf("testdb: %s is not set", EnvPostgres)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("testdb: %s: %v", EnvPostgres, err)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sweepOnce.Do(func() { sweep(ctx, admin) })

	var suffix [6]byte
	rand.Read(suffix[:])
	name := namePrefix + strconv.FormatInt(time.Now().Unix(), 10) + "_" + hex.EncodeToString(suffix[:])
	create := "CREATE DATABASE " + name
	if migrated {
		tmpl, err := postgresTemplate(ctx, admin, u)
		if err != nil {
			t.Fatalf("testdb: %v", err)
		}
		create += " TEMPLATE " + tmpl
	}
	if _, err := admin.ExecContext(ctx, create); err != nil {
		t.Fatalf("testdb: create database: %v", err)
	}
	t.Cleanup(func() { drop(base, name) })
	u.Path = "/" + name
	return u.String()
}

// drop removes a test database, closing any connection still open to it.
func drop(base, name string) {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
}

// sweep drops the test databases older than staleAfter: those of runs that
// were killed before their cleanups ran. Younger ones may belong to a run
// in progress.
func sweep(ctx context.Context, admin *sql.DB) {
	rows, err := admin.QueryContext(ctx, "SELECT datname FROM pg_database WHERE datname LIKE '"+namePrefix+"%'")
	if err != nil {
		return
	}
	var stale []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			continue
		}
		stamp, _, _ := strings.Cut(strings.TrimPrefix(name, namePrefix), "_")
		if sec, err := strconv.ParseInt(stamp, 10, 64); err == nil && time.Since(time.Unix(sec, 0)) > staleAfter {
			stale = append(stale, name)
		}
	}
	rows.Close()
	for _, name := range stale {
		admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}
}

// EndConnections has PostgreSQL end every connection to the database at url
// but the one it asks through, as a restart or a failover does, and returns
// how many it ended. With wait, it returns once they are gone.
func EndConnections(t testing.TB, url string, wait bool) int {
	t.Helper()
	admin, err := sql.Open("pgx", url) // Errorf, not Fatalf: callers may run it off the test's goroutine
	if err != nil {
		t.Errorf("testdb: %v", err)
		return 0
	}
	defer admin.Close()
	admin.SetMaxOpenConns(1)
	var n int
	if err := admin.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
		t.Errorf("testdb: end connections: %v", err)
		return 0
	}
	// A terminated backend leaves pg_stat_activity when it has exited,
	// which a loaded machine can take seconds to let it do.
	for deadline := time.Now().Add(15 * time.Second); wait && time.Now().Before(deadline); {
		var left int
		if err := admin.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND pid <> pg_backend_pid()`).Scan(&left); err != nil || left == 0 {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
	if wait {
		t.Errorf("testdb: connections still open after ending %d", n)
	}
	return n
}
