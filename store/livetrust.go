package store

import (
	"context"
	"strings"

	"github.com/taskd/taskd"
)

// A live stream is a credential in use (DESIGN §13): it ends, on every
// replica, when the trust that opened it ends. The hub checks a stream's
// trust before each delivery to it, and every stream's when a change of
// trust commits anywhere (the kindTrust signal) or every liveTrustPoll:
// its session must still be current, and its person still a member of
// the account with the role the stream was opened with. A stream that
// fails is ended; its page reconnects, and the pages then answer as they
// do for any request of that session (sign in again, not found, or a
// stream with the new role).

// trustTx is tx for a change of trust: once it commits, every replica's
// live streams are checked.
func (db *DB) trustTx(ctx context.Context, op string, fn func(querier) error) error {
	if err := db.tx(ctx, op, fn); err != nil {
		return err
	}
	db.sig.trustChanged()
	return nil
}

// liveTrustBatch is how many streams one query checks.
const liveTrustBatch = 200

// recheck ends every stream whose trust ended.
func (h *liveHub) recheck(ctx context.Context) {
	byAccount := map[int64]map[taskd.Viewer][]*liveSub{}
	h.mu.Lock()
	for acct, subs := range h.streams {
		vs := map[taskd.Viewer][]*liveSub{}
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
func (h *liveHub) dropUntrusted(ctx context.Context, acct int64, vs map[taskd.Viewer][]*liveSub) {
	var subs []*liveSub
	for _, s := range vs {
		subs = append(subs, s...)
	}
	for from := 0; from < len(subs); from += liveTrustBatch {
		part := subs[from:min(from+liveTrustBatch, len(subs))]
		trusted, err := h.db.liveTrusted(ctx, acct, part)
		h.mu.Lock()
		for _, sub := range part {
			if err != nil || !trusted[sub] {
				h.endLocked(sub)
			}
		}
		h.mu.Unlock()
	}
}

// liveTrusted reports which of the account's streams are still trusted:
// each one's person a member of the account with the stream's role, and
// its session (when it has one) current and theirs. The administrative
// key's streams are trusted.
func (db *DB) liveTrusted(ctx context.Context, acct int64, subs []*liveSub) (map[*liveSub]bool, error) {
	people := map[int64]bool{}
	sessions := map[string]bool{}
	args := []any{ms(db.now())}
	var hashes, ids []string
	for _, s := range subs {
		if s.session != "" && !sessions[s.session] {
			sessions[s.session] = true
			hashes = append(hashes, "?")
			args = append(args, s.session)
		}
	}
	if len(hashes) == 0 { // no session is '': IN ('') finds none
		hashes = append(hashes, "?")
		args = append(args, "")
	}
	args = append(args, acct)
	for _, s := range subs {
		if !s.v.Key && !people[s.v.PersonID] {
			people[s.v.PersonID] = true
			ids = append(ids, "?")
			args = append(args, s.v.PersonID)
		}
	}
	type row struct {
		person  int64
		role    string
		session string
	}
	var rows []row
	if len(ids) > 0 {
		var err error
		rows, err = all(ctx, db.reader, "live trust", db.d.q(`SELECT m.person_id, m.role, COALESCE(s.hash, '') FROM members m
			LEFT JOIN sessions s ON s.person_id = m.person_id AND s.expires_at > ? AND s.hash IN (`+strings.Join(hashes, ", ")+`)
			WHERE m.account_id = ? AND m.person_id IN (`+strings.Join(ids, ", ")+`)`), func(sc scanner) (row, error) {
			var r row
			return r, sc.Scan(&r.person, &r.role, &r.session)
		}, args...)
		if err != nil {
			return nil, err
		}
	}
	roles := map[int64]taskd.Role{}
	current := map[[2]any]bool{} // (person, session hash)
	for _, r := range rows {
		roles[r.person] = taskd.Role(r.role)
		if r.session != "" {
			current[[2]any{r.person, r.session}] = true
		}
	}
	out := make(map[*liveSub]bool, len(subs))
	for _, s := range subs {
		role, member := roles[s.v.PersonID]
		out[s] = s.v.Key || member && role == s.v.Role && (s.session == "" || current[[2]any{s.v.PersonID, s.session}])
	}
	return out, nil
}
