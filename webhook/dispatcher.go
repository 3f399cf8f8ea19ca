package webhook

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// DispatcherConfig tunes the dispatcher; zero values take the defaults.
type DispatcherConfig struct {
	// Workers bounds concurrent deliveries (default 16). Each webhook has at
	// most one delivery in flight, so a slow destination holds one worker.
	Workers int
	// FailingWorkers bounds the workers that webhooks whose last attempt
	// failed may hold at once (default a quarter of Workers, at least 1):
	// destinations that hang until the timeout, however many, leave the
	// rest of the workers to the healthy ones.
	FailingWorkers int
	// Poll is the longest the dispatcher sleeps when nothing wakes it
	// (default 10s): a fallback for a lost signal. A change wakes it at
	// once (made here, or on PostgreSQL by another process, through
	// LISTEN/NOTIFY), and it sleeps only until the next thing it knows
	// is due (a retry, the end of another replica's lease); the poll
	// finds the rest: a lost notification, a change the CLI made to a
	// SQLite file. A poll that finds nothing costs one read-only query.
	Poll time.Duration
	// Sweep is how often held deliveries older than taskd.HoldLimit are
	// marked expired and old attempts forgotten (default 5 minutes).
	// Such deliveries are never sent whether or not the sweep has run.
	Sweep time.Duration
	// Lease is how long a claim on a webhook lasts without renewal; a
	// crashed replica's webhooks are taken over after it (default 30s).
	Lease time.Duration
	// Backoff returns the wait after the n-th consecutive failure
	// (default: 5s, 1m, 5m, 30m, 2h, 5h, 10h, … with ±20% jitter).
	Backoff func(n int) time.Duration
	// Observe, when set, hears of every delivery attempt.
	Observe func(Result)
}

// Dispatcher drains the outbox: it turns events into deliveries, sends
// them in order per webhook, and records every attempt. Several replicas
// run one each; leases in the database keep them from sending the same
// webhook's deliveries at once.
type Dispatcher struct {
	svc   *Service
	store taskd.DeliveryStore
	cfg   DispatcherConfig
	owner string

	mu sync.Mutex
	// busy holds the webhooks being drained; true for a failing one.
	busy    map[int64]bool
	failing int // failing webhooks being drained
	// again asks Run for another round at once: a drain ended, and events
	// fanned out while it held its lease may be waiting.
	again chan struct{}
}

// NewDispatcher returns a dispatcher that sends the deliveries of store
// with the service's client and log.
func NewDispatcher(svc *Service, store taskd.DeliveryStore, cfg DispatcherConfig) *Dispatcher {
	if cfg.Workers <= 0 {
		cfg.Workers = 16
	}
	if cfg.FailingWorkers <= 0 {
		cfg.FailingWorkers = max(1, cfg.Workers/4)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 10 * time.Second
	}
	if cfg.Sweep <= 0 {
		cfg.Sweep = 5 * time.Minute
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.Backoff == nil {
		cfg.Backoff = Backoff
	}
	return &Dispatcher{svc: svc, store: store, cfg: cfg, owner: secret.Token(12), busy: map[int64]bool{}, again: make(chan struct{}, 1)}
}

var schedule = []time.Duration{5 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour}

// Backoff is the default retry schedule with ±20% jitter.
func Backoff(n int) time.Duration {
	d := schedule[min(max(n, 1), len(schedule))-1]
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// Run works until ctx ends, then waits for the deliveries in flight (each
// bounded by the 5-second timeout) and returns.
//
// It sleeps until woken: by a committed change (fan out, then send), by
// a drain that ended (send what else is due), or by its timer, set to the
// next thing it knows is due (a retry, another replica's lease, the
// sweep) and at most Poll away. Every round reads what is due and when
// the next thing is in one query (WebhookWork); a wake by the timer fans
// out only if that query found events waiting, so an idle dispatcher
// sends one read-only query per Poll and no transaction.
func (d *Dispatcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, d.cfg.Workers)
	timer := time.NewTimer(0) // the first round at once: events written before the start
	defer timer.Stop()
	written := d.store.EventsWritten()
	var lastSweep time.Time
	for {
		fan, polled := false, false
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			polled = true
		case <-written: // a change committed
			fan = true
		case <-d.again:
			// a drain ended: events fanned out while it held its lease may be waiting
		}
		if fan {
			if err := d.fanOut(ctx); err != nil {
				d.svc.log.WarnContext(ctx, "webhook fan-out failed", "err", err)
				d.resetTimer(timer, time.Second)
				continue
			}
		}
		work, err := d.store.WebhookWork(ctx, d.cfg.Workers, polled)
		if err == nil && work.Unfanned && polled {
			// Found by the timer: a signal was lost (after a signal or a
			// drain, the signal of the events' change fans them out).
			if err = d.fanOut(ctx); err == nil {
				work, err = d.store.WebhookWork(ctx, d.cfg.Workers, false)
			}
		}
		if err != nil {
			d.svc.log.WarnContext(ctx, "reading the webhooks' work failed", "err", err)
			d.resetTimer(timer, time.Second)
			continue
		}
		now := d.svc.now()
		if now.Sub(lastSweep) >= d.cfg.Sweep {
			lastSweep = now
			d.sweep(ctx, now)
		}
		wait := min(d.cfg.Poll, lastSweep.Add(d.cfg.Sweep).Sub(now))
		if !d.start(ctx, &wg, slots, work.Due) {
			wait = min(wait, time.Second)
		}
		if work.NextIn > 0 {
			wait = min(wait, work.NextIn)
		}
		d.resetTimer(timer, wait)
	}
}

