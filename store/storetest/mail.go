package storetest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// testMailOutbox: queued mail is due at once and claimed by one sender at
// a time, even by eight at once; a failed attempt waits until its retry
// time and a lost sender's lease runs out; a sent message keeps no body, a
// kept one does; finished messages are listed and pruned.
func testMailOutbox(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	var ids []int64
	for i := range 12 {
		id := must(s.QueueMail(ctx, taskd.QueuedMail{To: fmt.Sprintf("p%d@example.com", i), Subject: "Hi", Kind: "test", Body: []byte{1, 2, byte(i)}}))(t)
		ids = append(ids, id)
	}
	// Eight senders at once claim every message exactly once.
	var mu sync.Mutex
	seen := map[int64]int{}
	byID := map[int64]taskd.QueuedMail{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, err := s.ClaimMail(ctx, 2, time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, m := range got {
				seen[m.ID]++
				byID[m.ID] = m
				if m.Attempts != 1 || m.State != taskd.MailPending || len(m.Body) != 3 {
					t.Errorf("claimed %+v", m)
				}
			}
		})
	}
	wg.Wait()
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("message %d claimed %d times", id, n)
		}
	}
	rest := must(s.ClaimMail(ctx, 100, time.Minute))(t)
	for _, m := range rest {
		byID[m.ID] = m
	}
	if len(seen)+len(rest) != 12 {
		t.Fatalf("claimed %d then %d of 12", len(seen), len(rest))
	}
	if again := must(s.ClaimMail(ctx, 100, time.Minute))(t); len(again) != 0 {
		t.Fatalf("leased messages claimed again: %d", len(again))
	}

	// Outcomes: sent, kept, failed, retry later; the rest were "lost" by
	// their sender and come back when the lease ends.
	noErr(t, s.FinishMail(ctx, byID[ids[0]], taskd.MailSent, ""))
	noErr(t, s.FinishMail(ctx, byID[ids[1]], taskd.MailKept, "no server"))
	noErr(t, s.FinishMail(ctx, byID[ids[2]], taskd.MailFailed, "550 no such user"))
	noErr(t, s.RetryMail(ctx, byID[ids[3]], "connection refused", f.Clock.Now().Add(10*time.Minute)))
	want(t, s.FinishMail(ctx, byID[ids[0]], taskd.MailSent, ""), taskd.KindNotFound, "mail") // only once
	want(t, s.FinishMail(ctx, byID[ids[4]], taskd.MailPending, ""), taskd.KindInvalid, "state")

	sent := must(s.MailByID(ctx, ids[0]))(t)
	if sent.State != taskd.MailSent || len(sent.Body) != 0 || sent.DoneAt.IsZero() {
		t.Fatalf("sent: %+v", sent)
	}
	if kept := must(s.MailByID(ctx, ids[1]))(t); kept.State != taskd.MailKept || !bytes.Equal(kept.Body, []byte{1, 2, 1}) || kept.LastError != "no server" {
		t.Fatalf("kept: %+v", kept)
	}
	if failed := must(s.MailByID(ctx, ids[2]))(t); failed.State != taskd.MailFailed || failed.LastError != "550 no such user" {
		t.Fatalf("failed: %+v", failed)
	}
	_, err := s.MailByID(ctx, 1<<40)
	want(t, err, taskd.KindNotFound, "mail")

	f.Clock.Advance(2 * time.Minute) // past the leases, not the retry
	back := must(s.ClaimMail(ctx, 100, time.Hour))(t)
	if len(back) != 8 || back[0].ID != ids[4] || back[0].Attempts != 2 {
		t.Fatalf("after the leases ran out: %d claimed, first %+v", len(back), back[0])
	}
	// The sender whose lease ran out cannot record over the new claim.
	want(t, s.FinishMail(ctx, byID[ids[4]], taskd.MailSent, ""), taskd.KindNotFound, "mail")
	want(t, s.RetryMail(ctx, byID[ids[4]], "late", f.Clock.Now()), taskd.KindNotFound, "mail")
	noErr(t, s.FinishMail(ctx, back[0], taskd.MailSent, ""))
	f.Clock.Advance(10 * time.Minute)
	retried := must(s.ClaimMail(ctx, 100, time.Minute))(t)
	if len(retried) != 1 || retried[0].ID != ids[3] || retried[0].Attempts != 2 || retried[0].LastError != "connection refused" {
		t.Fatalf("retry: %+v", retried)
	}

	list := must(s.Mail(ctx, 5))(t)
	if len(list) != 5 || list[0].ID != ids[11] {
		t.Fatalf("list: %d, first %d", len(list), list[0].ID)
	}
	f.Clock.Advance(time.Hour)
	n := must(s.PruneMail(ctx, f.Clock.Now().Add(-30*time.Minute)))(t)
	if n != 4 {
		t.Fatalf("pruned %d, want the 4 finished", n)
	}
	if all := must(s.Mail(ctx, 100))(t); len(all) != 8 {
		t.Fatalf("%d left after pruning, want 8", len(all))
	}
	// Kept mail is due again once a server is configured.
	kept := must(s.QueueMail(ctx, taskd.QueuedMail{To: "k@example.com", Subject: "Hi", Kind: "test", Body: []byte{1}}))(t)
	f.Clock.Advance(time.Hour)
	for _, m := range must(s.ClaimMail(ctx, 100, time.Minute))(t) {
		state := taskd.MailSent
		if m.ID == kept {
			state = taskd.MailKept
		}
		noErr(t, s.FinishMail(ctx, m, state, ""))
	}
	if n := must(s.RequeueKept(ctx, f.Clock.Now().Add(-2*time.Hour)))(t); n != 1 {
		t.Fatalf("requeued %d kept messages, want 1", n)
	}
	if again := must(s.ClaimMail(ctx, 100, time.Minute))(t); len(again) != 1 || again[0].ID != kept {
		t.Fatalf("after requeueing: %+v", again)
	}
}
