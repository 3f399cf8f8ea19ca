package store

import (
	"context"
	"database/sql"
	"sync"
)

// stmts prepares each query once per pool and reuses it: parsing SQL was a
// large share of a small read's cost on SQLite.
type stmts struct {
	db *sql.DB
	mu sync.RWMutex
	m  map[string]*sql.Stmt
}

func newStmts(db *sql.DB) *stmts { return &stmts{db: db, m: make(map[string]*sql.Stmt)} }

func (s *stmts) get(ctx context.Context, query string) (*sql.Stmt, error) {
	s.mu.RLock()
	st, ok := s.m[query]
	s.mu.RUnlock()
	if ok {
		return st, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.m[query]; ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
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

// pool runs queries on a connection pool through prepared statements.
type pool struct{ *stmts }

func (p pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.get(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (p pool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := p.get(ctx, query)
	if err != nil {
		return p.db.QueryRowContext(ctx, query, args...) // reports the same error on Scan
	}
	return st.QueryRowContext(ctx, args...)
}

func (p pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := p.get(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}
