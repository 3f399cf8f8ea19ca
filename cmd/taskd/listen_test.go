package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd/webhook"
)

var receivingRE = regexp.MustCompile(`receiving webhooks on (http://[0-9.:]+)/`)

// startListen runs "taskd listen args" in process until stop or the end of
// the test, and returns the URL it receives on and what it prints.
func startListen(t *testing.T, args ...string) (base string, out *syncBuffer, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out = &syncBuffer{}
	var err error
	exited := make(chan struct{})
	go func() { err = run(ctx, append([]string{"listen"}, args...), noEnv, out, io.Discard); close(exited) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if <-exited; err != nil {
				t.Errorf("listen: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if m := receivingRE.FindStringSubmatch(out.String()); m != nil {
			return m[1], out, stop
		}
		select {
		case <-exited:
			t.Fatalf("listen %v exited: %v", args, err)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("listen did not start")
		}
	}
}

// sendSigned posts body to url as taskd does, signed with secret, and
// returns the answer's status and body.
func sendSigned(t *testing.T, url, secret, id, body string) (int, string) {
	t.Helper()
	now := time.Now()
	sig, err := webhook.Sign(secret, id, now, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", id)
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

// wantPrinted fails unless listen printed every line.
func wantPrinted(t *testing.T, out *syncBuffer, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(out.String(), l) {
			t.Fatalf("listen did not print %q; it printed:\n%s", l, out)
		}
	}
}

// TestListen: taskd listen answers {"status":"OK"}, checks signatures when
// given the secret, and prints each event.
func TestListen(t *testing.T) {
	sec, other := webhook.NewSecret(), webhook.NewSecret()
	base, out, _ := startListen(t, "--addr", "127.0.0.1:0", "--secret", other, "--secret", sec)
	// A batch of two events.
	body := `[{"id":"7","event":"post_task","action":"post","object":{"type":"task","id":"42","page":"/project/1/42/"},` +
		`"user_from":{"id":"101","email":"ann@example.com","name":"Ann"},"new":{"name":"Write the report"},"old":{}},` +
		`{"id":"8","event":"close_task","action":"close","object":{"type":"task","id":"42","page":"/project/1/42/"},` +
		`"user_from":{"id":"101","email":"ann@example.com","name":"Ann"},"new":{"status":"done"},"old":{"status":"active"}}]`
	if status, b := sendSigned(t, base+"/", sec, "evt_7-8", body); status != 200 || b != `{"status":"OK"}` {
		t.Fatalf("signed delivery: %d %s", status, b)
	}
	wantPrinted(t, out, "event 7  post_task", "event 8  close_task", "    name: Write the report\n",
		"(evt_7-8 on /; signature ok, secret 2 of 2)", "    status: active → done\n")
	if status, _ := sendSigned(t, base+"/", webhook.NewSecret(), "evt_7-8", body); status != http.StatusUnauthorized {
		t.Fatalf("delivery signed with another secret: %d", status)
	}
	// The refusal says which delivery it was and what to do.
	wantPrinted(t, out, "REFUSED evt_7-8 on / (post_task task 42, close_task task 42): the signature matches none of the 2 secret(s) given",
		"pass this webhook's with another --secret")
}

// TestListenAnswersURLChecks: a URL check (an empty array) is answered
// whatever its signature, since add_webhook signs it with a secret listen
// cannot have been given yet; listen says whether it verified.
func TestListenAnswersURLChecks(t *testing.T) {
	sec := webhook.NewSecret()
	base, out, _ := startListen(t, "--addr", "127.0.0.1:0", "--secret", sec)
	for _, c := range []struct{ name, secret, id, want string }{
		{"a new webhook's", webhook.NewSecret(), "check_new", "URL check answered (check_new on /second), its signature is by a secret not given (a new webhook?)"},
		{"a known webhook's", sec, "check_known", "URL check answered (check_known on /second; signature ok)"},
	} {
		if status, b := sendSigned(t, base+"/second", c.secret, c.id, "[]"); status != 200 || b != `{"status":"OK"}` {
			t.Fatalf("%s URL check: %d %s", c.name, status, b)
		}
		wantPrinted(t, out, c.want)
	}
	// Events are still refused unless their signature matches.
	event := `[{"id":"9","event":"post_task","object":{"type":"task","id":"43"},"new":{"name":"x"},"old":{}}]`
	if status, _ := sendSigned(t, base+"/second", webhook.NewSecret(), "evt_9", event); status != http.StatusUnauthorized {
		t.Fatalf("an event signed with a secret not given: %d, want 401", status)
	}
	wantPrinted(t, out, "REFUSED evt_9 on /second (post_task task 43)")
	// Only an empty array is a check: null is not.
	if status, _ := sendSigned(t, base+"/second", webhook.NewSecret(), "evt_null", "null"); status != http.StatusUnauthorized {
		t.Fatalf("null signed with a secret not given: %d, want 401", status)
	}
	wantPrinted(t, out, "REFUSED evt_null on /second (no events)")
}

// TestListenPrintsValues: each kind of field value prints readably: tags
// by title, people by name, lists comma-joined, empty values as "(none)",
// other values as JSON, and a deleted object's fields as they were.
func TestListenPrintsValues(t *testing.T) {
	base, out, _ := startListen(t, "--addr", "127.0.0.1:0")
	body := `[{"id":"10","event":"update_task","object":{"type":"task","id":"42"},"user_from":{"email":"ann@example.com"},` +
		`"new":{"tags":{"2":"Doing","10":"Urgent"},"user_to":{"id":"102","email":"bo@example.com","name":"Bo Chen"},"date_end":"",` +
		`"watchers":["ann@example.com","bo@example.com"],"estimate":{"hours":3},"priority":5,"text":"two\nlines"},` +
		`"old":{"tags":{},"user_to":{"id":"1","email":"NOONE","name":""},"date_end":"2030-01-31","watchers":[],"estimate":null,"priority":3,"text":""}},` +
		`{"id":"11","event":"delete_comment","object":{"type":"comment","id":"5"},"user_from":{"email":"ann@example.com"},"new":{},"old":{"text":"Done"}}]`
	if status, b := sendSigned(t, base+"/", webhook.NewSecret(), "evt_10-11", body); status != 200 {
		t.Fatalf("delivery: %d %s", status, b)
	}
	wantPrinted(t, out, "    date_end: 2030-01-31 → (none)\n", `    estimate: (none) → {"hours":3}`+"\n", "    priority: 3 → 5\n",
		"    tags: (none) → Doing, Urgent\n", "    text: (none) → two lines\n", "    user_to: (nobody) → Bo Chen\n",
		"    watchers: (none) → ann@example.com, bo@example.com\n", "event 11  delete_comment", "    text: was Done\n")
	if strings.Contains(out.String(), "map[") {
		t.Fatalf("a Go map was printed:\n%s", out)
	}
}

// TestAddressInUse: serve and listen, given an address another process
// holds, exit saying so in one line that names the flag to change; any
// other failure to listen names the flag and the address.
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
	// Any other failure to listen names the flag and the address too.
	t.Run("an address that cannot be had", func(t *testing.T) {
		bad := "127.0.0.1:99999"
		stdout, stderr, code := runProcess(t, nil, "listen", "--addr", bad)
		want := "taskd: --addr " + bad + ": "
		if code != 1 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Fatalf("taskd listen --addr %s: exit %d, stderr %q, stdout %q; want exit 1 and one line starting %q", bad, code, stderr, stdout, want)
		}
	})
}
