package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/wire"
)

// TestMain lets the test binary stand in for the taskd binary: the
// process tests start it with TASKD_TEST_AS_TASKD=1 and taskd's arguments.
func TestMain(m *testing.M) {
	if os.Getenv("TASKD_TEST_AS_TASKD") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// process is a "taskd serve" running as a separate process.
type process struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
}

// startProcess runs taskd serve in a child process until the test ends.
func startProcess(t *testing.T, st storage, extra ...string) *process {
	t.Helper()
	args := append([]string{"serve", "--dev", "--addr", "127.0.0.1:0", "--log-level", "error", "--webhook-lease", "2s",
		"--api-rate-limit", "0", "--api-rate-limit-address", "0"}, st.args()...)
	cmd := exec.Command(os.Args[0], append(args, extra...)...)
	cmd.Env = append(os.Environ(), "TASKD_TEST_AS_TASKD=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		io.Copy(io.Discard, out)
	}()
	go func() { cmd.Wait(); close(p.done) }()
	select {
	case p.base = <-found:
	case <-p.done:
		t.Fatal("taskd serve exited at start")
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("taskd serve did not start")
	}
	t.Cleanup(p.kill)
	return p
}

// runProcess runs taskd with args in a child process until it exits, and
// returns what it printed and its exit code. Each of env is NAME=VALUE.
func runProcess(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "TASKD_TEST_AS_TASKD=1"), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("taskd %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), code
}

// kill ends the process with SIGKILL: no shutdown, no cleanup.
func (p *process) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// eventReceiver counts the deliveries of each event id.
type eventReceiver struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string]int
}

func newEventReceiver(t *testing.T) *eventReceiver {
	r := &eventReceiver{seen: map[string]int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var evs []struct {
			ID string `json:"id"`
		}
		json.NewDecoder(req.Body).Decode(&evs)
		r.mu.Lock()
		for _, e := range evs {
			r.seen[e.ID]++
		}
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(r.Close)
	return r
}

// missing returns the ids not yet received, and how many were received twice.
func (r *eventReceiver) missing(ids []string) (missing []string, twice int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		switch n := r.seen[id]; {
		case n == 0:
			missing = append(missing, id)
		case n > 1:
			twice++
		}
	}
	return missing, twice
}

// hookedAccount creates an account with a project and an enabled webhook
// for post_task pointing at the receiver; it returns the account URL, key
// and project id.
func hookedAccount(t *testing.T, st storage, base, receiverURL string) (acctURL, key, pid string) {
	t.Helper()
	return hookedAccountFor(t, st, base, receiverURL, "post_task")
}

// hookedAccountFor is hookedAccount with the webhook's events.
func hookedAccountFor(t *testing.T, st storage, base, receiverURL, events string) (acctURL, key, pid string) {
	t.Helper()
	slug := testaccount.UniqueSlug("crash")
	acct := cliJSON(t, st, "account", "create", "--slug", slug, "--name", "Crash", "--owner-email", slug+"@example.com", "--owner-password", password)
	acctURL, key = base+"/a/"+slug, acct["api_key"]
	_, body := testsite.APICall(t, acctURL, key, "action=post_project&title=Burst")
	pid = body["data"].(map[string]any)["id"].(string)
	_, body = testsite.APICall(t, acctURL, key, "action=add_webhook&url="+receiverURL+"&events="+events)
	if body["status"] != "ok" {
		t.Fatalf("add_webhook: %v", body)
	}
	_, body = testsite.APICall(t, acctURL, key, fmt.Sprintf("action=enable_webhook&id=%v", body["id"]))
	if body["status"] != "ok" {
		t.Fatalf("enable_webhook: %v", body)
	}
	return acctURL, key, pid
}

// burst posts n tasks through the given account URLs in turn, with 8
// clients, and counts the calls that succeeded; calls to a dead server fail
// and are not retried.
func burst(n int, urls func(i int) string, key, pid string, stop <-chan struct{}, ok *atomic.Int64) int64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
	for range 8 {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				select {
				case <-stop:
					return
				default:
				}
				q := fmt.Sprintf("action=post_task&id_project=%s&title=t%d", pid, i)
				res, err := client.Get(urls(int(i)) + "/api/admin/v2/?" + q + "&hash=" + wire.Hash(q, key))
				if err != nil {
					continue
				}
				var body map[string]any
				json.NewDecoder(res.Body).Decode(&body)
				res.Body.Close()
				if body["status"] == "ok" {
					ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return ok.Load()
}

// postTaskEvents lists the ids of every post_task event the database holds.
func postTaskEvents(t *testing.T, acctURL, key string) []string {
	t.Helper()
	_, body := testsite.APICall(t, acctURL, key, "action=get_events&period=1h")
	var ids []string
	for _, e := range body["data"].([]any) {
		if ev := e.(map[string]any); ev["event"] == "post_task" {
			ids = append(ids, ev["id"].(string))
		}
	}
	return ids
}

// waitDelivered waits until the receiver has every post_task event.
func waitDelivered(t *testing.T, r *eventReceiver, acctURL, key string) (events, twice int) {
	t.Helper()
	ids := postTaskEvents(t, acctURL, key)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		missing, twice := r.missing(ids)
		if len(missing) == 0 {
			return len(ids), twice
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events never arrived, e.g. %v", len(missing), len(ids), missing[:min(5, len(missing))])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCrashLosesNoEvent: kill -9 the server during a burst of 2,000
// changes, restart it, and every event written reaches the receiver.
func TestCrashLosesNoEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) {
			r := newEventReceiver(t)
			p := startProcess(t, st)
			acctURL, key, pid := hookedAccount(t, st, p.base, r.URL)
			slug := acctURL[strings.LastIndex(acctURL, "/")+1:]
			var current atomic.Value
			current.Store(p.base)
			stop := make(chan struct{})
			var written atomic.Int64
			go func() {
				for written.Load() < 700 {
					time.Sleep(100 * time.Microsecond)
				}
				p.kill() // mid-burst, with writes and deliveries in flight
				close(stop)
			}()
			first := burst(2000, func(int) string { return current.Load().(string) + "/a/" + slug }, key, pid, stop, &written)
			<-p.done
			p2 := startProcess(t, st)
			acctURL = p2.base + "/a/" + slug
			rest := burst(int(2000-first), func(int) string { return acctURL }, key, pid, nil, new(atomic.Int64))
			events, twice := waitDelivered(t, r, acctURL, key)
			t.Logf("%d changes before the kill, %d after; %d events delivered, %d of them more than once", first, rest, events, twice)
			if first >= 2000 || events < 2000 {
				t.Fatalf("%d changes before the kill, %d events in all: the kill must land mid-burst and lose nothing", first, events)
			}
		})
	}
}
