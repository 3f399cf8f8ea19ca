package ratelimit_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// forEachBackend runs fn with a real SQLite file and, with
// TASKD_TEST_POSTGRES, PostgreSQL, each on a fresh database.
func forEachBackend(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) { fn(t, testdb.New(t, backend).Open(t)) })
	}
}

// uniqueKey names a test's limiter.
func uniqueKey(t *testing.T) string { return t.Name() + ":" }

// TestStrictHoldsUnderConcurrency: 40 attempts at once under one key with a
// limit of 10 let exactly 10 through, and the refused ones are not counted.
func TestStrictHoldsUnderConcurrency(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *store.DB) {
		c := storetest.NewClock(time.Date(2026, 11, 23, 10, 0, 30, 0, time.UTC))
		l := ratelimit.NewStrict(uniqueKey(t), db, ratelimit.Limit{Max: 10, Window: 15 * time.Minute}, c.Now)
		ctx := context.Background()
		var ok, refused atomic.Int64
		var wg sync.WaitGroup
		for range 40 {
			wg.Go(func() {
				_, wait, allowed, err := l.Take(ctx, "alice")
				switch {
				case err != nil:
					t.Error(err)
				case allowed:
					ok.Add(1)
				case wait < time.Second:
					t.Errorf("refused with Retry-After %v", wait)
				default:
					refused.Add(1)
				}
			})
		}
		wg.Wait()
		if ok.Load() != 10 || refused.Load() != 30 {
			t.Fatalf("allowed %d and refused %d of 40, want 10 and 30", ok.Load(), refused.Load())
		}
		// Another key is counted apart.
		if _, _, allowed, _ := l.Take(ctx, "bob"); !allowed {
			t.Fatal("another key was refused")
		}
	})
}

// TestStrictWindowSlides: attempts leave the count 15 minutes after they
// were made, a bucket at a time, and Retry-After says when.
func TestStrictWindowSlides(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *store.DB) {
		c := storetest.NewClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
		l := ratelimit.NewStrict(uniqueKey(t), db, ratelimit.Limit{Max: 3, Window: 15 * time.Minute}, c.Now)
		ctx := context.Background()
		take := func() (time.Duration, bool) {
			t.Helper()
			_, wait, ok, err := l.Take(ctx, "k")
			if err != nil {
				t.Fatal(err)
			}
			return wait, ok
		}
		take() // 10:00
		c.Advance(5 * time.Minute)
		take() // 10:05
		take()
		c.Advance(5 * time.Minute) // 10:10
		wait, ok := take()
		if ok || wait != 5*time.Minute {
			t.Fatalf("4th attempt: ok %v, Retry-After %v; want refused for 5m (the 10:00 attempt leaves at 10:15)", ok, wait)
		}
		c.Advance(5 * time.Minute) // 10:15: the first attempt has left
		if _, ok := take(); !ok {
			t.Fatal("refused after the oldest attempt left the window")
		}
		if wait, ok := take(); ok || wait != 5*time.Minute {
			t.Fatalf("refused attempt: ok %v, Retry-After %v", ok, wait)
		}
	})
}

