package store

import (
	"context"
	"strconv"

	"github.com/taskd/taskd"
)

// Activity returns a page of the events the query's viewer sees, newest
// first: the rule is eventsSeen, as for get_events and webhooks. A
// person's events are those whose user_from is the person, read from the
// event's body (actorOf).
func (db *DB) Activity(ctx context.Context, q taskd.ActivityQuery) ([]taskd.StoredEvent, error) {
	query, args := db.activitySQL(q)
	return all(ctx, db.reader, "activity", query, func(s scanner) (taskd.StoredEvent, error) {
		return scanEvent(s, q.Viewer.AccountID)
	}, args...)
}

// activitySQL is the query of Activity and its arguments.
func (db *DB) activitySQL(q taskd.ActivityQuery) (string, []any) {
	v := q.Viewer
	seen := eventsSeen(v)
	query := `SELECT e.id, e.project_id, e.name, e.created_at, e.body FROM events e WHERE e.account_id = ?` + seen.where()
	args := append([]any{v.AccountID}, seen.args...)
	if q.ProjectID != 0 {
		query += ` AND e.project_id = ?`
		args = append(args, q.ProjectID)
	}
	if q.PersonID != 0 {
		query += ` AND ` + db.actorOf("e.body") + ` = ?`
		args = append(args, strconv.FormatInt(q.PersonID, 10))
	}
	if q.Before > 0 {
		query += ` AND e.id < ?`
		args = append(args, q.Before)
	}
	limit := q.Limit
	if limit <= 0 || limit > taskd.MaxActivity {
		limit = taskd.MaxActivity
	}
	return db.d.q(query + ` ORDER BY e.id DESC LIMIT ` + strconv.Itoa(limit)), args
}

// actorOf is the SQL expression of the id of the event's user_from (a
// string in the body's JSON) in the body column col.
func (db *DB) actorOf(col string) string {
	if db.d.name == "postgres" {
		return `((` + col + `)::jsonb -> 'user_from' ->> 'id')`
	}
	return `json_extract(` + col + `, '$.user_from.id')`
}
