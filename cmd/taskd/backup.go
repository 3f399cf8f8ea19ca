package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/taskd/taskd/store"
)

// pgDumpHint is what backup and restore say for PostgreSQL, whose own
// tools copy a database online.
const pgDumpHint = "for PostgreSQL use its own tools: pg_dump --format=custom --file=FILE URL to back up while taskd runs, pg_restore --clean --dbname=URL FILE to restore (docs/operations.md)"

func backup(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("backup", "Copy the SQLite database to a new file while servers keep running: a consistent snapshot of every committed change, checked before it is named. The master key is not in the copy: keep a copy of it, apart from the backups; a restored database opens only with it. F"+pgDumpHint[1:]+".")
	sf.register(fs, e.stderr, 0)
	to := fs.String("to", "", "the backup file to write; must not exist (required)")
	if err := parseFlags(fs, e, args, "to"); err != nil {
		return helpOK(err)
	}
	if sf.db != "" {
		return errors.New("backup copies the SQLite database; " + pgDumpHint)
	}
	b, err := store.BackupSQLite(ctx, dataDir(sf.data), *to)
	if err != nil {
		return err
	}
	// A reminder: without --master-key of its own, backup names the key
	// the servers most likely use.
	key := "the master key your servers are given (--master-key)"
	if path := filepath.Join(dataDir(sf.data), "master.key"); e.getenv("TASKD_MASTER_KEY") != "" {
		key = "the master key in TASKD_MASTER_KEY"
	} else if exists(path) {
		key = path
	}
	fmt.Fprintf(e.stderr, "taskd: the backup does not hold the master key: keep a copy of %s, stored apart from the backups; "+
		"the secrets in the backup open only with that key\n", key)
	return printJSON(e.stdout, backupJSON(b, ""))
}

func restore(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("restore", "Put a backup made by \"taskd backup\" in place of the SQLite database in --data, after checking it. Stop every server on --data first: a database in use is refused. The database it replaces is kept beside it as taskd.db.before-restore-TIME. F"+pgDumpHint[1:]+".")
	sf.register(fs, e.stderr, 0)
	from := fs.String("from", "", "the backup file to restore (required)")
	if err := parseFlags(fs, e, args, "from"); err != nil {
		return helpOK(err)
	}
	if sf.db != "" {
		return errors.New("restore replaces the SQLite database; " + pgDumpHint)
	}
	dir := dataDir(sf.data)
	b, previous, err := store.RestoreSQLite(ctx, *from, dir, time.Now())
	if err != nil {
		return err
	}
	if path := filepath.Join(dir, "master.key"); !exists(path) && e.getenv("TASKD_MASTER_KEY") == "" {
		fmt.Fprintf(e.stderr, "taskd: no master key in %s: put back the master.key that was beside the database when the backup was taken "+
			"(or give the server that key with --master-key); until then taskd will not start on this database\n", dir)
	}
	return printJSON(e.stdout, backupJSON(b, previous))
}

// backupPrinted is what backup and restore print, in this order.
type backupPrinted struct {
	Status   string `json:"status"`
	Path     string `json:"path"`
	Bytes    int64  `json:"bytes"`
	Schema   int    `json:"schema"`
	Previous string `json:"previous,omitempty"` // restore: the database it replaced
}

func backupJSON(b store.Backup, previous string) backupPrinted {
	return backupPrinted{Status: "ok", Path: b.Path, Bytes: b.Bytes, Schema: b.Schema, Previous: previous}
}

// exists reports whether a file is there.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// dataDir is --data, with the default the store uses for an empty value.
func dataDir(flag string) string {
	if flag == "" {
		return "taskd-data"
	}
	return flag
}
