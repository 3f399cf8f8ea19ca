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
	a, on := l.Plan(key)
	if !on {
		return Ticket{}, 0, true, nil
	}
	cur, err := l.store.AddHits(ctx, a.Key, a.Start, a.Expires, 1)
	if err != nil {
		return Ticket{}, 0, false, fmt.Errorf("rate limit %s: %w", l.name, err)
	}
	t = Ticket{key: a.Key, start: a.Start}
	counts, err := l.store.Counts(ctx, a.Key, a.From)
	if err != nil {
		return Ticket{}, 0, false, errors.Join(fmt.Errorf("rate limit %s: %w", l.name, err), l.Return(ctx, t))
	}
	t, retryAfter, ok = l.Judge(a, cur, counts)
	if ok {
		if cur == 1 {
			err = l.store.PruneHits(ctx, l.now()) // once per key and bucket
		}
		return t, 0, true, err
	}
	if err := l.Return(ctx, Ticket{key: a.Key, start: a.Start}); err != nil {
		return Ticket{}, 0, false, err
	}
	return Ticket{}, retryAfter, false, nil
}

// Attempt is an attempt to count, for a Store that counts several at once
// (with other work, in one statement): add one hit to Key in the bucket
// that starts at Start (the row may be forgotten after Expires), and read
// Key's counts from From on.
type Attempt struct {
	Key                  string
	Start, Expires, From time.Time
}

// Counted is what a Store answered for an Attempt: its place in its bucket
// and the key's counts from the Attempt's From on (Judge's arguments).
type Counted struct {
	Cur    int
	Counts []Count
}

// Plan returns the attempt to count under key now; false when the limit is
// off and nothing is to be counted.
func (l *Strict) Plan(key string) (Attempt, bool) {
	if l.limit.Off() {
		return Attempt{}, false
	}
	bucket := l.bucket()
	start := l.now().Truncate(bucket)
	return Attempt{Key: l.name + key, Start: start, Expires: start.Add(l.limit.Window + bucket), From: start.Add(bucket - l.limit.Window)}, true
}

// Judge decides a counted attempt: cur is its place in its bucket (the
// count the addition returned) and counts are the key's counts from
// a.From on, read with it (the current bucket's own count there, if any,
// is replaced by cur: attempts made after this one must not refuse it).
// Hits in a bucket after a.Start still count: they were made once the
// clock had passed into it, after this attempt was planned, but this
// attempt's own hit may have been added after they read their counts, so
// leaving them out could let both through. At a bucket's turn an attempt
// may so be refused by one made after it: more refused, never more let
// through than the limit.
// The ticket is the counted attempt, to give back when the sign-in
// succeeds and, when ok is false, at once.
func (l *Strict) Judge(a Attempt, cur int, counts []Count) (t Ticket, retryAfter time.Duration, ok bool) {
	t = Ticket{key: a.Key, start: a.Start}
	total, seen := cur, false
	for i, c := range counts {
		if c.Start.Equal(a.Start) {
			counts[i].Hits, seen = cur, true
		} else {
			total += c.Hits
		}
	}
	if !seen {
		counts = append(counts, Count{Start: a.Start, Hits: cur})
	}
	if total <= l.limit.Max { // the total includes this attempt
		return t, 0, true
	}
	return t, l.wait(l.now(), counts, total-l.limit.Max), false
}

// Key is the Store's key of the ticket's attempt; "" when nothing was
// counted.
func (t Ticket) Key() string { return t.key }

// Start is the start of the bucket the attempt was counted in.
func (t Ticket) Start() time.Time { return t.start }

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
