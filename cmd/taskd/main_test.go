package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/store"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// storage is where a test's commands keep data: a SQLite directory, and a
// PostgreSQL URL when testing that backend.
type storage struct {
	data, db, masterKey string
}

// args are serve's arguments for the storage.
func (s storage) args() []string {
	a := s.where()
	if s.masterKey != "" {
		a = append(a, "--master-key", s.masterKey)
	}
	return a
}

// where are the arguments every command that reaches the data takes.
func (s storage) where() []string {
	a := []string{"--data", s.data}
	if s.db != "" {
		a = append(a, "--db", s.db)
	}
	return a
}

// getenv gives the master key as TASKD_MASTER_KEY, which the commands that
// take --master-key read and the others leave alone.
func (s storage) getenv(name string) string {
	if name == "TASKD_MASTER_KEY" {
		return s.masterKey
	}
	return ""
}

// backends gives the test a fresh database on each backend.
func backends(t *testing.T) map[string]storage {
	b := map[string]storage{}
	for _, name := range testdb.Backends() {
		d := testdb.New(t, name)
		b[name] = storage{data: d.Dir, db: d.URL, masterKey: testdb.MasterKeyBase64()}
	}
	return b
}

func noEnv(string) string { return "" }

// cli runs one taskd command on the storage and returns its stdout.
func cli(t *testing.T, s storage, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append(args, s.where()...), s.getenv, &out, &errOut)
	if err != nil {
		return out.String(), fmt.Errorf("%w (stderr: %s)", err, errOut.String())
	}
	return out.String(), nil
}

// cliJSON runs a command that prints one JSON object of strings, and
// returns it.
func cliJSON(t *testing.T, s storage, args ...string) map[string]string {
	t.Helper()
	return cliPrinted[map[string]string](t, s, args...)
}

// cliPrinted runs a command and returns the one JSON object it printed, as
// a T: a printed value of another type fails the test.
func cliPrinted[T any](t *testing.T, s storage, args ...string) T {
	t.Helper()
	out, err := cli(t, s, args...)
	if err != nil {
		t.Fatalf("taskd %s: %v", strings.Join(args, " "), err)
	}
	var v T
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Fatalf("taskd %s printed %q, want one JSON object (%v)", strings.Join(args, " "), out, err)
	}
	return v
}

var listenRE = regexp.MustCompile(`listening on (http://[0-9.:]+)`)

// startServer runs "taskd serve" on a free port until the test ends, and
// checks that it then shuts down cleanly.
func startServer(t *testing.T, s storage, extra ...string) (base string, stdout *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout = &syncBuffer{}
	done := make(chan error, 1)
	args := append([]string{"serve", "--dev", "--addr", "127.0.0.1:0", "--log-level", "warn",
		"--api-rate-limit", "0", "--api-rate-limit-address", "0"}, s.args()...)
	go func() { done <- run(ctx, append(args, extra...), noEnv, stdout, io.Discard) }()
	// Bounded generously: under -race on a loaded 2-core machine a
	// fresh data directory's migrations alone took over 20 s.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if m := listenRE.FindStringSubmatch(stdout.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve exited: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("serve did not start")
		}
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve did not shut down cleanly: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop")
		}
	})
	return base, stdout
}

