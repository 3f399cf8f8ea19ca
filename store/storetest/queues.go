package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// addWebhook adds an enabled webhook of the fixture's account.
func addWebhook(t *testing.T, f *Fixture, events []string, projects []int64) taskd.Webhook {
	t.Helper()
	ctx := context.Background()
	w := must(f.Store.CreateWebhook(ctx, taskd.Webhook{AccountID: f.Account.ID, URL: "https://hooks.example/in",
		Events: events, Projects: projects, Secret: []byte("sealed")}))(t)
	noErr(t, f.Store.EnableWebhook(ctx, f.Account.ID, w.ID, 0))
	return w
}

// fanOutAll fans out until no event is left.
func fanOutAll(t *testing.T, s Store) {
	t.Helper()
	for must(s.FanOut(context.Background(), 200))(t) == 200 {
	}
}

// drainOneByOne takes a webhook's deliveries one per call, records each
// as delivered, and returns them as "name project" in the order taken.
func drainOneByOne(t *testing.T, f *Fixture, w taskd.Webhook) []string {
	t.Helper()
	ctx := context.Background()
	var got []string
	var last int64
	for {
		dels, _, err := f.Store.NextDeliveries(ctx, w.ID, 1)
		noErr(t, err)
		if len(dels) == 0 {
			return got
		}
		d := dels[0]
		if d.Event.ID <= last {
			t.Fatalf("webhook %d: event %d after %d", w.ID, d.Event.ID, last)
		}
		last = d.Event.ID
		got = append(got, fmt.Sprintf("%s %d", d.Event.Name, d.Event.ProjectID))
		noErr(t, f.Store.RecordAttempt(ctx, taskd.Attempt{WebhookID: w.ID, DeliveryID: d.ID, EventID: d.Event.ID,
			EventName: d.Event.Name, At: f.Clock.Now(), OK: true, HTTPStatus: 200}, time.Time{}))
	}
}

// testWebhookQueues: fan-out queues each event for the webhooks that want
// it, and the deliveries made from a queue, a page at a time and across
// more events nobody wants than one read of the queue takes, are exactly
// those, in event order.
func testWebhookQueues(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	p1, p2 := newProject(t, f), newProject(t, f)
	posts := addWebhook(t, f, []string{"post_task"}, []int64{p1.ID})
	changes := addWebhook(t, f, []string{"update_task", "close_task"}, nil)

	t1 := must(s.CreateTask(ctx, f.Owner, p1.ID, 0, taskd.TaskInput{Name: new("one")}))(t)
	t2 := must(s.CreateTask(ctx, f.Owner, p2.ID, 0, taskd.TaskInput{Name: new("elsewhere")}))(t)
	must(s.UpdateTask(ctx, f.Owner, t1.ID, taskd.TaskInput{Name: new("one, renamed")}))(t)
	fanOutAll(t, s) // part of the queue is fanned out before the rest is written
	for i := range 520 {
		must(s.CreateProject(ctx, f.Owner, taskd.ProjectInput{Name: new(fmt.Sprintf("unwatched %d", i))}))(t)
	}
	must(s.CreateTask(ctx, f.Owner, p1.ID, 0, taskd.TaskInput{Name: new("two")}))(t)
	must(s.CompleteTask(ctx, f.Owner, t1.ID))(t)
	must(s.UpdateTask(ctx, f.Owner, t2.ID, taskd.TaskInput{Name: new("elsewhere, renamed")}))(t)
	fanOutAll(t, s)
	if due := must(s.DueWebhooks(ctx, 10))(t); len(due) != 2 {
		t.Fatalf("due webhooks = %v, want both queues", due)
	}

	wantPosts := []string{fmt.Sprintf("post_task %d", p1.ID), fmt.Sprintf("post_task %d", p1.ID)}
	if got := drainOneByOne(t, f, posts); !slices.Equal(got, wantPosts) {
		t.Fatalf("post_task in project %d: got %q, want %q", p1.ID, got, wantPosts)
	}
	wantChanges := []string{fmt.Sprintf("update_task %d", p1.ID), fmt.Sprintf("close_task %d", p1.ID),
		fmt.Sprintf("update_task %d", p2.ID)}
	if got := drainOneByOne(t, f, changes); !slices.Equal(got, wantChanges) {
		t.Fatalf("task changes: got %q, want %q", got, wantChanges)
	}
	if due := must(s.DueWebhooks(ctx, 10))(t); len(due) != 0 {
		t.Fatalf("due webhooks after draining = %v", due)
	}
}

