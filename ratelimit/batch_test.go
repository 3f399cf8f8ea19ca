package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// TestBatchAcrossReplicas: two replicas, each with its own Batch and its
// own connection to one database, count in memory until a flush, then
// each learns the other's counts at its own flush; one flush carries every
// limiter of a Batch; and a flush forgets the counts that expired.
func TestBatchAcrossReplicas(t *testing.T) {
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			d := testdb.New(t, backend)
			c := storetest.NewClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
			ctx := context.Background()
			name := uniqueKey(t)
			// The interval is long: only the test's own Flush calls add hits.
			replica := func() (*ratelimit.Batch, *ratelimit.Shared, *ratelimit.Shared, *store.DB) {
				db := d.Open(t)
				b := ratelimit.NewBatch(db, time.Hour, c.Now, nil)
				limiter := func(name string) *ratelimit.Shared {
					return ratelimit.NewShared(ratelimit.SharedConfig{Name: name, Store: db, Limit: ratelimit.PerMinute(10),
						Now: c.Now, Batch: b})
				}
				return b, limiter(name), limiter(name + "other:"), db
			}
			ba, a, aOther, db := replica()
			bb, b, _, _ := replica()
			allow := func(l *ratelimit.Shared, n int) (allowed int) {
				for range n {
					if _, ok := l.Allow(ctx, "k"); ok {
						allowed++
					}
				}
				return allowed
			}
			count := func(key string) []ratelimit.Count {
				t.Helper()
				counts, err := db.Counts(ctx, key, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				return counts
			}
			hits := func(key string) int {
				t.Helper()
				n := 0
				for _, c := range count(key) {
					n += c.Hits
				}
				return n
			}

			if n := allow(a, 6); n != 6 {
				t.Fatalf("A allowed %d of 6", n)
			}
			if n := allow(aOther, 2); n != 2 {
				t.Fatalf("A's other limiter allowed %d of 2", n)
			}
			if n := hits(name + "k"); n != 0 {
				t.Fatalf("%d hits in the database before a flush", n)
			}
			ba.Flush(ctx)
			if n, other := hits(name+"k"), hits(name+"other:k"); n != 6 || other != 2 {
				t.Fatalf("after A's flush the database holds %d and %d hits, want 6 and 2 (both limiters in one flush)", n, other)
			}

			// B has not flushed: it knows only its own hits.
			if n := allow(b, 3); n != 3 {
				t.Fatalf("B allowed %d of 3 before it learned A's 6", n)
			}
			bb.Flush(ctx) // the database answers 9: B learns A's 6
			if n := allow(b, 5); n != 1 {
				t.Fatalf("B allowed %d of 5 after its flush, want 1 (A's 6 + B's 3 of 10)", n)
			}
			bb.Flush(ctx)
			if n := hits(name + "k"); n != 10 {
				t.Fatalf("the database holds %d hits, want 10", n)
			}
			// A still counts 6 until its next flush, which tells it of B's 4.
			if n := allow(a, 1); n != 1 {
				t.Fatalf("A refused before it learned B's hits")
			}
			ba.Flush(ctx)
			if n := allow(a, 5); n != 0 {
				t.Fatalf("A allowed %d after its flush told it of B's hits, want 0", n)
			}

			// Three minutes on, the 10:00 window has expired (it weighs only in
			// the 10:01 window): the next flush forgets it.
			c.Advance(3 * time.Minute)
			if n := allow(a, 2); n != 2 {
				t.Fatalf("A allowed %d of 2 in a new window", n)
			}
			ba.Flush(ctx)
			counts := count(name + "k")
			if len(counts) != 1 || !counts[0].Start.Equal(c.Now().Truncate(time.Minute)) || counts[0].Hits != 2 {
				t.Fatalf("counts after the expired window's prune: %+v, want only the 10:03 window's 2", counts)
			}
			if n := hits(name + "other:k"); n != 0 {
				t.Fatalf("the other limiter's expired count was kept: %d hits", n)
			}
		})
	}
}

// TestBatchFlushesAgainOnItsOwn: a Batch needs no Flush call from outside:
// the first hit after a timed flush schedules the next one, so a second
// burst of hits reaches the database as the first did. (The deadline is
// generous for a loaded machine; it asserts that the flush happens, not
// how soon.)
func TestBatchFlushesAgainOnItsOwn(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *store.DB) {
		c := storetest.NewClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
		ctx := context.Background()
		name := uniqueKey(t)
		b := ratelimit.NewBatch(db, 20*time.Millisecond, c.Now, nil)
		l := ratelimit.NewShared(ratelimit.SharedConfig{Name: name, Store: db, Limit: ratelimit.PerMinute(100),
			Now: c.Now, Batch: b})
		hit := func(n int) {
			t.Helper()
			for range n {
				if _, ok := l.Allow(ctx, "k"); !ok {
					t.Fatal("a hit under the limit was refused")
				}
			}
		}
		waitFor := func(want int, what string) {
			t.Helper()
			deadline := time.Now().Add(10 * time.Second)
			got := 0
			for {
				counts, err := db.Counts(ctx, name+"k", time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				got = 0
				for _, c := range counts {
					got += c.Hits
				}
				if got == want || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if got != want {
				t.Fatalf("%s: the database holds %d hits, want %d (no flush without a Flush call)", what, got, want)
			}
		}
		hit(3)
		waitFor(3, "after the first burst")
		hit(2)
		waitFor(5, "after the second burst, which should have armed the timer again")
	})
}
