package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/smtptest"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
)

// TestServeMailFromFlag: --mail-from (and TASKD_MAIL_FROM) is the sender of
// the mail serve sends. It shows only in mail sent, over TLS, to a server
// the process trusts: serve runs as a child process whose system roots
// (SSL_CERT_FILE) hold the test mail server's certificate.
func TestServeMailFromFlag(t *testing.T) {
	const from = "Acme tasks <tasks@acme.example>"
	for _, how := range []string{"flag", "env"} {
		t.Run(how, func(t *testing.T) {
			mail := smtptest.Start(t, smtptest.StartTLS)
			roots := filepath.Join(t.TempDir(), "roots.pem")
			if err := os.WriteFile(roots, mail.CertPEM(), 0o600); err != nil {
				t.Fatal(err)
			}
			st := storage{data: testdb.New(t, "sqlite").Dir, masterKey: testdb.MasterKeyBase64()}
			slug := testaccount.UniqueSlug("mailfrom")
			acct := cliJSON(t, st, "account", "create", "--slug", slug, "--owner-email", slug+"@example.com", "--owner-password", password)
			env := []string{"SSL_CERT_FILE=" + roots, "TASKD_SMTP_URL=" + mail.URL()}
			args := []string{"serve", "--dev", "--addr", "127.0.0.1:0", "--log-level", "error"}
			if how == "flag" {
				args = append(args, "--mail-from", from)
			} else {
				env = append(env, "TASKD_MAIL_FROM="+from)
			}
			s := &flagServer{slug: slug, key: acct["api_key"], base: startChild(t, append(args, st.args()...), env)}
			wantOK(t, "an invitation")(s.call(t, s.key, "action", "add_user", "email", testaccount.UniqueSlug("invitee")+"@example.com"))
			got := mail.Wait(t, 1, time.Minute)[0]
			if got.From != "tasks@acme.example" || !strings.Contains(string(got.Data), "From: \"Acme tasks\" <tasks@acme.example>") {
				t.Fatalf("the mail came from %q:\n%.400s", got.From, got.Data)
			}
		})
	}
}

// startChild runs taskd with args in a child process with the environment
// extra added, until the test ends, and returns the URL it listens on.
func startChild(t *testing.T, args, extra []string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "TASKD_TEST_AS_TASKD=1"), extra...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, out)
			return m[1]
		}
	}
	t.Fatal("taskd serve exited before it listened")
	return ""
}
