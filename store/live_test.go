package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
)

// TestLiveDropsSlowStreams: a stream whose reader takes nothing is ended
// once its buffer is full, while one that reads gets every event, in
// order; ending the process's streams closes them; and streams closed go
// from the hub.
func TestLiveDropsSlowStreams(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Slow")})
		if err != nil {
			t.Fatal(err)
		}
		slow, err := db.LiveEvents(ctx, taskd.LiveRequest{Viewer: owner.Viewer()})
		if err != nil {
			t.Fatal(err)
		}
		fast, err := db.LiveEvents(ctx, taskd.LiveRequest{Viewer: owner.Viewer()})
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
		if n := db.LiveStreams(); n != 1 {
			t.Errorf("%d streams in the hub, want the reading one", n)
		}
		db.EndLiveStreams()
		for range fast.Events {
		}
		if n := db.LiveStreams(); n != 0 {
			t.Errorf("%d streams after EndLiveStreams", n)
		}
		fast.Close() // again: harmless
		slow.Close()
	})
}
