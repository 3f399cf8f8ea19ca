package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// stmts prepares each query once per pool and reuses it: parsing SQL was a
// large share of a small query's cost on SQLite.
type stmts struct {
	db *sql.DB
	mu sync.RWMutex
	m  map[string]*sql.Stmt
}

func newStmts(db *sql.DB) *stmts { return &stmts{db: db, m: make(map[string]*sql.Stmt)} }

func (s *stmts) lookup(query string) *sql.Stmt {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m[query]
}

// get returns the statement for query, preparing it on the pool first if
// needed. The mutex is not held while preparing: preparing may wait for a
// connection whose holder needs the mutex to look up its own statements.
func (s *stmts) get(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := s.lookup(query); st != nil {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.m[query]; ok {
		st.Close()
		return prev, nil
	}
	s.m[query] = st
	return st, nil
}

func (s *stmts) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.m {
		st.Close()
	}
}

// pool runs queries on a connection pool through prepared statements, and
// runs them again on another connection when the one they took was lost
// (retry.go). Its ExecContext serves only statements that are safe to
// repeat.
type pool struct {
	*stmts
	retry retrier
}

func (p pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	planned := plannedEach(query)
	if planned {
		args = append([]any{pgx.QueryExecModeExec}, args...)
	}
	for try := 0; ; try++ {
		var rows *sql.Rows
		var err error
		if planned {
			rows, err = p.db.QueryContext(ctx, query, args...)
		} else if st, perr := p.get(ctx, query); perr != nil {
			err = perr
		} else {
			rows, err = st.QueryContext(ctx, args...)
		}
		if err == nil {
			return rows, nil
		}
		if !p.retry.again(ctx, err, try, "read") {
			return nil, err
		}
	}
}

// plannedEach reports whether a query is planned anew for each call, with
// its arguments, instead of prepared once: a search by pattern on
// PostgreSQL (ILIKE, which SQLite's queries never use). A prepared
// statement's generic plan cannot know the pattern, so it cannot weigh the
// trigram index (migration 0029) against the project's index, and on a
// project of 20,000 tasks it chose to read them all (95 ms where the
// pattern's own plan takes 18). An unnamed statement is planned with its
// values at each call.
func plannedEach(query string) bool { return strings.Contains(query, " ILIKE ") }

// QueryRowContext runs the query once; QueryRow is the read that runs again
// after a lost connection.
func (p pool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := p.get(ctx, query)
	if err != nil {
		return p.db.QueryRowContext(ctx, query, args...) // reports the same error on Scan
	}
	return st.QueryRowContext(ctx, args...)
}

// QueryRow is QueryRowContext for a read that may run again: the query
// runs when the row is scanned, and runs again on another connection if
// the one it took was lost, even after the row was read (the end of the
// answer can carry the error, and Scan reports it).
func (p pool) QueryRow(ctx context.Context, query string, args ...any) scanner {
	return row{p: p, ctx: ctx, query: query, args: args}
}

// row is a one-row read on a pool, run by Scan (see QueryRow).
type row struct {
	p     pool
	ctx   context.Context
	query string
	args  []any
}

func (r row) Scan(dest ...any) error {
	for try := 0; ; try++ {
		err := r.p.QueryRowContext(r.ctx, r.query, r.args...).Scan(dest...)
		if !r.p.retry.again(r.ctx, err, try, "read") {
			return err
		}
	}
}

func (p pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	for try := 0; ; try++ {
		st, err := p.get(ctx, query)
		if err == nil {
			var res sql.Result
			if res, err = st.ExecContext(ctx, args...); err == nil {
				return res, nil
			}
		}
		if !p.retry.again(ctx, err, try, "write") {
			return nil, err
		}
	}
}

// txStmts runs a transaction's queries through the statements already
// prepared on its pool (Tx.StmtContext reuses the one prepared on the
// transaction's connection). A query met for the first time runs unprepared
// and is noted; prepareNoted prepares it once the transaction has released
// its connection, because preparing on the pool from inside the transaction
// would wait for the one SQLite write connection the transaction holds.
type txStmts struct {
	tx    *sql.Tx
	s     *stmts
	noted []string
}

func (t *txStmts) stmt(ctx context.Context, query string) *sql.Stmt {
	if st := t.s.lookup(query); st != nil {
		return t.tx.StmtContext(ctx, st)
	}
	t.noted = append(t.noted, query)
	return nil
}

func (t *txStmts) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

func (t *txStmts) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

func (t *txStmts) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

// prepareNoted prepares the queries the transaction ran unprepared. It must
// be called after the transaction ended. A failure only means the query
// stays unprepared, so it is not reported.
func (t *txStmts) prepareNoted(ctx context.Context) {
	for _, q := range t.noted {
		_, _ = t.s.get(ctx, q)
	}
}
