package live_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/live"
	"github.com/taskd/taskd/store"
)

// runHub runs a hub of the store's events on the clock now (time.Now
// when nil) until the test ends, as the server runs one while it serves.
func runHub(t *testing.T, db *store.DB, now func() time.Time) *live.Hub {
	t.Helper()
	hub := live.New(db, live.Config{Now: now})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		hub.Run(ctx)
	}()
	t.Cleanup(func() { stop(); <-done })
	return hub
}

// TestLiveDropsSlowStreams: a stream whose reader takes nothing is ended
// once its buffer is full, while one that reads gets every event, in
// order; ending the process's streams closes them; and streams closed go
// from the hub.
func TestLiveDropsSlowStreams(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		hub := runHub(t, db, nil)
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Slow")})
		if err != nil {
			t.Fatal(err)
		}
		slow, err := hub.LiveEvents(ctx, taskd.LiveRequest{Viewer: owner.Viewer()})
		if err != nil {
			t.Fatal(err)
		}
		fast, err := hub.LiveEvents(ctx, taskd.LiveRequest{Viewer: owner.Viewer()})
		if err != nil {
			t.Fatal(err)
		}
		const n = 300 // more than a stream's buffer (256)
		got := make(chan []int64, 1)
		go func() {
			var ids []int64
			for e := range fast.Events {
				ids = append(ids, e.ID)
				if len(ids) == n {
					break
				}
			}
			got <- ids
		}()
		for i := range n {
			if _, err := db.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new(fmt.Sprint("task ", i))}); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case ids := <-got:
			for i := 1; i < len(ids); i++ {
				if ids[i] <= ids[i-1] {
					t.Fatalf("the reading stream's ids are out of order: %v", ids)
				}
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the reading stream did not get every event")
		}
		drained := 0
		for ended := false; !ended; { // closed: what it held, then the end
			select {
			case _, ok := <-slow.Events:
				if !ok {
					ended = true
					continue
				}
				drained++
			case <-time.After(10 * time.Second):
				t.Fatalf("the slow stream was not ended (%d events held)", drained)
			}
		}
		if drained > 256 {
			t.Errorf("the slow stream held %d events", drained)
		}
		if n := hub.Streams(); n != 1 {
			t.Errorf("%d streams in the hub, want the reading one", n)
		}
		hub.EndStreams()
		for range fast.Events {
		}
		if n := hub.Streams(); n != 0 {
			t.Errorf("%d streams after EndStreams", n)
		}
		fast.Close() // again: harmless
		slow.Close()
	})
}
