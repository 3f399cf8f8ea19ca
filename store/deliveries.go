package store

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// Fan-out turns new events into work for the webhooks that want them, in
// one of two ways.
//
// On SQLite it queues them: it moves the start of each subscribed
// webhook's queue (webhook_queues.queued_from) down to the lowest of the
// round's events, one row per webhook and round however many events, and
// the delivery rows are made from the queue a batch at a time when the
// webhook is sent to (NextDeliveries). SQLite has one writer, which every
// change needs; a destination that is down or hanging then takes none of
// it per change, and one writer also means no fan-out can commit while a
// queue is being read.
//
// On PostgreSQL it writes the delivery rows at once, many per statement.
// Writers run side by side there, and a queue row per webhook, updated by
// every fan-out and moved on by every sender, made replicas wait on each
// other (measured: three replicas went from 2,100 to 1,200–1,700 events/s).
//
// Either way one fan-out runs at a time (SQLite's one writer; an advisory
// lock on PostgreSQL), so a webhook's deliveries are made, and sent (in
// delivery id order), in the order their events became visible: the order
// their changes committed. Changes to one task, project or comment lock
// its row, so their events commit in event-id order too.

// FanOut queues up to limit new events for every webhook whose
// subscription matches, or writes their deliveries (see above), and
// returns how many events it handled. Fan-outs run one at a time, in event
// order: on PostgreSQL a replica that finds another fanning out handles
// none. Deliveries are therefore made in the order their events became
// visible, which is the order they are sent in.
func (db *DB) FanOut(ctx context.Context, limit int) (int, error) {
	handled := 0
	err := db.tx(ctx, "fan out", func(tx querier) error {
		if db.d.fanOutLock != "" {
			// One fan-out at a time across every replica; the others find
			// the lock taken and leave the events to it (it is woken by
			// the same commits, so it runs again for any it missed).
			var mine bool
			if err := tx.QueryRowContext(ctx, db.d.fanOutLock).Scan(&mine); err != nil || !mine {
				return err
			}
		}
		rows, err := tx.QueryContext(ctx, db.d.q(`SELECT id, account_id, project_id, name FROM events WHERE fanned = 0 ORDER BY id LIMIT ?`), limit)
		if err != nil {
			return err
		}
		var evs []queuedEvent
		for rows.Next() {
			var e queuedEvent
			if err := rows.Scan(&e.id, &e.account, &e.project, &e.name); err != nil {
				rows.Close()
				return err
			}
			evs = append(evs, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(evs) == 0 {
			return err
		}
		hooks := map[int64][]taskd.Webhook{}
		audience := db.newAudience(tx, evs)
		lowest := map[int64]int64{} // queueing: webhook id → its lowest event of this round
		var dels []any              // writing: webhook id, event id, state, created_at per delivery
		now := ms(db.now())
		for _, e := range evs {
			ws, ok := hooks[e.account]
			if !ok {
				if ws, err = db.webhooksIn(ctx, tx, e.account); err != nil {
					return err
				}
				hooks[e.account] = ws
			}
			for _, w := range ws {
				switch {
				case !e.wantedBy(w):
				case !db.d.queueDeliveries:
					// Deliveries are made now, for what the maker sees now;
					// queued events are judged when their deliveries are
					// made (scanQueue).
					if seen, err := audience.sees(ctx, w, e.id); err != nil || !seen {
						if err != nil {
							return err
						}
						continue
					}
					dels = append(dels, w.ID, e.id, taskd.DeliveryPending, now)
				case lowest[w.ID] == 0 || e.id < lowest[w.ID]:
					lowest[w.ID] = e.id
				}
			}
		}
		handled = len(evs)
		ids := make([]any, len(evs))
		for i, e := range evs {
			ids[i] = e.id
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE events SET fanned = 1 WHERE id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`), ids...); err != nil {
			return err
		}
		if err := db.insertDeliveries(ctx, tx, dels); err != nil {
			return err
		}
		return db.lowerQueues(ctx, tx, lowest)
	})
	return handled, err
}

// queuedEvent is what fan-out and making deliveries read of an event.
type queuedEvent struct {
	id, account, project int64
	name                 string
	created              int64 // ms; read only when making deliveries
}

// wantedBy reports whether the webhook hears of the event: it subscribes
// to it, and the event was written after the webhook was made.
func (e queuedEvent) wantedBy(w taskd.Webhook) bool {
	return e.id > w.AfterEvent && w.Wants(e.name, e.project)
}

func (db *DB) webhooksIn(ctx context.Context, tx querier, accountID int64) ([]taskd.Webhook, error) {
	return all(ctx, tx, "webhooks", db.d.q(`SELECT `+webhookColumns+` WHERE account_id = ?`), scanWebhook, accountID)
}

// lowerQueues moves the start of each webhook's queue down to the event
// given for it, many webhooks per statement; a queue that starts lower
// already is not written.
func (db *DB) lowerQueues(ctx context.Context, tx querier, lowest map[int64]int64) error {
	ids := slices.Sorted(maps.Keys(lowest))
	return inChunks(len(ids), func(from, size int) error {
		args := make([]any, 0, 2*size)
		for _, id := range ids[from : from+size] {
			args = append(args, id, lowest[id])
		}
		_, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO webhook_queues (webhook_id, queued_from) VALUES (?, ?)`+
			strings.Repeat(`, (?, ?)`, size-1)+` ON CONFLICT (webhook_id) DO UPDATE SET queued_from = excluded.queued_from
			WHERE webhook_queues.queued_from = 0 OR webhook_queues.queued_from > excluded.queued_from`), args...)
		return err
	})
}

// inChunks calls fn for consecutive chunks of n rows: 64 at a time, then
// the rest by powers of two, so that a multi-row statement has at most
// seven texts to prepare.
func inChunks(n int, fn func(from, size int) error) error {
	for from := 0; from < n; {
		size := 64
		for size > n-from {
			size /= 2
		}
		if err := fn(from, size); err != nil {
			return err
		}
		from += size
	}
	return nil
}

// queuePage is how many of an account's events making deliveries reads at
// a time.
const queuePage = 500

// makeDeliveries turns up to limit of the events queued for the webhook
// into deliveries, in event order, and moves its queue past them (to 0
// when it is empty). An event older than cutoff becomes an expired
// delivery; with expiredOnly it stops at the first that is not. It returns
// how many deliveries it made pending and how many expired, and the
// queue's new start.
func (db *DB) makeDeliveries(ctx context.Context, tx querier, w taskd.Webhook, limit int, cutoff time.Time,
	expiredOnly bool) (pending, expired int, next int64, err error) {
	var start int64
	err = tx.QueryRowContext(ctx, db.d.q(`SELECT queued_from FROM webhook_queues WHERE webhook_id = ?`), w.ID).Scan(&start)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, 0, nil
	}
	if err != nil || start == 0 {
		return 0, 0, 0, err
	}
	q := queueScan{w: w, limit: limit, old: ms(cutoff), expiredOnly: expiredOnly}
	if err := db.scanQueue(ctx, tx, &q, start); err != nil {
		return 0, 0, 0, err
	}
	if q.next != start {
		_, err = tx.ExecContext(ctx, db.d.q(`UPDATE webhook_queues SET queued_from = ? WHERE webhook_id = ?`), q.next, w.ID)
	}
	return q.pending, q.expired, q.next, err
}

