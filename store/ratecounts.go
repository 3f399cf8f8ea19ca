package store

import (
	"context"
	"time"

	"github.com/taskd/taskd/ratelimit"
)

// AddHits adds n hits to key's count in the window that starts at start,
// and returns the count after the addition. The row lives until expires.
// The addition is one statement, so concurrent callers on any replica each
// see a distinct count.
func (db *DB) AddHits(ctx context.Context, key string, start, expires time.Time, n int) (int, error) {
	var total int
	err := db.tx(ctx, "add hits", func(tx querier) error {
		return tx.QueryRowContext(ctx, db.d.q(`INSERT INTO rate_counts (key, window_start, hits, expires) VALUES (?, ?, ?, ?)
			ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_counts.hits + excluded.hits
			RETURNING hits`), key, ms(start), n, ms(expires)).Scan(&total)
	})
	return total, err
}

// RemoveHit takes one hit back from key's count in the window that starts
// at start, if the window is still counted.
func (db *DB) RemoveHit(ctx context.Context, key string, start time.Time) error {
	return db.tx(ctx, "remove hit", func(tx querier) error {
		_, err := tx.ExecContext(ctx, db.d.q(`UPDATE rate_counts SET hits = hits - 1 WHERE key = ? AND window_start = ? AND hits > 0`),
			key, ms(start))
		return err
	})
}

// Counts returns key's counts in the windows that start at from or later,
// oldest first.
func (db *DB) Counts(ctx context.Context, key string, from time.Time) ([]ratelimit.Count, error) {
	return all(ctx, db.reader, "counts", db.d.q(`SELECT window_start, hits FROM rate_counts WHERE key = ? AND window_start >= ? ORDER BY window_start`),
		func(s scanner) (ratelimit.Count, error) {
			var start int64
			var c ratelimit.Count
			err := s.Scan(&start, &c.Hits)
			c.Start = time.UnixMilli(start)
			return c, err
		}, key, ms(from))
}

// PruneHits forgets the counts that expired before t.
func (db *DB) PruneHits(ctx context.Context, t time.Time) error {
	return db.tx(ctx, "prune hits", func(tx querier) error {
		_, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM rate_counts WHERE expires < ?`), ms(t))
		return err
	})
}
