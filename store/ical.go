package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/taskd/taskd"
)

// A person's iCalendar feed is read at a secret URL (issue 35); the store
// keeps the hash of its secret only (secret.HashToken), as it does for
// sessions, and looks it up by the hash.

// SetICalToken makes hash the person's one feed secret, replacing any
// earlier one, and returns when it was set.
func (db *DB) SetICalToken(ctx context.Context, personID int64, hash string) (time.Time, error) {
	now := db.now()
	err := db.tx(ctx, "set ical token", func(tx querier) error {
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM ical_tokens WHERE person_id = ?`), personID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO ical_tokens (person_id, hash, created_at) VALUES (?, ?, ?)`),
			personID, hash, ms(now))
		return err
	})
	return now, err
}

// endFeed ends the person's feed secret, if they have one, and reports
// whether they had.
func (db *DB) endFeed(ctx context.Context, tx querier, personID int64) (bool, error) {
	n, err := count(tx.ExecContext(ctx, db.d.q(`DELETE FROM ical_tokens WHERE person_id = ?`), personID))
	return n > 0, err
}

// ICalTokenSet returns when the person's feed secret was set; not found
// ("feed") when they have none.
func (db *DB) ICalTokenSet(ctx context.Context, personID int64) (time.Time, error) {
	var at int64
	err := db.reader.QueryRow(ctx, db.d.q(`SELECT created_at FROM ical_tokens WHERE person_id = ?`), personID).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, taskd.NotFound("feed")
	}
	if err != nil {
		return time.Time{}, taskd.Internal("feed", err)
	}
	return fromMS(at), nil
}

// ICalPerson returns the person whose feed secret has the hash; not found
// ("feed") for an unknown or rotated one.
func (db *DB) ICalPerson(ctx context.Context, hash string) (taskd.Person, error) {
	p, err := scanPerson(db.reader.QueryRow(ctx, db.d.q(`SELECT `+personColumns+`
		FROM ical_tokens i JOIN persons p ON p.id = i.person_id WHERE i.hash = ?`), hash))
	if errors.Is(err, sql.ErrNoRows) {
		return p, taskd.NotFound("feed")
	}
	if err != nil {
		return p, taskd.Internal("feed", err)
	}
	return p, nil
}
