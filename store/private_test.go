//go:build unix

package store_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// TestDataFilesArePrivate: under a umask that hides nothing and in a data
// directory others may read, the database, its -wal and -shm, the master
// key, a backup and the database a restore keeps are readable by their
// owner alone. Not parallel: the umask is the process's.
func TestDataFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
	ctx := context.Background()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := secret.LoadKey("", data); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, store.Options{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	acct, _ := storetest.NewAccount(t, db, "private")
	if _, err := db.AddMember(ctx, acct.ID, taskd.NewPerson{Email: acct.Slug + "-x@example.com", PasswordHash: "x"}, taskd.RoleUser); err != nil {
		t.Fatal(err)
	}
	wantPrivate := func(paths ...string) {
		t.Helper()
		for _, p := range paths {
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("%s has mode %04o, want 0600", filepath.Base(p), st.Mode().Perm())
			}
		}
	}
	live := filepath.Join(data, "taskd.db")
	wantPrivate(live, live+"-wal", live+"-shm", filepath.Join(data, "master.key"))

	copyPath := filepath.Join(dir, "backup.db")
	if _, err := store.BackupSQLite(ctx, data, copyPath); err != nil {
		t.Fatal(err)
	}
	wantPrivate(copyPath)
	db.Close()

	// A database from before the rule, readable by all, is made private
	// when it is opened; the one a restore keeps aside is private too.
	if err := os.Chmod(live, 0o644); err != nil {
		t.Fatal(err)
	}
	_, previous, err := store.RestoreSQLite(ctx, copyPath, data, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	wantPrivate(previous, live)
	if err := os.Chmod(live, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = store.Open(ctx, store.Options{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantPrivate(live)
}
