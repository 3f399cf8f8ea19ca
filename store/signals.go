package store

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taskd/taskd/secret"
)

// eventsChannel is the PostgreSQL notification channel on which a process
// tells the others that it committed a change (and so wrote an event), or
// queued mail.
const eventsChannel = "taskd_events"

// notifySpacing is the least time between two notifications one process
// sends: under load one NOTIFY stands for the changes of a few
// milliseconds, instead of adding a statement to every change.
const notifySpacing = 5 * time.Millisecond

// The kinds of signal: a change committed (it wrote an event, and maybe
// notifications), mail was queued, or a change of trust committed (a
// session ended, a member removed or given another role: the live
// streams it opened end).
const (
	kindEvents uint32 = 1 << iota
	kindMail
	kindTrust
)

// signals wakes the background workers of every process when work is
// written: this process's at once, in-process, and on PostgreSQL every
// other process's through LISTEN/NOTIFY. A committed change wakes the
// webhook dispatcher, the digest notifier and the live hub; queued mail
// wakes the mail outbox; a change of trust wakes the live hub. Signals
// coalesce; each worker's fallback poll (seconds) finds work whose signal
// was lost (a dropped listening connection, a crash between commit and
// notify, the CLI writing to SQLite).
type signals struct {
	mu   sync.Mutex
	subs map[uint32][]chan struct{} // kind → subscribers

	// PostgreSQL only (url is empty on SQLite).
	url     string
	self    string        // this process's token, the payload of its notifications
	pending atomic.Uint32 // kinds committed here and not yet told the others
	notify  chan struct{} // something committed here: tell the others
	listen  sync.Once
	// ctx is the lifetime of the notifier and listener goroutines (wg);
	// stop ends it at Close.
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

func newSignals(url string) *signals {
	s := &signals{subs: map[uint32][]chan struct{}{}, url: url}
	s.ctx, s.stop = context.WithCancel(context.Background())
	if url != "" {
		s.self, s.notify = secret.Token(8), make(chan struct{}, 1)
	}
	return s
}

// wake signals without blocking; one pending signal stands for many.
func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// wakeAll wakes the subscribers of the kinds.
func (s *signals) wakeAll(kinds uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, cs := range s.subs {
		if k&kinds != 0 {
			for _, c := range cs {
				wake(c)
			}
		}
	}
}

// committed records that a change committed in this process.
func (s *signals) committed() { s.local(kindEvents) }

// mailQueued records that mail was queued (and committed) in this process.
func (s *signals) mailQueued() { s.local(kindMail) }

// trustChanged records that a change of trust committed in this process.
func (s *signals) trustChanged() { s.local(kindTrust) }

func (s *signals) local(kind uint32) {
	s.wakeAll(kind)
	if s.notify != nil {
		s.pending.Or(kind)
		wake(s.notify)
	}
}

// startNotifier sends this process's notifications from one goroutine, so
// that a change's commit never waits for one.
func (s *signals) startNotifier(db *DB) {
	if s.notify == nil {
		return
	}
	s.wg.Go(func() {
		for {
			select {
			case <-s.ctx.Done():
				select { // a change committed just before Close still tells the others
				case <-s.notify:
					s.send(context.Background(), db)
				default:
				}
				return
			case <-s.notify:
			}
			s.send(s.ctx, db)
			select {
			case <-s.ctx.Done():
			case <-time.After(notifySpacing):
			}
		}
	})
}

func (s *signals) send(ctx context.Context, db *DB) {
	kinds := s.pending.Swap(0)
	if kinds == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// A failure costs only latency: the other processes' polls find the
	// change. A notification sent twice after a lost connection is harmless.
	_, _ = db.exec(ctx, "notify", `SELECT pg_notify(?, ?)`, eventsChannel, payload(s.self, kinds))
}

// payload is a notification's text: the sender's token, and the kinds
// after a space unless the kind is events alone (what processes of
// earlier versions send and understand).
func payload(self string, kinds uint32) string {
	if kinds == kindEvents {
		return self
	}
	return self + " " + strconv.FormatUint(uint64(kinds), 10)
}

// parsePayload returns a notification's sender and kinds.
func parsePayload(p string) (from string, kinds uint32) {
	from, k, ok := strings.Cut(p, " ")
	if !ok {
		return from, kindEvents
	}
	n, err := strconv.ParseUint(k, 10, 32)
	if err != nil || n == 0 {
		return from, kindEvents | kindMail | kindTrust
	}
	return from, uint32(n)
}

// subscribe returns a new channel that receives after work of the kinds
// commits, listening for other processes' work from the first call on
// (PostgreSQL), so that only a process that runs workers holds a
// listening connection.
func (s *signals) subscribe(kinds uint32) <-chan struct{} {
	if s.url != "" {
		s.listen.Do(func() { s.wg.Go(s.listenLoop) })
	}
	c := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs[kinds] = append(s.subs[kinds], c)
	s.mu.Unlock()
	return c
}

// listenLoop keeps a connection listening until Close, reconnecting with
// backoff when it drops.
func (s *signals) listenLoop() {
	backoff := 100 * time.Millisecond
	for s.ctx.Err() == nil {
		if s.listenOnce() {
			backoff = 100 * time.Millisecond
		}
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// listenOnce connects, listens and forwards other processes' notifications
// until the connection fails or Close; it reports whether it listened.
func (s *signals) listenOnce() bool {
	conn, err := pgx.Connect(s.ctx, s.url)
	if err != nil {
		return false
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(s.ctx, "LISTEN "+eventsChannel); err != nil {
		return false
	}
	s.wakeAll(kindEvents | kindMail | kindTrust) // notifications may have been missed while not listening
	for {
		n, err := conn.WaitForNotification(s.ctx)
		if err != nil {
			return true
		}
		if from, kinds := parsePayload(n.Payload); from != s.self { // this process woke its own workers already
			s.wakeAll(kinds)
		}
	}
}

// close stops the notifier (after a last notification if one is due) and
// the listener.
func (s *signals) close() {
	s.stop()
	s.wg.Wait()
}
