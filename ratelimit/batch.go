package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Hits are hits to add to a key's count in the window that starts at
// Start; the row may be forgotten after Expires.
type Hits struct {
	Key            string
	Start, Expires time.Time
	N              int
}

// BatchStore adds many keys' hits at once.
type BatchStore interface {
	Store
	// AddHitsBatch adds every Hits (distinct keys and windows) and
	// returns the counts after the additions, in the same order, and
	// forgets the counts that expired before prune, all in one statement
	// where the database allows it.
	AddHitsBatch(ctx context.Context, hits []Hits, prune time.Time) ([]int, error)
}

// Batch adds the hits that its Shared limiters counted to the Store
// together: in one statement, at most once per interval, only when there
// are hits, and never on a request's path. It needs no goroutine of its
// own: the first hit after a flush schedules the next one.
type Batch struct {
	store    BatchStore
	interval time.Duration
	now      func() time.Time
	log      *slog.Logger

	mu    sync.Mutex
	queue []queued
	timer *time.Timer // the scheduled flush; nil when none
}

// queued is a counter with hits not yet added.
type queued struct {
	l   *Shared
	key string
	c   *counter
}

// NewBatch returns a Batch that flushes interval after the first hit it
// holds (a second when zero).
func NewBatch(store BatchStore, interval time.Duration, now func() time.Time, log *slog.Logger) *Batch {
	if interval <= 0 {
		interval = time.Second
	}
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Batch{store: store, interval: interval, now: now, log: log}
}

// add queues a counter that has pending hits.
func (b *Batch) add(l *Shared, key string, c *counter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queue = append(b.queue, queued{l, key, c})
	if b.timer == nil {
		b.timer = time.AfterFunc(b.interval, func() { b.Flush(context.Background()) })
	}
}

// Flush adds the queued hits now, in one call of the Store, and takes the
// counts it answers as what every replica counted. Hits that could not be
// added are queued again. A server calls it when it stops, so that the
// hits of its last second are not lost.
func (b *Batch) Flush(ctx context.Context) {
	b.mu.Lock()
	q := b.queue
	b.queue = nil
	if b.timer != nil {
		b.timer.Stop() // a no-op when the timer is what called
		b.timer = nil
	}
	b.mu.Unlock()
	var hits []Hits
	var sent []queued
	for _, e := range q {
		e.c.mu.Lock()
		e.c.queued = false
		if e.c.pending == 0 {
			e.c.mu.Unlock()
			continue
		}
		start, n := e.c.start, e.c.pending
		e.c.inflight, e.c.pending, e.c.syncing = n, 0, true
		e.c.mu.Unlock()
		hits = append(hits, Hits{Key: e.l.name + e.key, Start: start, Expires: e.l.limit.expires(start), N: n})
		sent = append(sent, e)
	}
	if len(hits) == 0 {
		return
	}
	totals, err := b.store.AddHitsBatch(ctx, hits, b.now())
	if err == nil && len(totals) != len(hits) {
		err = errBatchAnswer
	}
	for i, e := range sent {
		total := 0
		if err == nil {
			total = totals[i]
		}
		e.l.settle(ctx, e.c, hits[i].Start, hits[i].N, total, err)
		if err != nil {
			e.c.mu.Lock()
			again := e.c.pending > 0 && !e.c.queued
			e.c.queued = e.c.queued || again
			e.c.mu.Unlock()
			if again {
				b.add(e.l, e.key, e.c)
			}
		}
	}
}

// errBatchAnswer is a Store that answered another number of counts than
// it was given.
var errBatchAnswer = batchError("the store answered a count per key other than asked")

type batchError string

func (e batchError) Error() string { return "rate limit: " + string(e) }
