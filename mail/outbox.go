package mail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// Sender delivers one composed message; *Server is one.
type Sender interface {
	Send(ctx context.Context, from, to string, msg []byte) error
}

// Outbox queues taskd's e-mail in the database and sends it. A message is
// written with the change that causes it (Seal makes the row for that), so
// a crash or a mail server that is down loses nothing: a failed attempt is
// tried again with backoff for up to GiveUpAfter, and every message's state
// is visible (Store.Mail). Replicas share the work through leases.
type Outbox struct {
	Store  taskd.MailStore
	Sealer *secret.Sealer
	// Sender is the mail server; nil keeps every message unsent (state
	// kept), for --dev without --smtp-url.
	Sender Sender
	// From is the installation's one sender (--mail-from).
	From string
	Log  *slog.Logger     // discards when nil
	Now  func() time.Time // time.Now when nil
	// Poll is the longest the outbox sleeps when nothing wakes it
	// (default 15 s): mail queued here or (PostgreSQL) by another
	// replica wakes it at once, and it sleeps until the next message it
	// knows of falls due (a retry, a lease's end); the poll finds mail
	// whose signal was lost, or that the CLI queued in a SQLite file.
	Poll time.Duration
	// Observe, when set, hears each attempt's result: sent, retry,
	// failed or kept (a counter for /metrics).
	Observe func(result string)
}

// Backoff is the wait after each failed attempt; the last repeats until
// GiveUpAfter has passed since the message was queued.
var Backoff = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour}

// GiveUpAfter is how long a message is tried before it fails for good.
const GiveUpAfter = 48 * time.Hour

// keepFinished is how long sent and failed messages stay listed.
const keepFinished = 30 * 24 * time.Hour

// lease is how long one attempt may take before another replica may try.
const lease = 2 * time.Minute

// body is the sealed part of a queued message.
type body struct {
	Text string `json:"text"`
	HTML string `json:"html,omitempty"`
}

// Keeps reports whether messages are kept unsent (no Sender), so that a
// page can say so instead of "sent".
func (o *Outbox) Keeps() bool { return o.Sender == nil }

// Seal checks m (its headers must compose) and returns the outbox row for
// it, its body sealed under the recipient's address.
func (o *Outbox) Seal(kind string, m Message) (taskd.QueuedMail, error) {
	if _, err := Compose(o.From, m, time.Time{}); err != nil {
		return taskd.QueuedMail{}, err
	}
	b, err := json.Marshal(body{Text: m.Text, HTML: m.HTML})
	if err != nil {
		return taskd.QueuedMail{}, fmt.Errorf("mail: %w", err)
	}
	return taskd.QueuedMail{To: m.To, Subject: m.Subject, Kind: kind, Body: o.Sealer.Seal(b, SealAD(m.To))}, nil
}

// SealAD is the additional data a queued message's body is sealed with:
// its recipient's address, so that a body cannot move to another row.
func SealAD(to string) []byte { return []byte(to) }

// Open returns the message of a queued row. A sent message has no body
// left: its text is empty.
func (o *Outbox) Open(q taskd.QueuedMail) (Message, error) {
	m := Message{To: q.To, Subject: q.Subject}
	if len(q.Body) == 0 {
		return m, nil
	}
	plain, err := o.Sealer.Open(q.Body, SealAD(q.To))
	if err != nil {
		return m, fmt.Errorf("mail %d: %w", q.ID, err)
	}
	var b body
	if err := json.Unmarshal(plain, &b); err != nil {
		return m, fmt.Errorf("mail %d: %w", q.ID, err)
	}
	m.Text, m.HTML = b.Text, b.HTML
	return m, nil
}

// Queue seals m and adds it to the outbox on its own (not with a change).
func (o *Outbox) Queue(ctx context.Context, kind string, m Message) error {
	q, err := o.Seal(kind, m)
	if err != nil {
		return err
	}
	_, err = o.Store.QueueMail(ctx, q)
	return err
}

// Run sends due mail until ctx ends, and once an hour forgets messages
// finished more than 30 days ago. Between rounds it sleeps until mail is
// queued, the next message falls due or Poll passes; a round with nothing
// due costs one read-only query (NextMail).
func (o *Outbox) Run(ctx context.Context) {
	poll := o.Poll
	if poll <= 0 {
		poll = 15 * time.Second
	}
	queued := o.Store.MailQueued()
	timer := time.NewTimer(0)
	defer timer.Stop()
	if o.Sender != nil {
		// Mail kept while no server was configured goes out now, unless
		// it is too old to matter.
		if n, err := o.Store.RequeueKept(ctx, o.now().Add(-GiveUpAfter)); err != nil {
			o.log().WarnContext(ctx, "requeueing kept mail failed", "err", err)
		} else if n > 0 {
			o.log().InfoContext(ctx, "kept mail queued to send", "messages", n)
		}
	}
	var pruned time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-queued:
		}
		wait := poll
		if next, err := o.round(ctx); err != nil {
			if ctx.Err() == nil {
				o.log().WarnContext(ctx, "sending mail failed", "err", err)
			}
			wait = min(wait, 5*time.Second)
		} else if next > 0 {
			wait = min(wait, next)
		}
		if now := o.now(); now.Sub(pruned) > time.Hour {
			pruned = now
			if _, err := o.Store.PruneMail(ctx, now.Add(-keepFinished)); err != nil && ctx.Err() == nil {
				o.log().WarnContext(ctx, "pruning mail failed", "err", err)
			}
		}
		timer.Reset(wait)
	}
}

