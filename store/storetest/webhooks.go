package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// newWebhook adds a webhook of the fixture's account for post_task.
func newWebhook(t *testing.T, f *Fixture) taskd.Webhook {
	t.Helper()
	return must(f.Store.CreateWebhook(context.Background(), taskd.Webhook{AccountID: f.Account.ID, URL: "https://hooks.example/in",
		Events: []string{"post_task"}, Secret: []byte("sealed")}))(t)
}

// testWebhooks: webhooks belong to one account; a change's event becomes
// one delivery per subscribed webhook, delivered in order and recorded.
func testWebhooks(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	// A change made just before the webhook, in the same millisecond (the
	// fixture's clock stands still), is not the webhook's to hear of.
	p := newProject(t, f)
	must(s.CreateTask(ctx, f.Owner, p.ID, 0, taskd.TaskInput{Name: new("before the webhook")}))(t)
	w := newWebhook(t, f)
	if w.Enabled {
		t.Fatal("a new webhook is enabled before its URL check")
	}
	other, _ := NewAccount(t, s, "other")
	_, err := s.Webhook(ctx, other.ID, w.ID)
	want(t, err, taskd.KindNotFound, "webhook")
	want(t, s.DeleteWebhook(ctx, other.ID, w.ID), taskd.KindNotFound, "webhook")
	want(t, s.EnableWebhook(ctx, other.ID, w.ID, 0), taskd.KindNotFound, "webhook")
	want(t, s.DisableWebhook(ctx, other.ID, w.ID, "theirs"), taskd.KindNotFound, "webhook")
	want(t, s.SetWebhookSecret(ctx, other.ID, w.ID, []byte("stolen")), taskd.KindNotFound, "webhook")
	noErr(t, s.EnableWebhook(ctx, f.Account.ID, w.ID, 0))
	noErr(t, s.SetWebhookSecret(ctx, f.Account.ID, w.ID, []byte("rotated")))
	if got := must(s.Webhook(ctx, f.Account.ID, w.ID))(t); !got.Enabled || string(got.Secret) != "rotated" || got.Events[0] != "post_task" {
		t.Fatalf("webhook = %+v", got)
	}
	if list := must(s.Webhooks(ctx, f.Account.ID))(t); len(list) != 1 || list[0].ID != w.ID {
		t.Fatalf("webhooks = %+v", list)
	}

	must(s.CreateTask(ctx, f.Owner, p.ID, 0, taskd.TaskInput{Name: new("one")}))(t)
	must(s.CreateTask(ctx, f.Owner, p.ID, 0, taskd.TaskInput{Name: new("two")}))(t)
	if n := must(s.FanOut(ctx, 100))(t); n < 2 {
		t.Fatalf("fan-out handled %d events, want the two tasks' and earlier ones", n)
	}
	if n := must(s.FanOut(ctx, 100))(t); n != 0 {
		t.Fatalf("a second fan-out handled %d events", n)
	}
	// Events no webhook wants count as handled, so a caller that fans out
	// until a call handles fewer than its limit does not stop early.
	for i := range 3 {
		must(s.CreateProject(ctx, f.Owner, taskd.ProjectInput{Name: new(fmt.Sprintf("unwatched %d", i))}))(t)
	}
	for _, want := range []int{2, 1, 0} {
		if n := must(s.FanOut(ctx, 2))(t); n != want {
			t.Fatalf("fan-out of events nobody wants handled %d, want %d", n, want)
		}
	}
	if due := must(s.DueWebhooks(ctx, 10))(t); len(due) != 1 || due[0].ID != w.ID || due[0].Errors != 0 {
		t.Fatalf("due webhooks = %v", due)
	}
	dels, hook, err := s.NextDeliveries(ctx, w.ID, 1)
	if err != nil || len(dels) != 1 || hook.ID != w.ID || dels[0].Event.Name != "post_task" {
		t.Fatalf("next delivery: %+v %v", dels, err)
	}
	d := dels[0]
	noErr(t, s.RecordAttempt(ctx, taskd.Attempt{WebhookID: w.ID, DeliveryID: d.ID, EventID: d.Event.ID, EventName: d.Event.Name,
		At: f.Clock.Now(), OK: true, HTTPStatus: 200, Latency: 5 * time.Millisecond}, time.Time{}))

	// A backlog goes a page at a time, in event order, and one attempt
	// settles all the deliveries its POST carried.
	for i := range 3 {
		must(s.CreateTask(ctx, f.Owner, p.ID, 0, taskd.TaskInput{Name: new(fmt.Sprintf("backlog %d", i))}))(t)
	}
	must(s.FanOut(ctx, 100))(t)
	backlog, _, err := s.NextDeliveries(ctx, w.ID, 10)
	if err != nil || len(backlog) != 4 || backlog[0].ID == d.ID {
		t.Fatalf("backlog: %+v %v", backlog, err)
	}
	var ids []int64
	for i, b := range backlog {
		if i > 0 && b.Event.ID <= backlog[i-1].Event.ID {
			t.Fatalf("backlog out of order: %+v", backlog)
		}
		ids = append(ids, b.ID)
	}
	if page, _, _ := s.NextDeliveries(ctx, w.ID, 2); len(page) != 2 || page[0].ID != ids[0] || page[1].ID != ids[1] {
		t.Fatalf("a page of two: %+v", page)
	}
	noErr(t, s.RecordAttempt(ctx, taskd.Attempt{WebhookID: w.ID, DeliveryID: ids[0], EventID: backlog[0].Event.ID, EventName: "post_task",
		At: f.Clock.Now(), OK: false, HTTPStatus: 503, Error: "HTTP 503", Deliveries: ids}, f.Clock.Now()))
	if again, _, _ := s.NextDeliveries(ctx, w.ID, 10); len(again) != 4 || again[3].Attempts != 1 {
		t.Fatalf("after a failed batch: %+v", again)
	}
	noErr(t, s.RecordAttempt(ctx, taskd.Attempt{WebhookID: w.ID, DeliveryID: ids[0], EventID: backlog[0].Event.ID, EventName: "post_task",
		At: f.Clock.Now(), OK: true, HTTPStatus: 200, Deliveries: ids}, time.Time{}))
	if rest, _, _ := s.NextDeliveries(ctx, w.ID, 10); len(rest) != 0 {
		t.Fatalf("a delivered batch left %+v", rest)
	}
	attempts := must(s.Attempts(ctx, f.Account.ID, w.ID, 10))(t)
	if len(attempts) != 3 || !attempts[0].OK || attempts[0].Events != 4 || attempts[1].OK || attempts[2].Events != 1 {
		t.Fatalf("attempts = %+v", attempts)
	}
	if got := must(s.Webhook(ctx, f.Account.ID, w.ID))(t); got.Errors != 0 {
		t.Fatalf("a delivered batch left the error count at %d", got.Errors)
	}
	if attempts := must(s.Attempts(ctx, other.ID, w.ID, 10))(t); len(attempts) != 0 {
		t.Fatalf("another account sees attempts: %+v", attempts)
	}
	if stats := must(s.AttemptStats(ctx, other.ID, w.ID, f.Clock.Now().Add(-time.Hour)))(t); len(stats) != 0 {
		t.Fatalf("another account sees attempt statistics: %+v", stats)
	}
	want(t, s.Redeliver(ctx, other.ID, d.ID), taskd.KindNotFound, "delivery")
	noErr(t, s.Redeliver(ctx, f.Account.ID, d.ID))

	f.Clock.Advance(taskd.HoldLimit + time.Hour)
	if n := must(s.ExpireHeld(ctx, f.Clock.Now().Add(-taskd.HoldLimit)))(t); n != 1 {
		t.Fatalf("expired %d held deliveries, want the redelivered one", n)
	}
	if expired := must(s.ExpiredDeliveries(ctx, f.Account.ID, w.ID, 10))(t); len(expired) != 1 {
		t.Fatalf("expired deliveries = %+v", expired)
	}
	if expired := must(s.ExpiredDeliveries(ctx, other.ID, w.ID, 10))(t); len(expired) != 0 {
		t.Fatalf("another account sees expired deliveries: %+v", expired)
	}
	noErr(t, s.DeleteWebhook(ctx, f.Account.ID, w.ID))
	_, err = s.Webhook(ctx, f.Account.ID, w.ID)
	want(t, err, taskd.KindNotFound, "webhook")
}

