package store

import (
	"context"
	"fmt"
	"strings"
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

// PruneHits forgets the counts that expired before t: one statement on
// its own, no transaction (safe to repeat).
func (db *DB) PruneHits(ctx context.Context, t time.Time) error {
	_, err := db.exec(ctx, "prune hits", `DELETE FROM rate_counts WHERE expires < ?`, ms(t))
	return err
}

// AddHitsBatch adds the hits of many keys and returns their counts after
// the additions, in the order given, and forgets the counts that expired
// before prune. On PostgreSQL it is one statement; on SQLite two in one
// transaction.
func (db *DB) AddHitsBatch(ctx context.Context, hits []ratelimit.Hits, prune time.Time) ([]int, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	values := strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", len(hits)), ", ")
	args := make([]any, 0, 1+4*len(hits))
	upsert := `INSERT INTO rate_counts (key, window_start, hits, expires) VALUES ` + values + `
		ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_counts.hits + excluded.hits
		RETURNING key, window_start, hits`
	if db.d.name == "postgres" {
		// The expired rows are never those upserted (they expire after
		// their next window), so one statement may do both.
		upsert = `WITH pruned AS (DELETE FROM rate_counts WHERE expires < ?) ` + upsert
		args = append(args, ms(prune))
	}
	for _, h := range hits {
		args = append(args, h.Key, ms(h.Start), h.N, ms(h.Expires))
	}
	type at struct {
		key   string
		start int64
	}
	counts := make(map[at]int, len(hits))
	err := db.tx(ctx, "add hits", func(tx querier) error {
		clear(counts)
		if db.d.name != "postgres" {
			if _, err := tx.ExecContext(ctx, `DELETE FROM rate_counts WHERE expires < ?`, ms(prune)); err != nil {
				return err
			}
		}
		rows, err := tx.QueryContext(ctx, db.d.q(upsert), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k at
			var n int
			if err := rows.Scan(&k.key, &k.start, &n); err != nil {
				return err
			}
			counts[k] = n
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	out := make([]int, len(hits))
	for i, h := range hits {
		n, ok := counts[at{h.Key, ms(h.Start)}]
		if !ok {
			return nil, fmt.Errorf("store: add hits: no count for %q", h.Key)
		}
		out[i] = n
	}
	return out, nil
}
