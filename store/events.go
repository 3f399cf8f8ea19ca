package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/taskd/taskd"
)

// emit writes ev to the outbox inside the change's transaction.
func (db *DB) emit(ctx context.Context, tx querier, ev taskd.Event) error {
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	query := `INSERT INTO events (account_id, project_id, name, created_at, body) VALUES (?, ?, ?, ?, ?)`
	if w, ok := tx.(*witnessTx); ok && db.d.xactID != "" {
		// The transaction's id comes back with the event, at no extra cost.
		err = tx.QueryRowContext(ctx, db.d.q(query+` RETURNING `+db.d.xactID), ev.AccountID, ev.ProjectID, ev.Name,
			ms(ev.Time), string(body)).Scan(&w.xid)
	} else {
		_, err = tx.ExecContext(ctx, db.d.q(query), ev.AccountID, ev.ProjectID, ev.Name, ms(ev.Time), string(body))
	}
	return err
}

// emitChange builds the event of a change and writes it; an update that
// changed nothing writes none.
func (db *DB) emitChange(ctx context.Context, tx querier, by taskd.Actor, action, objType string, id int64, page string,
	project taskd.ProjectRef, before, after map[string]any) error {
	ev, ok := taskd.ChangeEvent(by, db.now(), action, objType, id, page, project, before, after)
	if !ok {
		return nil
	}
	return db.emit(ctx, tx, ev)
}

// Events returns the account's events since the given time, oldest first,
// optionally of one project only.
func (db *DB) Events(ctx context.Context, accountID int64, since time.Time, projectID int64) ([]taskd.StoredEvent, error) {
	query := `SELECT id, project_id, name, created_at, body FROM events WHERE account_id = ? AND created_at >= ?`
	args := []any{accountID, ms(since)}
	if projectID != 0 {
		query += ` AND project_id = ?`
		args = append(args, projectID)
	}
	return all(ctx, db.reader, "events", db.d.q(query+` ORDER BY id LIMIT 10000`), func(s scanner) (taskd.StoredEvent, error) {
		e := taskd.StoredEvent{AccountID: accountID}
		var at int64
		var body string
		err := s.Scan(&e.ID, &e.ProjectID, &e.Name, &at, &body)
		e.Time, e.Body = fromMS(at), []byte(body)
		return e, err
	}, args...)
}