// testWebhookLeases: one owner at a time holds a webhook, until its lease
// runs out or it lets go.
func testWebhookLeases(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	w := newWebhook(t, f)
	until := f.Clock.Now().Add(30 * time.Second)
	if ok := must(s.Lease(ctx, w.ID, "a", until))(t); !ok {
		t.Fatal("a free webhook was not leased")
	}
	if ok := must(s.Lease(ctx, w.ID, "b", until))(t); ok {
		t.Fatal("a held webhook was leased by another owner")
	}
	if ok := must(s.Lease(ctx, w.ID, "a", until.Add(time.Minute)))(t); !ok {
		t.Fatal("the owner could not renew its lease")
	}
	noErr(t, s.Release(ctx, w.ID, "b")) // not b's: no effect
	if ok := must(s.Lease(ctx, w.ID, "b", until))(t); ok {
		t.Fatal("another owner's release freed the webhook")
	}
	f.Clock.Advance(2 * time.Minute)
	if ok := must(s.Lease(ctx, w.ID, "b", f.Clock.Now().Add(30*time.Second)))(t); !ok {
		t.Fatal("an expired lease was not taken over")
	}
	noErr(t, s.Release(ctx, w.ID, "b"))
	if ok := must(s.Lease(ctx, w.ID, "a", f.Clock.Now().Add(30*time.Second)))(t); !ok {
		t.Fatal("a released webhook was not leased")
	}
}
