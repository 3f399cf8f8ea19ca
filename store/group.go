package store

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"sync"

	"github.com/taskd/taskd"
)

// Group commit. Changes made at the same time share one transaction and one
// COMMIT: on SQLite, one write of the pages they touch to the write-ahead
// log instead of one each; on PostgreSQL, one WAL flush. There is no
// goroutine of its own: the first change that finds no batch running leads
// (it becomes the committer), the changes that come meanwhile queue, and
// when its batch is done the leader hands the lead to the first of them,
// whose batch holds the queue's first maxBatch changes.
//
// Each change keeps its event in the same transaction as its writes, and
// each caller gets its own answer: in a batch of more than one, every
// change runs after a SAVEPOINT, and one that fails is rolled back to it
// alone. A batch of one runs as a change always did, with no savepoint, so
// an idle server sends no more statements than before. When the batch's
// transaction fails as a whole (its BEGIN, a lost connection, a failed
// rollback to a savepoint, a COMMIT that failed or whose lost answer is
// looked up as aborted), nothing of it was committed, and every change runs
// again alone and gets that answer.

// maxBatch bounds the changes of one transaction: the wait of the last of
// them, and PostgreSQL's 64 cached subtransaction ids a backend keeps
// before others' snapshots must look further (each savepoint that writes
// takes one).
const maxBatch = 64

// groupCommit is the queue of changes waiting for a batch.
type groupCommit struct {
	mu    sync.Mutex
	queue []*pending
	// leading is set while a leader runs a batch or has been chosen to: a
	// change that finds it unset leads at once.
	leading bool
}

// pending is a change waiting in the queue or running in a batch.
type pending struct {
	ctx context.Context
	op  string
	fn  func(querier) error
	// wake receives when the change is done (err is its answer) or when
	// it is to lead the next batch (lead).
	wake chan struct{}
	// Set under groupCommit.mu.
	taken bool // in a batch: its answer comes whatever its context does
	lead  bool // chosen to lead the next batch
	done  bool
	err   error
}

// signal wakes p's caller; a pending wake stands for any number.
func (p *pending) signal() { wake(p.wake) }

// change runs fn in a write transaction as tx does, shared with the
// changes made at the same time (group commit), for a change to an
// account's work made by by; a person whose role does not allow work
// (taskd.Authorize) changes nothing. Every change writes an event, so the
// webhook dispatchers are woken after each batch that committed one.
func (db *DB) change(ctx context.Context, by taskd.Actor, op string, fn func(querier) error) error {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return err
	}
	g := &db.batches
	p := &pending{ctx: ctx, op: op, fn: fn, wake: make(chan struct{}, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, p)
	if !g.leading {
		g.leading, p.lead = true, true
	}
	g.mu.Unlock()
	for {
		g.mu.Lock()
		done, lead := p.done, p.lead
		g.mu.Unlock()
		if done {
			return p.err
		}
		if lead {
			db.lead(p)
			return p.err
		}
		select {
		case <-p.wake:
		case <-ctx.Done():
			if err, left := g.leave(p); left {
				return err
			}
			<-p.wake // in a batch already: its answer will come
		}
	}
}

// leave takes p out of the queue after its caller gave up, unless it is in
// a batch already (left is false then). A change chosen to lead hands the
// lead on.
func (g *groupCommit) leave(p *pending) (err error, left bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p.taken || p.done {
		return nil, false
	}
	for i, q := range g.queue {
		if q == p {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			break
		}
	}
	if p.lead {
		g.handOff()
	}
	return taskd.Internal(p.op+": begin", p.ctx.Err()), true
}

// handOff chooses the next leader, the first change in the queue, or
// records that none leads. g.mu must be held.
func (g *groupCommit) handOff() {
	if len(g.queue) == 0 {
		g.leading = false
		return
	}
	next := g.queue[0]
	next.lead = true
	next.signal()
}

// lead runs the batch of the queue's first changes, which holds p, tells
// each of its callers their answer and hands the lead on.
func (db *DB) lead(p *pending) {
	g := &db.batches
	g.mu.Lock()
	if len(g.queue) == 1 {
		// Alone: let the goroutines that are about to queue a change do
		// so first. Without this, the callers of a batch, answered at
		// once, come back one by one, and each leads a batch of one.
		// On an idle server nothing else runs and Gosched returns at once.
		g.mu.Unlock()
		runtime.Gosched()
		g.mu.Lock()
	}
	n := min(len(g.queue), maxBatch)
	batch := make([]*pending, n)
	copy(batch, g.queue)
	g.queue = append(g.queue[:0], g.queue[n:]...)
	for _, q := range batch {
		q.taken = true
	}
	g.mu.Unlock()

	if db.runBatch(batch) {
		// Every change writes an event: wake the dispatchers, once per
		// batch, before any caller hears that its change is done.
		db.sig.committed()
	}

	g.mu.Lock()
	for _, q := range batch {
		q.done = true
		q.signal()
	}
	g.handOff()
	g.mu.Unlock()
}

