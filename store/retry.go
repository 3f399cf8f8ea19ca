package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// When PostgreSQL ends a connection (a restart, a failover, an operator's
// pg_terminate_backend) the pool still holds it, and the next statement
// sent on it fails. Such a failure is retried, on another connection, when
// nothing can have been committed: any read; a write transaction that
// failed before its COMMIT was sent (the server rolls back a transaction
// whose connection is gone); and the few single statements run outside a
// transaction, which are written to be safe to repeat. A transaction whose
// COMMIT was sent is not retried blindly: its outcome is unknown. A
// change's transaction (which writes an event) learns its id from the
// event's INSERT, and its commit is looked up (pg_xact_status): committed
// is success, aborted is tried again; otherwise the error goes to the
// caller.

// retrier decides whether a failed statement or transaction is tried again,
// and counts the retries.
type retrier struct {
	// max bounds the retries of one call: enough to pass every pooled
	// connection the database may have ended at once.
	max int
	// retried, when set, hears of each retry (the /metrics counter).
	retried func(op string)
}

// again reports whether a call that failed with err on its try-th retry
// should be tried once more, and counts it if so.
func (r retrier) again(ctx context.Context, err error, try int, op string) bool {
	if err == nil || try >= r.max || ctx.Err() != nil || !connLost(err) {
		return false
	}
	if r.retried != nil {
		r.retried(op)
	}
	return true
}

// connLost reports whether err says the connection to the database was lost
// (the server ended it, or the network did), rather than that a statement
// failed.
func connLost(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// admin_shutdown, crash_shutdown, cannot_connect_now; connection exceptions.
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || strings.HasPrefix(pe.Code, "08")
	}
	var ne net.Error
	return pgconn.SafeToRetry(err) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne)
}

// witnessTx is the querier of a change's transaction; emit records the
// transaction's id in it on PostgreSQL.
type witnessTx struct {
	querier
	xid string
}

// commitOutcome looks up a transaction by id after its connection was lost
// at COMMIT: "committed", "aborted", or "" when it cannot tell. A backend
// that was ended may take a moment to finish aborting.
func (db *DB) commitOutcome(ctx context.Context, xid string) string {
	for range 20 {
		var status sql.NullString
		if err := db.reader.QueryRow(ctx, db.d.q(`SELECT pg_xact_status(CAST(? AS xid8))`), xid).Scan(&status); err != nil {
			return ""
		}
		if status.String == "committed" || status.String == "aborted" {
			return status.String
		}
		if !status.Valid {
			return ""
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(50 * time.Millisecond):
		}
	}
	return ""
}
