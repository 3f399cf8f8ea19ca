// Package store keeps taskd's data in SQLite (the embedded default) or
// PostgreSQL. One implementation serves both; the SQL that differs sits
// behind the small dialect seam in dialect.go.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/taskd/taskd"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" driver
	_ "modernc.org/sqlite"           // registers the "sqlite" driver
)

// DB is the store of taskd on SQLite or PostgreSQL: it implements every
// store interface of the root package, and the pages' web.SessionStore.
type DB struct {
	write *sql.DB // SQLite: one connection, so writers queue here, not on locks
	read  *sql.DB // SQLite: several read-only connections; PostgreSQL: same as write

	// reader runs reads through prepared statements.
	reader pool
	// writer holds the statements that write transactions reuse on
	// SQLite's one write connection; nil on PostgreSQL, where pgx caches
	// statements per connection itself.
	writer *stmts
	d      dialect
	now    func() time.Time
	// sig wakes the background workers (the webhook dispatcher, the live
	// hub, the outbox) when a change commits (signals.go).
	sig *signals
	// retry tries reads and uncommitted transactions again after a lost
	// connection (retry.go).
	retry retrier
	// batches queues the changes that will share a transaction (group.go).
	batches groupCommit
	// search keeps SQLite's search index caught up (search.go).
	search searchIndex
	// schema, when not 0, is the newest migration Open applies (tests of
	// a migration, export_test.go); 0: every one.
	schema int
}

var (
	_ taskd.AccountStore = (*DB)(nil)
	_ taskd.MemberStore  = (*DB)(nil)
	_ taskd.ProjectStore = (*DB)(nil)
	_ taskd.TaskStore    = (*DB)(nil)
	_ taskd.CommentStore = (*DB)(nil)
	_ taskd.EventStore   = (*DB)(nil)
)

// Options configure Open.
type Options struct {
	// URL is a postgres:// URL; when empty, SQLite in DataDir is used.
	URL string
	// DataDir holds the SQLite file taskd.db.
	DataDir string
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Retried, when set, hears of each read or transaction tried again
	// after the database dropped its connection (op names it; "read" for
	// reads): a counter for /metrics.
	Retried func(op string)
	// AsyncCommit, on PostgreSQL, commits without waiting for the commit
	// to reach the disk (synchronous_commit off, for this process's
	// connections only). A crash of the database server (not of taskd)
	// may lose the last transactions committed, each whole, never part of
	// one. Only a writer that redoes what was lost may use it: taskd
	// import, whose every object commits with its mapping (issue 36).
	// SQLite's WAL with synchronous NORMAL commits so already.
	AsyncCommit bool
	// schema is DB.schema.
	schema int
}

// Open connects to the database and applies pending migrations.
func Open(ctx context.Context, o Options) (*DB, error) {
	db := &DB{now: o.Now, schema: o.schema, sig: newSignals(o.URL), retry: retrier{max: 4*runtime.GOMAXPROCS(0) + 2, retried: o.Retried}}
	if db.now == nil {
		db.now = time.Now
	}
	if o.URL != "" {
		if !strings.HasPrefix(o.URL, "postgres://") && !strings.HasPrefix(o.URL, "postgresql://") {
			return nil, errors.New("store: --db must be a postgres:// URL")
		}
		db.d = newPostgres()
		cfg, err := pgx.ParseConfig(o.URL)
		if err != nil {
			return nil, fmt.Errorf("store: open postgres: %w", err)
		}
		if o.AsyncCommit {
			cfg.RuntimeParams["synchronous_commit"] = "off"
		}
		// No "-- ping" before reusing a connection idle over a second (the
		// driver's default): it was a statement on most page loads, and a
		// connection lost meanwhile fails its first statement, which reads
		// and transactions try again on another (retry.go).
		db.write = stdlib.OpenDB(*cfg, stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false }))
		db.write.SetMaxOpenConns(4 * runtime.GOMAXPROCS(0))
		db.write.SetMaxIdleConns(4 * runtime.GOMAXPROCS(0))
		db.read = db.write
	} else {
		if err := openSQLite(db, o.DataDir); err != nil {
			return nil, err
		}
		db.writer = newStmts(db.write)
	}
	db.reader = pool{newStmts(db.read), db.retry}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	db.sig.startNotifier(db)
	db.startSearchIndex()
	return db, nil
}

