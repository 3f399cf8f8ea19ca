package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
)

// demoOnce runs serve --dev --demo until it has made the demo account,
// then stops it, and returns the demo's API key.
func demoOnce(t *testing.T, s storage) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--dev", "--demo", "--addr", "127.0.0.1:0"}, s.args()...), noEnv, &out, io.Discard)
	}()
	for deadline := time.Now().Add(20 * time.Second); !listenRE.MatchString(out.String()); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve --demo did not start:\n%s", out.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return demoKeyRE.FindStringSubmatch(out.String())[1]
}

// unopened counts the sealed values in the database that do not open
// with key alone.
func unopened(t *testing.T, s storage, key string) (n int, kinds map[string]int) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := secret.NewSealer(raw)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), store.Options{DataDir: s.data, URL: s.db})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	kinds = map[string]int{}
	_, err = db.Reseal(context.Background(), func(kind, owner string, sealed []byte) ([]byte, error) {
		kinds[kind]++
		ad, err := sealAD(kind, owner)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sealer.Open(sealed, ad); err != nil {
			n++
		}
		return sealed, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, kinds
}

// TestMasterKeyRotation: with the new key and the old one, everything
// sealed before still opens; reseal seals it all with the new key, after
// which the old one can go; a wrong old key changes nothing.
func TestMasterKeyRotation(t *testing.T) {
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) { testMasterKeyRotation(t, st) })
	}
}

func testMasterKeyRotation(t *testing.T, st storage) {
	old := st.masterKey
	apiKey := demoOnce(t, st) // an API key, a webhook secret, a signing key and a kept invitation

	out, _, err := runCLI("master-key", "new")
	var printed map[string]string
	if err != nil || json.Unmarshal([]byte(out), &printed) != nil {
		t.Fatalf("master-key new: %v %q", err, out)
	}
	newKey := printed["master_key"]
	if raw, err := base64.StdEncoding.DecodeString(newKey); err != nil || len(raw) != 32 || newKey == old {
		t.Fatalf("master-key new printed %q", newKey)
	}
	if n, kinds := unopened(t, st, old); n != 0 || kinds[store.SealedAPIKey] == 0 || kinds[store.SealedWebhookSecret] == 0 ||
		kinds[store.SealedSigningKey] == 0 || kinds[store.SealedMail] == 0 {
		t.Fatalf("before the rotation: %d values do not open with the old key; kinds %v", n, kinds)
	}
	rotating := storage{data: st.data, db: st.db, masterKey: newKey}
	// A wrong old key: nothing opens, nothing changes.
	if _, err := cli(t, rotating, "master-key", "reseal", "--old-master-keys", testWrongKey); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("reseal with a wrong old key: %v", err)
	}
	if n, _ := unopened(t, st, old); n != 0 {
		t.Fatalf("a failed reseal changed %d values", n)
	}
	// The new key with the old one: the server serves what the old key sealed.
	base, _ := startServer(t, rotating, "--old-master-keys", old)
	if code, _ := testsite.APICall(t, base+"/a/demo", apiKey, "action=get_projects"); code != 200 {
		t.Fatalf("the API key under the new key with the old one held: %d", code)
	}
	counts := cliPrinted[struct {
		Status          string
		APIKey          int `json:"api key"`
		WebhookSecret   int `json:"webhook secret"`
		WebhookPassword int `json:"webhook password"`
		SigningKey      int `json:"signing key"`
		Mail            int `json:"mail"`
	}](t, rotating, "master-key", "reseal", "--old-master-keys", old)
	if counts.Status != "ok" || counts.APIKey == 0 || counts.WebhookSecret == 0 || counts.SigningKey == 0 || counts.Mail == 0 {
		t.Fatalf("reseal printed %+v", counts)
	}
	if n, kinds := unopened(t, st, newKey); n != 0 {
		t.Fatalf("after the reseal %d values of %v do not open with the new key alone", n, kinds)
	}
	// The old key can go.
	base, _ = startServer(t, rotating)
	if code, _ := testsite.APICall(t, base+"/a/demo", apiKey, "action=get_projects"); code != 200 {
		t.Fatalf("the API key under the new key alone: %d", code)
	}
}

// testWrongKey is a well-formed master key that sealed nothing.
var testWrongKey = base64.StdEncoding.EncodeToString(make([]byte, 32))