// round sends the due mail, if any, and returns how long until the next
// pending message falls due (zero when none is pending).
func (o *Outbox) round(ctx context.Context) (time.Duration, error) {
	next, ok, err := o.Store.NextMail(ctx)
	if err != nil || !ok {
		return 0, err
	}
	if next > 0 {
		return next, nil
	}
	if _, err := o.SendDue(ctx); err != nil {
		return 0, err
	}
	next, ok, err = o.Store.NextMail(ctx)
	if !ok {
		return 0, err
	}
	// A message due again at once (a claim lost to another sender) waits
	// a moment rather than spinning.
	return max(next, 100*time.Millisecond), err
}

// SendDue makes one attempt at every due message, one after another, and
// reports how many it tried. It claims one message at a time, so that a
// claim never outlives its lease while others wait their turn.
func (o *Outbox) SendDue(ctx context.Context) (int, error) {
	n := 0
	for ctx.Err() == nil {
		due, err := o.Store.ClaimMail(ctx, 1, lease)
		if err != nil || len(due) == 0 {
			return n, err
		}
		for _, q := range due {
			if err := o.attempt(ctx, q); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, ctx.Err()
}

// attempt sends one claimed message and records the outcome. Only a
// failure to record is returned.
func (o *Outbox) attempt(ctx context.Context, q taskd.QueuedMail) error {
	if o.Sender == nil {
		o.observe("kept")
		return o.record(o.Store.FinishMail(ctx, q, taskd.MailKept, "no mail server is configured (--smtp-url)"))
	}
	err := o.send(ctx, q)
	switch {
	case err == nil:
		o.observe("sent")
		return o.record(o.Store.FinishMail(ctx, q, taskd.MailSent, ""))
	case ctx.Err() != nil:
		return ctx.Err() // shutting down: the lease runs out and a later run tries again
	case Permanent(err) || errors.Is(err, errUnreadable):
		o.observe("failed")
		o.log().WarnContext(ctx, "mail refused for good", "mail", q.ID, "kind", q.Kind, "err", err)
		return o.record(o.Store.FinishMail(ctx, q, taskd.MailFailed, err.Error()))
	}
	next := o.now().Add(backoff(q.Attempts))
	if next.Sub(q.Added) > GiveUpAfter {
		o.observe("failed")
		o.log().WarnContext(ctx, "mail given up", "mail", q.ID, "kind", q.Kind, "attempts", q.Attempts, "err", err)
		return o.record(o.Store.FinishMail(ctx, q, taskd.MailFailed, "gave up after "+GiveUpAfter.String()+": "+err.Error()))
	}
	o.observe("retry")
	o.log().InfoContext(ctx, "mail attempt failed; will try again", "mail", q.ID, "kind", q.Kind, "attempts", q.Attempts, "next", next, "err", err)
	return o.record(o.Store.RetryMail(ctx, q, err.Error(), next))
}

// record passes on an error of recording an outcome, but not a claim lost
// to another sender (its lease ran out): that sender records its own.
func (o *Outbox) record(err error) error {
	if taskd.IsNotFound(err) {
		o.log().Warn("a mail attempt outlived its lease; another sender has the message")
		return nil
	}
	return err
}

var errUnreadable = errors.New("mail: the queued message cannot be read (was the server key changed?)")

func (o *Outbox) send(ctx context.Context, q taskd.QueuedMail) error {
	m, err := o.Open(q)
	if err != nil {
		return fmt.Errorf("%w: %v", errUnreadable, err)
	}
	msg, err := Compose(o.From, m, o.now())
	if err != nil {
		return fmt.Errorf("%w: %v", errUnreadable, err)
	}
	return o.Sender.Send(ctx, o.From, q.To, msg)
}

// backoff is the wait after the given number of attempts (1 or more).
func backoff(attempts int) time.Duration {
	i := min(max(attempts-1, 0), len(Backoff)-1)
	return Backoff[i]
}

func (o *Outbox) observe(result string) {
	if o.Observe != nil {
		o.Observe(result)
	}
}

func (o *Outbox) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Outbox) log() *slog.Logger {
	if o.Log != nil {
		return o.Log
	}
	return slog.New(slog.DiscardHandler)
}
