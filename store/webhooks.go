package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

var (
	_ taskd.WebhookStore  = (*DB)(nil)
	_ taskd.DeliveryStore = (*DB)(nil)
)

const webhookColumns = `id, account_id, url, events, projects, http_user, http_pass, secret, enabled, errors, last_error,
	disabled_reason, last_delivery_at, next_attempt_at, created_at, after_event, COALESCE(by_person, 0),
	COALESCE((SELECT p.email FROM persons p WHERE p.id = webhooks.by_person), ''),
	COALESCE((SELECT p.first_name FROM persons p WHERE p.id = webhooks.by_person), ''),
	COALESCE((SELECT p.last_name FROM persons p WHERE p.id = webhooks.by_person), '') FROM webhooks`

func scanWebhook(s interface{ Scan(...any) error }) (taskd.Webhook, error) {
	var w taskd.Webhook
	var events, projects string
	var enabled int
	var last, next, added int64
	var email, first, lastName string
	err := s.Scan(&w.ID, &w.AccountID, &w.URL, &events, &projects, &w.HTTPUser, &w.HTTPPass, &w.Secret, &enabled,
		&w.Errors, &w.LastError, &w.DisabledReason, &last, &next, &added, &w.AfterEvent, &w.By, &email, &first, &lastName)
	if err != nil {
		return w, err
	}
	if w.By != 0 {
		w.ActsFor = personRef(w.By, email, first, lastName)
	}
	w.Events = strings.Split(events, ",")
	w.Projects, err = taskd.ParseProjectIDs(projects)
	w.Enabled = enabled != 0
	w.LastDelivery, w.NextAttempt, w.Added = fromMS(last), fromMS(next), fromMS(added)
	return w, err
}

// CreateWebhook stores a new webhook, disabled.
func (db *DB) CreateWebhook(ctx context.Context, w taskd.Webhook) (taskd.Webhook, error) {
	w.Added, w.Enabled = db.now().UTC(), false
	err := db.tx(ctx, "create webhook", func(tx querier) error {
		return tx.QueryRowContext(ctx, db.d.q(`INSERT INTO webhooks (account_id, url, events, projects, http_user, http_pass, secret, created_at,
			by_person, after_event) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(id), 0) FROM events)) RETURNING id, after_event`),
			w.AccountID, w.URL, strings.Join(w.Events, ","), taskd.JoinIDs(w.Projects), w.HTTPUser, w.HTTPPass, w.Secret, ms(w.Added),
			nullID(w.By)).Scan(&w.ID, &w.AfterEvent)
	})
	return w, err
}

// Webhooks lists the account's webhooks, oldest first.
func (db *DB) Webhooks(ctx context.Context, accountID int64) ([]taskd.Webhook, error) {
	return all(ctx, db.reader, "webhooks", db.d.q(`SELECT `+webhookColumns+` WHERE account_id = ? ORDER BY id`), scanWebhook, accountID)
}

