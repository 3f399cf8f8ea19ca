package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Shared limits keys by counts it keeps in memory and adds to the Store at
// most once per sync interval per key, learning there what the other
// replicas counted. Between syncs a replica may let through about what it
// receives in one interval beyond the limit; in exchange a request costs a
// map lookup, and the database sees one statement per key per interval.
// If the Store fails, requests are allowed on the local counts and the
// error is logged: an outage of the counts must not stop the API.
type Shared struct {
	name  string // prefix of the keys in the Store
	store Store
	limit Limit
	sync  time.Duration
	now   func() time.Time
	log   *slog.Logger
	batch *Batch

	mu     sync.Mutex
	keys   map[string]*counter
	swept  time.Time // when stale counters were last dropped
	pruned time.Time // when the Store's expired counts were last pruned
}

// counter is one key's counts on this replica.
type counter struct {
	mu       sync.Mutex
	start    time.Time // the current window
	shared   int       // the Store's count at the last sync
	inflight int       // hits being added by a sync under way
	pending  int       // hits not yet added
	prev     int       // the previous window's count, as last known
	synced   time.Time
	syncing  bool
	queued   bool // waits in the Batch
}

// SharedConfig configures a Shared limiter.
type SharedConfig struct {
	Name  string // distinguishes this limiter's keys from others' in the Store
	Store Store
	Limit Limit
	Sync  time.Duration // default one second
	Now   func() time.Time
	Log   *slog.Logger
	// Batch, when set, adds the hits in the background with those of the
	// other limiters of the Batch, so that no request waits for the Store.
	Batch *Batch
}

// NewShared returns a limiter.
func NewShared(cfg SharedConfig) *Shared {
	if cfg.Sync <= 0 {
		cfg.Sync = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Shared{name: cfg.Name, store: cfg.Store, limit: cfg.Limit, sync: cfg.Sync, now: cfg.Now, log: cfg.Log,
		batch: cfg.Batch, keys: make(map[string]*counter)}
}

// Allow counts one hit under key and reports whether it is within the
// limit; if not, the hit is not counted and retryAfter says when to try
// again. A nil or unlimited Shared allows everything.
func (l *Shared) Allow(ctx context.Context, key string) (retryAfter time.Duration, ok bool) {
	if l == nil || l.limit.Off() {
		return 0, true
	}
	now := l.now()
	c := l.counter(key, now)
	c.mu.Lock()
	c.roll(l.limit, now)
	cur := c.shared + c.inflight + c.pending
	if l.limit.estimate(now, c.start, c.prev, cur) >= float64(l.limit.Max) {
		wait := l.limit.retryAfter(now, c.start, c.prev, cur)
		c.mu.Unlock()
		return wait, false
	}
	c.pending++
	if l.batch != nil { // the batch adds the hits in the background
		queue := !c.queued
		c.queued = true
		c.mu.Unlock()
		if queue {
			l.batch.add(l, key, c)
		}
		return 0, true
	}
	if c.syncing || now.Sub(c.synced) < l.sync {
		c.mu.Unlock()
		return 0, true
	}
	c.syncing, c.synced = true, now
	start, n := c.start, c.pending
	c.inflight, c.pending = n, 0
	c.mu.Unlock()
	l.flush(ctx, key, c, start, n)
	return 0, true
}

// flush adds n hits of the window that starts at start to the Store and
// takes the Store's count as the shared one.
func (l *Shared) flush(ctx context.Context, key string, c *counter, start time.Time, n int) {
	ctx = context.WithoutCancel(ctx) // the hits happened whether or not the client waits
	total, err := l.store.AddHits(ctx, l.name+key, start, l.limit.expires(start), n)
	l.settle(ctx, c, start, n, total, err)
	l.prune(ctx, start)
}

// settle takes the answer of a flush of n hits: the Store's count, or the
// hits back to pending to try again.
func (l *Shared) settle(ctx context.Context, c *counter, start time.Time, n, total int, err error) {
	c.mu.Lock()
	c.syncing, c.inflight = false, 0
	switch {
	case err != nil:
		if c.start.Equal(start) {
			c.pending += n // try again at the next sync
		}
		l.log.WarnContext(ctx, "rate limit: counts not shared", "limiter", l.name, "err", err)
	case c.start.Equal(start):
		c.shared = total
	case c.start.Equal(start.Add(l.limit.Window)):
		c.prev = max(c.prev, total)
	}
	c.mu.Unlock()
}

// roll moves the counter to the window holding now.
func (c *counter) roll(lim Limit, now time.Time) {
	start := lim.windowStart(now)
	if c.start.Equal(start) {
		return
	}
	last := c.shared + c.inflight + c.pending
	c.prev = 0
	if c.start.Add(lim.Window).Equal(start) {
		c.prev = last
	}
	// Hits not yet added belong to the old window; the next window weights
	// them locally through prev, and other replicas see them a little
	// lower, which errs toward letting requests through.
	c.start, c.shared, c.inflight, c.pending, c.synced = start, 0, 0, 0, time.Time{}
}

// counter returns key's counter, dropping counters that have not been used
// for two windows (at most once a window).
func (l *Shared) counter(key string, now time.Time) *counter {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) >= l.limit.Window {
		l.swept = now
		for k, c := range l.keys {
			c.mu.Lock()
			stale := !c.syncing && now.Sub(c.start) >= 2*l.limit.Window
			c.mu.Unlock()
			if stale {
				delete(l.keys, k)
			}
		}
	}
	c, ok := l.keys[key]
	if !ok {
		c = &counter{}
		l.keys[key] = c
	}
	return c
}

// prune deletes expired counts from the Store, at most once a window per
// replica.
func (l *Shared) prune(ctx context.Context, now time.Time) {
	l.mu.Lock()
	due := now.Sub(l.pruned) >= l.limit.Window
	if due {
		l.pruned = now
	}
	l.mu.Unlock()
	if due {
		if err := l.store.PruneHits(ctx, now); err != nil {
			l.log.WarnContext(ctx, "rate limit: prune", "err", err)
		}
	}
}
