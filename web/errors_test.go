package web

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// TestErrorPages: every kind of domain error has its status and words, and
// internal errors are never put into words.
func TestErrorPages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err    error
		status int
		msg    string
	}{
		{taskd.NotFound("project"), http.StatusNotFound, "There is no such project, or you cannot see it."},
		{taskd.NotFound("parent"), http.StatusNotFound, "There is no such task, or you cannot see it."},
		{taskd.NotFound("member"), http.StatusNotFound, "There is no such person in this account, or you cannot see it."},
		{taskd.NotFound("something new"), http.StatusNotFound, "There is no such page."},
		{taskd.Forbidden("comment", "Only the comment's author may change it"), http.StatusForbidden, "Only the comment's author may change it."},
		{taskd.Invalid("title", "Value is too long."), http.StatusUnprocessableEntity, "Value is too long."},
		{taskd.Conflict(taskd.ReasonOpenSubtasks, "task", "Task has children"), http.StatusConflict, "Task has children."},
		{taskd.Conflict(taskd.ReasonNone, "email", ""), http.StatusConflict, "This cannot be done in the current state."},
		{taskd.Unauthenticated("expired"), http.StatusUnauthorized, "Please sign in."},
		{taskd.RateLimited(time.Minute), http.StatusTooManyRequests, "Too many attempts. Please wait a few minutes and try again."},
	} {
		status, msg, ok := page(tc.err)
		if !ok || status != tc.status || msg != tc.msg {
			t.Errorf("%v: %d %q %v, want %d %q", tc.err, status, msg, ok, tc.status, tc.msg)
		}
	}
	for _, err := range []error{taskd.Internal("query", errors.New("connection refused at 10.0.0.7")), errors.New("plain")} {
		if _, msg, ok := page(err); ok {
			t.Errorf("%v shown as %q", err, msg)
		}
		if _, ok := asFormError("f", err); ok {
			t.Errorf("%v shown beside a form", err)
		}
	}
}

// TestFormErrors: a required field is named by its label; other errors
// show their message, or the kind's words when they have none.
func TestFormErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{taskd.Required("title"), "Name is required"},
		{taskd.Invalid("email", "E-mail address is invalid"), "E-mail address is invalid"},
		{taskd.NotFound("parent"), "There is no such task, or you cannot see it."},
	} {
		fe, ok := asFormError("project", tc.err)
		if !ok || fe.Message != tc.want || fe.Form != "project" {
			t.Errorf("%v: %+v, want %q", tc.err, fe, tc.want)
		}
	}
}
