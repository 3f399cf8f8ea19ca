package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/taskd/taskd/store"
)

// pgDumpHint is what backup and restore say for PostgreSQL, whose own
// tools copy a database online.
const pgDumpHint = "for PostgreSQL use its own tools: pg_dump --format=custom --file=FILE URL to back up while taskd runs, pg_restore --clean --dbname=URL FILE to restore (docs/operations.md)"

func backup(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("backup", "Copy the SQLite database to a new file while servers keep running: a consistent snapshot of every committed change, checked before it is named. The master key is not in the copy; keep it with the backup. "+pgDumpHint+".")
	sf.register(fs, e.stderr)
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
	if sf.masterKey == "" {
		fmt.Fprintf(e.stderr, "taskd: keep %s with the backup: the keys stored in it open only with that master key\n",
			filepath.Join(dataDir(sf.data), "master.key"))
	}
	return printJSON(e.stdout, backupJSON(b, nil))
}

func restore(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("restore", "Put a backup made by \"taskd backup\" in place of the SQLite database in --data, after checking it. Stop every server on --data first: a database in use is refused. The database it replaces is kept beside it as taskd.db.before-restore-TIME. "+pgDumpHint+".")
	sf.register(fs, e.stderr)
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
	if _, err := os.Stat(filepath.Join(dir, "master.key")); sf.masterKey == "" && err != nil {
		fmt.Fprintf(e.stderr, "taskd: no master key in %s: put the one kept with the backup there (or pass --master-key) before starting the server\n", dir)
	}
	return printJSON(e.stdout, backupJSON(b, map[string]string{"previous": previous}))
}

// backupJSON is what backup and restore print: strings, like every
// command's output.
func backupJSON(b store.Backup, more map[string]string) map[string]string {
	m := map[string]string{"status": "ok", "path": b.Path, "bytes": strconv.FormatInt(b.Bytes, 10), "schema": strconv.Itoa(b.Schema)}
	maps.Copy(m, more)
	return m
}

// dataDir is --data, with the default the store uses for an empty value.
func dataDir(flag string) string {
	if flag == "" {
		return "taskd-data"
	}
	return flag
}