// testQueuedExpiry: events held for a webhook longer than the hold limit
// are never sent, whether ExpireHeld or the next read finds them first,
// and are listed as expired.
func testQueuedExpiry(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	p := newProject(t, f)
	swept := addWebhook(t, f, []string{"post_task"}, nil)
	read := addWebhook(t, f, []string{"post_task"}, nil)
	for i := range 3 {
		must(s.CreateTask(ctx, f.Owner, p.ID, 0, taskd.TaskInput{Name: new(fmt.Sprintf("old %d", i))}))(t)
	}
	fanOutAll(t, s)
	f.Clock.Advance(taskd.HoldLimit + time.Hour)
	fresh := must(s.CreateTask(ctx, f.Owner, p.ID, 0, taskd.TaskInput{Name: new("fresh")}))(t)
	fanOutAll(t, s)

	dels, _, err := s.NextDeliveries(ctx, read.ID, 10)
	noErr(t, err)
	if len(dels) != 1 || !strings.Contains(string(dels[0].Event.Body), fresh.Name) {
		t.Fatalf("read past the hold limit: %+v, want only the fresh task's event", dels)
	}
	// The read webhook's three are expired already or now, as the store
	// keeps them (queued, or written at fan-out); the swept one's now.
	if n := must(s.ExpireHeld(ctx, f.Clock.Now().Add(-taskd.HoldLimit)))(t); n != 3 && n != 6 {
		t.Fatalf("expired %d held deliveries, want the swept webhook's three (and the read one's)", n)
	}
	for _, w := range []taskd.Webhook{swept, read} {
		if expired := must(s.ExpiredDeliveries(ctx, f.Account.ID, w.ID, 10))(t); len(expired) != 3 {
			t.Fatalf("webhook %d: expired deliveries = %+v", w.ID, expired)
		}
	}
	dels, _, err = s.NextDeliveries(ctx, swept.ID, 10)
	noErr(t, err)
	if len(dels) != 1 || !strings.Contains(string(dels[0].Event.Body), fresh.Name) {
		t.Fatalf("after the sweep: %+v, want only the fresh task's event", dels)
	}
}

// testHeldEvents: a webhook's held events are the events it wants that
// wait for it, pending or still queued, each counted once, within the
// hold limit; sent, unwanted and too old ones are not.
func testHeldEvents(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	p1, p2 := newProject(t, f), newProject(t, f)
	w := addWebhook(t, f, []string{"post_task"}, []int64{p1.ID})
	noErr(t, s.DisableWebhook(ctx, f.Account.ID, w.ID, "Disabled by hand"))
	held := func(want int, when string) {
		t.Helper()
		if n := must(s.HeldEvents(ctx, f.Account.ID, w.ID))(t); n != want {
			t.Fatalf("%s: %d held events, want %d", when, n, want)
		}
	}
	held(0, "before any change")
	for i := range 3 {
		must(s.CreateTask(ctx, f.Owner, p1.ID, 0, taskd.TaskInput{Name: new(fmt.Sprintf("wanted %d", i))}))(t)
	}
	must(s.CreateTask(ctx, f.Owner, p2.ID, 0, taskd.TaskInput{Name: new("another project")}))(t)
	must(s.CreateProject(ctx, f.Owner, taskd.ProjectInput{Name: new("not subscribed")}))(t)
	fanOutAll(t, s)
	held(3, "three wanted events fanned out")
	other, _ := NewAccount(t, s, "other")
	_, err := s.HeldEvents(ctx, other.ID, w.ID)
	want(t, err, taskd.KindNotFound, "webhook")

	// One made a delivery and sent, one made a delivery that failed, one
	// left where it waits: two are held, each once.
	dels, _, err := s.NextDeliveries(ctx, w.ID, 2)
	noErr(t, err)
	if len(dels) != 2 {
		t.Fatalf("next deliveries: %+v", dels)
	}
	held(3, "two of them made deliveries")
	noErr(t, s.RecordAttempt(ctx, taskd.Attempt{WebhookID: w.ID, DeliveryID: dels[0].ID, EventID: dels[0].Event.ID,
		EventName: dels[0].Event.Name, At: f.Clock.Now(), OK: true, HTTPStatus: 200}, time.Time{}))
	noErr(t, s.RecordAttempt(ctx, taskd.Attempt{WebhookID: w.ID, DeliveryID: dels[1].ID, EventID: dels[1].Event.ID,
		EventName: dels[1].Event.Name, At: f.Clock.Now(), HTTPStatus: 503, Error: "HTTP 503, want 200"}, f.Clock.Now().Add(time.Minute)))
	held(2, "one sent, one failed")

	// Past the hold limit they expire rather than go out.
	f.Clock.Advance(taskd.HoldLimit + time.Hour)
	held(0, "past the hold limit")
	must(s.CreateTask(ctx, f.Owner, p1.ID, 0, taskd.TaskInput{Name: new("fresh")}))(t)
	fanOutAll(t, s)
	held(1, "a fresh event")
}