// resetTimer makes t fire after wait (at once when wait is not positive).
func (d *Dispatcher) resetTimer(t *time.Timer, wait time.Duration) {
	t.Reset(max(wait, 0))
}

// sweep expires held deliveries older than taskd.HoldLimit.
func (d *Dispatcher) sweep(ctx context.Context, now time.Time) {
	if n, err := d.store.ExpireHeld(ctx, now.Add(-taskd.HoldLimit)); err != nil {
		d.svc.log.WarnContext(ctx, "expiring held deliveries failed", "err", err)
	} else if n > 0 {
		d.svc.log.InfoContext(ctx, "held webhook deliveries expired", "count", n)
	}
}

// start leases the due webhooks it has workers for and drains each in a
// goroutine; a drain that ends asks for another round (d.again). It
// reports false when a lease could not be written (try again soon).
func (d *Dispatcher) start(ctx context.Context, wg *sync.WaitGroup, slots chan struct{}, due []taskd.DueWebhook) bool {
	leased := true
	for _, w := range due {
		id := w.ID
		if !d.claim(w) {
			continue
		}
		select {
		case slots <- struct{}{}:
		default:
			d.unclaim(id)
			continue
		}
		until := d.svc.now().Add(d.cfg.Lease)
		ok, err := d.store.Lease(ctx, id, d.owner, until)
		if err != nil || !ok {
			leased = leased && err == nil
			<-slots
			d.unclaim(id)
			continue
		}
		wg.Go(func() {
			defer func() {
				<-slots
				d.unclaim(id)
				select {
				case d.again <- struct{}{}:
				default:
				}
			}()
			d.drain(ctx, id, until)
		})
	}
	return leased
}

// fanOut turns new events into deliveries, up to 200 events per
// transaction until none is left.
func (d *Dispatcher) fanOut(ctx context.Context) error {
	for {
		n, err := d.store.FanOut(ctx, 200)
		if err != nil || n < 200 {
			return err
		}
	}
}

// claim marks w as being drained here, unless it is already, or it is
// failing and failing webhooks hold their share of the workers.
func (d *Dispatcher) claim(w taskd.DueWebhook) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, busy := d.busy[w.ID]; busy {
		return false
	}
	failing := w.Errors > 0
	if failing {
		if d.failing >= d.cfg.FailingWorkers {
			return false
		}
		d.failing++
	}
	d.busy[w.ID] = failing
	return true
}

func (d *Dispatcher) unclaim(id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.busy[id] {
		d.failing--
	}
	delete(d.busy, id)
}

