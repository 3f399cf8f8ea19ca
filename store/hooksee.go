package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/taskd/taskd"
)

// A webhook acts for whoever made it (taskd.Webhook.By, DESIGN §10): it
// hears of the events its maker sees when its deliveries are made, by the
// same rule as every read (eventsSeen). One made with the administrative
// key hears of the whole account.

// hookViewer is the viewer a webhook acts for: its maker with their role
// now; a maker who is no member any more sees nothing.
func (db *DB) hookViewer(ctx context.Context, tx querier, w taskd.Webhook) (taskd.Viewer, error) {
	if w.By == 0 {
		return taskd.AccountViewer(w.AccountID), nil
	}
	var role string
	err := tx.QueryRowContext(ctx, db.d.q(`SELECT role FROM members WHERE account_id = ? AND person_id = ?`), w.AccountID, w.By).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return taskd.Viewer{AccountID: w.AccountID, PersonID: w.By}, nil
	}
	return taskd.PersonViewer(w.AccountID, w.By, taskd.Role(role)), err
}

// eventsSeenBy returns which of the account's events ids the viewer sees;
// nil when they see every event (the key).
func (db *DB) eventsSeenBy(ctx context.Context, tx querier, v taskd.Viewer, ids []int64) (map[int64]bool, error) {
	if v.Key {
		return nil, nil
	}
	seen := make(map[int64]bool, len(ids))
	if len(ids) == 0 {
		return seen, nil
	}
	c := eventsSeen(v)
	for from := 0; from < len(ids); from += queuePage {
		chunk := ids[from:min(from+queuePage, len(ids))]
		args := append([]any{v.AccountID}, c.args...)
		for _, id := range chunk {
			args = append(args, id)
		}
		got, err := all(ctx, tx, "events seen", db.d.q(`SELECT e.id FROM events e WHERE e.account_id = ?`+c.where()+
			` AND e.id IN (?`+strings.Repeat(", ?", len(chunk)-1)+`)`), scanID, args...)
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			seen[id] = true
		}
	}
	return seen, nil
}

// scanID reads one id.
func scanID(s scanner) (int64, error) {
	var id int64
	return id, s.Scan(&id)
}

// hookAudience answers, for one round of events, which a webhook's maker
// sees, reading each maker's view of the round once.
type hookAudience struct {
	db   *DB
	tx   querier
	ids  map[int64][]int64           // account → its events of the round
	seen map[[2]int64]map[int64]bool // (account, maker) → what they see
}

// newAudience is the audience of the events.
func (db *DB) newAudience(tx querier, evs []queuedEvent) *hookAudience {
	h := &hookAudience{db: db, tx: tx, ids: map[int64][]int64{}, seen: map[[2]int64]map[int64]bool{}}
	for _, e := range evs {
		h.ids[e.account] = append(h.ids[e.account], e.id)
	}
	return h
}

// sees reports whether the webhook's maker sees the event.
func (h *hookAudience) sees(ctx context.Context, w taskd.Webhook, event int64) (bool, error) {
	if w.By == 0 {
		return true, nil
	}
	key := [2]int64{w.AccountID, w.By}
	set, ok := h.seen[key]
	if !ok {
		v, err := h.db.hookViewer(ctx, h.tx, w)
		if err != nil {
			return false, err
		}
		if set, err = h.db.eventsSeenBy(ctx, h.tx, v, h.ids[w.AccountID]); err != nil {
			return false, err
		}
		h.seen[key] = set
	}
	return set == nil || set[event], nil
}
