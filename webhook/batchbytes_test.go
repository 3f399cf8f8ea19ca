package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

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
		w, _ := e.add(r.URL, taskd.WebhookInput{Events: "post_task"})
		ctx := context.Background()
		if err := e.svc.Disable(ctx, e.account.ID, w.ID); err != nil {
			t.Fatal(err)
		}
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
	})
}
