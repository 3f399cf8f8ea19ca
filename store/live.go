package store

import (
	"context"
	"sync"
	"time"

	"github.com/taskd/taskd"
)

// The live hub feeds the pages' Server-Sent Events streams (DESIGN §11)
// of this process from the events table, the outbox the webhooks use.
// Woken by the signals of committed changes (in process; on PostgreSQL
// also LISTEN/NOTIFY from the other replicas), it reads the new events
// once for all its streams, asks the store once per distinct viewer of an
// account which of them that viewer sees (eventsSeenBy, the rule of
// viewer.go), and hands each stream its events without blocking: a stream
// whose buffer is full is ended, and its page resumes from Last-Event-ID.

// Bounds of the live hub.
const (
	// liveBuffer is how many events a stream holds for its reader.
	liveBuffer = 256
	// liveRead is the most events a round reads.
	liveRead = 1000
	// liveGapWait is how long a missing event id holds back the later
	// ones (PostgreSQL: a transaction that took its id earlier commits
	// later); after it the id is taken for rolled back.
	liveGapWait = 2 * time.Second
	// liveGapRetry is how often a held-back round reads again.
	liveGapRetry = 50 * time.Millisecond
	// livePoll is the fallback read, for signals lost.
	livePoll = 2 * time.Second
	// liveTrustPoll is how often every stream's trust is checked, for a
	// change of trust whose signal was lost (each delivery checks it
	// anyway), by the store's clock, at a wake or a poll.
	liveTrustPoll = time.Minute
	// LiveWindow is how old an event a stream resumes from may be, and
	// LiveReplay how many events it may have missed; beyond either the
	// page reloads.
	LiveWindow = 10 * time.Minute
	LiveReplay = 500
)

// liveHub is the process's hub of live streams.
type liveHub struct {
	db    *DB
	start sync.Once

	mu sync.Mutex
	// cursor: every event up to it has been handed out (or skipped).
	cursor int64
	ready  bool // cursor read
	// gapAt is the first missing id after cursor, seen since gapSince.
	gapAt    int64
	gapSince time.Time
	streams  map[int64]map[*liveSub]struct{} // account → its streams
}

// liveSub is one stream.
type liveSub struct {
	v       taskd.Viewer
	session string // the hash of its sign-in session; "": none checked
	after   int64  // hand out only events after this id
	c       chan taskd.LiveEvent
	ended   bool
}

func newLiveHub(db *DB) *liveHub {
	return &liveHub{db: db, streams: map[int64]map[*liveSub]struct{}{}}
}

