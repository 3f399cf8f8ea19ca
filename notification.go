package taskd

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
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
	// WaitingDigests lists, as DigestsDue does, up to limit people whose
	// oldest waiting notification is older than before, and tells how
	// much later than before the oldest notification of everyone else was
	// made (zero when none waits): how long until the next digest is due.
	// One read-only query.
	WaitingDigests(ctx context.Context, before time.Time, limit int) (due []int64, nextIn time.Duration, err error)
	// EventsWritten returns a new channel that receives after a change
	// commits (a change may write notifications), here or by another
	// process; signals coalesce and may be lost.
	EventsWritten() <-chan struct{}
	// SendDigests takes every waiting notification of the person, by
	// account, and queues the mail made of each digest by compose, in
	// one transaction; a digest taken by another replica meanwhile is
	// not sent twice.
	SendDigests(ctx context.Context, personID int64, compose func(Digest) (QueuedMail, error)) (int, error)
	// SetNotify turns a person's notifications on or off.
	SetNotify(ctx context.Context, personID int64, on bool) error
}

// The words of the notifications a change makes, one line of a digest
// each (Notification.Line). The store writes them with the change; they
// are made here, where a change is described.

// excerpt shortens a text to one line of at most n characters.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// NoticeCreated is what followers are told of a new task.
func NoticeCreated(by Actor, t Task) string {
	return fmt.Sprintf("%s created the task, assigned to %s", by.Person.Name, whom(t.Assignee))
}

// NoticeAssigned is what followers are told of a new assignee.
func NoticeAssigned(by Actor, t Task) string {
	return fmt.Sprintf("%s assigned the task to %s", by.Person.Name, whom(t.Assignee))
}

// NoticeCommented is what followers are told of a comment.
func NoticeCommented(by Actor, text string) string {
	return fmt.Sprintf("%s commented: %s", by.Person.Name, excerpt(text, 200))
}

// NoticeStatus is what followers are told of a task completed or
// reopened.
func NoticeStatus(by Actor, done bool) string {
	if done {
		return by.Person.Name + " completed the task"
	}
	return by.Person.Name + " reopened the task"
}

func whom(p PersonRef) string {
	switch p.ID {
	case NobodyID:
		return "nobody"
	case AnyoneID:
		return "anyone"
	}
	return p.Name
}
