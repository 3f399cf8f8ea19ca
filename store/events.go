package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// subject is what an event is about, beyond its project: the task (for a
// comment, its task) and the comment. Who sees the event is decided by
// them (eventsSeen).
// open says that neither lists viewers, known without a look (a new task
// at the top with none): the event is written without the viewers' check.
// related is the other task a relation's event names (issue 35): the
// event is seen only where that task is seen too.
type subject struct {
	task, comment int64
	open          bool
	related       int64
}

// nullable is an id as a column value: NULL for 0.
func nullable(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// emitEvent is the statement that writes an event, with whether its task,
// a task above it or its comment lists viewers (events.hidden), read
// while they do.
var emitEvent = `INSERT INTO events (account_id, project_id, name, created_at, body, task_id, comment_id, hidden)
	VALUES (?, ?, ?, ?, ?, ?, ?, CASE WHEN EXISTS (SELECT 1 FROM task_viewers v WHERE v.task_id IN (` + taskLineage("?") + `))
		OR EXISTS (SELECT 1 FROM comment_viewers v WHERE v.comment_id = ?) THEN 1 ELSE 0 END)`

// emitRelatedEvent is emitEvent for an event that names a related task
// (subject.related): hidden when either task lists viewers.
var emitRelatedEvent = `INSERT INTO events (account_id, project_id, name, created_at, body, task_id, comment_id, hidden, related_task_id)
	VALUES (?, ?, ?, ?, ?, ?, ?, CASE WHEN EXISTS (SELECT 1 FROM task_viewers v WHERE v.task_id IN (` + taskLineage("?") + `))
		OR EXISTS (SELECT 1 FROM comment_viewers v WHERE v.comment_id = ?)
		OR EXISTS (SELECT 1 FROM task_viewers v WHERE v.task_id IN (` + taskLineage("?") + `)) THEN 1 ELSE 0 END, ?)`

// emitOpenEvent writes the event of a subject known to list no viewers.
var emitOpenEvent = `INSERT INTO events (account_id, project_id, name, created_at, body, task_id, comment_id, hidden)
	VALUES (?, ?, ?, ?, ?, ?, ?, 0)`

// emit writes ev about s to the outbox inside the change's transaction.
func (db *DB) emit(ctx context.Context, tx querier, ev taskd.Event, s subject) error {
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	task, comment := nullable(s.task), nullable(s.comment)
	args := []any{ev.AccountID, ev.ProjectID, ev.Name, ms(ev.Time), string(body), task, comment, s.task, s.comment}
	insert := emitEvent
	switch {
	case s.related != 0:
		insert, args = emitRelatedEvent, append(args, s.related, s.related)
	case s.open:
		insert, args = emitOpenEvent, args[:7]
	}
	if w, ok := tx.(*witnessTx); ok && db.d.xactID != "" {
		// The transaction's id comes back with the event, at no extra cost.
		err = tx.QueryRowContext(ctx, db.d.q(insert+` RETURNING `+db.d.xactID), args...).Scan(&w.xid)
	} else {
		_, err = tx.ExecContext(ctx, db.d.q(insert), args...)
	}
	return err
}

// emitChange builds the event of a change and writes it; an update that
// changed nothing writes none.
func (db *DB) emitChange(ctx context.Context, tx querier, by taskd.Actor, action, objType string, id int64, page string,
	project taskd.ProjectRef, s subject, before, after map[string]any) error {
	if by.Imported {
		// Imported history is no news: no event, no webhook (issue 36).
		return nil
	}
	ev, ok := wire.ChangeEvent(by, db.now(), action, objType, id, page, project, before, after)
	if !ok {
		return nil
	}
	return db.emit(ctx, tx, ev, s)
}

// Events returns every event since the given time that the viewer sees,
// oldest first, optionally of one project only.
func (db *DB) Events(ctx context.Context, v taskd.Viewer, since time.Time, projectID int64) ([]taskd.StoredEvent, error) {
	query, args := db.eventsSQL(v, since, projectID)
	return all(ctx, db.reader, "events", query, func(s scanner) (taskd.StoredEvent, error) {
		return scanEvent(s, v.AccountID)
	}, args...)
}

// eventsSQL is the query of Events and its arguments.
func (db *DB) eventsSQL(v taskd.Viewer, since time.Time, projectID int64) (string, []any) {
	seen := eventsSeen(v)
	query := `SELECT e.id, e.project_id, e.name, e.created_at, e.body FROM events e WHERE e.account_id = ? AND e.created_at >= ?` + seen.where()
	args := append([]any{v.AccountID, ms(since)}, seen.args...)
	if projectID != 0 {
		query += ` AND e.project_id = ?`
		args = append(args, projectID)
	}
	return db.d.q(query + ` ORDER BY e.id`), args
}

// scanEvent reads a row of eventsSQL.
func scanEvent(s scanner, accountID int64) (taskd.StoredEvent, error) {
	e := taskd.StoredEvent{AccountID: accountID}
	var at int64
	var body string
	err := s.Scan(&e.ID, &e.ProjectID, &e.Name, &at, &body)
	e.Time, e.Body = fromMS(at), []byte(body)
	return e, err
}