// LiveEvents opens a live stream of the events r.Viewer sees, resuming
// after the event r.Last when it is not 0, or else from r.Since when it
// is not zero (a page's first stream, from when the page was made): the
// missed events come in Replay, or Reload is set when they go back
// further than LiveWindow, are more than LiveReplay, or Last is not the
// account's. A replay leaves out what was written before the viewer's
// sight of it began (liveSight). The stream ends when its trust does
// (liveTrusted): its session ended, its person removed or given another
// role.
func (db *DB) LiveEvents(ctx context.Context, r taskd.LiveRequest) (taskd.LiveStream, error) {
	h := db.live
	h.start.Do(func() {
		wake := db.sig.subscribe(kindEvents)
		trust := db.sig.subscribe(kindTrust)
		db.sig.wg.Go(func() { h.run(db.sig.ctx, wake, trust) })
	})
	if err := h.readCursor(ctx); err != nil {
		return taskd.LiveStream{}, err
	}
	v, last := r.Viewer, r.Last
	h.mu.Lock()
	if h.db.sig.ctx.Err() != nil {
		h.mu.Unlock()
		return taskd.LiveStream{}, taskd.Internal("live", context.Canceled)
	}
	// The hub hands this stream what comes after cursor; the store has
	// the rest.
	cursor := h.cursor
	sub := &liveSub{v: v, session: r.Session, after: max(last, cursor), c: make(chan taskd.LiveEvent, liveBuffer)}
	if h.streams[v.AccountID] == nil {
		h.streams[v.AccountID] = map[*liveSub]struct{}{}
	}
	h.streams[v.AccountID][sub] = struct{}{}
	h.mu.Unlock()
	s := taskd.LiveStream{Events: sub.c, Close: func() { h.end(sub) }}
	var replay []taskd.LiveEvent
	var reload bool
	var err error
	switch {
	case last != 0:
		replay, reload, err = db.liveReplay(ctx, v, last, cursor)
	case !r.Since.IsZero():
		replay, reload, err = db.liveSince(ctx, v, r.Since, cursor)
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

// EndLiveStreams ends every live stream of this process (a server
// stopping: the pages reconnect to another replica).
func (db *DB) EndLiveStreams() {
	h := db.live
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.streams {
		for sub := range subs {
			h.endLocked(sub)
		}
	}
}

// LiveStreams is how many live streams this process serves.
func (db *DB) LiveStreams() int {
	h := db.live
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, subs := range h.streams {
		n += len(subs)
	}
	return n
}

// readCursor reads the cursor the first time: the newest event's id.
func (h *liveHub) readCursor(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ready {
		return nil
	}
	newest, err := h.db.newestEvent(ctx)
	if err != nil {
		return err
	}
	h.cursor, h.ready = newest, true
	return nil
}

// end removes a stream and closes its channel.
func (h *liveHub) end(sub *liveSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.endLocked(sub)
}

func (h *liveHub) endLocked(sub *liveSub) {
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

// run hands out new events on every wake, a fallback poll, and while a
// gap holds events back, and ends the streams whose trust ended when a
// change of trust commits (and every liveTrustPoll, for a signal lost),
// until ctx ends; then it ends every stream.
func (h *liveHub) run(ctx context.Context, wake, trust <-chan struct{}) {
	defer h.db.EndLiveStreams()
	poll := time.NewTimer(livePoll)
	defer poll.Stop()
	checked := h.db.now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-trust:
			checked = h.db.now()
			h.recheck(ctx)
			continue
		case <-wake:
		case <-poll.C:
		}
		if now := h.db.now(); now.Sub(checked) >= liveTrustPoll {
			checked = now
			h.recheck(ctx)
		}
		held := h.round(ctx)
		next := livePoll
		if held {
			next = liveGapRetry
		}
		poll.Reset(next)
	}
}

// round reads the events after the cursor once and hands them out; it
// reports whether a gap held some back. A failed read is tried again at
// the next wake or poll.
func (h *liveHub) round(ctx context.Context) (held bool) {
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
	evs, err := h.db.liveAfter(ctx, cursor)
	if err != nil || len(evs) == 0 {
		return false
	}
	now := time.Now()
	next, n := cursor, 0
	for _, e := range evs {
		if e.event.ID != next+1 {
			if h.gapAt != next+1 {
				h.gapAt, h.gapSince = next+1, now
			}
			if now.Sub(h.gapSince) < liveGapWait {
				held = true
				break
			}
		}
		next = e.event.ID
		n++
	}
	if n == 0 {
		return held
	}
	h.hand(ctx, evs[:n], next)
	return held || len(evs) == liveRead
}

// hand gives each stream the events its viewer sees, asking the store once
// per distinct viewer of an account, and moves the cursor to next: in the
// same step as it takes the streams, so that a stream opened later
// replays from the store what this round hands out.
func (h *liveHub) hand(ctx context.Context, evs []liveRow, next int64) {
	byAccount := map[int64][]liveRow{}
	h.mu.Lock()
	h.cursor = max(h.cursor, next)
	for _, e := range evs {
		if _, ok := h.streams[e.account]; ok {
			byAccount[e.account] = append(byAccount[e.account], e)
		}
	}
	viewers := map[int64]map[taskd.Viewer][]*liveSub{}
	for acct := range byAccount {
		vs := map[taskd.Viewer][]*liveSub{}
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
			ids[i] = e.event.ID
		}
		for v, subs := range viewers[acct] {
			seen, err := h.db.eventsSeenBy(ctx, h.db.reader, v, ids)
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
				if seen != nil && !seen[e.event.ID] {
					continue
				}
				for _, sub := range subs {
					if sub.ended || e.event.ID <= sub.after {
						continue
					}
					select {
					case sub.c <- e.event:
					default: // too slow: ended, it resumes
						h.endLocked(sub)
					}
				}
			}
			h.mu.Unlock()
		}
	}
}
