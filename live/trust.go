package live

import (
	"context"

	"github.com/taskd/taskd"
)

// A live stream is a credential in use (DESIGN §13): it ends, on every
// replica, when the trust that opened it ends. The hub checks a stream's
// trust before each delivery to it, and every stream's when a change of
// trust commits anywhere (TrustChanged) or every trustPoll: its session
// must still be current, and its person still a member of the account
// with the role the stream was opened with. A stream that fails is ended;
// its page reconnects, and the pages then answer as they do for any
// request of that session (sign in again, not found, or a stream with the
// new role).

// Trust is what the hub reads of the streams' trust.
type Trust interface {
	// StreamsTrusted reports, for each of the account's streams (by the
	// viewer and session of the request that opened it), whether its
	// trust still holds.
	StreamsTrusted(ctx context.Context, accountID int64, streams []taskd.LiveRequest) ([]bool, error)
	// TrustChanged returns a new channel that receives after a change of
	// trust commits, in this process or another.
	TrustChanged() <-chan struct{}
}

// trustBatch is how many streams one query checks.
const trustBatch = 200

// recheck ends every stream whose trust ended.
func (h *Hub) recheck(ctx context.Context) {
	byAccount := map[int64]map[taskd.Viewer][]*stream{}
	h.mu.Lock()
	for acct, subs := range h.streams {
		vs := map[taskd.Viewer][]*stream{}
		for sub := range subs {
			vs[sub.v] = append(vs[sub.v], sub)
		}
		byAccount[acct] = vs
	}
	h.mu.Unlock()
	for acct, vs := range byAccount {
		h.dropUntrusted(ctx, acct, vs)
	}
}

// dropUntrusted ends the account's streams (by viewer) whose trust ended;
// when their trust cannot be read, it ends them all (they resume from
// Last-Event-ID, checked afresh).
func (h *Hub) dropUntrusted(ctx context.Context, acct int64, vs map[taskd.Viewer][]*stream) {
	var subs []*stream
	for _, s := range vs {
		subs = append(subs, s...)
	}
	for from := 0; from < len(subs); from += trustBatch {
		part := subs[from:min(from+trustBatch, len(subs))]
		reqs := make([]taskd.LiveRequest, len(part))
		for i, sub := range part {
			reqs[i] = taskd.LiveRequest{Viewer: sub.v, Session: sub.session}
		}
		trusted, err := h.store.StreamsTrusted(ctx, acct, reqs)
		h.mu.Lock()
		for i, sub := range part {
			if err != nil || !trusted[i] {
				h.endLocked(sub)
			}
		}
		h.mu.Unlock()
	}
}
