package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
)

// storageFlags are the flags of the commands that reach the data: where it
// is (--data, --db), and, for the commands that use them, the master key
// (--master-key, --old-master-keys). The commands that use --public-url
// (serve, account create) define it, each with its own words.
type storageFlags struct {
	data      string
	db        string
	masterKey string
	oldKeys   string // --old-master-keys, during a rotation
	publicURL string // --public-url, where the command defines it
	fs        *flag.FlagSet
	// secrets are the flags that carry a secret, each with the other ways
	// to give it beside its environment variable (exposures).
	secrets map[string]string
	// warn tells the operator what the flags leave open to other local
	// users (exposures); serve logs it.
	warn func(msg string)
	// warned: the exposures were told (warnExposed tells them once).
	warned bool
}

// The storage flags a command takes besides --data and --db.
const (
	withKey     = 1 << iota // --master-key: it seals stored secrets, or opens them
	withOldKeys             // --old-master-keys: it opens what the keys being replaced sealed
)

func (s *storageFlags) register(fs *flag.FlagSet, stderr io.Writer, with int) {
	s.fs = fs
	s.warn = func(msg string) { fmt.Fprintln(stderr, "taskd: warning:", msg) }
	s.secrets = map[string]string{}
	const keyFile = "keep the key in the data directory's master.key (docs/operations.md)"
	fs.StringVar(&s.data, "data", "./taskd-data", "directory of the SQLite database and of the master key file (master.key)")
	fs.StringVar(&s.db, "db", "", "PostgreSQL URL (postgres://…); SQLite in --data when empty")
	if with&withKey != 0 {
		s.secret("master-key", keyFile)
		fs.StringVar(&s.masterKey, "master-key", "", "base64 32-byte key that seals the stored API keys, signing keys, webhook secrets and queued e-mail; "+
			"default: the file master.key in --data, made only while the database holds nothing sealed")
	}
	if with&withOldKeys != 0 {
		s.secret("old-master-keys", keyFile)
		fs.StringVar(&s.oldKeys, "old-master-keys", "", "during a master-key rotation: the keys being replaced, base64, comma-separated; what they sealed still opens (docs/operations.md)")
	}
}

// open opens the store and the sealer of stored secrets (withKey).
func (s *storageFlags) open(ctx context.Context) (*store.DB, *secret.Sealer, error) {
	return s.openWith(ctx, store.Options{})
}

// openWith is open with more store options (URL and DataDir come from the
// flags).
func (s *storageFlags) openWith(ctx context.Context, o store.Options) (*store.DB, *secret.Sealer, error) {
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
	if s.masterKey != "" { // a bad key is refused before the database is touched
		if _, err := secret.LoadKey(s.masterKey, ""); err != nil {
			return nil, nil, fmt.Errorf("--master-key: %w", err)
		}
	}
	db, err := s.openStoreWith(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	key, err := s.key(ctx, db)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	sealer, err := secret.NewSealer(key, old...)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, sealer, nil
}

// key returns the master key: --master-key, else the data directory's
// master.key. The file is made when missing only while the database holds
// nothing sealed. A database that does (restored, or reached from a new
// data directory) was sealed with a key no new one can replace, and taskd
// refuses rather than make one: under a new key its secrets would never
// open, and the new file would stand where the right one must go back.
func (s *storageFlags) key(ctx context.Context, db *store.DB) ([]byte, error) {
	if s.masterKey == "" {
		path := filepath.Join(dataDir(s.data), "master.key")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			counts, err := db.Sealed(ctx)
			if err != nil {
				return nil, err
			}
			if len(counts) > 0 {
				return nil, missingKey(path, counts)
			}
		}
	}
	return secret.LoadKey(s.masterKey, dataDir(s.data))
}

// sealedKinds are the kinds of sealed values, in the order taskd names them,
// with their words.
var sealedKinds = []struct{ kind, one, many string }{
	{store.SealedAPIKey, "API key", "API keys"},
	{store.SealedSigningKey, "token-signing key", "token-signing keys"},
	{store.SealedWebhookSecret, "webhook secret", "webhook secrets"},
	{store.SealedWebhookPass, "webhook password", "webhook passwords"},
	{store.SealedMail, "queued e-mail", "queued e-mails"},
}

