package api

import (
	"errors"
	"fmt"
	"time"

	"github.com/taskd/taskd"
)

// Code is a stable numeric error code of the account API. The values up to
// 14 follow the Worksection API (compat); higher values are taskd's own and
// are listed in docs/api.md.
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
	CodeNotFound        Code = 25 // Object is not found
	CodeInternal        Code = 99 // Internal error; details are never shown
)

// messages are each code's words when nothing more specific is said.
var messages = map[Code]string{
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
	CodeTooLarge:        "Request body is too large",
	CodeMethod:          "Method is not allowed",
	CodeForbidden:       "Not permitted",
	CodeProjectArchived: "Project is archived",
	CodeUserInvalid:     "User is invalid",
	CodeConflict:        "Value already exists",
	CodeRateLimited:     "Too many requests",
	CodeNotFound:        "Not found",
	CodeInternal:        "Internal error",
}

// Error is an answer in the error envelope: a code, a message safe to
// show, and the parameter or value it concerns.
type Error struct {
	Code       Code
	Message    string
	Details    string
	RetryAfter time.Duration // for CodeRateLimited
	cause      error         // for the log, never sent
}

func (e *Error) Error() string {
	s := fmt.Sprintf("api: code %d: %s", e.Code, e.Message)
	if e.Details != "" {
		s += " (" + e.Details + ")"
	}
	if e.cause != nil {
		s += ": " + e.cause.Error()
	}
	return s
}

// fail is an error with the code's own message.
func fail(code Code, details string) *Error {
	return &Error{Code: code, Message: messages[code], Details: details}
}

// failf is an error with a message of its own.
func failf(code Code, details, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Details: details}
}

// object is how the API names one kind of object the domain refers to.
type object struct {
	param    string // the parameter that carries its id
	code     Code   // the code of an unknown or unusable one
	notFound string // the message for an unknown one; empty: the code's
}

// objects maps the domain's names of objects (taskd.Error.Field) to the
// API's parameters and codes.
var objects = map[string]object{
	"project": {"id_project", CodeProjectInvalid, ""},
	"task":    {"id_task", CodeTaskInvalid, ""},
	"parent":  {"id_parent", CodeTaskInvalid, ""},
	"comment": {"id_comment", CodeCommentInvalid, ""},
	"webhook": {"id", CodeFieldRequired, "WebHook not found"}, // compat
	"member":  {"", CodeUserInvalid, ""},
	"person":  {"", CodeUserInvalid, ""},
	"group":   {"group", CodeInvalidValue, ""}, // a tag group named by title or id
	"account": {"", CodeAuth, ""},              // an unknown account is not told apart from a bad key
	"cost":    {"id_costs", CodeNotFound, "Cost line is not found"},
	"timer":   {"timer", CodeNotFound, "No timer is running"},
	"file":    {"id_file", CodeNotFound, "File is not found"},
	// Task relations (issue 35).
	"task_from": {"id_task_from", CodeTaskInvalid, ""},
	"task_to":   {"id_task_to", CodeTaskInvalid, ""},
	"relation":  {"", CodeNotFound, "Relation is not found"},
}

// unknownID is the answer to an id parameter that names nothing, or is
// no id: code, naming the parameter, with the message asError gives an
// unknown object of it ("Cost line is not found" for id_costs).
func unknownID(code Code, param string) *Error {
	for _, o := range objects {
		if o.param == param && o.code == code && o.notFound != "" {
			return failf(code, param, "%s", o.notFound)
		}
	}
	return fail(code, param)
}

// invalidValues are the objects whose invalid value (taskd.KindInvalid)
// is not an id but a value sent: a file the store refuses (too large,
// beyond the account's allowance, cut short) is 11, naming the part that
// carried it (receiveFiles, partError), not 25 naming id_file.
var invalidValues = map[string]bool{"file": true}

// conflicts maps the domain's state rules to codes; any other conflict is
// a duplicate (23).
var conflicts = map[taskd.Reason]Code{
	taskd.ReasonTaskClosed:      CodeTaskClosed,
	taskd.ReasonAlreadyInState:  CodeAlreadyInState,
	taskd.ReasonOpenSubtasks:    CodeTaskHasChildren,
	taskd.ReasonParentDone:      CodeParentDone,
	taskd.ReasonProjectArchived: CodeProjectArchived,
	taskd.ReasonTimeRequired:    CodeFieldRequired, // time must be logged first
}

// asError is the one table from errors to the envelope: an *Error as it
// is, a domain error by its kind, and anything else as internal.
func asError(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	var de *taskd.Error
	if !errors.As(err, &de) {
		return &Error{Code: CodeInternal, Message: messages[CodeInternal], cause: err}
	}
	obj, isObject := objects[de.Field]
	details := de.Field
	if isObject {
		details = obj.param
	}
	if de.Value != "" {
		details = de.Value
	}
	e := &Error{Message: de.Message, Details: details, cause: de.Err}
	switch de.Kind {
	case taskd.KindInvalid:
		switch {
		case de.Reason == taskd.ReasonRequired:
			e.Code = CodeFieldRequired
		case invalidValues[de.Field]:
			e.Code = CodeInvalidValue
		case isObject:
			e.Code = obj.code
		default:
			e.Code = CodeInvalidValue
		}
	case taskd.KindNotFound:
		e.Code = CodeNotFound
		if isObject {
			e.Code = obj.code
			if e.Message == "" {
				e.Message = obj.notFound
			}
		}
	case taskd.KindConflict:
		e.Code = CodeConflict
		if c, ok := conflicts[de.Reason]; ok {
			e.Code = c
		}
	case taskd.KindForbidden:
		e.Code = CodeForbidden
	case taskd.KindUnauthenticated:
		e.Code = CodeAuth
	case taskd.KindRateLimited:
		e.Code, e.RetryAfter = CodeRateLimited, de.RetryAfter
	default:
		return &Error{Code: CodeInternal, Message: messages[CodeInternal], cause: err}
	}
	if e.Code == CodeAuth {
		e.Details = "" // never say which part of the credentials failed
	}
	if e.Message == "" {
		e.Message = messages[e.Code]
	}
	return e
}