func openSQLite(db *DB, dir string) error {
	if dir == "" {
		dir = "taskd-data"
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store: create data directory: %w", err)
	}
	path := filepath.Join(dir, "taskd.db")
	if err := private(path); err != nil {
		return err
	}
	pragmas := "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	db.d = newSQLite()
	var err error
	// Writers take the write lock at BEGIN (immediate), so a transaction never
	// has to upgrade a read lock and fail with SQLITE_BUSY midway; other
	// processes on the same file (the CLI) wait through busy_timeout.
	//
	// The write connection keeps its temporary files in memory: a batch of
	// changes (group.go) runs each after a savepoint, and SQLite copies the
	// pages a change first touches into the savepoint's sub-journal, a
	// temporary file written through the kernel otherwise.
	db.write, err = sql.Open("sqlite", "file:"+path+"?"+pragmas+"&_pragma=temp_store(MEMORY)&_txlock=immediate")
	if err != nil {
		return fmt.Errorf("store: open sqlite: %w", err)
	}
	db.write.SetMaxOpenConns(1)
	db.write.SetConnMaxLifetime(0)
	db.read, err = sql.Open("sqlite", "file:"+path+"?"+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		return fmt.Errorf("store: open sqlite: %w", err)
	}
	n := 2 * runtime.GOMAXPROCS(0)
	db.read.SetMaxOpenConns(n)
	db.read.SetMaxIdleConns(n)
	return nil
}

// private makes the database file, and its write-ahead log and shared
// memory if they are there, readable by their owner alone: 0600, whatever
// the umask or the directory's mode (they hold password hashes and sealed
// keys). A database that is not there yet is created empty so: SQLite
// gives its -wal and -shm files the mode of the database file.
func private(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("store: open database file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("store: open database file: %w", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, 0o600); err != nil {
				return fmt.Errorf("store: make %s private: %w", p, err)
			}
		}
	}
	return nil
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.write.PingContext(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Close closes the connection pools.
func (db *DB) Close() error {
	db.sig.close()
	db.reader.close()
	if db.writer != nil {
		db.writer.close()
	}
	err := db.write.Close()
	if db.read != db.write {
		err = errors.Join(err, db.read.Close())
	}
	return err
}

// Dialect names the database in use: "sqlite" or "postgres".
func (db *DB) Dialect() string { return db.d.name }

// tx runs fn in a write transaction and commits it when fn returns nil. A
// transaction that lost its connection before its COMMIT was sent is run
// again (retry.go), so fn must leave nothing behind but its writes and the
// values it sets.
func (db *DB) tx(ctx context.Context, op string, fn func(querier) error) error {
	return db.runTx(ctx, op, fn, false)
}

// runTx is tx. With witnessed set (a change, which writes an event), a
// commit whose answer was lost with the connection is looked up by the
// transaction's id (retry.go): committed is success, aborted is tried again.
func (db *DB) runTx(ctx context.Context, op string, fn func(querier) error, witnessed bool) error {
	for try := 0; ; try++ {
		var w *witnessTx
		run := fn
		if witnessed {
			run = func(q querier) error { w = &witnessTx{querier: q}; return fn(w) }
		}
		commitSent, err := db.txOnce(ctx, op, run)
		if err != nil && commitSent && w != nil && w.xid != "" && connLost(err) {
			switch db.commitOutcome(ctx, w.xid) {
			case "committed":
				return nil
			case "aborted":
				commitSent = false // nothing was committed: it may run again
			}
		}
		if err == nil || commitSent || !db.retry.again(ctx, err, try, op) {
			return err
		}
	}
}

// txOnce is one try of tx; commitSent reports that the COMMIT was sent.
func (db *DB) txOnce(ctx context.Context, op string, fn func(querier) error) (commitSent bool, err error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return false, taskd.Internal(op+": begin", err)
	}
	if db.writer == nil {
		return db.run(op, tx, tx, fn)
	}
	ts := &txStmts{tx: tx, s: db.writer}
	commitSent, err = db.run(op, tx, ts, fn)
	ts.prepareNoted(context.WithoutCancel(ctx)) // the transaction has released its connection
	return commitSent, err
}

