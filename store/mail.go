package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/taskd/taskd"
)

var _ taskd.MailStore = (*DB)(nil)

const (
	mailFields  = `id, to_addr, subject, kind, body, state, attempts, last_error, created_at, next_at, done_at, lease_until`
	mailColumns = mailFields + ` FROM mail_outbox`
)

func scanMail(s scanner) (taskd.QueuedMail, error) {
	var m taskd.QueuedMail
	var state string
	var added, next, done, lease int64
	err := s.Scan(&m.ID, &m.To, &m.Subject, &m.Kind, &m.Body, &state, &m.Attempts, &m.LastError, &added, &next, &done, &lease)
	m.State, m.Added, m.NextAt, m.DoneAt, m.Lease = taskd.MailState(state), fromMS(added), fromMS(next), fromMS(done), fromMS(lease)
	return m, err
}

// QueueMail adds a message to the outbox, due at once.
func (db *DB) QueueMail(ctx context.Context, m taskd.QueuedMail) (int64, error) {
	var id int64
	err := db.mailTx(ctx, "queue mail", func(tx querier, queued *bool) error {
		var err error
		id, err = db.queueMail(ctx, tx, m)
		*queued = true
		return err
	})
	return id, err
}

// queueMail writes a message in the transaction of the change that causes
// it: both commit, or neither.
func (db *DB) queueMail(ctx context.Context, tx querier, m taskd.QueuedMail) (int64, error) {
	now := ms(db.now())
	var id int64
	err := tx.QueryRowContext(ctx, db.d.q(`INSERT INTO mail_outbox (to_addr, subject, kind, body, state, created_at, next_at)
		VALUES (?, ?, ?, ?, 'pending', ?, ?) RETURNING id`), m.To, m.Subject, m.Kind, m.Body, now, now).Scan(&id)
	return id, err
}

// ClaimMail leases due messages. On PostgreSQL rows another replica is
// claiming are skipped rather than waited for.
func (db *DB) ClaimMail(ctx context.Context, limit int, lease time.Duration) ([]taskd.QueuedMail, error) {
	now := db.now()
	skip := ""
	if db.d.forUpdate != "" {
		skip = db.d.forUpdate + " SKIP LOCKED"
	}
	var out []taskd.QueuedMail
	err := db.tx(ctx, "claim mail", func(tx querier) error {
		var err error
		out, err = allOnce(ctx, tx, db.d.q(`UPDATE mail_outbox SET lease_until = ?, attempts = attempts + 1
			WHERE id IN (SELECT id FROM mail_outbox WHERE state = 'pending' AND next_at <= ? AND lease_until <= ?
				ORDER BY next_at, id LIMIT ?`+skip+`)
			RETURNING `+mailFields), scanMail,
			ms(now.Add(lease)), ms(now), ms(now), limit)
		return err
	})
	slices.SortFunc(out, func(a, b taskd.QueuedMail) int { return cmp.Compare(a.ID, b.ID) })
	return out, err
}

// FinishMail ends a message. A sent message's body is dropped: the outbox
// keeps no one-time link longer than it must.
func (db *DB) FinishMail(ctx context.Context, m taskd.QueuedMail, state taskd.MailState, why string) error {
	if state != taskd.MailSent && state != taskd.MailKept && state != taskd.MailFailed {
		return taskd.Invalid("state", "A message ends sent, kept or failed")
	}
	res, err := db.exec(ctx, "finish mail", `UPDATE mail_outbox SET state = ?, last_error = ?, done_at = ?, lease_until = 0,
		body = CASE WHEN ? THEN ? ELSE body END WHERE id = ? AND state = 'pending' AND lease_until = ?`,
		string(state), why, ms(db.now()), state == taskd.MailSent, []byte{}, m.ID, ms(m.Lease))
	return oneRow(res, err, "mail")
}

// RetryMail records a failed attempt and schedules the next.
func (db *DB) RetryMail(ctx context.Context, m taskd.QueuedMail, why string, at time.Time) error {
	res, err := db.exec(ctx, "retry mail", `UPDATE mail_outbox SET last_error = ?, next_at = ?, lease_until = 0
		WHERE id = ? AND state = 'pending' AND lease_until = ?`, why, ms(at), m.ID, ms(m.Lease))
	return oneRow(res, err, "mail")
}

// RequeueKept makes recently kept messages due again.
func (db *DB) RequeueKept(ctx context.Context, since time.Time) (int64, error) {
	res, err := db.exec(ctx, "requeue kept mail", `UPDATE mail_outbox SET state = 'pending', next_at = ?, done_at = 0, last_error = ''
		WHERE state = 'kept' AND created_at >= ?`, ms(db.now()), ms(since))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// NextMail tells how long until the first pending message falls due: its
// next attempt, or the end of its lease when a sender holds one (a claim
// needs next_at <= now and lease_until <= now).
func (db *DB) NextMail(ctx context.Context) (time.Duration, bool, error) {
	var next sql.NullInt64
	err := db.reader.QueryRow(ctx, `SELECT MIN(CASE WHEN lease_until > next_at THEN lease_until ELSE next_at END) FROM mail_outbox
		WHERE state = 'pending'`).Scan(&next)
	if err != nil {
		return 0, false, taskd.Internal("next mail", err)
	}
	return time.Duration(next.Int64-ms(db.now())) * time.Millisecond, next.Valid, nil
}

// Mail lists the outbox, newest first.
func (db *DB) Mail(ctx context.Context, limit int) ([]taskd.QueuedMail, error) {
	return all(ctx, db.reader, "mail", db.d.q(`SELECT `+mailColumns+` ORDER BY id DESC LIMIT ?`), scanMail, limit)
}

// MailByID returns one message of the outbox.
func (db *DB) MailByID(ctx context.Context, id int64) (taskd.QueuedMail, error) {
	m, err := scanMail(db.reader.QueryRow(ctx, db.d.q(`SELECT `+mailColumns+` WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return m, taskd.NotFound("mail")
	}
	if err != nil {
		return m, taskd.Internal("mail", err)
	}
	return m, nil
}

// PruneMail deletes messages that ended before the time.
func (db *DB) PruneMail(ctx context.Context, before time.Time) (int64, error) {
	res, err := db.exec(ctx, "prune mail", `DELETE FROM mail_outbox WHERE state <> 'pending' AND done_at < ?`, ms(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