// missingKey is the error of a database holding sealed values (counts, by
// kind) whose master key file (path) is missing.
func missingKey(path string, counts map[string]int) error {
	var what []string
	for _, k := range sealedKinds {
		switch n := counts[k.kind]; n {
		case 0:
		case 1:
			what = append(what, "1 "+k.one)
		default:
			what = append(what, fmt.Sprintf("%d %s", n, k.many))
		}
	}
	return fmt.Errorf("no master key: %s is missing, but the database holds values sealed with a master key (%s), "+
		"which cannot be opened without the key that sealed them; taskd makes no new key for it. "+
		"Put back the master.key that was beside the database when the backup was taken (as %[1]s), "+
		"or pass that key with --master-key (or TASKD_MASTER_KEY)", path, strings.Join(what, ", "))
}

// openStore opens the store, for a command that neither seals nor opens
// stored secrets.
func (s *storageFlags) openStore(ctx context.Context) (*store.DB, error) {
	return s.openStoreWith(ctx, store.Options{})
}

func (s *storageFlags) openStoreWith(ctx context.Context, o store.Options) (*store.DB, error) {
	o.URL, o.DataDir = s.db, s.data
	db, err := store.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	s.warnExposed()
	return db, nil
}

// secret marks the flag name, defined on the command's flag set, as one
// that carries a secret: given on the command line, it is warned of, with
// the other ways to give it (otherWays) beside its environment variable.
func (s *storageFlags) secret(name, otherWays string) { s.secrets[name] = otherWays }

// warnExposed warns, once, of what the flags leave open to other local
// users (exposures); opening the store does, and a command that reads a
// secret of its own may do so earlier.
func (s *storageFlags) warnExposed() {
	if s.warned {
		return
	}
	s.warned = true
	for _, msg := range s.exposures() {
		s.warn(msg)
	}
}

// exposures lists what the flags leave readable by other local users: a
// secret (the master key, the source's key of taskd import) given on the
// command line (any user sees a process's arguments; "-", standard
// input, is no secret), and a data directory that others may list or
// read.
func (s *storageFlags) exposures() []string {
	var out []string
	if s.fs != nil {
		s.fs.Visit(func(f *flag.Flag) { // the flags given as arguments, not from the environment
			if other, ok := s.secrets[f.Name]; ok && f.Value.String() != "-" {
				out = append(out, fmt.Sprintf("--%s on the command line is visible to every local user (ps, /proc); "+
					"give it as %s, or %s", f.Name, envName(f.Name), other))
			}
		})
	}
	// With PostgreSQL too: the master key's file is kept there.
	dir := dataDir(s.data)
	if st, err := os.Stat(dir); err == nil && st.Mode().Perm()&0o077 != 0 {
		out = append(out, fmt.Sprintf("the data directory %s may be read by other users (mode %04o); taskd's files in it are private (0600), "+
			"but make it private too: chmod 700 %s", dir, st.Mode().Perm(), dir))
	}
	return out
}

// openAccount opens the store and finds the account a command works on.
// The caller closes the store.
func (s *storageFlags) openAccount(ctx context.Context, slug string) (*store.DB, taskd.Account, error) {
	db, err := s.openStore(ctx)
	if err != nil {
		return nil, taskd.Account{}, err
	}
	a, err := findAccount(ctx, db, slug)
	if err != nil {
		db.Close()
		return nil, a, err
	}
	return db, a, nil
}

// findAccount is the account with the slug, or an error that names it.
func findAccount(ctx context.Context, db *store.DB, slug string) (taskd.Account, error) {
	a, err := db.AccountBySlug(ctx, slug)
	if taskd.IsNotFound(err) {
		return a, fmt.Errorf("no account %q", slug)
	}
	return a, err
}

// baseURL is the public URL without a trailing slash.
func (s *storageFlags) baseURL(addr string) string {
	if s.publicURL != "" {
		return strings.TrimRight(s.publicURL, "/")
	}
	return "http://" + addr
}
