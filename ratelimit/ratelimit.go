// Package ratelimit counts requests under keys (an account, a client
// address, an e-mail) in windows shared by every replica through the
// database, and decides whether one more is allowed.
//
// Two limiters share one table of counts per key and fixed window. Shared
// counts in memory and adds its counts to the database about once a second
// per key (cheap enough for every API request); it estimates a key's rate
// over a sliding window by weighting the previous window's count by the
// part of it still inside: prev × (1 − elapsed/window) + current. Strict
// counts each attempt in the database before it is evaluated, in fifteen
// buckets per window whose sum it reads back (for sign-in, where no attempt
// beyond the limit may be evaluated).
package ratelimit

import (
	"context"
	"math"
	"time"
)

// Store keeps the counts that every replica shares.
type Store interface {
	// AddHits adds n to key's count in the window that starts at start and
	// returns the new count; the row may be forgotten after expires.
	AddHits(ctx context.Context, key string, start, expires time.Time, n int) (int, error)
	// RemoveHit takes one back, if the window is still counted.
	RemoveHit(ctx context.Context, key string, start time.Time) error
	// Counts returns key's counts in the windows that start at from or
	// later, oldest first.
	Counts(ctx context.Context, key string, from time.Time) ([]Count, error)
	// PruneHits forgets the counts that expired before t.
	PruneHits(ctx context.Context, t time.Time) error
}

// Count is the hits counted in the window that starts at Start.
type Count struct {
	Start time.Time
	Hits  int
}

// Limit is how many hits a key may have within a window. A zero Max means
// no limit.
type Limit struct {
	Max    int
	Window time.Duration
}

// PerMinute is a limit of n a minute.
func PerMinute(n int) Limit { return Limit{Max: n, Window: time.Minute} }

// Off reports whether the limit allows everything.
func (l Limit) Off() bool { return l.Max <= 0 || l.Window <= 0 }

// windowStart is the start of the fixed window holding t.
func (l Limit) windowStart(t time.Time) time.Time { return t.Truncate(l.Window) }

// expires is when the counts of the window starting at start are no longer
// needed: after the next window, which weights them, has ended.
func (l Limit) expires(start time.Time) time.Time { return start.Add(2 * l.Window) }

// estimate is the sliding-window count at t, within the window that starts
// at start, from the previous window's count and the current one.
func (l Limit) estimate(t, start time.Time, prev, cur int) float64 {
	weight := 1 - float64(t.Sub(start))/float64(l.Window)
	return float64(prev)*weight + float64(cur)
}

// retryAfter is how long from t until the estimate falls below Max, so that
// one more hit is allowed, given no more hits; at least a second, rounded
// up to whole seconds for the Retry-After header. At the instant found the
// estimate equals Max and is still refused, so the next whole second after
// it is the first that lets a hit in.
func (l Limit) retryAfter(t, start time.Time, prev, cur int) time.Duration {
	var wait time.Duration
	limit := float64(l.Max)
	if cur < l.Max && prev > 0 {
		// The previous window's share must shrink: prev × (1 − e/W) < Max − cur.
		e := float64(l.Window) * (1 - (limit-float64(cur))/float64(prev))
		wait = time.Duration(e) - t.Sub(start)
	} else {
		// Only in the next window, once this one's share has shrunk:
		// cur × (1 − e/W) < Max.
		e := float64(l.Window) * (1 - limit/math.Max(float64(cur), 1))
		wait = start.Add(l.Window).Sub(t) + time.Duration(e)
	}
	if wait < time.Second {
		return time.Second
	}
	return wait.Truncate(time.Second) + time.Second
}
