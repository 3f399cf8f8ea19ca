// Package live feeds the pages' Server-Sent Events streams (DESIGN §11)
// of this process from the events table, the outbox the webhooks use.
//
// One Hub runs per process, started by the server as the webhook
// dispatcher is. Woken by the signals of committed changes (in process;
// on PostgreSQL also LISTEN/NOTIFY from the other replicas), it reads the
// new events once for all its streams, asks the store once per distinct
// viewer of an account which of them that viewer sees (the rule of the
// store's viewer.go), and hands each stream its events without blocking:
// a stream whose buffer is full is ended, and its page resumes from
// Last-Event-ID.
package live

import (
	"context"
	"sync"
	"time"

	"github.com/taskd/taskd"
)

// Bounds of the hub.
const (
	// buffer is how many events a stream holds for its reader.
	buffer = 256
	// readLimit is the most events a round reads.
	readLimit = 1000
	// gapWait is how long a missing event id holds back the later ones
	// (PostgreSQL: a transaction that took its id earlier commits later);
	// after it the id is taken for rolled back.
	gapWait = 2 * time.Second
	// gapRetry is how often a held-back round reads again.
	gapRetry = 50 * time.Millisecond
	// poll is the fallback read, for signals lost.
	poll = 2 * time.Second
	// trustPoll is how often every stream's trust is checked, for a
	// change of trust whose signal was lost (each delivery checks it
	// anyway), by the hub's clock, at a wake or a poll.
	trustPoll = time.Minute
)

// Events is what the hub reads of the outbox.
type Events interface {
	// NewestEvent is the id of the newest event of every account, 0 when
	// none.
	NewestEvent(ctx context.Context) (int64, error)
	// EventsAfter reads the events of every account after the id, oldest
	// first, at most limit of them, each with its account.
	EventsAfter(ctx context.Context, after int64, limit int) ([]taskd.LiveEvent, error)
	// EventsSeenBy returns which of the ids, events of the viewer's
	// account, the viewer sees; nil when they see every event.
	EventsSeenBy(ctx context.Context, v taskd.Viewer, ids []int64) (map[int64]bool, error)
	// EventsWritten returns a new channel that receives after a change
	// and its event commit, in this process or another.
	EventsWritten() <-chan struct{}
}

// Store is what the hub needs of the store: the outbox, the reads of a
// stream resuming (replay.go) and the check of its trust (trust.go).
type Store interface {
	Events
	Replays
	Trust
}

// Config configures a hub.
type Config struct {
	// Now is the clock the store writes events by: a stream resumes
	// within Window of it, and trust is checked every minute of it;
	// time.Now when nil.
	Now func() time.Time
}

// Hub is the process's hub of live streams. Its streams receive events
// while Run runs.
type Hub struct {
	store Store
	now   func() time.Time

	mu sync.Mutex
	// cursor: every event up to it has been handed out (or skipped).
	cursor int64
	ready  bool // cursor read
	// gapAt is the first missing id after cursor, seen since gapSince.
	gapAt    int64
	gapSince time.Time
	streams  map[int64]map[*stream]struct{} // account → its streams
	stopped  bool                           // Run returned: no more streams
}

// stream is one stream.
type stream struct {
	v       taskd.Viewer
	session string // the hash of its sign-in session; "": none checked
	after   int64  // hand out only events after this id
	c       chan taskd.LiveEvent
	ended   bool
}

// New returns a hub of the store's events; Run makes it hand them out.
func New(store Store, cfg Config) *Hub {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Hub{store: store, now: cfg.Now, streams: map[int64]map[*stream]struct{}{}}
}

// LiveEvents opens a live stream of the events r.Viewer sees, resuming
// after the event r.Last when it is not 0, or else from r.Since when it
// is not zero (a page's first stream, from when the page was made): the
// missed events come in Replay, or Reload is set when they go back
// further than Window, are more than Replay, or Last is not the
// account's. A replay leaves out what was written before the viewer's
// sight of it began (replay.go). The stream ends when its trust does
// (trust.go): its session ended, its person removed or given another
// role. Once Run has returned, it refuses (internal).
func (h *Hub) LiveEvents(ctx context.Context, r taskd.LiveRequest) (taskd.LiveStream, error) {
	if err := h.readCursor(ctx); err != nil {
		return taskd.LiveStream{}, err
	}
	v, last := r.Viewer, r.Last
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		return taskd.LiveStream{}, taskd.Internal("live", context.Canceled)
	}
	// The hub hands this stream what comes after cursor; the store has
	// the rest.
	cursor := h.cursor
	sub := &stream{v: v, session: r.Session, after: max(last, cursor), c: make(chan taskd.LiveEvent, buffer)}
	if h.streams[v.AccountID] == nil {
		h.streams[v.AccountID] = map[*stream]struct{}{}
	}
	h.streams[v.AccountID][sub] = struct{}{}
	h.mu.Unlock()
	s := taskd.LiveStream{Events: sub.c, Close: func() { h.end(sub) }}
	var replay []taskd.LiveEvent
	var reload bool
	var err error
	switch {
	case last != 0:
		replay, reload, err = h.replay(ctx, v, last, cursor)
	case !r.Since.IsZero():
		replay, reload, err = h.since(ctx, v, r.Since, cursor)
	default:
		return s, nil
	}
	if err != nil {
		s.Close()
		return taskd.LiveStream{}, err
	}
	s.Replay, s.Reload = replay, reload
	return s, nil
}