// Webhook returns one of the account's webhooks; not found ("webhook") otherwise.
func (db *DB) Webhook(ctx context.Context, accountID, id int64) (taskd.Webhook, error) {
	w, err := scanWebhook(db.reader.QueryRow(ctx, db.d.q(`SELECT `+webhookColumns+` WHERE account_id = ? AND id = ?`), accountID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return w, taskd.NotFound("webhook")
	}
	if err != nil {
		return w, taskd.Internal("webhook", err)
	}
	return w, nil
}

// accountWebhook runs an UPDATE or DELETE scoped to one of the account's
// webhooks; not found ("webhook") when it touched none.
func (db *DB) accountWebhook(ctx context.Context, op, stmt string, args ...any) error {
	return db.tx(ctx, op, func(tx querier) error {
		ok, err := changed(tx.ExecContext(ctx, db.d.q(stmt), args...))
		if err == nil && !ok {
			return taskd.NotFound("webhook")
		}
		return err
	})
}

// DeleteWebhook removes a webhook with its deliveries and log.
func (db *DB) DeleteWebhook(ctx context.Context, accountID, id int64) error {
	return db.accountWebhook(ctx, "delete webhook", `DELETE FROM webhooks WHERE account_id = ? AND id = ?`, accountID, id)
}

// EnableWebhook enables a webhook (a fresh start: no errors, due now),
// which from now on acts for by (0: the account).
func (db *DB) EnableWebhook(ctx context.Context, accountID, id, by int64) error {
	return db.accountWebhook(ctx, "enable webhook", `UPDATE webhooks SET enabled = 1, errors = 0, last_error = '',
		disabled_reason = '', next_attempt_at = 0, by_person = ? WHERE account_id = ? AND id = ?`, nullID(by), accountID, id)
}

// DisableWebhook disables a webhook with the reason.
func (db *DB) DisableWebhook(ctx context.Context, accountID, id int64, reason string) error {
	return db.accountWebhook(ctx, "disable webhook", `UPDATE webhooks SET enabled = 0, disabled_reason = ?
		WHERE account_id = ? AND id = ?`, reason, accountID, id)
}

// SetWebhookSecret replaces the sealed signing secret.
func (db *DB) SetWebhookSecret(ctx context.Context, accountID, id int64, sealed []byte) error {
	return db.accountWebhook(ctx, "set webhook secret", `UPDATE webhooks SET secret = ? WHERE account_id = ? AND id = ?`, sealed, accountID, id)
}

// Lease claims a webhook for owner until the time, unless another owner
// holds a lease that has not run out.
func (db *DB) Lease(ctx context.Context, webhookID int64, owner string, until time.Time) (bool, error) {
	return changed(db.exec(ctx, "lease webhook", `UPDATE webhooks SET lease_owner = ?, lease_until = ?
		WHERE id = ? AND (lease_until < ? OR lease_owner = ?)`, owner, ms(until), webhookID, ms(db.now()), owner))
}

// Release gives up owner's lease.
func (db *DB) Release(ctx context.Context, webhookID int64, owner string) error {
	_, err := db.exec(ctx, "release webhook", `UPDATE webhooks SET lease_owner = '', lease_until = 0 WHERE id = ? AND lease_owner = ?`,
		webhookID, owner)
	return err
}

// RecordAttempt logs an attempt and applies its outcome (see taskd.WebhookStore).
func (db *DB) RecordAttempt(ctx context.Context, a taskd.Attempt, retryAt time.Time) error {
	return db.tx(ctx, "record attempt", func(tx querier) error {
		ok := 0
		if a.OK {
			ok = 1
		}
		batch := a.Deliveries
		if len(batch) == 0 && a.DeliveryID != 0 {
			batch = []int64{a.DeliveryID}
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO attempts (webhook_id, delivery_id, event_id, event_name, at, ok,
			http_status, latency_us, error, response, events) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), a.WebhookID, a.DeliveryID, a.EventID,
			a.EventName, ms(a.At), ok, a.HTTPStatus, a.Latency.Microseconds(), a.Error, a.Response, max(len(batch), 1)); err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		in := "IN (?" + strings.Repeat(", ?", len(batch)-1) + ")"
		ids := make([]any, len(batch))
		for i, id := range batch {
			ids[i] = id
		}
		if a.OK {
			if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = ?
				WHERE id `+in), append([]any{ms(a.At)}, ids...)...); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, db.d.q(`UPDATE webhooks SET errors = 0, last_error = '', last_delivery_at = ?, next_attempt_at = 0
				WHERE id = ?`), ms(a.At), a.WebhookID)
			return err
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE deliveries SET attempts = attempts + 1 WHERE id `+in), ids...); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE webhooks SET errors = errors + 1, last_error = ?, next_attempt_at = ?
			WHERE id = ?`), a.Error, ms(retryAt), a.WebhookID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, db.d.q(`UPDATE webhooks SET enabled = 0, disabled_reason = ?
			WHERE id = ? AND enabled = 1 AND errors >= ?`),
			"Disabled automatically after 10 consecutive failed attempts; the last: "+a.Error, a.WebhookID, taskd.MaxWebhookFailures)
		return err
	})
}

// Redeliver makes one of the account's deliveries pending again, as if new.
func (db *DB) Redeliver(ctx context.Context, accountID, deliveryID int64) error {
	return db.tx(ctx, "redeliver", func(tx querier) error {
		ok, err := changed(tx.ExecContext(ctx, db.d.q(`UPDATE deliveries SET state = 'pending', created_at = ?
			WHERE id = ? AND webhook_id IN (SELECT id FROM webhooks WHERE account_id = ?)`), ms(db.now()), deliveryID, accountID))
		if err == nil && !ok {
			return taskd.NotFound("delivery")
		}
		return err
	})
}

// Attempts returns the webhook's latest attempts, newest first.
func (db *DB) Attempts(ctx context.Context, accountID, webhookID int64, limit int) ([]taskd.Attempt, error) {
	return all(ctx, db.reader, "attempts", db.d.q(`SELECT a.id, a.delivery_id, a.event_id, a.event_name, a.at, a.ok, a.http_status,
		a.latency_us, a.error, a.response, a.events FROM attempts a JOIN webhooks w ON w.id = a.webhook_id
		WHERE w.account_id = ? AND a.webhook_id = ? ORDER BY a.id DESC LIMIT ?`), func(s scanner) (taskd.Attempt, error) {
		a := taskd.Attempt{WebhookID: webhookID}
		var at, us int64
		var ok int
		err := s.Scan(&a.ID, &a.DeliveryID, &a.EventID, &a.EventName, &at, &ok, &a.HTTPStatus, &us, &a.Error, &a.Response, &a.Events)
		a.At, a.OK, a.Latency = fromMS(at), ok != 0, time.Duration(us)*time.Microsecond
		return a, err
	}, accountID, webhookID, limit)
}

// AttemptStats sums the webhook's attempts per hour since the time.
func (db *DB) AttemptStats(ctx context.Context, accountID, webhookID int64, since time.Time) ([]taskd.AttemptStats, error) {
	rows, err := db.reader.QueryContext(ctx, db.d.q(`SELECT a.at, a.ok, a.latency_us FROM attempts a JOIN webhooks w ON w.id = a.webhook_id
		WHERE w.account_id = ? AND a.webhook_id = ? AND a.at >= ? AND a.delivery_id <> 0 ORDER BY a.at LIMIT 100000`),
		accountID, webhookID, ms(since))
	if err != nil {
		return nil, taskd.Internal("attempt stats", err)
	}
	defer rows.Close()
	var out []taskd.AttemptStats
	var total time.Duration
	for rows.Next() {
		var at, us int64
		var ok int
		if err := rows.Scan(&at, &ok, &us); err != nil {
			return nil, taskd.Internal("attempt stats", err)
		}
		hour := fromMS(at).Truncate(time.Hour)
		if len(out) == 0 || !out[len(out)-1].Hour.Equal(hour) {
			if len(out) > 0 {
				finishMean(&out[len(out)-1], total)
			}
			out, total = append(out, taskd.AttemptStats{Hour: hour}), 0
		}
		s := &out[len(out)-1]
		if ok != 0 {
			s.OK++
		} else {
			s.Failed++
		}
		total += time.Duration(us) * time.Microsecond
	}
	if len(out) > 0 {
		finishMean(&out[len(out)-1], total)
	}
	if err := rows.Err(); err != nil {
		return nil, taskd.Internal("attempt stats", err)
	}
	return out, nil
}

func finishMean(s *taskd.AttemptStats, total time.Duration) {
	if n := s.OK + s.Failed; n > 0 {
		s.Latency = total / time.Duration(n)
	}
}

// ExpiredDeliveries lists the webhook's expired deliveries, newest first.
func (db *DB) ExpiredDeliveries(ctx context.Context, accountID, webhookID int64, limit int) ([]taskd.Delivery, error) {
	return all(ctx, db.reader, "expired deliveries", db.d.q(`SELECT d.id, d.attempts, d.created_at, e.id, e.name, e.created_at
		FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN events e ON e.id = d.event_id
		WHERE w.account_id = ? AND d.webhook_id = ? AND d.state = 'expired' ORDER BY d.event_id DESC LIMIT ?`), func(s scanner) (taskd.Delivery, error) {
		d := taskd.Delivery{WebhookID: webhookID, State: taskd.DeliveryExpired}
		var added, at int64
		err := s.Scan(&d.ID, &d.Attempts, &added, &d.Event.ID, &d.Event.Name, &at)
		d.Added, d.Event.Time = fromMS(added), fromMS(at)
		return d, err
	}, accountID, webhookID, limit)
}
