package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
)

// storageFlags are the flags every command shares to reach the data.
type storageFlags struct {
	data      string
	db        string
	masterKey string
	oldKeys   string // --old-master-keys, during a rotation
	publicURL string
}

func (s *storageFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.data, "data", "./taskd-data", "directory of the SQLite database and the server key file")
	fs.StringVar(&s.db, "db", "", "PostgreSQL URL (postgres://…); SQLite in --data when empty")
	fs.StringVar(&s.masterKey, "master-key", "", "base64 32-byte key that encrypts stored API keys; default: --data/master.key, created on first use")
	fs.StringVar(&s.oldKeys, "old-master-keys", "", "during a master-key rotation: the keys being replaced, base64, comma-separated; what they sealed still opens (docs/operations.md)")
	fs.StringVar(&s.publicURL, "public-url", "", "public URL of the server (default http://ADDR, for --dev)")
}

// open opens the store and the sealer for stored keys.
func (s *storageFlags) open(ctx context.Context) (*store.DB, *secret.Sealer, error) {
	return s.openWith(ctx, store.Options{})
}

// openWith is open with more store options (URL and DataDir come from the
// flags).
func (s *storageFlags) openWith(ctx context.Context, o store.Options) (*store.DB, *secret.Sealer, error) {
	key, err := secret.LoadKey(s.masterKey, s.data)
	if err != nil {
		return nil, nil, err
	}
	var old [][]byte
	for v := range strings.SplitSeq(s.oldKeys, ",") {
		if strings.TrimSpace(v) == "" {
			continue
		}
		k, err := secret.LoadKey(v, "")
		if err != nil {
			return nil, nil, fmt.Errorf("--old-master-keys: %w", err)
		}
		old = append(old, k)
	}
	sealer, err := secret.NewSealer(key, old...)
	if err != nil {
		return nil, nil, err
	}
	o.URL, o.DataDir = s.db, s.data
	db, err := store.Open(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	return db, sealer, nil
}

// openAccount opens the store and finds the account a command works on.
// The caller closes the store.
func (s *storageFlags) openAccount(ctx context.Context, slug string) (*store.DB, *secret.Sealer, taskd.Account, error) {
	db, sealer, err := s.open(ctx)
	if err != nil {
		return nil, nil, taskd.Account{}, err
	}
	a, err := db.AccountBySlug(ctx, slug)
	if err != nil {
		db.Close()
		if taskd.IsNotFound(err) {
			return nil, nil, a, fmt.Errorf("no account %q", slug)
		}
		return nil, nil, a, err
	}
	return db, sealer, a, nil
}

// baseURL is the public URL without a trailing slash.
func (s *storageFlags) baseURL(addr string) string {
	if s.publicURL != "" {
		return strings.TrimRight(s.publicURL, "/")
	}
	return "http://" + addr
}
