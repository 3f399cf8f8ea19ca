package webhook_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/webhook"
)

// TestRetryFallsDueWithoutASignal: a dispatcher sleeps until the next
// thing it knows is due, not for its poll: a retry put off for 2 seconds
// is attempted when it falls due by a dispatcher that started after the
// failure, gets no signal and polls once an hour.
func TestRetryFallsDueWithoutASignal(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		e := newEnv(t, d, true)
		r := newReceiver(t)
		w, _ := e.add(r.URL, taskd.WebhookInput{Events: "post_task"})
		var calls atomic.Int32
		var mu sync.Mutex
		var retried time.Time
		r.setAnswer(func(rw http.ResponseWriter) {
			if calls.Add(1) == 1 {
				http.Error(rw, "down", http.StatusInternalServerError)
				return
			}
			mu.Lock()
			retried = time.Now()
			mu.Unlock()
			ok(rw)
		})

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		first := webhook.NewDispatcher(e.svc, e.db, webhook.DispatcherConfig{Poll: time.Hour,
			Backoff: func(int) time.Duration { return 2 * time.Second }})
		go func() { defer close(done); first.Run(ctx) }()
		e.newTask(e.project.ID, "fails once")
		waitFor(t, "the failed attempt", func() bool { return e.webhook(w.ID).Errors == 1 })
		cancel()
		<-done
		retryAt := e.webhook(w.ID).NextAttempt

		other := *e
		other.db = d.Open(t)
		other.svc = webhook.NewService(other.db, testdb.Sealer(t), webhook.NewHTTPClient(true), time.Now, nil)
		other.run(webhook.DispatcherConfig{Poll: time.Hour})
		waitFor(t, "the retry without a poll", func() bool { return r.eventCount() == 2 })
		mu.Lock()
		if retried.Before(retryAt) {
			t.Errorf("retried at %s, before its time %s", retried, retryAt)
		}
		mu.Unlock()
		waitFor(t, "the retry's success recorded", func() bool { return e.webhook(w.ID).Errors == 0 })
	})
}
