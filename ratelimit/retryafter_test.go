package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// hitter is one limiter under test, reduced to a hit: allowed or not, and
// the Retry-After of a refusal.
type hitter func(ctx context.Context) (time.Duration, bool)

// retryAfterCase is a history of hits, each after the clock moved by its
// step, that leaves the key at its limit.
type retryAfterCase struct {
	name    string
	limiter string // "shared" or "strict"
	limit   ratelimit.Limit
	steps   []time.Duration // one hit after each
}

// TestRetryAfterIsExact: a refused hit's Retry-After is the least whole
// number of seconds after which a client gets through: waiting exactly that
// long lets the next hit in, one second less does not. The histories cover
// a full window (the next one lets in), a window whose predecessor still
// weighs, and the sign-in limiter's buckets, with waits that fall on whole
// seconds and between them.
func TestRetryAfterIsExact(t *testing.T) {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for _, tc := range []retryAfterCase{
		// 2 hits at 10:00:10; the next window (10:01:00) weighs them at 2 until its first instant.
		{"shared, full window", "shared", ratelimit.PerMinute(2), []time.Duration{10 * time.Second, 0}},
		// As above at 10:00:10.25: the wait is 49.75 s.
		{"shared, full window, between seconds", "shared", ratelimit.PerMinute(2), []time.Duration{10250 * time.Millisecond, 0}},
		// 3 hits at 10:00:00, one at 10:01:05 (the old ones weigh 2.75): allowed once 3×(1−e/60)+1 < 3, e > 20 s.
		{"shared, previous window weighs", "shared", ratelimit.PerMinute(3), []time.Duration{0, 0, 0, 65 * time.Second}},
		// 1 a minute: the second hit waits for the next window, not one more.
		{"shared, one a minute", "shared", ratelimit.PerMinute(1), []time.Duration{30500 * time.Millisecond}},
		// 3 in 15 minutes at 10:00, 10:05, 10:05, probed at 10:10: the first leaves at 10:15 sharp.
		{"strict, whole seconds", "strict", ratelimit.Limit{Max: 3, Window: 15 * time.Minute}, []time.Duration{0, 5 * time.Minute, 0}},
		// As above, each half a second later: the first still leaves at 10:15:00 (its bucket is 10:00), 4m59.5s after the probe.
		{"strict, between seconds", "strict", ratelimit.Limit{Max: 3, Window: 15 * time.Minute}, []time.Duration{500 * time.Millisecond, 5 * time.Minute, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, db *store.DB) {
				c := storetest.NewClock(at)
				hit := newHitter(t, db, tc, c)
				ctx := context.Background()
				for i, step := range tc.steps {
					c.Advance(step)
					if _, ok := hit(ctx); !ok {
						t.Fatalf("hit %d of the history was refused", i)
					}
				}
				if tc.limiter == "strict" {
					c.Advance(5 * time.Minute)
				}
				wait, ok := hit(ctx)
				if ok {
					t.Fatal("the hit beyond the limit was let in")
				}
				if wait < time.Second || wait%time.Second != 0 {
					t.Fatalf("Retry-After %v: want whole seconds, at least one", wait)
				}
				c.Advance(wait - time.Second)
				if _, ok := hit(ctx); ok {
					t.Fatalf("let in one second before its Retry-After of %v: the client was told to wait longer than it must", wait)
				}
				c.Advance(time.Second)
				if again, ok := hit(ctx); !ok {
					t.Fatalf("refused after waiting its Retry-After of %v (now told %v)", wait, again)
				}
			})
		})
	}
}

// newHitter returns the case's limiter on db, on the clock, for one key.
func newHitter(t *testing.T, db *store.DB, tc retryAfterCase, c *storetest.Clock) hitter {
	if tc.limiter == "strict" {
		l := ratelimit.NewStrict(uniqueKey(t), db, tc.limit, c.Now)
		return func(ctx context.Context) (time.Duration, bool) {
			_, wait, ok, err := l.Take(ctx, "k")
			if err != nil {
				t.Fatal(err)
			}
			return wait, ok
		}
	}
	l := ratelimit.NewShared(ratelimit.SharedConfig{Name: uniqueKey(t), Store: db, Limit: tc.limit, Now: c.Now})
	return func(ctx context.Context) (time.Duration, bool) { return l.Allow(ctx, "k") }
}
