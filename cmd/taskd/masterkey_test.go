package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

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
