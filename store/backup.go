package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/taskd/taskd/secret"
)

// sqliteFile is the database file's name in the data directory.
const sqliteFile = "taskd.db"

// Backup describes a checked copy of a SQLite database.
type Backup struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	// Schema is the newest migration the copy has.
	Schema int `json:"schema"`
}

// BackupSQLite copies the SQLite database in dataDir to the new file to,
// while servers keep reading and writing it. The copy is one read
// transaction's snapshot (VACUUM INTO), so it holds exactly the
// transactions committed before it began; it is checked (integrity and
// schema) before it appears under its name, and an existing file is never
// overwritten. The master key is not in the copy: keep it beside.
func BackupSQLite(ctx context.Context, dataDir, to string) (Backup, error) {
	src := filepath.Join(dataDir, sqliteFile)
	if _, err := os.Stat(src); err != nil {
		return Backup{}, fmt.Errorf("backup: no SQLite database at %s: %w", src, err)
	}
	if _, err := os.Lstat(to); err == nil {
		return Backup{}, fmt.Errorf("backup: %s exists; choose a new name", to)
	}
	tmp := filepath.Join(filepath.Dir(to), "."+filepath.Base(to)+".partial-"+secret.Token(6))
	// Made empty and private first (VACUUM INTO fills an empty file), so
	// that the copy, which holds password hashes and sealed keys, is never
	// readable by others, whatever the umask.
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Backup{}, fmt.Errorf("backup: %w", err)
	}
	if err := f.Close(); err != nil {
		return Backup{}, fmt.Errorf("backup: %w", err)
	}
	defer os.Remove(tmp)
	db, err := sql.Open("sqlite", sqliteURL(src, "_pragma=busy_timeout(10000)"))
	if err != nil {
		return Backup{}, fmt.Errorf("backup: open: %w", err)
	}
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, tmp)
	db.Close()
	if err != nil {
		return Backup{}, fmt.Errorf("backup: copy: %w", err)
	}
	b, err := checkSQLite(ctx, tmp)
	if err != nil {
		return Backup{}, fmt.Errorf("backup: the copy failed its check: %w", err)
	}
	if err := syncFile(tmp); err != nil {
		return Backup{}, err
	}
	if err := os.Link(tmp, to); err != nil { // never replaces an existing file
		return Backup{}, fmt.Errorf("backup: %w", err)
	}
	b.Path = to
	return b, syncDir(filepath.Dir(to))
}

// RestoreSQLite puts the backup from in place of the SQLite database in
// dataDir, after checking it. No server may run on dataDir: a database in
// use is refused. The database it replaces is kept beside it, named
// taskd.db.before-restore-{time} (with -2, -3 … after a restore of the
// same second), and returned as previous ("" when there was none).
func RestoreSQLite(ctx context.Context, from, dataDir string, now time.Time) (b Backup, previous string, err error) {
	b, err = checkSQLite(ctx, from)
	if err != nil {
		return b, "", fmt.Errorf("restore: %s is not a usable taskd backup: %w", from, err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return b, "", fmt.Errorf("restore: %w", err)
	}
	dst := filepath.Join(dataDir, sqliteFile)
	tmp := filepath.Join(dataDir, "."+sqliteFile+".restore-"+secret.Token(6))
	defer os.Remove(tmp)
	if err := copyFile(from, tmp); err != nil {
		return b, "", fmt.Errorf("restore: %w", err)
	}
	if _, err := os.Stat(dst); err == nil {
		if err := quiesce(ctx, dst); err != nil {
			return b, "", err
		}
		if previous, err = keepAside(dst, now); err != nil {
			return b, "", fmt.Errorf("restore: keep the current database: %w", err)
		}
		if err := os.Chmod(previous, 0o600); err != nil { // kept as private as the database (it may predate that rule)
			return b, previous, fmt.Errorf("restore: %w", err)
		}
	}
	for _, side := range []string{"-wal", "-shm"} { // none after quiesce; a stale one would corrupt the copy
		if err := os.Remove(dst + side); err != nil && !errors.Is(err, os.ErrNotExist) {
			return b, previous, fmt.Errorf("restore: %w", err)
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		return b, previous, fmt.Errorf("restore: %w", err)
	}
	b.Path = dst
	return b, previous, syncDir(dataDir)
}

// keepAside moves the database at dst to a name beside it that no file
// has yet, and returns that name: a database kept by an earlier restore is
// never replaced. The new name is linked before the old one goes, so the
// check and the move are one step; where the file system has no links, it
// is checked, then renamed.
func keepAside(dst string, now time.Time) (string, error) {
	base := dst + ".before-restore-" + now.UTC().Format("20060102T150405Z")
	for n := 1; n <= 100; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		err := os.Link(dst, name)
		switch {
		case errors.Is(err, os.ErrExist):
			continue
		case err == nil:
			return name, os.Remove(dst)
		}
		if _, serr := os.Lstat(name); serr == nil {
			continue
		}
		return name, os.Rename(dst, name)
	}
	return "", fmt.Errorf("100 databases kept aside in the second %s already", base)
}

// quiesce makes the database at path one self-contained file, its
// write-ahead log folded in, and fails when another connection has it
// open: leaving WAL mode needs the only connection.
func quiesce(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", sqliteURL(path, "_pragma=busy_timeout(0)"))
	if err != nil {
		return fmt.Errorf("restore: open the current database: %w", err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode=DELETE`).Scan(&mode); err != nil || mode != "delete" {
		return fmt.Errorf("restore: the database at %s is in use; stop every taskd serve and command on it first", path)
	}
	return nil
}

// checkSQLite checks a database file: its integrity, and that it holds
// taskd's schema no newer than this binary's.
func checkSQLite(ctx context.Context, path string) (Backup, error) {
	b := Backup{Path: path}
	st, err := os.Stat(path)
	if err != nil {
		return b, err
	}
	b.Bytes = st.Size()
	db, err := sql.Open("sqlite", sqliteURL(path, "mode=ro&_pragma=busy_timeout(10000)"))
	if err != nil {
		return b, err
	}
	defer db.Close()
	var verdict string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&verdict); err != nil {
		return b, fmt.Errorf("not a SQLite database: %w", err)
	}
	if verdict != "ok" {
		return b, fmt.Errorf("damaged: %s", verdict)
	}
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&b.Schema); err != nil {
		return b, errors.New("not a taskd database (no schema_migrations)")
	}
	if newest := newestMigration(newSQLite()); b.Schema > newest {
		return b, fmt.Errorf("made by a newer taskd (schema %d; this one knows up to %d)", b.Schema, newest)
	}
	return b, nil
}

func sqliteURL(path, query string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + query
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