// TestCommandLineContract drives the CLI while a server runs on the same
// database, then uses what it printed against the API.
func TestCommandLineContract(t *testing.T) {
	for name, s := range backends(t) {
		t.Run(name, func(t *testing.T) {
			base, _ := startServer(t, s)
			slug := testaccount.UniqueSlug("acme")
			acct := cliJSON(t, s, "account", "create", "--slug", slug, "--name", "Acme", "--owner-email", slug+"@example.com",
				"--owner-password", "owner-password", "--owner-first-name", "Ann", "--owner-last-name", "Lee", "--public-url", base)
			if acct["slug"] != slug || acct["account_url"] != base+"/a/"+slug || len(acct["api_key"]) != 32 || acct["id"] == "" {
				t.Fatalf("account create printed %v", acct)
			}
			url, key := acct["account_url"], acct["api_key"]
			if code, body := testsite.APICall(t, url, key, "action=get_users"); code != 200 || body["status"] != "ok" {
				t.Fatalf("get_users with the printed key: %d %v", code, body)
			}

			user := cliJSON(t, s, "user", "add", "--account", slug, "--email", "Bob-"+slug+"@Example.com", "--password", "bob-password",
				"--first-name", "Bob", "--last-name", "Stone", "--role", "admin")
			if user["email"] != "bob-"+slug+"@example.com" || user["id"] == "" {
				t.Fatalf("user add printed %v", user)
			}
			_, body := testsite.APICall(t, url, key, "action=get_users")
			if users := body["data"].([]any); len(users) != 2 || users[1].(map[string]any)["role"] != "account admin" {
				t.Fatalf("get_users after user add: %v", body)
			}

			rotated := cliJSON(t, s, "apikey", "rotate", "--account", slug)
			if rotated["api_key"] == key || len(rotated["api_key"]) != 32 {
				t.Fatalf("apikey rotate printed %v", rotated)
			}
			if code, body := testsite.APICall(t, url, key, "action=get_users"); code != 401 || body["status_code"] != float64(2) {
				t.Fatalf("old key after rotation: %d %v", code, body)
			}
			if code, _ := testsite.APICall(t, url, rotated["api_key"], "action=get_users"); code != 200 {
				t.Fatalf("new key after rotation: %d", code)
			}

			for _, tc := range []struct {
				name string
				args []string
				want string
			}{
				{"duplicate slug", []string{"account", "create", "--slug", slug, "--owner-email", "x-" + slug + "@example.com", "--owner-password", "long-enough"}, "already exists"},
				{"bad slug", []string{"account", "create", "--slug", "Bad Slug", "--owner-email", "y@example.com", "--owner-password", "long-enough"}, "Slug"},
				{"short password", []string{"account", "create", "--slug", testaccount.UniqueSlug("p"), "--owner-email", "z@example.com", "--owner-password", "short"}, "at least 8"},
				{"bad email", []string{"user", "add", "--account", slug, "--email", "nope", "--password", "long-enough"}, "invalid"},
				{"member twice", []string{"user", "add", "--account", slug, "--email", "bob-" + slug + "@example.com", "--password", "bob-password"}, "already a member"},
				{"existing person, wrong password", []string{"account", "create", "--slug", testaccount.UniqueSlug("q"), "--owner-email", "bob-" + slug + "@example.com", "--owner-password", "not-bobs-password"}, "different password"},
				{"unknown account", []string{"apikey", "rotate", "--account", "no-such-account"}, "no account"},
				{"bad role", []string{"user", "add", "--account", slug, "--email", "c@example.com", "--password", "long-enough", "--role", "owner"}, "Role"},
				{"unknown flag", []string{"user", "add", "--acount", slug}, "unknown flag --acount; did you mean --account?"},
				{"missing flag", []string{"apikey", "rotate"}, "--account is required: account slug"},
				{"unknown command", []string{"account", "delete"}, "unknown command"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					out, err := cli(t, s, tc.args...)
					if err == nil || !strings.Contains(err.Error(), tc.want) || out != "" {
						t.Fatalf("want an error containing %q and no output, got %v, %q", tc.want, err, out)
					}
				})
			}
			// A person already registered joins a second account with their own password.
			second := cliJSON(t, s, "account", "create", "--slug", testaccount.UniqueSlug("second"), "--owner-email", "bob-"+slug+"@example.com", "--owner-password", "bob-password")
			if second["api_key"] == "" {
				t.Fatalf("second account: %v", second)
			}
		})
	}
}

