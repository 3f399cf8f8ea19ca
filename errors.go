package taskd

import (
	"errors"
	"fmt"
	"time"
)

// Kind says what went wrong in terms a caller can act on. The domain and
// the store speak only in kinds; each interface maps them to its own
// answers in one table: the account API to its numeric codes (api), the
// pages to HTTP statuses and sentences (web).
type Kind uint8

// Kinds of error.
const (
	KindInternal        Kind = iota // a fault of ours; the cause is for logs only
	KindInvalid                     // the input breaks a rule; Field names the input
	KindNotFound                    // no such object, or not the caller's to see; Field names it
	KindConflict                    // the object's state forbids the change; Reason names the rule
	KindForbidden                   // the caller may not do this; Field names what is missing
	KindUnauthenticated             // no valid credentials
	KindRateLimited                 // too many requests; RetryAfter says when to try again
)

var kindNames = [...]string{"internal", "invalid", "not found", "conflict", "forbidden", "unauthenticated", "rate limited"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// Reason tells apart the rules an invalid input or a conflict broke where
// a caller may branch on which one.
type Reason uint8

// Reasons.
const (
	ReasonNone            Reason = iota
	ReasonRequired               // invalid: a required field is missing or blank
	ReasonTaskClosed             // conflict: the task (Field) is done
	ReasonAlreadyInState         // conflict: the object is already in the state asked for
	ReasonOpenSubtasks           // conflict: the task has subtasks still open
	ReasonParentDone             // conflict: the task's parent is done
	ReasonProjectArchived        // conflict: the project is archived
	ReasonTooLarge               // invalid: a file or an account's files pass a size limit
	ReasonTimeRequired           // conflict: the project asks for logged time before a task is done
)

// Error is the one error type of the domain and the store. Message is safe
// to show to the caller and may be empty (the interface then says it in
// its own words); Err is the cause, for logs only.
type Error struct {
	Kind   Kind
	Reason Reason
	// Field names the input or object concerned in the domain's words:
	// "title", "email", "project", "parent" (a task's parent task) …
	Field string
	// Value is the offending value where showing it helps (an e-mail that
	// names no member, an id in a list).
	Value   string
	Message string
	Err     error
	// RetryAfter is, for KindRateLimited, when the caller may try again.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	s := "taskd: " + e.Kind.String()
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Field != "" {
		s += " (" + e.Field + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Invalid reports input that breaks a rule.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Kind: KindInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Required reports a required field that is missing or blank.
func Required(field string) *Error {
	return &Error{Kind: KindInvalid, Reason: ReasonRequired, Field: field}
}

// NotFound reports an object that does not exist or is not the caller's.
func NotFound(field string) *Error { return &Error{Kind: KindNotFound, Field: field} }

// Conflict reports a change the object's state forbids. The message may be
// empty.
func Conflict(reason Reason, field, format string, args ...any) *Error {
	e := &Error{Kind: KindConflict, Reason: reason, Field: field}
	if format != "" {
		e.Message = fmt.Sprintf(format, args...)
	}
	return e
}

// Forbidden reports an action the caller may not take.
func Forbidden(field, format string, args ...any) *Error {
	return &Error{Kind: KindForbidden, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Unauthenticated reports missing or invalid credentials.
func Unauthenticated(format string, args ...any) *Error {
	return &Error{Kind: KindUnauthenticated, Message: fmt.Sprintf(format, args...)}
}

// RateLimited reports too many requests: try again after wait.
func RateLimited(wait time.Duration) *Error {
	return &Error{Kind: KindRateLimited, RetryAfter: wait}
}

// Internal wraps an unexpected cause as an internal error whose message hides it.
func Internal(op string, err error) *Error {
	return &Error{Kind: KindInternal, Err: fmt.Errorf("%s: %w", op, err)}
}

// AsError returns err as an *Error, wrapping unknown errors as internal ones.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal("unexpected", err)
}

// ErrorKind returns the kind of err; KindInternal if err is not an *Error.
func ErrorKind(err error) Kind { return AsError(err).Kind }

// IsNotFound reports whether err says that an object does not exist.
func IsNotFound(err error) bool { return err != nil && ErrorKind(err) == KindNotFound }
