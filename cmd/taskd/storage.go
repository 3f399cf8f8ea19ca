package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
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
	fs        *flag.FlagSet
	// warn tells the operator what the flags leave open to other local
	// users (exposures); serve logs it.
	warn func(msg string)
}

func (s *storageFlags) register(fs *flag.FlagSet, stderr io.Writer) {
	s.fs = fs
	s.warn = func(msg string) { fmt.Fprintln(stderr, "taskd: warning:", msg) }
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
	for _, msg := range s.exposures() {
		s.warn(msg)
	}
	return db, sealer, nil
}

// exposures lists what the flags leave readable by other local users: a
// master key given on the command line (any user sees a process's
// arguments), and a data directory that others may list or read.
func (s *storageFlags) exposures() []string {
	var out []string
	if s.fs != nil {
		s.fs.Visit(func(f *flag.Flag) { // the flags given as arguments, not from the environment
			if f.Name == "master-key" || f.Name == "old-master-keys" {
				out = append(out, fmt.Sprintf("--%s on the command line is visible to every local user (ps, /proc); "+
					"give it as %s, or keep the key in the data directory's master.key (docs/operations.md)", f.Name, envName(f.Name)))
			}
		})
	}
	// With PostgreSQL too: the master key's file is kept there.
	dir := s.data
	if dir == "" {
		dir = "taskd-data"
	}
	if st, err := os.Stat(dir); err == nil && st.Mode().Perm()&0o077 != 0 {
		out = append(out, fmt.Sprintf("the data directory %s may be read by other users (mode %04o); taskd's files in it are private (0600), "+
			"but make it private too: chmod 700 %s", dir, st.Mode().Perm(), dir))
	}
	return out
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
