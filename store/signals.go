package store

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taskd/taskd/secret"
)

// eventsChannel is the PostgreSQL notification channel on which a process
// tells the others that it committed a change (and so wrote an event).
const eventsChannel = "taskd_events"

// notifySpacing is the least time between two notifications one process
// sends: under load one NOTIFY stands for the changes of a few
// milliseconds, instead of adding a statement to every change.
const notifySpacing = 5 * time.Millisecond

// signals wakes webhook dispatchers when events are written: this
// process's at once, in-process, and on PostgreSQL every other process's
// through LISTEN/NOTIFY. Signals coalesce; the dispatcher's poll remains
// the fallback for any that is lost (a dropped listening connection, a
// crash between commit and notify).
type signals struct {
	written chan struct{} // receives after a change commits, here or elsewhere

	// PostgreSQL only (url is empty on SQLite).
	url    string
	self   string        // this process's token, the payload of its notifications
	notify chan struct{} // a change committed here: tell the others
	listen sync.Once
	// ctx is the lifetime of the notifier and listener goroutines (wg);
	// stop ends it at Close.
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

func newSignals(url string) *signals {
	s := &signals{written: make(chan struct{}, 1), url: url}
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

// committed records that a change committed in this process.
func (s *signals) committed() {
	wake(s.written)
	if s.notify != nil {
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
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// A failure costs only latency: the other processes' polls find the
	// change. A notification sent twice after a lost connection is harmless.
	_, _ = db.exec(ctx, "notify", `SELECT pg_notify(?, ?)`, eventsChannel, s.self)
}

// events returns the channel, listening for other processes' changes from
// the first call on (PostgreSQL), so that only a process that dispatches
// holds a listening connection.
func (s *signals) events() <-chan struct{} {
	if s.url != "" {
		s.listen.Do(func() { s.wg.Go(s.listenLoop) })
	}
	return s.written
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
	wake(s.written) // notifications may have been missed while not listening
	for {
		n, err := conn.WaitForNotification(s.ctx)
		if err != nil {
			return true
		}
		if n.Payload != s.self { // this process woke its own dispatcher already
			wake(s.written)
		}
	}
}

// close stops the notifier (after a last notification if one is due) and
// the listener.
func (s *signals) close() {
	s.stop()
	s.wg.Wait()
}
