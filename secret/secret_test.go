package secret

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestPasswordHash: the zero Hasher hashes at the production cost, the
// one in the hash, and VerifyPassword takes the right password only.
func TestPasswordHash(t *testing.T) {
	t.Parallel()
	h, err := Hasher{}.Hash("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(h, "correct") {
		t.Fatalf("hash = %q, want argon2id at m=19456,t=2,p=1", h)
	}
	if !VerifyPassword(h, "correct horse") {
		t.Fatal("the right password was refused")
	}
	for _, bad := range []string{"correct horse ", "", "Correct horse"} {
		if VerifyPassword(h, bad) {
			t.Fatalf("wrong password %q accepted", bad)
		}
	}
	for _, broken := range []string{"", "$argon2id$", "$bcrypt$v=19$m=1,t=1,p=1$AA$AA", "$argon2id$v=19$m=99999999,t=1,p=1$AA$AA"} {
		if VerifyPassword(broken, "x") {
			t.Fatalf("broken hash %q accepted", broken)
		}
	}
}

// TestHasherCost: a Hasher's cost is the one in its hashes, and they
// verify as the production cost's do.
func TestHasherCost(t *testing.T) {
	t.Parallel()
	h, err := Hasher{Passes: 1, MemoryKiB: 8}.Hash("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=8,t=1,p=1$") {
		t.Fatalf("hash = %q, want argon2id at m=8,t=1,p=1", h)
	}
	if !VerifyPassword(h, "correct horse") || VerifyPassword(h, "correct horse ") {
		t.Fatal("a cheap hash does not verify as it should")
	}
}

func TestSealer(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{7}, 32)
	s, err := NewSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	sealed := s.Seal([]byte("api-key"), []byte("acme"))
	if bytes.Contains(sealed, []byte("api-key")) {
		t.Fatal("sealed value contains the plain text")
	}
	if got, err := s.Open(sealed, []byte("acme")); err != nil || string(got) != "api-key" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := s.Open(sealed, []byte("other")); err == nil {
		t.Fatal("sealed value opened for another owner")
	}
	other, _ := NewSealer(bytes.Repeat([]byte{8}, 32))
	if _, err := other.Open(sealed, []byte("acme")); err == nil {
		t.Fatal("sealed value opened with another key")
	}
	if _, err := NewSealer([]byte("short")); err == nil {
		t.Fatal("short key accepted")
	}
}

func TestLoadKeyCreatesOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			k, err := LoadKey("", dir)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}(i)
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if !bytes.Equal(k, keys[0]) || len(k) != 32 {
			t.Fatalf("processes disagree on the key")
		}
	}
	info, err := os.Stat(filepath.Join(dir, "master.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
	explicit := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32))
	if k, err := LoadKey(explicit, dir); err != nil || k[0] != 1 {
		t.Fatalf("explicit key: %v", err)
	}
	if _, err := LoadKey("not base64!", dir); err == nil {
		t.Fatal("bad explicit key accepted")
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	if a, b := Token(32), Token(32); a == b || len(a) != 43 || strings.ContainsAny(a, "+/=") {
		t.Fatalf("tokens %q %q", a, b)
	}
	if k := APIKey(); len(k) != 32 || strings.Trim(k, "0123456789abcdef") != "" {
		t.Fatalf("api key %q", k)
	}
}

// TestSealerRotation: a Sealer holding old keys opens and verifies what
// they made, seals and signs only with the current key, and Reseal moves
// a value to the current key.
func TestSealerRotation(t *testing.T) {
	oldKey, newKey := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	before, _ := NewSealer(oldKey)
	after, _ := NewSealer(newKey)
	rotating, err := NewSealer(newKey, oldKey)
	if err != nil || !rotating.Rotating() || after.Rotating() {
		t.Fatal(err)
	}
	sealed := before.Seal([]byte("api key"), []byte("acme"))
	if plain, err := rotating.Open(sealed, []byte("acme")); err != nil || string(plain) != "api key" {
		t.Fatalf("the rotating sealer does not open the old key's value: %v", err)
	}
	if _, err := after.Open(sealed, []byte("acme")); err == nil {
		t.Fatal("the new key alone opened the old key's value")
	}
	if _, err := rotating.Open(sealed, []byte("other")); err == nil {
		t.Fatal("an old key's value opened with another owner")
	}
	resealed, err := rotating.Reseal(sealed, []byte("acme"))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := after.Open(resealed, []byte("acme")); err != nil || string(plain) != "api key" {
		t.Fatalf("a resealed value does not open with the new key alone: %v", err)
	}
	if _, err := before.Open(rotating.Seal([]byte("x"), nil), nil); err == nil {
		t.Fatal("the rotating sealer sealed with the old key")
	}
	macs := rotating.MACs("csrf", []byte("v"))
	if len(macs) != 2 || !bytes.Equal(macs[0], after.MAC("csrf", []byte("v"))) || !bytes.Equal(macs[1], before.MAC("csrf", []byte("v"))) {
		t.Fatal("MACs are not the current key's, then the old key's")
	}
	if _, err := NewSealer(newKey, []byte("short")); err == nil {
		t.Fatal("a malformed old key was accepted")
	}
}
