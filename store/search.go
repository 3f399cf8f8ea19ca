package store

import (
	"strings"
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
	return `t.id IN (SELECT rowid FROM tasks_search WHERE ` + searchMatch + ` ?) AND `, []any{string(cols) + " : " + phrase}
}
