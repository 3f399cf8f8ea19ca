package taskd

import (
	"context"
	"time"
)

// MailState is where a message of the outbox stands.
type MailState string

// The states of an outgoing message.
const (
	// MailPending waits for its first or next attempt.
	MailPending MailState = "pending"
	// MailSent was accepted by the mail server.
	MailSent MailState = "sent"
	// MailFailed was refused for good, or could not be sent in time.
	MailFailed MailState = "failed"
	// MailKept was not sent because no mail server is configured; in
	// --dev it is shown on a page instead.
	MailKept MailState = "kept"
)

// QueuedMail is a message in the outbox. To and Subject are plain; the
// body is sealed (it may hold a one-time link) and is emptied once sent.
type QueuedMail struct {
	ID        int64
	To        string // one address, possibly with a display name
	Subject   string
	Kind      string // invitation, reset, email, notification
	Body      []byte // sealed
	State     MailState
	Attempts  int
	LastError string
	Added     time.Time
	NextAt    time.Time // the next attempt, while pending
	DoneAt    time.Time // when sent, failed for good or kept
	// Lease is when the claim of the sender that holds the message ends;
	// only that sender may record the attempt's outcome.
	Lease time.Time
}

// MailStore keeps the mail outbox.
type MailStore interface {
	// QueueMail adds a message to the outbox, due at once.
	QueueMail(ctx context.Context, m QueuedMail) (int64, error)
	// ClaimMail leases up to limit due messages for lease, counting an
	// attempt for each: another sender (a replica) skips them until the
	// lease ends.
	ClaimMail(ctx context.Context, limit int, lease time.Duration) ([]QueuedMail, error)
	// FinishMail records the end of a claimed message: sent (its body is
	// dropped), kept, or failed for good with why. Not found ("mail")
	// when the claim was lost to another sender.
	FinishMail(ctx context.Context, m QueuedMail, state MailState, why string) error
	// RetryMail records a claimed message's failed attempt and when to
	// try again; not found as FinishMail.
	RetryMail(ctx context.Context, m QueuedMail, why string, at time.Time) error
	// RequeueKept makes the messages kept since the time (while no mail
	// server was configured) due again, and reports how many.
	RequeueKept(ctx context.Context, since time.Time) (int64, error)
	// Mail lists the outbox, newest first, up to limit messages.
	Mail(ctx context.Context, limit int) ([]QueuedMail, error)
	// MailByID returns one message of the outbox.
	MailByID(ctx context.Context, id int64) (QueuedMail, error)
	// PruneMail deletes finished messages older than before.
	PruneMail(ctx context.Context, before time.Time) (int64, error)
	// NextMail tells how long until the first pending message falls due
	// (its next attempt, or the end of the lease a sender holds on it),
	// by the store's clock: zero or less when one is due now; false when
	// none is pending. One read-only query.
	NextMail(ctx context.Context) (time.Duration, bool, error)
	// MailQueued returns a new channel that receives after mail is
	// queued, here or by another process; signals coalesce and may be
	// lost, so a sender polls as well (seldom).
	MailQueued() <-chan struct{}
}