// TestNoNewMasterKeyForASealedDatabase: a data directory without master.key
// gets a new key only while its database holds nothing sealed. A database
// that holds sealed values (restored from a backup into a new --data on
// SQLite, reached from a new --data on PostgreSQL) is refused by serve,
// with --demo or without, and by every command that seals or opens, with
// one message that says what to do; no key file is made. With the key put
// back, serve starts and the old API key works.
func TestNoNewMasterKeyForASealedDatabase(t *testing.T) {
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) {
			st.masterKey = "" // the key file in --data, as taskd makes it
			// A fresh database: serve makes the key, as it always has.
			p := startProcess(t, st)
			keyFile := filepath.Join(st.data, "master.key")
			if _, err := os.Stat(keyFile); err != nil {
				t.Fatalf("serve on a fresh database made no master key: %v", err)
			}
			slug := testaccount.UniqueSlug("sealed")
			apiKey := cliJSON(t, st, "account", "create", "--slug", slug, "--owner-email", slug+"@example.com", "--owner-password", password)["api_key"]

			// The same database in a new data directory, without its key.
			moved := storage{data: t.TempDir(), db: st.db}
			if st.db == "" {
				backup := filepath.Join(t.TempDir(), "backup.db")
				cliPrinted[backupOut](t, st, "backup", "--to", backup)
				// restore says what serve will want.
				_, stderr, err := runCLI(append([]string{"restore", "--from", backup}, moved.where()...)...)
				if err != nil || !strings.Contains(stderr, "no master key in "+moved.data+": put back the master.key that was beside the database") {
					t.Fatalf("restore into a --data without master.key: %v, stderr %q", err, stderr)
				}
			}
			p.kill()
			movedKey := filepath.Join(moved.data, "master.key")
			want := "no master key: " + movedKey + " is missing, but the database holds values sealed with a master key " +
				"(1 API key, 1 token-signing key), which cannot be opened without the key that sealed them; taskd makes no new key for it. " +
				"Put back the master.key that was beside the database when the backup was taken (as " + movedKey + "), " +
				"or pass that key with --master-key (or TASKD_MASTER_KEY)"
			serve := append([]string{"serve", "--dev", "--addr", "127.0.0.1:0", "--log-level", "error"}, moved.args()...)
			for _, args := range [][]string{serve, append(serve, "--demo")} {
				stdout, stderr, code := runProcess(t, nil, args...)
				if code != 1 || stderr != "taskd: "+want+"\n" || stdout != "" {
					t.Fatalf("taskd %s: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and:\ntaskd: %s", strings.Join(args, " "), code, stdout, stderr, want)
				}
			}
			for _, args := range [][]string{
				{"account", "create", "--slug", testaccount.UniqueSlug("after"), "--owner-email", "after@example.com", "--owner-password", password},
				{"apikey", "rotate", "--account", slug},
				{"signing-key", "rotate"},
				{"master-key", "reseal", "--old-master-keys", testWrongKey},
			} {
				if _, err := cli(t, moved, args...); err == nil || !strings.HasPrefix(err.Error(), want+" (stderr") {
					t.Fatalf("taskd %s: %v; want %q", strings.Join(args, " "), err, want)
				}
			}
			// What neither seals nor opens works, and makes no key either.
			cliJSON(t, moved, "client", "create", "--account", slug, "--name", "App", "--redirect-uri", "https://app.example/cb")
			cliJSON(t, moved, "migrate")
			if names := keyFiles(t, moved.data); len(names) != 0 {
				t.Fatalf("refused, yet %v made in %s", names, moved.data)
			}

			// The key put back: serve starts, and the old API key works.
			key, err := os.ReadFile(keyFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(movedKey, key, 0o600); err != nil {
				t.Fatal(err)
			}
			q := startProcess(t, moved)
			if code, body := testsite.APICall(t, q.base+"/a/"+slug, apiKey, "action=get_projects"); code != 200 {
				t.Fatalf("the old API key with the key put back: %d %v", code, body)
			}
		})
	}
}

// keyFiles lists the master key files in dir, and the temporary files
// taskd writes one through.
func keyFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), "master.key") {
			out = append(out, e.Name())
		}
	}
	return out
}
