package store

import (
	"context"
	"database/sql"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Searching tasks for a part of their name or text (filter `has`, the
// pages' search box) is a LIKE '%part%' (ILIKE on PostgreSQL), which reads
// every task of the account. Trigram indexes narrow it (migration 0029):
// PostgreSQL's pg_trgm serves ILIKE itself and rechecks each row, so the
// query is unchanged there; on SQLite, the FTS5 table tasks_search is
// asked for candidates, and the same LIKE then checks each, so that the
// answer is exactly the plain scan's whatever the index folds (its case
// folding covers more than LIKE's ASCII one: it can only add candidates).

// minTrigram is the shortest part a trigram index finds: a shorter one
// has no trigram, and is searched by the plain scan.
const minTrigram = 3

// searchColumns names the columns of tasks_search: the name, or both.
type searchColumns string

const (
	searchName searchColumns = "name"
	searchBoth searchColumns = "{name text}"
)

// searchMatch is in a condition exactly when trigramCandidates narrowed it.
const searchMatch = "tasks_search MATCH"

// trigramCandidates is, on SQLite and for a part of 3 characters or more,
// the condition that the task t is among tasks_search's candidates for
// part in cols, to be ANDed before the exact condition; "" otherwise.
func (db *DB) trigramCandidates(part string, cols searchColumns) (string, []any) {
	if db.d.name != "sqlite" || utf8.RuneCountInString(part) < minTrigram {
		return "", nil
	}
	phrase := `"` + strings.ReplaceAll(part, `"`, `""`) + `"`
	// The tasks above the index's mark are not in it yet (catchUpSearch):
	// they are candidates too, and the exact condition checks them.
	return `t.id IN (SELECT rowid FROM tasks_search WHERE ` + searchMatch + ` ?
		UNION ALL SELECT id FROM tasks WHERE id > (SELECT indexed_upto FROM search_state)) AND `, []any{string(cols) + " : " + phrase}
}

// The search index catches up (SQLite, migration 0037). A new task is not
// written into tasks_search by its own change, which would cost every
// change an FTS5 segment and its merges: the store indexes the tasks above
// search_state.indexed_upto a batch at a time, searchDelay after a change
// wakes it, and at Open. Until then a search reads them from tasks (see
// trigramCandidates), so its answer is the same either way.

// searchDelay is how long the index waits after a change wakes it: the
// tasks made meanwhile are indexed together.
const searchDelay = time.Second

// searchBatch is the most tasks one catch-up transaction indexes.
const searchBatch = 5000

// searchIndex is the state of the goroutine that keeps tasks_search
// caught up.
type searchIndex struct {
	paused atomic.Bool // tests: the index stays behind (export_test.go)
}

// startSearchIndex starts the goroutine that keeps tasks_search caught
// up, on SQLite at a schema that has search_state; it ends at Close.
func (db *DB) startSearchIndex() {
	if db.d.name != "sqlite" || (db.schema != 0 && db.schema < 37) {
		return
	}
	wake, s := db.sig.subscribe(kindEvents), db.sig
	s.wg.Go(func() {
		for {
			if !db.search.paused.Load() {
				// A failure leaves the tasks above the mark, where a search
				// still finds them; the next change's wake tries again.
				_ = db.catchUpSearch(s.ctx)
			}
			select {
			case <-s.ctx.Done():
				return
			case <-wake:
			}
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(searchDelay):
			}
		}
	})
}

// catchUpSearch indexes every task above the mark, searchBatch at a time,
// and moves the mark past them. It first asks a reader whether there is
// any, so that a wake with none takes no write transaction.
func (db *DB) catchUpSearch(ctx context.Context) error {
	var behind bool
	err := db.reader.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM tasks WHERE id > (SELECT indexed_upto FROM search_state))`).Scan(&behind)
	if err != nil || !behind {
		return err
	}
	for {
		indexed := int64(0)
		err := db.tx(ctx, "index search", func(tx querier) error {
			var upto int64
			var last sql.NullInt64
			if err := tx.QueryRowContext(ctx, `SELECT indexed_upto FROM search_state`).Scan(&upto); err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, `SELECT MAX(id) FROM (SELECT id FROM tasks WHERE id > ? ORDER BY id LIMIT ?)`,
				upto, searchBatch).Scan(&last); err != nil || !last.Valid {
				return err
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO tasks_search (rowid, name, text)
				SELECT id, name, text FROM tasks WHERE id > ? AND id <= ?`, upto, last.Int64)
			if err != nil {
				return err
			}
			if indexed, err = res.RowsAffected(); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `UPDATE search_state SET indexed_upto = ?`, last.Int64)
			return err
		})
		if err != nil || indexed < searchBatch {
			return err
		}
	}
}
