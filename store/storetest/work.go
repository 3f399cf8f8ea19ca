package storetest

import (
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// testWebhookWork: one read tells the dispatcher what is due now, how
// long until the next retry or lease end, and whether events wait for
// fan-out; pending deliveries past the hold limit, which are never sent,
// make no webhook due.
func testWebhookWork(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	p := newProject(t, f)
	w := newWebhook(t, f)
	noErr(t, s.EnableWebhook(ctx, f.Account.ID, w.ID, 0))
	must(s.FanOut(ctx, 100))(t)
	if work := must(s.WebhookWork(ctx, 10, true))(t); work.Unfanned || len(work.Due) != 0 || work.NextIn != 0 {
		t.Fatalf("nothing to do: %+v", work)
	}
	must(s.CreateTask(ctx, f.Owner, p.ID, 0, taskd.TaskInput{Name: new("one")}))(t)
	if work := must(s.WebhookWork(ctx, 10, true))(t); !work.Unfanned || len(work.Due) != 0 {
		t.Fatalf("an event waits for fan-out: %+v", work)
	}
	if work := must(s.WebhookWork(ctx, 10, false))(t); work.Unfanned {
		t.Fatalf("unfanned events told though not asked: %+v", work)
	}
	must(s.FanOut(ctx, 100))(t)
	work := must(s.WebhookWork(ctx, 10, true))(t)
	if work.Unfanned || len(work.Due) != 1 || work.Due[0].ID != w.ID || work.NextIn != 0 {
		t.Fatalf("one webhook due: %+v", work)
	}

	// A failed attempt puts the webhook off: nothing is due, and the
	// retry is 90 seconds away.
	dels := must3(s.NextDeliveries(ctx, w.ID, 10))(t)
	noErr(t, s.RecordAttempt(ctx, taskd.Attempt{WebhookID: w.ID, DeliveryID: dels[0].ID, EventID: dels[0].Event.ID, EventName: "post_task",
		At: f.Clock.Now(), OK: false, HTTPStatus: 503, Error: "HTTP 503"}, f.Clock.Now().Add(90*time.Second)))
	if work := must(s.WebhookWork(ctx, 10, true))(t); len(work.Due) != 0 || work.NextIn != 90*time.Second {
		t.Fatalf("a retry in 90 s: %+v", work)
	}
	f.Clock.Advance(90 * time.Second)
	if work := must(s.WebhookWork(ctx, 10, true))(t); len(work.Due) != 1 || work.Due[0].Errors != 1 || work.NextIn != 0 {
		t.Fatalf("the retry is due: %+v", work)
	}

	// Another owner's lease puts it off until the lease ends.
	if ok := must(s.Lease(ctx, w.ID, "other replica", f.Clock.Now().Add(30*time.Second)))(t); !ok {
		t.Fatal("lease refused")
	}
	if work := must(s.WebhookWork(ctx, 10, true))(t); len(work.Due) != 0 || work.NextIn <= 30*time.Second || work.NextIn > 31*time.Second {
		t.Fatalf("leased for 30 s: %+v", work)
	}
	noErr(t, s.Release(ctx, w.ID, "other replica"))

	// Past the hold limit the delivery is never sent: the webhook is not
	// due for it, though it is pending until the sweep.
	f.Clock.Advance(taskd.HoldLimit + time.Minute)
	if work := must(s.WebhookWork(ctx, 10, true))(t); len(work.Due) != 0 || work.NextIn != 0 {
		t.Fatalf("only a delivery past the hold limit: %+v", work)
	}
}