// runBatch runs the changes of batch and sets their answers; it reports
// whether any committed.
func (db *DB) runBatch(batch []*pending) (committed bool) {
	if len(batch) == 1 {
		p := batch[0]
		p.err = db.runTx(p.ctx, p.op, p.fn, true)
		return p.err == nil
	}
	if db.batchOnce(batch) {
		for _, p := range batch {
			committed = committed || p.err == nil
		}
		return committed
	}
	// Nothing of the batch was committed: each change runs alone.
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.err = taskd.Internal(p.op+": begin", err)
			continue
		}
		p.err = db.runTx(p.ctx, p.op, p.fn, true)
		committed = committed || p.err == nil
	}
	return committed
}

// batchOnce runs the changes of batch, more than one, in one transaction,
// each after a savepoint, and commits it. It reports whether each change
// has its answer; false means that nothing was committed and that each
// must run again alone.
func (db *DB) batchOnce(batch []*pending) (settled bool) {
	// The batch's transaction runs under a context no caller can cancel:
	// a caller that gives up must not interrupt a transaction that others
	// share (SQLite rolls back the whole transaction it interrupts), and
	// neither SQLite's driver nor database/sql then watch each statement
	// with a goroutine of its own. A change whose caller gave up before it
	// ran is left out; the batch is bounded by maxBatch and each statement
	// by the database's own waits (SQLite's busy timeout).
	ctx := context.WithoutCancel(batch[0].ctx)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return false
	}
	var base querier = tx
	var ts *txStmts
	if db.writer != nil {
		ts = &txStmts{tx: tx, s: db.writer}
		base = ts
	}
	// The changes' statements run under the batch's context, whatever
	// context they are given.
	w := &witnessTx{querier: fixedCtx{q: base, ctx: ctx}}
	settled = db.applyBatch(ctx, tx, w, batch)
	if ts != nil {
		ts.prepareNoted(ctx) // the transaction has released its connection
	}
	return settled
}

// savepoint is the name of each change's savepoint: a name used again
// stands for the latest savepoint of that name, which is the running
// change's.
const savepoint = "SAVEPOINT taskd_change"

// applyBatch is batchOnce on its open transaction tx; w runs statements in
// it.
func (db *DB) applyBatch(ctx context.Context, tx txCommitter, w *witnessTx, batch []*pending) (settled bool) {
	defer tx.Rollback()
	applied := make([]*pending, 0, len(batch))
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.err = taskd.Internal(p.op+": begin", err) // gave up before it ran: nothing of it is written
			continue
		}
		if _, err := w.ExecContext(ctx, savepoint); err != nil {
			return false
		}
		err := p.fn(w)
		if err == nil {
			applied = append(applied, p)
			continue
		}
		if connLost(err) {
			return false
		}
		if _, rerr := w.ExecContext(ctx, "ROLLBACK TO "+savepoint); rerr != nil {
			return false
		}
		p.err = changeErr(p.op, err)
	}
	err := tx.Commit()
	if err == nil {
		for _, p := range applied {
			p.err = nil
		}
		return true
	}
	if !connLost(err) {
		return false // a COMMIT that failed definitely: nothing was committed
	}
	if w.xid != "" {
		switch db.commitOutcome(ctx, w.xid) {
		case "committed":
			for _, p := range applied {
				p.err = nil
			}
			return true
		case "aborted":
			return false
		}
	}
	// The answer to the COMMIT was lost and its outcome is unknown: as
	// with a change alone, its callers are told so.
	for _, p := range applied {
		p.err = taskd.Internal(p.op+": commit", err)
	}
	return true
}

// changeErr is the answer to a change whose fn failed with err: err itself
// when it is taskd's, else an internal error named by op.
func changeErr(op string, err error) error {
	var te *taskd.Error
	if errors.As(err, &te) {
		return err
	}
	return taskd.Internal(op, err)
}

// txCommitter is the part of *sql.Tx that ends it.
type txCommitter interface {
	Commit() error
	Rollback() error
}

// fixedCtx runs statements on q under ctx, whatever context they are given.
type fixedCtx struct {
	q   querier
	ctx context.Context
}

func (f fixedCtx) QueryContext(_ context.Context, query string, args ...any) (*sql.Rows, error) {
	return f.q.QueryContext(f.ctx, query, args...)
}

func (f fixedCtx) QueryRowContext(_ context.Context, query string, args ...any) *sql.Row {
	return f.q.QueryRowContext(f.ctx, query, args...)
}

func (f fixedCtx) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	return f.q.ExecContext(f.ctx, query, args...)
}
