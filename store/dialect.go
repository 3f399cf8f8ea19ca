package store

import (
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "modernc.org/sqlite"
)

// dialect is everything that differs between SQLite and PostgreSQL. Queries
// are written once with ? placeholders.
type dialect struct {
	name string
	// forUpdate is appended to SELECTs that lock rows a transaction will change.
	forUpdate string
	// ilike is the case-insensitive LIKE operator.
	ilike string
	// noLimit is an OFFSET without a LIMIT: one placeholder.
	noLimit string
	// numbered reports whether placeholders are $1, $2, ….
	numbered bool
	// queueDeliveries: fan-out queues events per webhook and deliveries
	// are made when sent (one writer: SQLite), rather than written at
	// fan-out (see deliveries.go).
	queueDeliveries bool
	// fanOutLock, when set, is a query that takes the fan-out's lock for
	// the transaction and reports whether it got it (PostgreSQL; SQLite's
	// one writer serializes fan-outs).
	fanOutLock string
	// xactID, when set, is the expression of the running transaction's id,
	// for looking its commit up after a lost connection (PostgreSQL).
	xactID string
	cache  *sync.Map
}

func newSQLite() dialect {
	return dialect{name: "sqlite", ilike: "LIKE", noLimit: " LIMIT -1 OFFSET ?", queueDeliveries: true}
}

func newPostgres() dialect {
	return dialect{name: "postgres", forUpdate: " FOR UPDATE", ilike: "ILIKE", noLimit: " OFFSET ?", numbered: true, cache: new(sync.Map),
		fanOutLock: `SELECT pg_try_advisory_xact_lock(` + fanOutLockKey + `)`, xactID: `pg_current_xact_id()::text`}
}

// fanOutLockKey is the advisory lock the replicas' fan-outs share on
// PostgreSQL: "taskdfan" in ASCII, as a big-endian int64.
const fanOutLockKey = "8386110886223700334"

// q rewrites ? placeholders for the dialect. Queries hold no ? inside strings.
func (d dialect) q(query string) string {
	if !d.numbered {
		return query
	}
	if v, ok := d.cache.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	s := b.String()
	d.cache.Store(query, s)
	return s
}

// isUnique reports whether err is a unique-constraint violation.
func isUnique(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	var se *sqlite3.Error
	if errors.As(err, &se) {
		return se.Code() == 2067 || se.Code() == 1555 // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
	}
	return false
}
