package taskd

import (
	"context"
	"time"
)

// Notification is one line of a person's next e-mail digest: a change to
// a task they follow (subscribed to, or assigned).
type Notification struct {
	ID        int64
	AccountID int64
	PersonID  int64
	TaskID    int64
	TaskName  string
	TaskPage  string // relative to the account URL
	Line      string // "Olga Owner commented: …"
	Added     time.Time
}

// Digest is what one person is told in one e-mail.
type Digest struct {
	Person  Person
	Account Account
	Lines   []Notification
}

// NotificationStore keeps the notifications waiting to be mailed.
type NotificationStore interface {
	// DigestsDue lists the people whose oldest waiting notification is
	// older than before, up to limit.
	DigestsDue(ctx context.Context, before time.Time, limit int) ([]int64, error)
	// SendDigests takes every waiting notification of the person, by
	// account, and queues the mail made of each digest by compose, in
	// one transaction; a digest taken by another replica meanwhile is
	// not sent twice.
	SendDigests(ctx context.Context, personID int64, compose func(Digest) (QueuedMail, error)) (int, error)
	// SetNotify turns a person's notifications on or off.
	SetNotify(ctx context.Context, personID int64, on bool) error
}
