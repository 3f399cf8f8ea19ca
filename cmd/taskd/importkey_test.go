package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
)

// keyWarning is the warning of a source key given on the command line:
// the master key's words (TestWarnsOfExposedSecrets), for --key.
const keyWarning = "taskd: warning: --key on the command line is visible to every local user (ps, /proc); " +
	"give it as TASKD_KEY, or with --key-file PATH, or --key - to read it from standard input"

// importWith runs "taskd import" with the environment vars (and the
// storage's master key) and stdin as standard input.
func importWith(st storage, vars map[string]string, stdin string, args ...string) (string, string, error) {
	getenv := func(name string) string {
		if v, ok := vars[name]; ok {
			return v
		}
		return st.getenv(name)
	}
	var out, errOut bytes.Buffer
	err := runWith(context.Background(), append(append([]string{"import"}, args...), st.where()...), getenv,
		strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

// keyFile writes content to a new file of the mode and returns its path.
func keyFile(t *testing.T, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "source.key")
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

// TestImportKeyWays: the source's key of "taskd import" comes from
// TASKD_KEY, a file (--key-file) or standard input (--key -), each with
// no warning; given on the command line (--key KEY) it works and is
// warned of on stderr in the master key's words; a key file others may
// read is warned of. Exactly one way must be given. No output, warning or
// error names the key, right or wrong, however it came. (Before issue 46
// --key-file and --key - did not exist, and --key was not warned of.)
func TestImportKeyWays(t *testing.T) {
	src := testsite.New(t)
	st := storage{data: filepath.Join(t.TempDir(), "data")}
	to := []string{"--from", src.AccountURL(), "--account", "moved", "--owner-email", "new.owner@example.com", "--only", "people"}
	private := keyFile(t, src.Key+"\n", 0o600)
	for _, tc := range []struct {
		name  string
		vars  map[string]string
		stdin string
		args  []string
		warn  string // "" for none
	}{
		{"TASKD_KEY", map[string]string{"TASKD_KEY": src.Key}, "", nil, ""},
		{"--key-file", nil, "", []string{"--key-file", private}, ""},
		{"TASKD_KEY_FILE", map[string]string{"TASKD_KEY_FILE": private}, "", nil, ""},
		{"--key -", nil, "  " + src.Key + "\r\n", []string{"--key", "-"}, ""},
		{"--key KEY", nil, "", []string{"--key", src.Key}, keyWarning},
		{"a key file others may read", nil, "", []string{"--key-file", keyFile(t, src.Key, 0o644)},
			"taskd: warning: the key file "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := importWith(st, tc.vars, tc.stdin, append(to, tc.args...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			if !strings.Contains(out, "imported ") || strings.Contains(out+errOut, src.Key) {
				t.Errorf("the import printed the key, or no summary:\n%s%s", out, errOut)
			}
			warned := strings.Contains(errOut, "warning")
			if tc.warn == "" && warned || tc.warn != "" && !strings.Contains(errOut, tc.warn) {
				t.Errorf("stderr %q, want the warning %q", errOut, tc.warn)
			}
		})
	}

	// Wrong ways: refused, with an error that says what is wrong and
	// never holds what was given.
	const secret = "0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name, says string
		vars       map[string]string
		stdin      string
		args       []string
	}{
		{"none", "give it in TASKD_KEY, in a file (--key-file PATH), or on standard input (--key -)", nil, "", nil},
		{"TASKD_KEY and --key-file", "given twice", map[string]string{"TASKD_KEY": secret}, "", []string{"--key-file", private}},
		{"--key and --key-file", "given twice", nil, "", []string{"--key", secret, "--key-file", private}},
		{"two words in the file", "more than one word", nil, "", []string{"--key-file", keyFile(t, secret+" "+secret, 0o600)}},
		{"a file too long", "more than a key", nil, "", []string{"--key-file", keyFile(t, strings.Repeat(secret, 40), 0o600)}},
		{"no file", "--key-file", nil, "", []string{"--key-file", filepath.Join(t.TempDir(), "missing")}},
		{"nothing on stdin", "standard input (--key -) holds no key", nil, "\n", []string{"--key", "-"}},
		{"a wrong key from TASKD_KEY", "", map[string]string{"TASKD_KEY": secret}, "", nil},
		{"a wrong key from a file", "", nil, "", []string{"--key-file", keyFile(t, secret, 0o600)}},
		{"a wrong key on stdin", "", nil, secret, []string{"--key", "-"}},
		{"a wrong key on the command line", "", nil, "", []string{"--key", secret}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := importWith(st, tc.vars, tc.stdin, append(to, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("%v, want it refused: %s", err, tc.says)
			}
			if strings.Contains(err.Error()+out+errOut, "0123456789abcdef") {
				t.Errorf("the key is printed: %v\n%s%s", err, out, errOut)
			}
		})
	}
}

// TestImportKeyWarnedAtOnce: a key on the command line is warned of
// before anything else happens, even when the run stops at once (a
// refused --from).
func TestImportKeyWarnedAtOnce(t *testing.T) {
	st := storage{data: filepath.Join(t.TempDir(), "data")}
	const secret = "fedcba9876543210fedcba9876543210"
	out, errOut, err := importWith(st, nil, "", "--from", "ftp://example.com/a/acme", "--account", "moved", "--key", secret)
	if err == nil || !strings.Contains(errOut, keyWarning) || strings.Contains(err.Error()+out+errOut, secret) {
		t.Errorf("a refused --from with --key on the command line: %v\nstderr %q", err, errOut)
	}
}

// TestImportKeyOnStandardInput runs taskd import as its own process with
// the key piped to it (--key -): main hands its standard input on, and
// nothing warns.
func TestImportKeyOnStandardInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	src := testsite.New(t)
	cmd := exec.Command(os.Args[0], "import", "--from", src.AccountURL(), "--account", "moved", "--owner-email", "new.owner@example.com",
		"--only", "people", "--json", "--key", "-", "--data", filepath.Join(t.TempDir(), "data"))
	cmd.Env = append(os.Environ(), "TASKD_TEST_AS_TASKD=1", "TASKD_MASTER_KEY="+testdb.MasterKeyBase64())
	cmd.Stdin = strings.NewReader(src.Key + "\n")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("taskd import --key -: %v\n%s", err, errOut.String())
	}
	var sum importer.Summary
	if err := json.Unmarshal([]byte(out.String()), &sum); err != nil || len(sum.People) != 2 {
		t.Fatalf("the summary %q: %v", out.String(), err)
	}
	if strings.Contains(errOut.String(), "warning") || strings.Contains(out.String()+errOut.String(), src.Key) {
		t.Errorf("stderr:\n%s", errOut.String())
	}
}

