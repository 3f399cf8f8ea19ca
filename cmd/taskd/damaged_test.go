package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
)

// TestDamagedPageIsRefused: a SQLite file with one page in its middle
// overwritten (a leaf of the tasks table, its header at the page boundary)
// is refused by backup (from a damaged database) and by restore (from a
// damaged backup), each with an error that says so; the file read stays
// byte for byte as it was, no backup appears, and the database a restore
// would have replaced is untouched, with nothing left beside it.
func TestDamagedPageIsRefused(t *testing.T) {
	st := storage{data: testdb.New(t, "sqlite").Dir, masterKey: testdb.MasterKeyBase64()}
	fillTasks(t, st, 600)
	good := filepath.Join(t.TempDir(), "good.db")
	cliPrinted[backupOut](t, st, "backup", "--to", good)

	t.Run("backup of a damaged database", func(t *testing.T) {
		live := storage{data: t.TempDir(), masterKey: st.masterKey}
		cliPrinted[backupOut](t, live, "restore", "--from", good)
		db := filepath.Join(live.data, "taskd.db")
		damage(t, db)
		before := read(t, db)
		to := filepath.Join(t.TempDir(), "backup.db")
		_, err := cli(t, live, "backup", "--to", to)
		t.Logf("refused: %v", err)
		if err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Fatalf("backup of a damaged database: %v; want an error naming the damage", err)
		}
		if !bytes.Equal(read(t, db), before) {
			t.Fatal("backup changed the database it read")
		}
		if left := listDir(t, filepath.Dir(to)); len(left) != 0 {
			t.Fatalf("backup left %v", left)
		}
	})

	t.Run("restore of a damaged backup", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.db")
		os.WriteFile(bad, read(t, good), 0o600)
		damage(t, bad)
		backupBefore := read(t, bad)
		target := storage{data: testdb.New(t, "sqlite").Dir, masterKey: st.masterKey}
		cliJSON(t, target, "migrate")
		db := filepath.Join(target.data, "taskd.db")
		quiet(t, db)
		dbBefore, dirBefore := read(t, db), listDir(t, target.data)
		_, err := cli(t, target, "restore", "--from", bad)
		t.Logf("refused: %v", err)
		if err == nil || !strings.Contains(err.Error(), "not a usable taskd backup") || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("restore of a damaged backup: %v; want it refused as damaged", err)
		}
		if !bytes.Equal(read(t, bad), backupBefore) {
			t.Fatal("restore changed the backup it read")
		}
		if !bytes.Equal(read(t, db), dbBefore) {
			t.Fatal("restore changed the database it refused to replace")
		}
		if after := listDir(t, target.data); strings.Join(after, " ") != strings.Join(dirBefore, " ") {
			t.Fatalf("the data directory held %v before the refused restore and %v after", dirBefore, after)
		}
	})
}

// fillTasks makes an account with a project of n tasks, each with a text of
// a few hundred bytes, so that the tasks take most of the file's pages.
func fillTasks(t *testing.T, st storage, n int) {
	t.Helper()
	ctx := context.Background()
	db := openStore(t, st)
	slug := testaccount.UniqueSlug("damaged")
	acct, owner, err := db.CreateAccount(ctx, taskd.NewAccount{Slug: slug, Name: "Damaged", APIKey: []byte("x"),
		Owner: taskd.NewPerson{Email: slug + "@example.com", PasswordHash: "x", FirstName: "Ann", LastName: "Lee"}})
	if err != nil {
		t.Fatal(err)
	}
	by := taskd.Actor{AccountID: acct.ID, Person: owner.Ref(), Role: taskd.RoleOwner}
	name := "Pages"
	p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		name, text := fmt.Sprintf("task %d", i), strings.Repeat(fmt.Sprintf("line %d of a long text. ", i), 20)
		if _, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: &name, Text: &text}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
}

// damage overwrites the first bytes of a leaf page of the tasks table near
// the middle of the SQLite file at path (the page's header, at the page
// boundary), as a torn write or a bad disk sector would.
func damage(t *testing.T, path string) {
	t.Helper()
	quiet(t, path)
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var pageSize, pages, page int64
	err = db.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
	if err == nil {
		err = db.QueryRow(`PRAGMA page_count`).Scan(&pages)
	}
	if err == nil {
		// The middle one of the table's leaf pages (other tables and the
		// search index may fill the end of the file).
		err = db.QueryRow(`SELECT pageno FROM dbstat WHERE name = 'tasks' AND pagetype = 'leaf'
			ORDER BY pageno LIMIT 1 OFFSET (SELECT COUNT(*) / 2 FROM dbstat WHERE name = 'tasks' AND pagetype = 'leaf')`).Scan(&page)
	}
	db.Close()
	if err != nil {
		t.Fatalf("finding a page of the tasks table: %v", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, 64), (page-1)*pageSize); err != nil {
		t.Fatal(err)
	}
	t.Logf("page %d of %d (%d bytes each) overwritten", page, pages, pageSize)
}

// quiet folds the write-ahead log into the file at path, so that the file
// alone is the database.
func quiet(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`PRAGMA journal_mode=DELETE`); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// listDir names the files in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
