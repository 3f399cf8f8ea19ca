package source

import (
	"context"
	"errors"
	"sync"
)

// budget is the memory all the reads of one client may hold at once, in
// bytes (issue 46): what each read has received and not yet decoded, and
// the values it decoded and keeps, until its caller lets them go. It is a
// weighted semaphore shared by every read, so that the concurrency of the
// reads does not multiply it.
//
// A read cannot know its size before it ends, so it takes its bytes as
// they come, and two reads that each hold part of the budget could wait
// for each other for ever. So the oldest holder (the first made of those
// not yet released) may take the whole budget, and any other holder only
// what leaves reserve bytes free: the oldest never waits, since the
// others hold at most limit-reserve and it needs at most reserve (the
// bound of one answer), and when it is released the next oldest inherits
// the reserve. Holders are made in the order their callers use them
// (Client.Lease), so the oldest is the one its caller waits for.
type budget struct {
	limit, reserve int64

	mu     sync.Mutex
	used   int64
	peak   int64
	next   uint64           // the ticket of the next holder
	active map[uint64]*hold // holders not yet released, by ticket
	freed  chan struct{}    // closed, and replaced, when bytes are freed
}

func newBudget(limit, reserve int64) *budget {
	return &budget{limit: limit, reserve: reserve, active: map[uint64]*hold{}, freed: make(chan struct{})}
}

// hold is the part of the budget one caller holds.
type hold struct {
	b        *budget
	ticket   uint64
	n        int64 // bytes held
	released bool
}

// errReleased is a take on a hold already released.
var errReleased = errors.New("the read's hold on the memory budget was released")

// open makes a holder, younger than every holder made before.
func (b *budget) open() *hold {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := &hold{b: b, ticket: b.next}
	b.next++
	b.active[h.ticket] = h
	return h
}

// oldest reports whether h is the oldest holder not released; b.mu held.
func (b *budget) oldest(h *hold) bool {
	for t := range b.active {
		if t < h.ticket {
			return false
		}
	}
	return true
}

// take adds n bytes to h, waiting while the budget has no room for them
// (see budget); wait is called with true before it waits and false after,
// so that a caller can pause its clocks. It fails when ctx is done or h
// was released.
func (h *hold) take(ctx context.Context, n int64, wait func(bool)) error {
	if n <= 0 {
		return nil
	}
	b := h.b
	for waited := false; ; waited = true {
		b.mu.Lock()
		if h.released {
			b.mu.Unlock()
			return errReleased
		}
		room := b.limit - b.reserve
		if b.oldest(h) {
			room = b.limit
		}
		if b.used+n <= room {
			b.used += n
			h.n += n
			b.peak = max(b.peak, b.used)
			b.mu.Unlock()
			if waited && wait != nil {
				wait(false)
			}
			return nil
		}
		freed := b.freed
		b.mu.Unlock()
		if !waited && wait != nil {
			wait(true)
		}
		select {
		case <-freed:
		case <-ctx.Done():
			if wait != nil {
				wait(false)
			}
			return ctx.Err()
		}
	}
}

// give returns n of the bytes h holds.
func (h *hold) give(n int64) {
	b := h.b
	b.mu.Lock()
	defer b.mu.Unlock()
	n = min(n, h.n)
	if n <= 0 {
		return
	}
	h.n -= n
	b.used -= n
	b.wake()
}

// release returns all that h holds and ends it; a later take fails. It
// may be called more than once.
func (h *hold) release() {
	b := h.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if h.released {
		return
	}
	h.released = true
	b.used -= h.n
	h.n = 0
	delete(b.active, h.ticket)
	b.wake() // the next oldest may take the reserve now
}

// wake tells the waiting holders that bytes were freed; b.mu held.
func (b *budget) wake() {
	close(b.freed)
	b.freed = make(chan struct{})
}

// Held is what the reads of a client hold of its memory budget.
type Held struct {
	Now   int64 // held now
	Peak  int64 // the most held at once since the client was made
	Limit int64 // the budget: Options.MaxHeldBytes and the chunk being read
}

func (b *budget) held() Held {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Held{Now: b.used, Peak: b.peak, Limit: b.limit}
}

// leaseKey carries a lease in a context.
type leaseKey struct{}

// Lease makes a holder of the client's memory budget, younger than every
// one made before, and returns ctx carrying it with the function that
// releases it. The calls made with the returned context hold what they
// read against the budget until release, not only until they return: a
// caller that keeps the values of several calls (reading ahead) leases
// one holder per call, in the order it will use them, and releases each
// when done with its values. Since the oldest holder never waits, a
// caller that waits for its oldest lease first cannot deadlock. release
// may be called more than once.
func (c *Client) Lease(ctx context.Context) (context.Context, func()) {
	h := c.budget.open()
	return context.WithValue(ctx, leaseKey{}, h), h.release
}

// holdFor is the lease ctx carries for this client, or a holder of the
// call's own that the caller releases when the call returns (own true).
func (c *Client) holdFor(ctx context.Context) (h *hold, own bool) {
	if h, ok := ctx.Value(leaseKey{}).(*hold); ok && h.b == c.budget {
		return h, false
	}
	return c.budget.open(), true
}

// Held is what the client's reads hold of its memory budget
// (Options.MaxHeldBytes) now and at most, for tests and measurements: a
// read never holds more than Limit, and once every call has returned and
// every Lease was released, Now is 0.
func (c *Client) Held() Held { return c.budget.held() }