// drain sends a leased webhook's pending deliveries in event order until
// none is left, one fails, the lease is lost or ctx ends.
func (d *Dispatcher) drain(ctx context.Context, id int64, leased time.Time) {
	// Shutdown lets the attempt in flight finish and be recorded.
	work := context.WithoutCancel(ctx)
	defer d.store.Release(work, id, d.owner)
	// The lease is renewed once it is half spent (or has less left than
	// one attempt may take), not before every attempt: a write saved per
	// delivery, while no attempt starts without a lease that outlasts it.
	renewAt := max(d.cfg.Lease/2, Timeout+time.Second)
	for ctx.Err() == nil {
		dels, w, err := d.store.NextDeliveries(work, id, MaxBatch)
		if err != nil {
			d.svc.log.WarnContext(ctx, "reading the next deliveries failed", "webhook", id, "err", err)
			return
		}
		if len(dels) == 0 || !w.Enabled || d.svc.now().Before(w.NextAttempt) {
			return
		}
		if now := d.svc.now(); leased.Sub(now) < renewAt {
			until := now.Add(d.cfg.Lease)
			if ok, err := d.store.Lease(work, id, d.owner, until); err != nil || !ok {
				return
			}
			leased = until
		}
		if !d.send(work, w, dels) {
			return
		}
	}
}

// Batches: when a webhook has a backlog, one POST carries up to MaxBatch
// of its events, in order, within MaxBatchBytes of body.
const (
	MaxBatch      = 100
	MaxBatchBytes = 256 << 10
)

// batch is the body of one POST: the first deliveries of dels, in order,
// as a JSON array within MaxBatchBytes (always at least one), and the
// webhook-id of the message: evt_<id> for one event, evt_<first>-<last>
// for several. Receivers deduplicate on each event's "id".
func batch(dels []taskd.Delivery) (body []byte, ids []int64, msgID string) {
	body = append(body, '[')
	for i, del := range dels {
		ev := del.Event.JSON()
		if i > 0 && len(body)+1+len(ev)+1 > MaxBatchBytes {
			break
		}
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, ev...)
		ids = append(ids, del.ID)
	}
	body = append(body, ']')
	first, last := dels[0].Event.ID, dels[len(ids)-1].Event.ID
	msgID = "evt_" + strconv.FormatInt(first, 10)
	if len(ids) > 1 {
		msgID += "-" + strconv.FormatInt(last, 10)
	}
	return body, ids, msgID
}

// send makes one attempt with the first deliveries of dels and records it;
// it reports success.
func (d *Dispatcher) send(ctx context.Context, w taskd.Webhook, dels []taskd.Delivery) bool {
	body, ids, msgID := batch(dels)
	del := dels[0]
	a := taskd.Attempt{WebhookID: w.ID, DeliveryID: del.ID, EventID: del.Event.ID, EventName: del.Event.Name, At: d.svc.now(), Deliveries: ids}
	var retryAt time.Time
	var res Result
	r, err := d.svc.request(w, body, msgID)
	if err != nil {
		res.Error = reasonSecrets
		d.svc.log.ErrorContext(ctx, "webhook secrets", "webhook", w.ID, "err", err)
	} else {
		res = Post(ctx, d.svc.client, r, a.At)
	}
	a.OK, a.HTTPStatus, a.Latency, a.Error, a.Response = res.OK, res.Status, res.Latency, res.Error, res.Response
	if !a.OK {
		retryAt = d.svc.now().Add(d.cfg.Backoff(w.Errors + 1))
	}
	if d.cfg.Observe != nil {
		d.cfg.Observe(res)
	}
	if err := d.store.RecordAttempt(ctx, a, retryAt); err != nil {
		d.svc.log.WarnContext(ctx, "recording a webhook attempt failed", "webhook", w.ID, "err", err)
		return false
	}
	if !a.OK {
		d.svc.log.InfoContext(ctx, "webhook delivery failed", "webhook", w.ID, "event", del.Event.ID, "errors", w.Errors+1, "reason", a.Error)
	}
	return a.OK
}
