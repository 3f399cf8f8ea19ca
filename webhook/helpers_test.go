package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/webhook"
)

// env is a store with one account and project, and the webhook service on it.
type env struct {
	t       *testing.T
	db      *store.DB
	svc     *webhook.Service
	account taskd.Account
	by      taskd.Actor
	project taskd.Project
}

func newEnv(t *testing.T, d testdb.DB, allowPrivate bool) *env {
	t.Helper()
	db := d.Open(t)
	acct := testaccount.New(t, db, testaccount.Options{Slug: testaccount.UniqueSlug("hook"), Name: "Hooks"})
	e := &env{t: t, db: db, account: acct.Account, by: acct.Actor(),
		svc: webhook.NewService(db, testdb.Sealer(t), webhook.NewHTTPClient(allowPrivate), time.Now, nil)}
	e.project = e.newProject("Main")
	return e
}

// in is the env as a step of a scenario sees it: t, a subtest of the test
// that made it, is the test its helpers fail.
func (e *env) in(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

func (e *env) newProject(name string) taskd.Project {
	e.t.Helper()
	p, err := e.db.CreateProject(context.Background(), e.by, taskd.ProjectInput{Name: new(name)})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) newTask(projectID int64, name string) taskd.Task {
	e.t.Helper()
	tk, err := e.db.CreateTask(context.Background(), e.by, projectID, 0, taskd.TaskInput{Name: new(name)})
	if err != nil {
		e.t.Fatal(err)
	}
	return tk
}

// add creates and enables a webhook for every subscribable event.
func (e *env) add(url string, in taskd.WebhookInput) (taskd.Webhook, string) {
	e.t.Helper()
	in.URL = url
	if in.Events == "" {
		in.Events = "post_task,update_task,close_task,reopen_task,delete_task,post_comment,update_comment,delete_comment,post_project,update_project"
	}
	w, sec, err := e.svc.Add(context.Background(), taskd.AccountViewer(e.account.ID), in, taskd.SubscribableEvents)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.svc.Enable(context.Background(), e.account.ID, w.ID, 0); err != nil {
		e.t.Fatal(err)
	}
	return w, sec
}

// held adds a webhook for events at url, disabled, so that its deliveries
// wait until it is enabled again; it returns the webhook and its secret.
func (e *env) held(url, events string) (taskd.Webhook, string) {
	e.t.Helper()
	w, sec := e.add(url, taskd.WebhookInput{Events: events})
	if err := e.svc.Disable(context.Background(), e.account.ID, w.ID); err != nil {
		e.t.Fatal(err)
	}
	return w, sec
}

// run starts a dispatcher until the test ends.
func (e *env) run(cfg webhook.DispatcherConfig) {
	if cfg.Poll == 0 {
		cfg.Poll = 5 * time.Millisecond
	}
	if cfg.Backoff == nil {
		cfg.Backoff = func(int) time.Duration { return time.Millisecond }
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); webhook.NewDispatcher(e.svc, e.db, cfg).Run(ctx) }()
	e.t.Cleanup(func() { cancel(); <-done })
}

func (e *env) webhook(id int64) taskd.Webhook {
	e.t.Helper()
	w, err := e.db.Webhook(context.Background(), e.account.ID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return w
}

// waitFor polls cond until it holds; the test fails after a generous bound
// (a hang, not a slowness check).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// delivery is one request a receiver got.
type delivery struct {
	header http.Header
	body   []byte
	events []map[string]any
}

// receiver is a destination on loopback whose answer the test controls.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []delivery
	answer atomic.Value // func(w http.ResponseWriter)
}

func ok(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write([]byte(`{"status":"OK"}`))
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.answer.Store(ok)
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var evs []map[string]any
		json.Unmarshal(body, &evs)
		r.mu.Lock()
		r.got = append(r.got, delivery{header: req.Header.Clone(), body: body, events: evs})
		r.mu.Unlock()
		r.answer.Load().(func(http.ResponseWriter))(w)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) setAnswer(f func(http.ResponseWriter)) { r.answer.Store(f) }

// deliveries returns the requests that carried events (not URL checks).
func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []delivery
	for _, d := range r.got {
		if len(d.events) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// received is one event a receiver got, with the request it came in.
type received struct {
	header http.Header
	event  map[string]any
}

// events returns every event received, in the order they came, batches
// flattened.
func (r *receiver) events() []received {
	var out []received
	for _, d := range r.deliveries() {
		for _, ev := range d.events {
			out = append(out, received{header: d.header, event: ev})
		}
	}
	return out
}

// eventCount is how many events arrived (with repeats).
func (r *receiver) eventCount() int { return len(r.events()) }

func (r *receiver) requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// checkMessages checks that each POST carries the webhook-id of its own
// events (evt_<first> for one, evt_<first>-<last> for several; see
// docs/webhooks.md) and a signature over that id which the Standard
// Webhooks library accepts with the webhook's secret.
func checkMessages(t *testing.T, posts []delivery, secret string) {
	t.Helper()
	verifier, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range posts {
		first, last := d.events[0]["id"].(string), d.events[len(d.events)-1]["id"].(string)
		want := "evt_" + first
		if len(d.events) > 1 {
			want += "-" + last
		}
		if got := d.header.Get("webhook-id"); got != want {
			t.Errorf("POST %d of %d carries events %s to %s under webhook-id %q, want %q", i+1, len(posts), first, last, got, want)
		}
		if err := verifier.Verify(d.body, d.header); err != nil {
			t.Errorf("POST %d of %d: the Standard Webhooks library rejects its signature: %v", i+1, len(posts), err)
		}
	}
}