// exec runs one write statement on its own (autocommit): one round trip
// where a transaction around it would take three. The statement must be
// safe to repeat: it is run again if the connection is lost, when whether
// it ran is unknown.
func (db *DB) exec(ctx context.Context, op, query string, args ...any) (sql.Result, error) {
	run := db.write.ExecContext
	if db.writer != nil {
		run = pool{stmts: db.writer}.ExecContext
	}
	for try := 0; ; try++ {
		res, err := run(ctx, db.d.q(query), args...)
		if err == nil {
			return res, nil
		}
		if !db.retry.again(ctx, err, try, op) {
			return nil, taskd.Internal(op, err)
		}
	}
}

// EventsWritten returns a new channel that receives after a change and its
// event commit, so that the webhook dispatcher (and the digest notifier,
// and the live hub) can start at once instead of at their next poll: a
// change made through this DB at once, and on PostgreSQL one made by any
// other process, through LISTEN/NOTIFY, from the first call on. Signals
// coalesce: one receive may stand for many changes.
func (db *DB) EventsWritten() <-chan struct{} { return db.sig.subscribe(kindEvents) }

// MailQueued returns a new channel that receives after mail is queued and
// committed, here or (PostgreSQL) by another process, as EventsWritten.
func (db *DB) MailQueued() <-chan struct{} { return db.sig.subscribe(kindMail) }

// TrustChanged returns a new channel that receives after a change of trust
// commits (trustTx), here or (PostgreSQL) in another process, as
// EventsWritten: the live streams it opened are checked again.
func (db *DB) TrustChanged() <-chan struct{} { return db.sig.subscribe(kindTrust) }

// trustTx is tx for a change of trust (a session ended, a member removed
// or given another role): once it commits, every replica's live streams
// are checked (TrustChanged).
func (db *DB) trustTx(ctx context.Context, op string, fn func(querier) error) error {
	if err := db.tx(ctx, op, fn); err != nil {
		return err
	}
	db.sig.trustChanged()
	return nil
}

// mailTx is tx for a transaction that may queue mail: when it commits
// having queued some (fn sets *queued), the outboxes are woken.
func (db *DB) mailTx(ctx context.Context, op string, fn func(tx querier, queued *bool) error) error {
	queued := false
	err := db.tx(ctx, op, func(tx querier) error {
		queued = false // a retried transaction starts again
		return fn(tx, &queued)
	})
	if err == nil && queued {
		db.sig.mailQueued()
	}
	return err
}

// run calls fn with q, which runs on tx, then commits tx or rolls it back;
// commitSent reports that the COMMIT was sent.
func (db *DB) run(op string, tx *sql.Tx, q querier, fn func(querier) error) (commitSent bool, err error) {
	defer tx.Rollback()
	if err := fn(q); err != nil {
		var te *taskd.Error
		if errors.As(err, &te) {
			return false, err
		}
		return false, taskd.Internal(op, err)
	}
	if err := tx.Commit(); err != nil {
		return true, taskd.Internal(op+": commit", err)
	}
	return true, nil
}

// ms converts a time to the stored form, Unix milliseconds.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMS converts a stored time back; 0 is the zero time.
func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// scanner is a row to scan: *sql.Row or *sql.Rows.
type scanner = interface{ Scan(...any) error }

// all runs a query and scans every row with scan. Errors are internal,
// named by op.
func all[T any](ctx context.Context, q querier, op, query string, scan func(scanner) (T, error), args ...any) ([]T, error) {
	p, pooled := q.(pool)
	for try := 0; ; try++ {
		out, err := allOnce(ctx, q, query, scan, args...)
		// On a pool, a read whose connection was lost, even while its rows
		// were being read, runs again (in a transaction the transaction
		// does).
		if err == nil || !pooled || !p.retry.again(ctx, err, try, "read") {
			if err != nil {
				return nil, taskd.Internal(op, err)
			}
			return out, nil
		}
	}
}

func allOnce[T any](ctx context.Context, q querier, query string, scan func(scanner) (T, error), args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
