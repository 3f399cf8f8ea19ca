package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/taskd/taskd"
)

// liveRow is an event the live hub read, with its account.
type liveRow struct {
	account int64
	event   taskd.LiveEvent
}

// liveColumns are the columns scanLive reads: the event, and the name of
// its task now (a comment's task for a comment).
const liveColumns = `e.id, e.account_id, e.project_id, e.name, e.body, COALESCE(e.task_id, 0), COALESCE(t.name, '')
	FROM events e LEFT JOIN tasks t ON t.id = e.task_id`

// newestEvent is the id of the newest event of every account, 0 when none.
func (db *DB) newestEvent(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	if err := db.reader.QueryRowContext(ctx, db.d.q(`SELECT MAX(id) FROM events`)).Scan(&id); err != nil {
		return 0, taskd.Internal("newest event", err)
	}
	return id.Int64, nil
}

// liveAfter reads the events of every account after the id, oldest
// first, at most liveRead of them. Who sees them is asked per viewer
// (eventsSeenBy).
func (db *DB) liveAfter(ctx context.Context, after int64) ([]liveRow, error) {
	return all(ctx, db.reader, "live events", db.d.q(`SELECT `+liveColumns+` WHERE e.id > ? ORDER BY e.id LIMIT ?`), scanLive, after, liveRead)
}

// liveReplay reads the events after last up to upto that the viewer sees,
// for a stream resuming; reload when last is not an event of the
// viewer's account, or events were missed and last is older than
// LiveWindow, or more than LiveReplay events are missed.
func (db *DB) liveReplay(ctx context.Context, v taskd.Viewer, last, upto int64) (evs []taskd.LiveEvent, reload bool, err error) {
	var at int64
	err = db.reader.QueryRowContext(ctx, db.d.q(`SELECT created_at FROM events WHERE id = ? AND account_id = ?`), last, v.AccountID).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, taskd.Internal("live replay", err)
	}
	if last >= upto { // nothing missed here (or a replica ahead of this one)
		return nil, false, nil
	}
	if fromMS(at).Before(db.now().Add(-LiveWindow)) {
		return nil, true, nil
	}
	if began, err := db.sightBegan(ctx, v); err != nil || began > at {
		return nil, err == nil, err
	}
	seen := eventsSeen(v)
	args := append([]any{v.AccountID, last, upto}, seen.args...)
	return db.liveRows(ctx, `e.account_id = ? AND e.id > ? AND e.id <= ?`+seen.where(), append(args, LiveReplay+1))
}

// liveSince reads the events written since t up to upto that the viewer
// sees, for a page's first stream, leaving out those written before the
// viewer's sight began (sightBegan: the page was made with it, or around
// when it began); reload when t is older than LiveWindow or more than
// LiveReplay events are missed.
func (db *DB) liveSince(ctx context.Context, v taskd.Viewer, t time.Time, upto int64) (evs []taskd.LiveEvent, reload bool, err error) {
	if t.Before(db.now().Add(-LiveWindow)) {
		return nil, true, nil
	}
	began, err := db.sightBegan(ctx, v)
	if err != nil {
		return nil, false, err
	}
	seen := eventsSeen(v)
	args := append([]any{v.AccountID, max(ms(t), began), upto}, seen.args...)
	return db.liveRows(ctx, `e.account_id = ? AND e.created_at >= ? AND e.id <= ?`+seen.where(), append(args, LiveReplay+1))
}

// sightBegan is when the viewer's sight of the account as it is now
// began (Unix milliseconds): when they joined or were given their role,
// and for a role limited to its teams' projects, when they last joined a
// project's team. A joiner is not told of what was written before they
// could see it (a task deleted before they joined a team, say): a stream
// resuming from an event before it reloads instead of replaying (its page
// was made for another sight), and a page's first stream replays only
// what came after it. 0 for the administrative key.
func (db *DB) sightBegan(ctx context.Context, v taskd.Viewer) (int64, error) {
	if v.Key {
		return 0, nil
	}
	q := `SELECT COALESCE(m.role_since, m.created_at) AS x FROM members m WHERE m.account_id = ? AND m.person_id = ?`
	args := []any{v.AccountID, v.PersonID}
	if v.Role.Limited() {
		q += ` UNION ALL SELECT COALESCE(pm.added_at, 0) FROM project_members pm JOIN projects p ON p.id = pm.project_id
			WHERE p.account_id = ? AND pm.person_id = ?`
		args = append(args, v.AccountID, v.PersonID)
	}
	var began sql.NullInt64
	if err := db.reader.QueryRowContext(ctx, db.d.q(`SELECT MAX(x) FROM (`+q+`) s`), args...).Scan(&began); err != nil {
		return 0, taskd.Internal("live sight", err)
	}
	return began.Int64, nil
}

// liveRows reads the events of a replay, at most LiveReplay (reload when
// more).
func (db *DB) liveRows(ctx context.Context, where string, args []any) ([]taskd.LiveEvent, bool, error) {
	rows, err := all(ctx, db.reader, "live replay", db.d.q(`SELECT `+liveColumns+` WHERE `+where+` ORDER BY e.id LIMIT ?`), scanLive, args...)
	if err != nil {
		return nil, false, err
	}
	if len(rows) > LiveReplay {
		return nil, true, nil
	}
	evs := make([]taskd.LiveEvent, len(rows))
	for i, r := range rows {
		evs[i] = r.event
	}
	return evs, false, nil
}

// scanLive reads a row of liveColumns.
func scanLive(s scanner) (liveRow, error) {
	var r liveRow
	var body, task string
	e := &r.event
	if err := s.Scan(&e.ID, &r.account, &e.ProjectID, &e.Name, &body, &e.TaskID, &task); err != nil {
		return r, err
	}
	b, _ := taskd.DecodeEventBody([]byte(body)) // written by emit; a body unread leaves the words out
	e.Page, e.By, e.ByID, e.Title = b.Object.Page, b.UserFrom.Name, b.UserFrom.ID, task
	if e.Title == "" {
		for _, m := range []map[string]any{b.New, b.Old} {
			if name, ok := m["name"].(string); ok && name != "" {
				e.Title = name
				break
			}
		}
	}
	if e.Title == "" && b.Project != nil {
		e.Title = b.Project.Name
	}
	return r, nil
}