// EndStreams ends every live stream of this process (a server stopping:
// the pages reconnect to another replica).
func (h *Hub) EndStreams() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.endAllLocked()
}

// Streams is how many live streams this process serves.
func (h *Hub) Streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, subs := range h.streams {
		n += len(subs)
	}
	return n
}

// readCursor reads the cursor the first time: the newest event's id.
func (h *Hub) readCursor(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ready {
		return nil
	}
	newest, err := h.store.NewestEvent(ctx)
	if err != nil {
		return err
	}
	h.cursor, h.ready = newest, true
	return nil
}

// end removes a stream and closes its channel.
func (h *Hub) end(sub *stream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.endLocked(sub)
}

func (h *Hub) endLocked(sub *stream) {
	if sub.ended {
		return
	}
	sub.ended = true
	close(sub.c)
	subs := h.streams[sub.v.AccountID]
	delete(subs, sub)
	if len(subs) == 0 {
		delete(h.streams, sub.v.AccountID)
	}
}

func (h *Hub) endAllLocked() {
	for _, subs := range h.streams {
		for sub := range subs {
			h.endLocked(sub)
		}
	}
}

// Run hands out new events on every wake, a fallback poll, and while a
// gap holds events back, and ends the streams whose trust ended when a
// change of trust commits (and every trustPoll, for a signal lost), until
// ctx ends; then it ends every stream, and LiveEvents refuses new ones.
// Run it once.
func (h *Hub) Run(ctx context.Context) {
	wake, trust := h.store.EventsWritten(), h.store.TrustChanged()
	defer func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.stopped = true
		h.endAllLocked()
	}()
	timer := time.NewTimer(0) // the first round at once: streams opened before the start
	defer timer.Stop()
	checked := h.now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-trust:
			checked = h.now()
			h.recheck(ctx)
			continue
		case <-wake:
		case <-timer.C:
		}
		if now := h.now(); now.Sub(checked) >= trustPoll {
			checked = now
			h.recheck(ctx)
		}
		held := h.round(ctx)
		next := poll
		if held {
			next = gapRetry
		}
		timer.Reset(next)
	}
}

// round reads the events after the cursor once and hands them out; it
// reports whether a gap held some back. A failed read is tried again at
// the next wake or poll.
func (h *Hub) round(ctx context.Context) (held bool) {
	h.mu.Lock()
	cursor, ready, idle := h.cursor, h.ready, len(h.streams) == 0
	h.mu.Unlock()
	if !ready {
		return false
	}
	if idle { // nobody listens: the next stream reads the cursor afresh
		h.mu.Lock()
		if len(h.streams) == 0 {
			h.ready, h.gapAt = false, 0
		}
		h.mu.Unlock()
		return false
	}
	evs, err := h.store.EventsAfter(ctx, cursor, readLimit)
	if err != nil || len(evs) == 0 {
		return false
	}
	now := time.Now()
	next, n := cursor, 0
	for _, e := range evs {
		if e.ID != next+1 {
			if h.gapAt != next+1 {
				h.gapAt, h.gapSince = next+1, now
			}
			if now.Sub(h.gapSince) < gapWait {
				held = true
				break
			}
		}
		next = e.ID
		n++
	}
	if n == 0 {
		return held
	}
	h.hand(ctx, evs[:n], next)
	return held || len(evs) == readLimit
}

// hand gives each stream the events its viewer sees, asking the store once
// per distinct viewer of an account, and moves the cursor to next: in the
// same step as it takes the streams, so that a stream opened later
// replays from the store what this round hands out.
func (h *Hub) hand(ctx context.Context, evs []taskd.LiveEvent, next int64) {
	byAccount := map[int64][]taskd.LiveEvent{}
	h.mu.Lock()
	h.cursor = max(h.cursor, next)
	for _, e := range evs {
		if _, ok := h.streams[e.AccountID]; ok {
			byAccount[e.AccountID] = append(byAccount[e.AccountID], e)
		}
	}
	viewers := map[int64]map[taskd.Viewer][]*stream{}
	for acct := range byAccount {
		vs := map[taskd.Viewer][]*stream{}
		for sub := range h.streams[acct] {
			vs[sub.v] = append(vs[sub.v], sub)
		}
		viewers[acct] = vs
	}
	h.mu.Unlock()
	for acct, rows := range byAccount {
		// Nothing is handed to a stream whose trust ended, whether or not
		// its change of trust was signalled yet.
		h.dropUntrusted(ctx, acct, viewers[acct])
		ids := make([]int64, len(rows))
		for i, e := range rows {
			ids[i] = e.ID
		}
		for v, subs := range viewers[acct] {
			seen, err := h.store.EventsSeenBy(ctx, v, ids)
			if err != nil {
				h.mu.Lock()
				for _, sub := range subs { // they resume from Last-Event-ID
					h.endLocked(sub)
				}
				h.mu.Unlock()
				continue
			}
			h.mu.Lock()
			for _, e := range rows {
				if seen != nil && !seen[e.ID] {
					continue
				}
				for _, sub := range subs {
					if sub.ended || e.ID <= sub.after {
						continue
					}
					select {
					case sub.c <- e:
					default: // too slow: ended, it resumes
						h.endLocked(sub)
					}
				}
			}
			h.mu.Unlock()
		}
	}
}
