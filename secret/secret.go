// Package secret hashes passwords, seals keys that the server must read back,
// and makes random tokens. Nothing here logs or returns a secret in an error.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Hasher hashes passwords with argon2id at a cost. The zero value is the
// production cost, RFC 9106's second recommended option with lighter
// memory: two passes over 19 MiB in one lane, about 25 ms a hash (70 ms
// under the race detector). Tests that do not test hashing lower it
// (internal/testaccount.Hasher), as every test site signs its people in.
type Hasher struct {
	Passes    uint32 // argon2id's t; 2 when zero
	MemoryKiB uint32 // argon2id's m; 19 MiB when zero, at least 8
}

// The production cost (the zero Hasher) and the fixed parameters.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024 // KiB
	argonThreads = 1
	argonKeyLen  = 32
)

// Hash returns an argon2id hash of password in PHC string form. The cost is
// written in the hash, so VerifyPassword checks a hash of any Hasher.
func (h Hasher) Hash(password string) (string, error) {
	passes, memory := h.Passes, h.MemoryKiB
	if passes == 0 {
		passes = argonTime
	}
	if memory == 0 {
		memory = argonMemory
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("secret: salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, passes, memory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, memory, passes, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// VerifyPassword reports whether password matches the PHC-form hash.
func VerifyPassword(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m > 1<<20 || t > 10 || p == 0 {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// Token returns n random bytes as a URL-safe string.
func Token(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("secret: crypto/rand failed: " + err.Error()) // never happens on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// APIKey returns a new administrative API key: 32 lower-case hex digits, the
// form clients of this API expect.
func APIKey() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("secret: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// Sealer encrypts small secrets at rest with the server's key (AES-256-GCM)
// and authenticates values the server hands out and must recognise (MAC).
// During a rotation it also holds the keys it replaces: what they sealed
// still opens, and their MACs still verify, while everything new is sealed
// and signed with the current key.
type Sealer struct {
	aead   cipher.AEAD
	macKey []byte // HMAC-SHA256(server key, "taskd/mac/v1"): never the encryption key itself
	old    []*Sealer
}

// NewSealer returns a Sealer for a 32-byte key, and the keys it replaces.
func NewSealer(key []byte, old ...[]byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, errors.New("secret: the server key must be 32 bytes")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("taskd/mac/v1"))
	s := &Sealer{aead: aead, macKey: m.Sum(nil)}
	for _, k := range old {
		o, err := NewSealer(k)
		if err != nil {
			return nil, fmt.Errorf("secret: an old master key: %w", err)
		}
		s.old = append(s.old, o)
	}
	return s, nil
}

// Rotating reports whether the Sealer holds old keys.
func (s *Sealer) Rotating() bool { return len(s.old) > 0 }

// MAC returns HMAC-SHA256 over purpose and data, under a key derived from
// the server key, so that every replica computes the same value.
func (s *Sealer) MAC(purpose string, data []byte) []byte {
	m := hmac.New(sha256.New, s.macKey)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(data)
	return m.Sum(nil)
}

// MACs returns the MAC under the current key, then under each old one: a
// value handed out before a rotation verifies against one of them.
func (s *Sealer) MACs(purpose string, data []byte) [][]byte {
	out := [][]byte{s.MAC(purpose, data)}
	for _, o := range s.old {
		out = append(out, o.MAC(purpose, data))
	}
	return out
}

// HashToken returns the hex SHA-256 of a random token, the form in which
// client secrets, codes, refresh tokens and sessions are stored. Tokens carry
// 256 bits of entropy, so a fast hash is enough; passwords use a Hasher.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Seal encrypts plain; additional binds the ciphertext to its owner (for
// example an account slug) so that it cannot be moved to another row.
func (s *Sealer) Seal(plain, additional []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic("secret: crypto/rand failed: " + err.Error())
	}
	return s.aead.Seal(nonce, nonce, plain, additional)
}

// Open decrypts what Seal produced with the same additional data.
func (s *Sealer) Open(sealed, additional []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("secret: sealed value is too short")
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], additional)
	if err == nil {
		return plain, nil
	}
	for _, o := range s.old {
		if plain, err := o.Open(sealed, additional); err == nil {
			return plain, nil
		}
	}
	return nil, errors.New("secret: sealed value does not open with this server key")
}

// Reseal opens what any of the keys sealed and seals it again with the
// current key: the step of a rotation that retires the old keys.
func (s *Sealer) Reseal(sealed, additional []byte) ([]byte, error) {
	plain, err := s.Open(sealed, additional)
	if err != nil {
		return nil, err
	}
	return s.Seal(plain, additional), nil
}

// LoadKey returns the server key: from value (base64, 32 bytes) when set,
// otherwise from the file master.key in dir, created on first use.
func LoadKey(value, dir string) ([]byte, error) {
	if value != "" {
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(value))
		if err != nil || len(key) != 32 {
			return nil, errors.New("secret: the master key must be 32 bytes in base64")
		}
		return key, nil
	}
	if dir == "" {
		dir = "taskd-data"
	}
	path := filepath.Join(dir, "master.key")
	if b, err := os.ReadFile(path); err == nil {
		return LoadKey(string(b), dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("secret: read master key: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("secret: create data directory: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	// Write a temporary file, then link it into place: a concurrent process
	// either wins the link or reads the complete key of the winner.
	tmp, err := os.CreateTemp(dir, ".master.key-*")
	if err != nil {
		return nil, fmt.Errorf("secret: create master key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("secret: write master key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, os.ErrExist) {
		return LoadKey("", dir)
	} else if err != nil {
		return nil, fmt.Errorf("secret: install master key: %w", err)
	}
	return key, nil
}

// SealAPIKey seals an account's administrative key, bound to its slug so
// that the sealed value cannot be moved to another account.
func (s *Sealer) SealAPIKey(slug, key string) []byte { return s.Seal([]byte(key), []byte(slug)) }

// OpenAPIKey opens what SealAPIKey sealed.
func (s *Sealer) OpenAPIKey(slug string, sealed []byte) ([]byte, error) {
	return s.Open(sealed, []byte(slug))
}