// queueScan is one pass of makeDeliveries over a webhook's queue.
type queueScan struct {
	w           taskd.Webhook
	limit       int
	old         int64 // ms: events before it expire
	expiredOnly bool

	pending, expired int
	next             int64
}

// scanQueue makes the deliveries of q's webhook from the queue's start
// on, and sets what it made and where the queue now starts.
func (db *DB) scanQueue(ctx context.Context, tx querier, q *queueScan, start int64) error {
	var rows []any // webhook id, event id, state, created_at; four per delivery
	for from := start; ; {
		page, err := db.eventsFrom(ctx, tx, q.w.AccountID, from)
		if err != nil {
			return err
		}
		audience := db.newAudience(tx, page)
		for _, e := range page {
			if !e.wantedBy(q.w) {
				continue
			}
			if seen, err := audience.sees(ctx, q.w, e.id); err != nil || !seen {
				if err != nil {
					return err
				}
				continue
			}
			if q.pending+q.expired == q.limit || (q.expiredOnly && e.created >= q.old) {
				q.next = e.id
				return db.insertDeliveries(ctx, tx, rows)
			}
			state := taskd.DeliveryPending
			if e.created < q.old {
				state, q.expired = taskd.DeliveryExpired, q.expired+1
			} else {
				q.pending++
			}
			rows = append(rows, q.w.ID, e.id, state, e.created)
		}
		if len(page) < queuePage {
			q.next = 0 // the queue is empty
			return db.insertDeliveries(ctx, tx, rows)
		}
		from = page[len(page)-1].id + 1
	}
}