// TestImportKeyFileModes: a key file that anyone but its owner may read
// is warned of, by its group (0640) as by others (0604); one only its
// owner reads (0600) is not. The warning names the file and its mode,
// never the key. The run stops at a refused --from, after the key is read.
func TestImportKeyFileModes(t *testing.T) {
	st := storage{data: filepath.Join(t.TempDir(), "data")}
	const secret = "00112233445566778899aabbccddeeff"
	for _, tc := range []struct {
		mode os.FileMode
		warn bool
	}{{0o640, true}, {0o604, true}, {0o600, false}} {
		t.Run(fmt.Sprintf("%04o", tc.mode), func(t *testing.T) {
			path := keyFile(t, secret+"\n", tc.mode)
			out, errOut, err := importWith(st, nil, "", "--from", "ftp://example.com/a/acme", "--account", "moved", "--key-file", path)
			if err == nil || !strings.Contains(err.Error(), "--from") {
				t.Fatalf("%v, want the --from refused", err)
			}
			want := fmt.Sprintf("taskd: warning: the key file %s may be read by other users (mode %04o)", path, tc.mode)
			if warned := strings.Contains(errOut, "warning"); warned != tc.warn || tc.warn && !strings.Contains(errOut, want) {
				t.Errorf("a key file of mode %04o: stderr %q, want warned %v (%q)", tc.mode, errOut, tc.warn, want)
			}
			if strings.Contains(err.Error()+out+errOut, secret) {
				t.Errorf("the key is printed: %v\n%s%s", err, out, errOut)
			}
		})
	}
}
