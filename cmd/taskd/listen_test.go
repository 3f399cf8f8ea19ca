package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/webhook"
)

var receivingRE = regexp.MustCompile(`receiving webhooks on (http://[0-9.:]+)/`)

// TestListen: taskd listen answers {"status":"OK"}, checks signatures when
// given the secret, and prints each event.
func TestListen(t *testing.T) {
	sec, other := webhook.NewSecret(), webhook.NewSecret()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"listen", "--addr", "127.0.0.1:0", "--secret", other, "--secret", sec}, noEnv, out, io.Discard)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("listen: %v", err)
		}
	})
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; time.Sleep(5 * time.Millisecond) {
		if m := receivingRE.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatal("listen did not start")
		}
	}
	// A batch of two events.
	body := `[{"id":"7","event":"post_task","action":"post","object":{"type":"task","id":"42","page":"/project/1/42/"},` +
		`"user_from":{"id":"101","email":"ann@example.com","name":"Ann"},"new":{"name":"Write the report"},"old":{}},` +
		`{"id":"8","event":"close_task","action":"close","object":{"type":"task","id":"42","page":"/project/1/42/"},` +
		`"user_from":{"id":"101","email":"ann@example.com","name":"Ann"},"new":{"status":"done"},"old":{"status":"active"}}]`
	send := func(secret string) (int, string) {
		now := time.Now()
		sig, err := webhook.Sign(secret, "evt_7-8", now, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("POST", base+"/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("webhook-id", "evt_7-8")
		req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
		req.Header.Set("webhook-signature", sig)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode == 200 && res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("content type %q", res.Header.Get("Content-Type"))
		}
		return res.StatusCode, string(b)
	}
	if status, b := send(sec); status != 200 || b != `{"status":"OK"}` {
		t.Fatalf("signed delivery: %d %s", status, b)
	}
	if !strings.Contains(out.String(), "event 7  post_task") || !strings.Contains(out.String(), "event 8  close_task") ||
		!strings.Contains(out.String(), "Write the report") || !strings.Contains(out.String(), "signature ok, secret 2 of 2") {
		t.Fatalf("printed:\n%s", out)
	}
	if status, _ := send(webhook.NewSecret()); status != http.StatusUnauthorized {
		t.Fatalf("delivery signed with another secret: %d", status)
	}
	// The refusal says which delivery it was and what to do.
	if !strings.Contains(out.String(), "REFUSED evt_7-8 on / (post_task task 42, close_task task 42): the signature matches none of the 2 secret(s) given") ||
		!strings.Contains(out.String(), "pass this webhook's with another --secret") {
		t.Fatalf("printed:\n%s", out)
	}
}

// TestAddressInUse: serve and listen, given an address another process
// holds, exit saying so in one line that names the flag to change.
func TestAddressInUse(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	for _, tc := range []struct {
		name string
		args []string
		flag string
	}{
		{"serve", []string{"serve", "--dev", "--addr", addr}, "--addr (or TASKD_ADDR)"},
		{"serve's profiles", []string{"serve", "--dev", "--addr", "127.0.0.1:0", "--debug-addr", addr}, "--debug-addr (or TASKD_DEBUG_ADDR)"},
		{"listen", []string{"listen", "--addr", addr}, "--addr (or TASKD_ADDR)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.args[0] == "serve" {
				args = append(args, "--log-level", "error", "--data", t.TempDir())
			}
			stdout, stderr, code := runProcess(t, nil, args...)
			want := "taskd: " + addr + " is in use; choose another with " + tc.flag + "\n"
			if code != 1 || stderr != want || stdout != "" {
				t.Fatalf("taskd %s: exit %d, stderr %q, stdout %q; want exit 1 and stderr %q", strings.Join(args, " "), code, stderr, stdout, want)
			}
		})
	}
}
