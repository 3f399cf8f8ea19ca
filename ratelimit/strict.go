package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Strict counts every attempt in the Store before it is evaluated, so that
// however many arrive at once, on however many replicas, no more than the
// limit are let through. It costs a database write per attempt; it is for
// sign-in, where each attempt costs a password hash anyway.
type Strict struct {
	name  string
	store Store
	limit Limit
	now   func() time.Time
}

// NewStrict returns a strict limiter whose keys are prefixed with name in
// the Store.
func NewStrict(name string, store Store, limit Limit, now func() time.Time) *Strict {
	if now == nil {
		now = time.Now
	}
	return &Strict{name: name, store: store, limit: limit, now: now}
}

// Ticket is an attempt counted by Take; Return gives it back.
type Ticket struct {
	key   string // with the limiter's prefix; "" when nothing was counted
	start time.Time
}

// buckets is how many buckets a Strict window is counted in: the window
// slides by a fifteenth of itself (a minute for sign-in's 15 minutes).
const buckets = 15

// bucket is the length of one bucket.
func (l *Strict) bucket() time.Duration { return max(l.limit.Window/buckets, time.Second) }

// Take counts an attempt under key. If the attempt is within the limit, it
// returns ok and a Ticket; otherwise the attempt is not counted and
// retryAfter says when to try again.
func (l *Strict) Take(ctx context.Context, key string) (t Ticket, retryAfter time.Duration, ok bool, err error) {
	if l.limit.Off() {
		return Ticket{}, 0, true, nil
	}
	now := l.now()
	bucket := l.bucket()
	start := now.Truncate(bucket)
	t = Ticket{key: l.name + key, start: start}
	cur, err := l.store.AddHits(ctx, t.key, start, start.Add(l.limit.Window+bucket), 1)
	if err != nil {
		return Ticket{}, 0, false, fmt.Errorf("rate limit %s: %w", l.name, err)
	}
	counts, err := l.store.Counts(ctx, t.key, start.Add(bucket-l.limit.Window))
	if err != nil {
		return Ticket{}, 0, false, errors.Join(fmt.Errorf("rate limit %s: %w", l.name, err), l.Return(ctx, t))
	}
	// The current bucket's count is cur, this attempt's place in it: a
	// count read now would include attempts made after this one, which
	// must not refuse it.
	total := cur
	for i, c := range counts {
		if c.Start.Equal(start) {
			counts[i].Hits = cur
		} else {
			total += c.Hits
		}
	}
	if total <= l.limit.Max { // the total includes this attempt
		if cur == 1 {
			err = l.store.PruneHits(ctx, now) // once per key and bucket
		}
		return t, 0, true, err
	}
	if err := l.Return(ctx, t); err != nil {
		return Ticket{}, 0, false, err
	}
	return Ticket{}, l.wait(now, counts, total-l.limit.Max), false, nil
}

// wait is how long until excess hits have left the window, the oldest
// first, in whole seconds (rounded up: a bucket has left at the very
// instant its window ends) and at least one.
func (l *Strict) wait(now time.Time, counts []Count, excess int) time.Duration {
	var leaves time.Time
	for _, c := range counts {
		leaves = c.Start.Add(l.limit.Window)
		if excess -= c.Hits; excess <= 0 {
			break
		}
	}
	d := leaves.Sub(now)
	if d < time.Second {
		return time.Second
	}
	return (d + time.Second - 1).Truncate(time.Second)
}

// Return takes back an attempt that should not count (a sign-in that
// succeeded, or one refused by another limit).
func (l *Strict) Return(ctx context.Context, t Ticket) error {
	if t.key == "" {
		return nil
	}
	if err := l.store.RemoveHit(context.WithoutCancel(ctx), t.key, t.start); err != nil {
		return fmt.Errorf("rate limit %s: %w", l.name, err)
	}
	return nil
}
