package store_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	taskdmail "github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/webhook"
)

// waitUntil polls cond until it holds; the test fails after a generous
// bound (a hang, not a slowness check).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestLostSignalsAreFoundByThePoll: a change and a message whose signals
// are lost (a dropped NOTIFY; on SQLite, the CLI writing to the file) are
// still delivered and sent, by the dispatcher's and the outbox's fallback
// poll, which only reads until it finds work.
func TestLostSignalsAreFoundByThePoll(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		writer := d.Open(t)
		writer.MuteForTest()
		worker := d.Open(t)
		acct := testaccount.New(t, writer, testaccount.Options{Slug: testaccount.UniqueSlug("lost"), Name: "Lost"})

		var events atomic.Int32
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if b, _ := io.ReadAll(r.Body); len(b) > 2 && b[0] == '[' {
				events.Add(1)
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"status":"OK"}`))
		}))
		t.Cleanup(recv.Close)
		svc := webhook.NewService(writer, testdb.Sealer(t), webhook.NewHTTPClient(true), time.Now, nil)
		w, _, err := svc.Add(ctx, taskd.AccountViewer(acct.Account.ID), taskd.WebhookInput{URL: recv.URL, Events: "post_project"}, taskd.SubscribableEvents)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Enable(ctx, acct.Account.ID, w.ID, 0); err != nil {
			t.Fatal(err)
		}

		run := func(f func(context.Context)) {
			ctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { defer close(done); f(ctx) }()
			t.Cleanup(func() { cancel(); <-done })
		}
		workerSvc := webhook.NewService(worker, testdb.Sealer(t), webhook.NewHTTPClient(true), time.Now, nil)
		run(webhook.NewDispatcher(workerSvc, worker, webhook.DispatcherConfig{Poll: 50 * time.Millisecond}).Run)
		outbox := &taskdmail.Outbox{Store: worker, Sealer: testdb.Sealer(t), From: "taskd <taskd@example.com>", Poll: 50 * time.Millisecond}
		run(outbox.Run)

		for i := range 3 {
			if _, err := writer.CreateProject(ctx, acct.Actor(), taskd.ProjectInput{Name: new("unsignalled")}); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, "the change found by the poll", func() bool { return events.Load() == int32(i+1) })
		}
		mailOut := &taskdmail.Outbox{Store: writer, Sealer: testdb.Sealer(t), From: outbox.From}
		if err := mailOut.Queue(ctx, "test", taskdmail.Message{To: "olga@example.com", Subject: "Hi", Text: "Hello"}); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, "the message found by the poll", func() bool {
			m, err := worker.Mail(ctx, 1)
			return err == nil && len(m) == 1 && m[0].State == taskd.MailKept
		})
	})
}

// TestQueuedMailWakesTheOutbox: mail queued here, and on PostgreSQL by
// another process, wakes the outbox at once: it is sent although the
// outbox's poll is an hour.
func TestQueuedMailWakesTheOutbox(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		writers := []*store.DB{db}
		if d.URL != "" {
			writers = append(writers, d.Open(t))
		}
		outbox := &taskdmail.Outbox{Store: db, Sealer: testdb.Sealer(t), From: "taskd <taskd@example.com>", Poll: time.Hour}
		octx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); outbox.Run(octx) }()
		t.Cleanup(func() { cancel(); <-done })
		kept := func(n int) func() bool {
			return func() bool {
				list, err := db.Mail(ctx, 10)
				if err != nil {
					return false
				}
				k := 0
				for _, m := range list {
					if m.State == taskd.MailKept {
						k++
					}
				}
				return k == n
			}
		}
		// The first round runs at the start; every message after it is
		// sent only if its signal wakes the outbox.
		sent := 0
		for round := range 3 {
			for _, w := range writers {
				q := &taskdmail.Outbox{Store: w, Sealer: testdb.Sealer(t), From: outbox.From}
				if err := q.Queue(ctx, "test", taskdmail.Message{To: "olga@example.com", Subject: "Hi", Text: "Hello"}); err != nil {
					t.Fatal(err)
				}
				sent++
				waitUntil(t, "the message without a poll", kept(sent))
			}
			_ = round
		}
	})
}

// TestChangesWakeTheNotifier: a change that notifies someone (made here,
// and on PostgreSQL by another process) has its digest mailed once its
// window settles, although the notifier polls once an hour: the change's
// signal sets its timer, without a query.
func TestChangesWakeTheNotifier(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		writers := []*store.DB{db}
		if d.URL != "" {
			writers = append(writers, d.Open(t))
		}
		acct := testaccount.New(t, db, testaccount.Options{Slug: testaccount.UniqueSlug("wake"), Name: "Wake"})
		olga, err := db.AddMember(ctx, acct.Account.ID, taskd.NewPerson{Email: "olga-" + acct.Account.Slug + "@example.com",
			PasswordHash: "x", FirstName: "Olga"}, taskd.RoleUser)
		if err != nil {
			t.Fatal(err)
		}
		p, err := db.CreateProject(ctx, acct.Actor(), taskd.ProjectInput{Name: new("Digests")})
		if err != nil {
			t.Fatal(err)
		}
		task, err := db.CreateTask(ctx, acct.Actor(), p.ID, 0, taskd.TaskInput{Name: new("Followed")})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Subscribe(ctx, acct.Actor(), task.ID, olga.Email, true); err != nil {
			t.Fatal(err)
		}
		outbox := &taskdmail.Outbox{Store: db, Sealer: testdb.Sealer(t), From: "taskd <taskd@example.com>"}
		n := &people.Notifier{Store: db, Outbox: outbox, Sealer: testdb.Sealer(t), PublicURL: "https://taskd.example",
			Window: 200 * time.Millisecond, Poll: time.Hour}
		nctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); n.Run(nctx) }()
		t.Cleanup(func() { cancel(); <-done })
		digests := func(want int) func() bool {
			return func() bool {
				list, err := db.Mail(ctx, 100)
				k := 0
				for _, m := range list {
					if m.Kind == "notification" && m.To == olga.Email {
						k++
					}
				}
				return err == nil && k == want
			}
		}
		// The first round runs at the start; every digest after the first
		// is mailed only if its change's signal set the notifier's timer.
		mailed := 0
		for range 2 {
			for _, w := range writers {
				if _, err := w.CreateComment(ctx, acct.Actor(), task.ID, "news"); err != nil {
					t.Fatal(err)
				}
				mailed++
				waitUntil(t, "the digest without a poll", digests(mailed))
			}
		}
	})
}