// eventsFrom reads a page of the account's fanned-out events from an id on.
func (db *DB) eventsFrom(ctx context.Context, tx querier, accountID, from int64) ([]queuedEvent, error) {
	return all(ctx, tx, "queued events", db.d.q(`SELECT id, project_id, name, created_at FROM events
		WHERE account_id = ? AND id >= ? AND fanned = 1 ORDER BY id LIMIT ?`), func(s scanner) (queuedEvent, error) {
		e := queuedEvent{account: accountID}
		err := s.Scan(&e.id, &e.project, &e.name, &e.created)
		return e, err
	}, accountID, from, queuePage)
}

// insertDeliveries writes deliveries from rows of (webhook id, event id,
// state, created_at), many per statement. A delivery that exists already
// is left as it is.
func (db *DB) insertDeliveries(ctx context.Context, tx querier, rows []any) error {
	return inChunks(len(rows)/4, func(from, size int) error {
		_, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO deliveries (webhook_id, event_id, state, created_at) VALUES (?, ?, ?, ?)`+
			strings.Repeat(`, (?, ?, ?, ?)`, size-1)+` ON CONFLICT (webhook_id, event_id) DO NOTHING`), rows[from*4:(from+size)*4]...)
		return err
	})
}

// DueWebhooks lists enabled webhooks with pending or queued deliveries,
// due and not leased: the healthy first, then the failing, each the
// longest-waiting first.
func (db *DB) DueWebhooks(ctx context.Context, limit int) ([]taskd.DueWebhook, error) {
	now := ms(db.now())
	return all(ctx, db.reader, "due webhooks", db.d.q(`SELECT w.id, w.errors FROM webhooks w WHERE w.enabled = 1 AND w.next_attempt_at <= ?
		AND w.lease_until < ? AND (EXISTS (SELECT 1 FROM webhook_queues q WHERE q.webhook_id = w.id AND q.queued_from > 0)
		OR EXISTS (SELECT 1 FROM deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending'))
		ORDER BY CASE WHEN w.errors > 0 THEN 1 ELSE 0 END, w.next_attempt_at, w.id LIMIT ?`), func(s scanner) (taskd.DueWebhook, error) {
		var w taskd.DueWebhook
		err := s.Scan(&w.ID, &w.Errors)
		return w, err
	}, now, now, limit)
}

// WebhookWork answers in one read-only statement, with no transaction,
// what the dispatcher must know after a wake: the due webhooks (as
// DueWebhooks, counting only deliveries it would send: made within
// taskd.HoldLimit), when the first of the others with work waiting falls
// due (its next attempt, or the end of the lease another replica holds),
// and whether events wait for fan-out. The first row is that last answer;
// the rest are the webhooks with work, due ones first.
//
// Only a wake by the timer asks whether events wait (unfanned): after a
// signal the dispatcher has just fanned out, and under load the partial
// index of unfanned events is the one every fan-out churns.
func (db *DB) WebhookWork(ctx context.Context, limit int, unfanned bool) (taskd.WebhookWork, error) {
	now := ms(db.now())
	cutoff := ms(db.now().Add(-taskd.HoldLimit))
	type row struct {
		id       int64
		errors   int
		due      int64
		unfanned int
		next     sql.NullInt64
	}
	rows, err := all(ctx, db.reader, "webhook work", db.d.q(`SELECT id, errors, due, unfanned, MIN(CASE WHEN due > ? THEN due END) OVER () FROM (
		SELECT 0 AS id, 0 AS errors, 0 AS due, 0 AS next_at,
			CASE WHEN ? = 0 THEN 0 WHEN EXISTS (SELECT 1 FROM events WHERE fanned = 0) THEN 1 ELSE 0 END AS unfanned
		UNION ALL
		SELECT w.id, w.errors, CASE WHEN w.lease_until >= w.next_attempt_at THEN w.lease_until + 1 ELSE w.next_attempt_at END,
			w.next_attempt_at, 0 FROM webhooks w
		WHERE w.enabled = 1 AND (EXISTS (SELECT 1 FROM webhook_queues q WHERE q.webhook_id = w.id AND q.queued_from > 0)
			OR EXISTS (SELECT 1 FROM deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending' AND +d.created_at >= ?))
	) x ORDER BY CASE WHEN id = 0 THEN 0 WHEN due <= ? THEN 1 ELSE 2 END, CASE WHEN errors > 0 THEN 1 ELSE 0 END, next_at, id
	LIMIT ?`), func(s scanner) (row, error) {
		var r row
		err := s.Scan(&r.id, &r.errors, &r.due, &r.unfanned, &r.next)
		return r, err
	}, now, flag(unfanned), cutoff, now, limit+1)
	var work taskd.WebhookWork
	if err != nil || len(rows) == 0 {
		return work, err
	}
	work.Unfanned = rows[0].unfanned == 1
	if rows[0].next.Valid {
		work.NextIn = time.Duration(rows[0].next.Int64-now) * time.Millisecond
	}
	for _, r := range rows[1:] {
		if r.due <= now {
			work.Due = append(work.Due, taskd.DueWebhook{ID: r.id, Errors: r.errors})
		}
	}
	return work, nil
}

// NextDeliveries returns the webhook (as it is now) and up to limit of its
// oldest pending deliveries, in event order, making them from its queue
// when fewer are pending.
func (db *DB) NextDeliveries(ctx context.Context, webhookID int64, limit int) ([]taskd.Delivery, taskd.Webhook, error) {
	w, err := scanWebhook(db.reader.QueryRow(ctx, db.d.q(`SELECT `+webhookColumns+` WHERE id = ?`), webhookID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, w, nil
	}
	if err != nil {
		return nil, w, taskd.Internal("next deliveries", err)
	}
	cutoff := db.now().Add(-taskd.HoldLimit)
	ds, err := db.pending(ctx, webhookID, limit, cutoff)
	var next int64
	if err == nil && len(ds) < limit && db.d.queueDeliveries {
		if err = db.reader.QueryRow(ctx, db.d.q(`SELECT queued_from FROM webhook_queues WHERE webhook_id = ?`),
			webhookID).Scan(&next); errors.Is(err, sql.ErrNoRows) {
			err = nil
		} else if err != nil {
			err = taskd.Internal("next deliveries", err)
		}
	}
	// A queue of events that are all too old to send would make nothing
	// pending; a few rounds, then the next drain goes on (and ExpireHeld
	// clears such queues every minute).
	for round := 0; err == nil && len(ds) < limit && next != 0 && round < 4; round++ {
		var made int
		err = db.tx(ctx, "make deliveries", func(tx querier) (err error) {
			made, _, next, err = db.makeDeliveries(ctx, tx, w, limit-len(ds), cutoff, false)
			return err
		})
		if err == nil && made > 0 {
			ds, err = db.pending(ctx, webhookID, limit, cutoff)
		}
	}
	return ds, w, err
}

// pending reads up to limit of the webhook's pending deliveries made since
// cutoff, in the order they were made. (Older ones are never sent: ExpireHeld marks
// them expired. The unary + keeps SQLite on the webhook's pending index:
// with created_at in the condition it would otherwise read every pending
// delivery of every webhook through deliveries_created and sort them.)
func (db *DB) pending(ctx context.Context, webhookID int64, limit int, cutoff time.Time) ([]taskd.Delivery, error) {
	return all(ctx, db.reader, "next deliveries", db.d.q(`SELECT d.id, d.attempts, d.created_at, e.id, e.account_id, e.project_id,
		e.name, e.created_at, e.body FROM deliveries d JOIN events e ON e.id = d.event_id
		WHERE d.webhook_id = ? AND d.state = 'pending' AND +d.created_at >= ? ORDER BY d.id LIMIT ?`), func(s scanner) (taskd.Delivery, error) {
		var d taskd.Delivery
		var added, at int64
		var body string
		err := s.Scan(&d.ID, &d.Attempts, &added, &d.Event.ID, &d.Event.AccountID, &d.Event.ProjectID, &d.Event.Name, &at, &body)
		d.WebhookID, d.State, d.Added = webhookID, taskd.DeliveryPending, fromMS(added)
		d.Event.Time, d.Event.Body = fromMS(at), []byte(body)
		return d, err
	}, webhookID, ms(cutoff), limit)
}

// HeldEvents counts the events of one of the account's webhooks that wait
// to be sent: its pending deliveries and the events queued for it (on
// SQLite, those after the start of its queue that it wants), made within
// taskd.HoldLimit; older ones expire instead of going out. The two sets are
// told apart by event id (a delivery made from the queue is of an event
// before the queue's start), so no event counts twice. Events not fanned
// out yet are not counted. Not found ("webhook") for another account's.
func (db *DB) HeldEvents(ctx context.Context, accountID, webhookID int64) (int, error) {
	w, err := db.Webhook(ctx, accountID, webhookID)
	if err != nil {
		return 0, err
	}
	cutoff := db.now().Add(-taskd.HoldLimit)
	var start int64
	if db.d.queueDeliveries {
		err := db.reader.QueryRow(ctx, db.d.q(`SELECT queued_from FROM webhook_queues WHERE webhook_id = ?`), w.ID).Scan(&start)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, taskd.Internal("held events", err)
		}
	}
	query := `SELECT COUNT(*) FROM deliveries WHERE webhook_id = ? AND state = 'pending' AND created_at >= ?`
	args := []any{w.ID, ms(cutoff)}
	if start > 0 {
		query += ` AND event_id < ?`
		args = append(args, start)
	}
	var held int
	if err := db.reader.QueryRow(ctx, db.d.q(query), args...).Scan(&held); err != nil {
		return 0, taskd.Internal("held events", err)
	}
	for from := start; from > 0; {
		page, err := db.eventsFrom(ctx, db.reader, w.AccountID, from)
		if err != nil {
			return 0, err
		}
		for _, e := range page {
			if e.wantedBy(w) && e.created >= ms(cutoff) {
				held++
			}
		}
		if len(page) < queuePage {
			break
		}
		from = page[len(page)-1].id + 1
	}
	return held, nil
}

// expireChunk bounds the expired deliveries one transaction makes from a
// queue, so that a long-disabled webhook does not hold the writer.
const expireChunk = 5000

// ExpireHeld expires the deliveries pending or queued since before the
// time, and forgets attempts and finished deliveries older than 30 days.
func (db *DB) ExpireHeld(ctx context.Context, before time.Time) (int, error) {
	queued, err := all(ctx, db.reader, "expire held deliveries", `SELECT `+webhookColumns+`
		WHERE id IN (SELECT webhook_id FROM webhook_queues WHERE queued_from > 0)`, scanWebhook)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, w := range queued {
		for expired := expireChunk; expired == expireChunk; {
			err := db.tx(ctx, "expire held deliveries", func(tx querier) (err error) {
				_, expired, _, err = db.makeDeliveries(ctx, tx, w, expireChunk, before, true)
				return err
			})
			if err != nil {
				return total, err
			}
			total += expired
		}
	}
	var swept int64
	err = db.tx(ctx, "expire held deliveries", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE deliveries SET state = 'expired' WHERE state = 'pending' AND created_at < ?`), ms(before))
		if err != nil {
			return err
		}
		if swept, err = res.RowsAffected(); err != nil {
			return err
		}
		old := ms(db.now().Add(-30 * 24 * time.Hour))
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM attempts WHERE at < ?`), old); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`DELETE FROM deliveries WHERE state <> 'pending' AND created_at < ?`), old)
		return err
	})
	return total + int(swept), err
}
