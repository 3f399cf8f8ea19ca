package live

import (
	"context"
	"time"

	"github.com/taskd/taskd"
)

// A stream reconnecting gets the events it missed from the store, by the
// viewer's rule, each once and in order; then the hub's. Beyond the
// window it reloads instead: its page fetches itself whole.
const (
	// Window is how old an event a stream resumes from may be, and Replay
	// how many events it may have missed; beyond either the page reloads.
	Window = 10 * time.Minute
	Replay = 500
)

// Replays is what the hub reads for a stream resuming.
type Replays interface {
	// EventTime is when the account's event id was written; not found
	// when the account has no such event.
	EventTime(ctx context.Context, accountID, id int64) (time.Time, error)
	// SightBegan is when the viewer's sight of the account as it is now
	// began (joining it, their role, for a limited role joining a
	// project's team); the zero time for the key.
	SightBegan(ctx context.Context, v taskd.Viewer) (time.Time, error)
	// MissedEvents reads the events of the span that the viewer sees,
	// oldest first, at most limit of them.
	MissedEvents(ctx context.Context, v taskd.Viewer, span taskd.LiveSpan, limit int) ([]taskd.LiveEvent, error)
}

// replay reads the events after last up to upto that the viewer sees,
// for a stream resuming; reload when last is not an event of the
// viewer's account, or events were missed and last is older than Window,
// or last was written before the viewer's sight began (its page was made
// for another sight), or more than Replay events are missed.
func (h *Hub) replay(ctx context.Context, v taskd.Viewer, last, upto int64) (evs []taskd.LiveEvent, reload bool, err error) {
	at, err := h.store.EventTime(ctx, v.AccountID, last)
	if taskd.IsNotFound(err) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if last >= upto { // nothing missed here (or a replica ahead of this one)
		return nil, false, nil
	}
	if at.Before(h.now().Add(-Window)) {
		return nil, true, nil
	}
	if began, err := h.store.SightBegan(ctx, v); err != nil || began.After(at) {
		return nil, err == nil, err
	}
	return h.missed(ctx, v, taskd.LiveSpan{After: last, Upto: upto})
}

// since reads the events written since t up to upto that the viewer
// sees, for a page's first stream, leaving out those written before the
// viewer's sight began (the page was made with it, or around when it
// began); reload when t is older than Window or more than Replay events
// are missed.
func (h *Hub) since(ctx context.Context, v taskd.Viewer, t time.Time, upto int64) (evs []taskd.LiveEvent, reload bool, err error) {
	if t.Before(h.now().Add(-Window)) {
		return nil, true, nil
	}
	began, err := h.store.SightBegan(ctx, v)
	if err != nil {
		return nil, false, err
	}
	if began.After(t) {
		t = began
	}
	return h.missed(ctx, v, taskd.LiveSpan{Since: t, Upto: upto})
}

// missed reads the events of a replay, at most Replay (reload when more).
func (h *Hub) missed(ctx context.Context, v taskd.Viewer, span taskd.LiveSpan) ([]taskd.LiveEvent, bool, error) {
	evs, err := h.store.MissedEvents(ctx, v, span, Replay+1)
	if err != nil {
		return nil, false, err
	}
	if len(evs) > Replay {
		return nil, true, nil
	}
	return evs, false, nil
}
