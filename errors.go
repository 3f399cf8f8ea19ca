// Package taskd holds the nouns of the work-management service — accounts,
// people, projects, tasks, comments and events — with their validation rules
// and the interface of the store that keeps them. It does no I/O.
package taskd

import (
	"errors"
	"fmt"
	"time"
)

// Code is a stable numeric error code of the account API. The values up to 14
// follow the Worksection API (compat); higher values are taskd's own and are
// listed in docs/api.md.
type Code int

// Error codes. Keep their numbers: clients branch on them.
const (
	CodeActionInvalid   Code = 0  // Action is invalid
	CodeActionRequired  Code = 1  // Action is required
	CodeAuth            Code = 2  // Action hash is missed or invalid
	CodeProjectInvalid  Code = 4  // Project is invalid
	CodeTaskInvalid     Code = 5  // Task is invalid
	CodeTaskClosed      Code = 8  // Task is closed
	CodeFieldRequired   Code = 10 // Field is required (details: the field)
	CodeInvalidValue    Code = 11 // A value is invalid (details: the field or value)
	CodeAlreadyInState  Code = 12 // Already closed / already active
	CodeTaskHasChildren Code = 13 // Task has active subtasks
	CodeParentDone      Code = 14 // Parent task is done
	CodeCommentInvalid  Code = 15 // Comment is invalid
	CodeUnknownParam    Code = 16 // Parameter is not supported (details: the parameter)
	CodeMalformed       Code = 17 // Request cannot be parsed
	CodeTooLarge        Code = 18 // Request body is too large
	CodeMethod          Code = 19 // Method is not allowed
	CodeForbidden       Code = 20 // Not permitted for this caller
	CodeProjectArchived Code = 21 // Project is archived
	CodeUserInvalid     Code = 22 // User is invalid
	CodeConflict        Code = 23 // Value already exists (details: the field)
	CodeRateLimited     Code = 24 // Too many requests
	CodeNotFound        Code = 25 // Object is not found (application, authorization)
	CodeInternal        Code = 99 // Internal error; details are never shown
)

// Error is the one error type of taskd. Message is safe to show to the caller;
// Details names the offending field or value; Err is the cause, for logs only.
type Error struct {
	Code    Code
	Message string
	Details string
	Err     error
	// RetryAfter is, for CodeRateLimited, when the caller may try again.
	RetryAfter time.Duration
}

// RateLimited is code 24: too many requests, try again after wait.
func RateLimited(wait time.Duration) *Error {
	return &Error{Code: CodeRateLimited, Message: defaultMessages[CodeRateLimited], RetryAfter: wait}
}

func (e *Error) Error() string {
	s := fmt.Sprintf("taskd: code %d: %s", e.Code, e.Message)
	if e.Details != "" {
		s += " (" + e.Details + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// defaultMessages are the messages of each code when none more specific is given.
var defaultMessages = map[Code]string{
	CodeActionInvalid:   "Action is invalid",
	CodeActionRequired:  "Action is required",
	CodeAuth:            "Action hash is missed or invalid",
	CodeProjectInvalid:  "Project is invalid",
	CodeTaskInvalid:     "Task is invalid",
	CodeTaskClosed:      "Task is closed",
	CodeFieldRequired:   "Field is required",
	CodeInvalidValue:    "Field value is invalid",
	CodeAlreadyInState:  "Already in this state",
	CodeTaskHasChildren: "Task has children",
	CodeParentDone:      "Parent task is done",
	CodeCommentInvalid:  "Comment is invalid",
	CodeUnknownParam:    "Parameter is not supported",
	CodeMalformed:       "Request is malformed",
	CodeNotFound:        "Not found",
	CodeTooLarge:        "Request body is too large",
	CodeMethod:          "Method is not allowed",
	CodeForbidden:       "Not permitted",
	CodeProjectArchived: "Project is archived",
	CodeUserInvalid:     "User is invalid",
	CodeConflict:        "Value already exists",
	CodeRateLimited:     "Too many requests",
	CodeInternal:        "Internal error",
}

// E returns an *Error with the code's default message and the given details.
func E(code Code, details string) *Error {
	return &Error{Code: code, Message: defaultMessages[code], Details: details}
}

// Errorf returns an *Error with a specific message.
func Errorf(code Code, details, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Details: details}
}

// Internal wraps an unexpected cause as an internal error whose message hides it.
func Internal(op string, err error) *Error {
	return &Error{Code: CodeInternal, Message: defaultMessages[CodeInternal], Err: fmt.Errorf("%s: %w", op, err)}
}

// AsError returns err as an *Error, wrapping unknown errors as internal ones.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal("unexpected", err)
}

// ErrorCode returns the code of err, or CodeInternal if err is not an *Error.
func ErrorCode(err error) Code { return AsError(err).Code }