// TestStrictReturn: a returned attempt no longer counts.
func TestStrictReturn(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *store.DB) {
		c := storetest.NewClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
		l := ratelimit.NewStrict(uniqueKey(t), db, ratelimit.Limit{Max: 2, Window: time.Minute}, c.Now)
		ctx := context.Background()
		for i := range 10 {
			tk, _, ok, err := l.Take(ctx, "k")
			if err != nil || !ok {
				t.Fatalf("attempt %d: %v %v", i, ok, err)
			}
			if err := l.Return(ctx, tk); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSharedAcrossReplicas: two limiters on one database, like two
// replicas, together let through about the limit: what one counted reaches
// the other at its next sync.
func TestSharedAcrossReplicas(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *store.DB) {
		c := storetest.NewClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
		name := uniqueKey(t)
		replica := func() *ratelimit.Shared {
			return ratelimit.NewShared(ratelimit.SharedConfig{Name: name, Store: db, Limit: ratelimit.PerMinute(100),
				Sync: time.Second, Now: c.Now})
		}
		a, b := replica(), replica()
		ctx := context.Background()
		allow := func(l *ratelimit.Shared, n int) (allowed int) {
			for range n {
				if _, ok := l.Allow(ctx, "acct"); ok {
					allowed++
				}
			}
			return allowed
		}
		if n := allow(a, 60); n != 60 {
			t.Fatalf("replica A allowed %d of 60", n)
		}
		c.Advance(1100 * time.Millisecond)
		allow(a, 1) // syncs A's 61 hits
		got := allow(b, 100)
		if got != 39 {
			t.Fatalf("replica B allowed %d after A's 61, want 39", got)
		}
		wait, ok := b.Allow(ctx, "acct")
		if ok || wait < time.Second || wait > 2*time.Minute {
			t.Fatalf("over the limit: ok %v, Retry-After %v", ok, wait)
		}
		// Another key has its own count.
		if _, ok := b.Allow(ctx, "other"); !ok {
			t.Fatal("another key was refused")
		}
		// Two minutes later the counts have faded.
		c.Advance(2 * time.Minute)
		if n := allow(b, 50); n != 50 {
			t.Fatalf("after the window, B allowed %d of 50", n)
		}
	})
}

// TestSharedSlidingWindow: the previous window's hits weigh by the part of
// it still inside the sliding window.
func TestSharedSlidingWindow(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *store.DB) {
		c := storetest.NewClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
		l := ratelimit.NewShared(ratelimit.SharedConfig{Name: uniqueKey(t), Store: db, Limit: ratelimit.PerMinute(10), Now: c.Now})
		ctx := context.Background()
		for i := range 10 {
			if _, ok := l.Allow(ctx, "k"); !ok {
				t.Fatalf("hit %d refused", i)
			}
		}
		c.Advance(90 * time.Second) // half way through the next window: 10 × ½ = 5 still count
		allowed := 0
		for range 10 {
			if _, ok := l.Allow(ctx, "k"); ok {
				allowed++
			}
		}
		if allowed != 5 {
			t.Fatalf("allowed %d half a window later, want 5", allowed)
		}
	})
}

// TestSharedStoreDown: when the counts cannot be shared, requests are
// still decided on the local counts.
func TestSharedStoreDown(t *testing.T) {
	db, err := store.Open(context.Background(), store.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	l := ratelimit.NewShared(ratelimit.SharedConfig{Name: "down:", Store: db, Limit: ratelimit.PerMinute(3)})
	var allowed int
	for range 5 {
		if _, ok := l.Allow(context.Background(), "k"); ok {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("allowed %d of 5 with the store down, want 3", allowed)
	}
}

func TestClientAddress(t *testing.T) {
	for _, tc := range []struct {
		remote, xff string
		trust       bool
		want        string
	}{
		{"203.0.113.7:4711", "", false, "203.0.113.7"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", false, "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "", false, "2001:db8:1:2::/64"},
		{"[::ffff:203.0.113.7]:1", "", false, "203.0.113.7"},
		{"[fe80::1%eth0]:1", "", false, "fe80::/64"},
		{"10.0.0.1:1", "198.51.100.1, 203.0.113.9", false, "10.0.0.1"},
		{"10.0.0.1:1", "198.51.100.1, 203.0.113.9", true, "203.0.113.9"},
		{"10.0.0.1:1", "garbage", true, "garbage"},
	} {
		r := &http.Request{RemoteAddr: tc.remote, Header: http.Header{}}
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := ratelimit.ClientAddress(r, tc.trust); got != tc.want {
			t.Errorf("ClientAddress(%q, %q, %v) = %q, want %q", tc.remote, tc.xff, tc.trust, got, tc.want)
		}
	}
}
