package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/webhook"
)

// TestBatchCutByBytes: a backlog of events too large for one POST each
// by count (a few dozen KB of text apiece) comes in POSTs cut by their
// size: none larger than 256 KiB, the documented limit written out, each
// as full as the next event allowed, every event once and in order.
func TestBatchCutByBytes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		const limit = 256 << 10 // docs/webhooks.md: "up to 100 events, within 256 KiB"
		e := newEnv(t, d, true)
		r := newReceiver(t)
		w, sec := e.held(r.URL, "post_task")
		ctx := context.Background()
		e.run(webhook.DispatcherConfig{})
		const n = 15
		for i := range n {
			name, text := fmt.Sprintf("big %d", i), strings.Repeat("x", 40<<10+i*(3<<10)) // 40 to 82 KB
			if _, err := e.db.CreateTask(ctx, e.by, e.project.ID, 0, taskd.TaskInput{Name: &name, Text: &text}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.svc.Enable(ctx, e.account.ID, w.ID, 0); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the backlog", func() bool { return r.eventCount() >= n })
		posts := r.deliveries()
		var prev float64
		several := false
		for i, p := range posts {
			var raw []json.RawMessage
			if err := json.Unmarshal(p.body, &raw); err != nil {
				t.Fatal(err)
			}
			several = several || len(raw) > 1
			if len(p.body) > limit || len(raw) >= webhook.MaxBatch {
				t.Fatalf("POST %d: %d bytes and %d events; want at most %d bytes, cut by size before count", i, len(p.body), len(raw), limit)
			}
			if i+1 < len(posts) {
				var next []json.RawMessage
				json.Unmarshal(posts[i+1].body, &next)
				if fits := len(p.body) + 1 + len(next[0]); fits <= limit {
					t.Fatalf("POST %d was cut at %d bytes, though the next event (%d bytes) fitted: %d", i, len(p.body), len(next[0]), fits)
				}
			}
			for _, ev := range p.events {
				var id float64
				fmt.Sscan(ev["id"].(string), &id)
				if id <= prev {
					t.Fatalf("event %v after %v: out of order or twice", id, prev)
				}
				prev = id
			}
		}
		if !several || r.eventCount() != n {
			t.Fatalf("%d events in %d POSTs, none carrying more than one: want batches of several", r.eventCount(), len(posts))
		}
		checkMessages(t, posts, sec)
	})
}

// TestBatchBytesCountTheCommas: the byte limit counts the whole body, the
// brackets and the comma between events too. Two events sized so that
// "[" + a + "," + b + "]" is one byte over MaxBatchBytes come in two POSTs,
// each within the limit; sized to exactly MaxBatchBytes, in one POST.
func TestBatchBytesCountTheCommas(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		for _, c := range []struct {
			name  string
			total int // bytes of "[a,b]"
			posts int
		}{
			{"one byte over", webhook.MaxBatchBytes + 1, 2},
			{"exactly the limit", webhook.MaxBatchBytes, 1},
		} {
			t.Run(c.name, func(t *testing.T) {
				e := newEnv(t, d, true)
				r := newReceiver(t)
				w, sec := e.held(r.URL, "post_task")
				ctx := context.Background()
				// post creates a task with a text of n bytes and returns the
				// size of its event's JSON as the POST carries it.
				post := func(name string, n int) int {
					text := strings.Repeat("x", n)
					if _, err := e.db.CreateTask(ctx, e.by, e.project.ID, 0, taskd.TaskInput{Name: &name, Text: &text}); err != nil {
						t.Fatal(err)
					}
					evs, err := e.db.Events(ctx, taskd.AccountViewer(e.account.ID), time.Time{}, e.project.ID)
					if err != nil {
						t.Fatal(err)
					}
					last := evs[0]
					for _, ev := range evs {
						if ev.Name == "post_task" && ev.ID > last.ID {
							last = ev
						}
					}
					return len(last.JSON())
				}
				const textA = 131000
				a := post("a", textA)
				overhead := a - textA // the same for b: a name of the same length, ids of as many digits
				wantB := c.total - 3 - a
				if b := post("b", wantB-overhead); b != wantB {
					t.Fatalf("event b is %d bytes, want %d: the sizing assumption no longer holds", b, wantB)
				}
				e.run(webhook.DispatcherConfig{})
				if err := e.svc.Enable(ctx, e.account.ID, w.ID, 0); err != nil {
					t.Fatal(err)
				}
				waitFor(t, "both events", func() bool { return r.eventCount() >= 2 })
				posts := r.deliveries()
				for i, p := range posts {
					if len(p.body) > webhook.MaxBatchBytes {
						t.Errorf("POST %d: %d bytes, over the %d-byte limit", i, len(p.body), webhook.MaxBatchBytes)
					}
				}
				if len(posts) != c.posts || r.eventCount() != 2 {
					t.Fatalf("%d events in %d POSTs, want 2 in %d (\"[a,b]\" is %d bytes)", r.eventCount(), len(posts), c.posts, c.total)
				}
				if c.posts == 1 && len(posts[0].body) != c.total {
					t.Fatalf("the POST is %d bytes, want %d", len(posts[0].body), c.total)
				}
				// Cut or whole, each POST names its own events.
				checkMessages(t, posts, sec)
			})
		}
	})
}

// TestBacklogComesInBatches: events held while a webhook was disabled go
// out, once it is enabled, as few POSTs of up to MaxBatch events each, in
// order, each event once, with one attempt record per POST.
func TestBacklogComesInBatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		e := newEnv(t, d, true)
		r := newReceiver(t)
		w, sec := e.held(r.URL, "post_task")
		e.run(webhook.DispatcherConfig{})
		const n = 2*webhook.MaxBatch + 50
		for i := range n {
			e.newTask(e.project.ID, fmt.Sprintf("held %d", i))
		}
		if err := e.svc.Enable(context.Background(), e.account.ID, w.ID, 0); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the backlog", func() bool { return r.eventCount() >= n })
		posts := r.deliveries()
		if len(posts) < 3 || len(posts) > n/10 {
			t.Fatalf("%d events came in %d POSTs", n, len(posts))
		}
		var prev float64
		for i, p := range posts {
			if len(p.events) > webhook.MaxBatch {
				t.Fatalf("POST %d carries %d events", i, len(p.events))
			}
			for _, ev := range p.events {
				id, _ := strconv.ParseFloat(ev["id"].(string), 64)
				if id <= prev {
					t.Fatalf("event %v after %v: out of order or twice", id, prev)
				}
				prev = id
			}
		}
		if r.eventCount() != n {
			t.Fatalf("%d events arrived, want %d", r.eventCount(), n)
		}
		checkMessages(t, posts, sec)
		waitFor(t, "the attempts to be recorded", func() bool {
			attempts, err := e.db.Attempts(context.Background(), e.account.ID, w.ID, 100)
			events := 0
			for _, a := range attempts {
				if a.EventID != 0 {
					events += a.Events
				}
			}
			return err == nil && events == n
		})
	})
}
