package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// The reads of the live hub (package live, DESIGN §11): the newest event,
// the events after an id, which of them a viewer sees, the events a
// stream resuming missed, when a viewer's sight began, and whether the
// streams' trust still holds. The hub decides what to do with them.

// liveColumns are the columns scanLive reads: the event, and the name of
// its task now (a comment's task for a comment).
const liveColumns = `e.id, e.account_id, e.project_id, e.name, e.body, COALESCE(e.task_id, 0), COALESCE(t.name, '')
	FROM events e LEFT JOIN tasks t ON t.id = e.task_id`

// NewestEvent is the id of the newest event of every account, 0 when none.
func (db *DB) NewestEvent(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	if err := db.reader.QueryRowContext(ctx, db.d.q(`SELECT MAX(id) FROM events`)).Scan(&id); err != nil {
		return 0, taskd.Internal("newest event", err)
	}
	return id.Int64, nil
}

// EventsAfter reads the events of every account after the id, oldest
// first, at most limit of them. Who sees them is asked per viewer
// (EventsSeenBy).
func (db *DB) EventsAfter(ctx context.Context, after int64, limit int) ([]taskd.LiveEvent, error) {
	return all(ctx, db.reader, "live events", db.d.q(`SELECT `+liveColumns+` WHERE e.id > ? ORDER BY e.id LIMIT ?`), scanLive, after, limit)
}

// EventsSeenBy returns which of the ids, events of the viewer's account,
// the viewer sees by the rule of viewer.go; nil when they see every event
// (the key).
func (db *DB) EventsSeenBy(ctx context.Context, v taskd.Viewer, ids []int64) (map[int64]bool, error) {
	return db.eventsSeenBy(ctx, db.reader, v, ids)
}

// EventTime is when the account's event id was written; not found
// ("event") when the account has no such event.
func (db *DB) EventTime(ctx context.Context, accountID, id int64) (time.Time, error) {
	var at int64
	err := db.reader.QueryRowContext(ctx, db.d.q(`SELECT created_at FROM events WHERE id = ? AND account_id = ?`), id, accountID).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, taskd.NotFound("event")
	}
	if err != nil {
		return time.Time{}, taskd.Internal("live replay", err)
	}
	return fromMS(at), nil
}

// MissedEvents reads the events of the span that the viewer sees, oldest
// first, at most limit of them.
func (db *DB) MissedEvents(ctx context.Context, v taskd.Viewer, span taskd.LiveSpan, limit int) ([]taskd.LiveEvent, error) {
	where, from := `e.account_id = ? AND e.id > ? AND e.id <= ?`, span.After
	if span.After == 0 {
		where, from = `e.account_id = ? AND e.created_at >= ? AND e.id <= ?`, ms(span.Since)
	}
	seen := eventsSeen(v)
	args := append([]any{v.AccountID, from, span.Upto}, seen.args...)
	return all(ctx, db.reader, "live replay", db.d.q(`SELECT `+liveColumns+` WHERE `+where+seen.where()+` ORDER BY e.id LIMIT ?`),
		scanLive, append(args, limit)...)
}

// SightBegan is when the viewer's sight of the account as it is now
// began: when they joined or were given their role, and for a role
// limited to its teams' projects, when they last joined a project's team.
// A joiner is not told of what was written before they could see it (a
// task deleted before they joined a team, say). The zero time for the
// administrative key.
func (db *DB) SightBegan(ctx context.Context, v taskd.Viewer) (time.Time, error) {
	if v.Key {
		return time.Time{}, nil
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
		return time.Time{}, taskd.Internal("live sight", err)
	}
	return fromMS(began.Int64), nil
}

// StreamsTrusted reports, for each of the account's live streams (by the
// request that opened it), whether its trust still holds: its person a
// member of the account with the stream's role, and its session (when it
// has one) current and theirs. The administrative key's streams are
// trusted. Last and Since are not read.
func (db *DB) StreamsTrusted(ctx context.Context, accountID int64, streams []taskd.LiveRequest) ([]bool, error) {
	people := map[int64]bool{}
	sessions := map[string]bool{}
	args := []any{ms(db.now())}
	var hashes, ids []string
	for _, r := range streams {
		if r.Session != "" && !sessions[r.Session] {
			sessions[r.Session] = true
			hashes = append(hashes, "?")
			args = append(args, r.Session)
		}
	}
	if len(hashes) == 0 { // no session is '': IN ('') finds none
		hashes = append(hashes, "?")
		args = append(args, "")
	}
	args = append(args, accountID)
	for _, r := range streams {
		if !r.Viewer.Key && !people[r.Viewer.PersonID] {
			people[r.Viewer.PersonID] = true
			ids = append(ids, "?")
			args = append(args, r.Viewer.PersonID)
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
	out := make([]bool, len(streams))
	for i, r := range streams {
		v := r.Viewer
		role, member := roles[v.PersonID]
		out[i] = v.Key || member && role == v.Role && (r.Session == "" || current[[2]any{v.PersonID, r.Session}])
	}
	return out, nil
}

// scanLive reads a row of liveColumns.
func scanLive(s scanner) (taskd.LiveEvent, error) {
	var e taskd.LiveEvent
	var body, task string
	if err := s.Scan(&e.ID, &e.AccountID, &e.ProjectID, &e.Name, &body, &e.TaskID, &task); err != nil {
		return e, err
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
	return e, nil
}
