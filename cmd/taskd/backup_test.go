package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/wire"
)

// backupOut is what backup and restore print (README.md, Commands): a
// number printed as a string fails to decode.
type backupOut struct {
	Status   string `json:"status"`
	Path     string `json:"path"`
	Bytes    int64  `json:"bytes"`
	Schema   int    `json:"schema"`
	Previous string `json:"previous"` // restore only
}

// TestBackupUnderWriteLoadRestores: a backup taken while writers post
// tasks to a running server, restored into a new data directory, holds
// every task whose post was answered before the backup began, and nothing
// that was never posted.
func TestBackupUnderWriteLoadRestores(t *testing.T) {
	st := storage{data: testdb.New(t, "sqlite").Dir, masterKey: testdb.MasterKeyBase64()}
	p := startProcess(t, st)
	slug := testaccount.UniqueSlug("backup")
	acct := cliJSON(t, st, "account", "create", "--slug", slug, "--owner-email", slug+"@example.com", "--owner-password", password)
	key := acct["api_key"]
	_, body := testsite.APICall(t, p.base+"/a/"+slug, key, "action=post_project&title=Load")
	pid := body["data"].(map[string]any)["id"].(string)

	var (
		mu     sync.Mutex
		acked  = map[string]bool{} // answered ok
		posted = map[string]bool{} // sent, answered or not
		stop   = make(chan struct{})
		wg     sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second}
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				title := fmt.Sprintf("w%d-%d", w, i)
				mu.Lock()
				posted[title] = true
				mu.Unlock()
				q := "action=post_task&id_project=" + pid + "&title=" + title
				res, err := client.Get(p.base + "/a/" + slug + "/api/admin/v2/?" + q + "&hash=" + wire.Hash(q, key))
				if err != nil {
					continue
				}
				ok := res.StatusCode == 200
				res.Body.Close()
				if ok {
					mu.Lock()
					acked[title] = true
					mu.Unlock()
				}
			}
		})
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	for count() < 200 {
		time.Sleep(10 * time.Millisecond)
	}
	file := filepath.Join(t.TempDir(), "taskd-backup.db")
	var (
		before []string
		during int
	)
	ok := t.Run("a backup taken under the write load is a new file its owner alone reads", func(t *testing.T) {
		mu.Lock()
		before = make([]string, 0, len(acked))
		for title := range acked {
			before = append(before, title)
		}
		mu.Unlock()
		out := cliPrinted[backupOut](t, st, "backup", "--to", file)
		during = count() - len(before)
		for count() < len(before)+during+100 { // and the writers go on after it
			time.Sleep(10 * time.Millisecond)
		}
		if out.Status != "ok" || out.Path != file || out.Bytes == 0 || out.Schema == 0 {
			t.Fatalf("backup printed %v", out)
		}
		if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("backup file: %v, mode %v; want 0600", err, info.Mode())
		}
		if _, err := cli(t, st, "backup", "--to", file); err == nil || !strings.Contains(err.Error(), "exists") {
			t.Fatalf("a second backup to the same file: %v", err)
		}
	}) && t.Run("restore refuses a database a running server has open", func(t *testing.T) {
		if _, err := cli(t, st, "restore", "--from", file); err == nil || !strings.Contains(err.Error(), "in use") {
			t.Fatalf("restore over a running server: %v", err)
		}
	})
	close(stop)
	wg.Wait()
	if !ok {
		return
	}

	t.Run("the restored database holds every task answered before the backup began, and nothing never posted", func(t *testing.T) {
		restored := storage{data: t.TempDir(), masterKey: st.masterKey}
		cliPrinted[backupOut](t, restored, "restore", "--from", file)
		q := startProcess(t, restored)
		code, body := testsite.APICall(t, q.base+"/a/"+slug, key, "action=get_all_tasks&filter=active")
		if code != 200 {
			t.Fatalf("get_all_tasks on the restored database (the old key): %d %v", code, body)
		}
		have := map[string]bool{}
		for _, task := range body["data"].([]any) {
			have[task.(map[string]any)["name"].(string)] = true
		}
		for _, title := range before {
			if !have[title] {
				t.Fatalf("task %s, answered before the backup began, is not in it (%d of %d restored)", title, len(have), len(before))
			}
		}
		for title := range have {
			if !posted[title] {
				t.Fatalf("the restored database has %s, which was never posted", title)
			}
		}
		t.Logf("%d tasks answered before the backup, %d while it ran; %d in the backup; %d answered in all", len(before), during, len(have), len(acked))
	})
}

// TestRestoreRefusesWhatIsNotABackup: restore checks the file before it
// touches the database, and keeps the database it replaces.
func TestRestoreRefusesWhatIsNotABackup(t *testing.T) {
	st := storage{data: testdb.New(t, "sqlite").Dir, masterKey: testdb.MasterKeyBase64()}
	cliJSON(t, st, "migrate")
	junk := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(junk, []byte("not a database, only some text that is long enough to look like one"), 0o600)
	for _, from := range []string{junk, filepath.Join(t.TempDir(), "absent.db")} {
		if _, err := cli(t, st, "restore", "--from", from); err == nil || !strings.Contains(err.Error(), "not a usable taskd backup") {
			t.Fatalf("restore --from %s: %v", from, err)
		}
	}
	file := filepath.Join(t.TempDir(), "good.db")
	cliPrinted[backupOut](t, st, "backup", "--to", file)
	out := cliPrinted[backupOut](t, st, "restore", "--from", file)
	if !strings.Contains(out.Previous, "taskd.db.before-restore-") {
		t.Fatalf("restore printed %v", out)
	}
	if _, err := os.Stat(out.Previous); err != nil {
		t.Fatalf("the replaced database was not kept: %v", err)
	}
	if _, err := cli(t, storage{data: st.data, db: "postgres://x@127.0.0.1/x"}, "backup", "--to", file+"2"); err == nil || !strings.Contains(err.Error(), "pg_dump") {
		t.Fatalf("backup on PostgreSQL: %v", err)
	}
}