func TestHelpAndEnvironment(t *testing.T) {
	for _, cmd := range [][]string{{"serve"}, {"migrate"}, {"account", "create"}, {"user", "add"}, {"apikey", "rotate"}} {
		var out bytes.Buffer
		if err := run(context.Background(), append(cmd, "--help"), noEnv, &out, io.Discard); err != nil {
			t.Fatalf("%v --help: %v", cmd, err)
		}
		if !strings.Contains(out.String(), "Usage: taskd "+strings.Join(cmd, " ")) || !strings.Contains(out.String(), "-data") {
			t.Fatalf("%v --help printed %q", cmd, out.String())
		}
	}
	// Flags come from TASKD_<NAME> too; the command line wins.
	dir := t.TempDir()
	getenv := func(k string) string {
		return map[string]string{"TASKD_DATA": dir, "TASKD_SLUG": "from-env", "TASKD_OWNER_EMAIL": "env@example.com",
			"TASKD_OWNER_PASSWORD": "env-password"}[k]
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"account", "create", "--slug", "from-flag"}, getenv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"slug":"from-flag"`) {
		t.Fatalf("printed %s", out.String())
	}
	if _, err := os.Stat(dir + "/taskd.db"); err != nil {
		t.Fatalf("TASKD_DATA was not used: %v", err)
	}
	if out, err := cli(t, storage{data: dir}, "migrate"); err != nil || !strings.Contains(out, `"status":"ok"`) {
		t.Fatalf("migrate: %v %s", err, out)
	}
	// A bad value from the environment names the variable and its flag.
	bad := func(k string) string { return map[string]string{"TASKD_SHUTDOWN_TIMEOUT": "soon"}[k] }
	want := `TASKD_SHUTDOWN_TIMEOUT (--shutdown-timeout): invalid value "soon"`
	if err := run(context.Background(), []string{"serve", "--dev"}, bad, io.Discard, io.Discard); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("serve with TASKD_SHUTDOWN_TIMEOUT=soon: %v; want %q", err, want)
	}
}

func TestServeRefusesUnsafeSettings(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"plain HTTP outside dev", []string{"serve", "--public-url", "https://x.example"}, "--tls-cert"},
		{"http public URL outside dev", []string{"serve", "--trust-proxy", "--public-url", "http://x.example"}, "https"},
		{"no public URL behind proxy", []string{"serve", "--trust-proxy"}, "--public-url"},
		{"dev on a public address", []string{"serve", "--dev", "--addr", "0.0.0.0:0"}, "loopback"},
		{"demo outside dev", []string{"serve", "--demo", "--trust-proxy", "--public-url", "https://x.example"}, "--dev"},
		{"half a TLS pair", []string{"serve", "--tls-cert", "c.pem"}, "go together"},
		{"bad database URL", []string{"serve", "--dev", "--addr", "127.0.0.1:0", "--db", "mysql://x"}, "postgres"},
		{"bad log level", []string{"serve", "--dev", "--log-level", "loud"}, "log-level"},
		{"mail server not SMTP", []string{"serve", "--dev", "--addr", "127.0.0.1:0", "--smtp-url", "http://u:hunter22@mail.example"}, "smtp://"},
		{"bad mail sender", []string{"serve", "--dev", "--addr", "127.0.0.1:0", "--mail-from", "not an address"}, "--mail-from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(context.Background(), append(tc.args, "--data", dir), noEnv, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "hunter22") {
				t.Fatalf("want an error containing %q (and no password), got %v", tc.want, err)
			}
		})
	}
}

var demoKeyRE = regexp.MustCompile(`API key:\s+([0-9a-f]{32})`)

// TestDemoHealthAndNotFound starts the README's command and uses what it prints.
func TestDemoHealthAndNotFound(t *testing.T) {
	s := storage{data: t.TempDir()}
	first := func() string {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var out syncBuffer
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"serve", "--dev", "--demo", "--addr", "127.0.0.1:0", "--data", s.data}, noEnv, &out, io.Discard)
		}()
		for !listenRE.MatchString(out.String()) {
			select { // a serve that fails to start fails the test, not hangs it
			case err := <-done:
				t.Fatalf("serve --demo exited before listening: %v\n%s", err, out.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		return demoKeyRE.FindStringSubmatch(out.String())[1]
	}()
	base, out := startServer(t, s, "--demo")
	m := demoKeyRE.FindStringSubmatch(out.String())
	if m == nil || m[1] != first || !strings.Contains(out.String(), "owner@demo.example") {
		t.Fatalf("restart printed a different demo account:\n%s", out.String())
	}
	// The README's shell lines start with KEY=…: the banner prints that line whole.
	if !strings.Contains(out.String(), " KEY="+first+"\n") {
		t.Fatalf("the demo does not print the README's KEY= line:\n%s", out.String())
	}
	// The demo's invitation waits on the mail page, its link working.
	if !strings.Contains(out.String(), base+"/dev/mail") {
		t.Fatalf("the demo does not name the mail page:\n%s", out.String())
	}
	var mailPage string
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(mailPage, "to new@demo.example · invitation · kept") && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mailPage = getBody(t, base+"/dev/mail")
	}
	if !strings.Contains(mailPage, "You are invited to join a team on taskd") {
		t.Fatalf("mail page:\n%s", mailPage)
	}
	code, body := testsite.APICall(t, base+"/a/demo", m[1], "action=get_projects")
	if code != 200 || len(body["data"].([]any)) != 2 {
		t.Fatalf("demo projects: %d %v", code, body)
	}
	checkDemoBoard(t, base+"/a/demo", m[1], body["data"].([]any))
	var health map[string]string
	if err := json.Unmarshal([]byte(getBody(t, base+"/healthz")), &health); err != nil || health["status"] != "ok" ||
		health["go"] != runtime.Version() || health["version"] == "" || health["commit"] == "" {
		t.Fatalf("/healthz: %v %v", health, err)
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/nowhere": 404, "/a/demo/api/admin/v3": 404} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, res.StatusCode, want)
		}
	}
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`taskd_http_requests_total{route="GET /healthz",code="2xx"} 2`,
		`taskd_build_info{version="` + health["version"] + `",commit="` + health["commit"] + `",goversion="` + runtime.Version() + `"} 1`,
		`taskd_http_requests_total{route="/",code="4xx"} 1`, "taskd_http_request_duration_seconds_bucket{", "go_goroutines "} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, metrics)
		}
	}
}

// TestHSTS: Strict-Transport-Security is sent when the public URL is https
// (TLS here or at a trusted proxy), never on plain HTTP.
func TestHSTS(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--trust-proxy", "--public-url", "https://taskd.example"}, "max-age=31536000"},
	} {
		base, _ := startServer(t, storage{data: t.TempDir()}, tc.args...)
		for _, path := range []string{"/healthz", "/login", "/nowhere"} {
			res, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if got := res.Header.Get("Strict-Transport-Security"); got != tc.want {
				t.Errorf("%v GET %s: Strict-Transport-Security %q, want %q", tc.args, path, got, tc.want)
			}
		}
	}
}

// TestStrictOAuth: --strict-oauth refuses GET token requests.
func TestStrictOAuth(t *testing.T) {
	st := storage{data: t.TempDir()}
	base, _ := startServer(t, st, "--strict-oauth")
	res, err := http.Get(base + "/oauth2/token?grant_type=authorization_code")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET with --strict-oauth: %d", res.StatusCode)
	}
}

// TestRateLimitFlags: the limits are flags of serve, documented in -help.
func TestRateLimitFlags(t *testing.T) {
	out, _ := cli(t, storage{data: t.TempDir()}, "serve", "-help")
	for _, flag := range []string{"-api-rate-limit", "-api-rate-limit-address", "-token-rate-limit", "-token-rate-limit-address"} {
		if !strings.Contains(out, flag) {
			t.Errorf("serve -help does not list %s:\n%s", flag, out)
		}
	}
}

// TestLiveStreamDefaults: a replica serves at most 5,000 pages' streams
// and a person 10, unless told otherwise (docs/operations.md).
func TestLiveStreamDefaults(t *testing.T) {
	out, _ := cli(t, storage{data: t.TempDir()}, "serve", "-help")
	for flag, want := range map[string]string{"--live-streams": "(default 5000)", "--live-streams-per-person": "(default 10)"} {
		_, after, _ := strings.Cut(out, "  "+flag+" int\n")
		text, _, _ := strings.Cut(after, "\n  --")
		if !strings.HasSuffix(strings.TrimSpace(text), want) {
			t.Errorf("serve -help on %s: %q, want it to end %q", flag, text, want)
		}
	}
}

// password signs every test person in.
const password = "correct horse battery"

// TestUserAddJoinsOrInvites: someone new, or someone whose own password is
// given, joins at once; a person registered elsewhere is otherwise only
// invited, and their password is not touched.
func TestUserAddJoinsOrInvites(t *testing.T) {
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) {
			slug := testaccount.UniqueSlug("cli")
			cliJSON(t, st, "account", "create", "--slug", slug, "--owner-email", slug+"@example.com", "--owner-password", password)
			elsewhere := testaccount.UniqueSlug("elsewhere") + "@example.com"
			cliJSON(t, st, "account", "create", "--slug", testaccount.UniqueSlug("else"), "--owner-email", elsewhere, "--owner-password", password)
			for _, tc := range []struct{ email, password, want string }{
				{testaccount.UniqueSlug("new") + "@example.com", password, "member"},
				{elsewhere, "not their password", "invited"},
				{elsewhere, "not their password", ""}, // invited already
				{elsewhere, password, "member"},
			} {
				out, err := cli(t, st, "user", "add", "--account", slug, "--email", tc.email, "--password", tc.password)
				if tc.want == "" {
					if err == nil || !strings.Contains(err.Error(), "already invited") {
						t.Errorf("user add %s again: %q %v, want an error", tc.email, out, err)
					}
					continue
				}
				if !strings.Contains(out, `"status":"`+tc.want+`"`) || err != nil {
					t.Errorf("user add %s: %q %v, want status %s", tc.email, out, err, tc.want)
				}
			}
			// The invitation is gone once they joined.
			db := openStore(t, st)
			p, err := db.PersonByEmail(context.Background(), elsewhere)
			if err != nil {
				t.Fatal(err)
			}
			if left, err := db.PersonInvitations(context.Background(), p.ID); err != nil || len(left) != 0 {
				t.Fatalf("invitations left after joining: %v %v", left, err)
			}
		})
	}
}

// openStore opens a test's database directly.
func openStore(t *testing.T, st storage) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Options{URL: st.db, DataDir: st.data})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// getBody fetches a URL and returns its body.
func getBody(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// TestWarnsOfExposedSecrets: a master key on the command line (which every
// local user can read) and a data directory others may read are warned of,
// by serve and every other command; the key from the environment and a
// private directory are not.
func TestWarnsOfExposedSecrets(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	key := testdb.MasterKeyBase64()
	create := func(getenv func(string) string, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		args = append([]string{"account", "create", "--slug", testaccount.UniqueSlug("exposed"), "--owner-email", testaccount.UniqueSlug("o") + "@example.com",
			"--owner-password", password, "--data", dir}, args...)
		if err := run(context.Background(), args, getenv, &out, &errOut); err != nil {
			t.Fatalf("account create: %v (%s)", err, errOut.String())
		}
		return errOut.String()
	}
	warned := create(noEnv, "--master-key", key)
	if !strings.Contains(warned, "--master-key on the command line is visible to every local user") ||
		!strings.Contains(warned, "TASKD_MASTER_KEY") || !strings.Contains(warned, "the data directory "+dir+" may be read by other users (mode 0755)") {
		t.Fatalf("warnings:\n%s", warned)
	}
	if strings.Contains(warned, key) {
		t.Fatal("the warning shows the key")
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	env := func(name string) string {
		if name == "TASKD_MASTER_KEY" {
			return key
		}
		return ""
	}
	if quiet := create(env); quiet != "" {
		t.Fatalf("warnings with the key from the environment and a private directory:\n%s", quiet)
	}

	// serve logs the same.
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--dev", "--addr", "127.0.0.1:0", "--log-level", "warn", "--data", dir, "--master-key", key}, noEnv, out, logs)
	}()
	for deadline := time.Now().Add(20 * time.Second); !listenRE.MatchString(out.String()) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "mode 0750") || !strings.Contains(l, "--master-key on the command line") {
		t.Fatalf("serve's log:\n%s", l)
	}
}

// checkDemoBoard: the demo has a status group whose tags, in the account's
// order, are a board's columns, and every active task of its first project
// (subtasks too) sits in one of them, so the board is there on first run.
func checkDemoBoard(t *testing.T, url, key string, projects []any) {
	t.Helper()
	_, groups := testsite.APICall(t, url, key, "action=get_task_tag_groups&type=status")
	if g := groups["data"].([]any); len(g) != 1 || g[0].(map[string]any)["title"] != "Stage" {
		t.Fatalf("demo status groups: %v", groups)
	}
	_, tags := testsite.APICall(t, url, key, "action=get_task_tags&group=Stage")
	var titles []string
	for _, x := range tags["data"].([]any) {
		titles = append(titles, x.(map[string]any)["title"].(string))
	}
	if got := strings.Join(titles, ","); got != "To do,Doing,Review,Done" {
		t.Fatalf("demo statuses: %s", got)
	}
	var launch string
	for _, p := range projects {
		if p.(map[string]any)["name"] == "Website launch" {
			launch = p.(map[string]any)["id"].(string)
		}
	}
	_, tasks := testsite.APICall(t, url, key, "action=get_tasks&id_project="+launch+"&extra=subtasks")
	n := 0
	var walk func(list []any)
	walk = func(list []any) {
		for _, x := range list {
			task := x.(map[string]any)
			if tg, _ := task["tags"].(map[string]any); len(tg) != 1 {
				t.Errorf("demo task %s has tags %v, want one status", task["name"], task["tags"])
			}
			n++
			if child, ok := task["child"].([]any); ok {
				walk(child)
			}
		}
	}
	walk(tasks["data"].([]any))
	if n != 5 {
		t.Errorf("the demo's first project has %d tasks, want 5: %v", n, tasks)
	}
}
