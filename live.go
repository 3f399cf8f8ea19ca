package taskd

import "time"

// LiveEvent is a change as a page's live stream tells of it (DESIGN §11):
// an event of the outbox the viewer sees, in a few words.
type LiveEvent struct {
	ID        int64  // the event's id: the stream's message id
	AccountID int64  // the event's account
	Name      string // the event, e.g. update_task
	ProjectID int64
	TaskID    int64  // the task, or the comment's task; 0 for a project
	Page      string // the object's page under the account, e.g. /project/1/2/
	By        string // who made the change
	ByID      int64  // their person id
	Title     string // what changed: the task's (or project's) name
}

// LiveStream is a viewer's live stream of one replica: the events it
// missed (Replay, after a reconnect) and then each new one as it commits.
type LiveStream struct {
	// Reload says that the events asked for are older than the window a
	// stream resumes within: the page should load again.
	Reload bool
	// Replay are the events after the one the stream resumes from, oldest
	// first; Events receives the later ones and is closed when the stream
	// ends (a reader too slow, the server stopping).
	Replay []LiveEvent
	Events <-chan LiveEvent
	// Close ends the stream; it may be called more than once.
	Close func()
}

// LiveRequest is what a page's live stream is opened with.
type LiveRequest struct {
	// Viewer is who the stream is for, as the page read them: the stream
	// ends when they are no longer that (removed, another role).
	Viewer Viewer
	// Session is the hash of the sign-in session the stream was opened
	// with: the stream ends when it does (sign-out, a password changed or
	// reset, expiry). Empty: the membership alone is checked.
	Session string
	// Last is the event the stream resumes after (Last-Event-ID), 0 for
	// none; Since, when Last is 0 and it is not zero, is when the page
	// was made (its first stream).
	Last  int64
	Since time.Time
}

// LiveSpan is the events a stream resuming missed: those after the event
// After, or, when After is 0, those written since Since; in both cases up
// to the event Upto, after which the hub hands out what commits.
type LiveSpan struct {
	After int64
	Since time.Time
	Upto  int64
}
