package web

import (
	"errors"
	"net/http"

	"github.com/taskd/taskd"
)

// nouns name the objects of not-found pages, by the domain's field names.
var nouns = map[string]string{
	"account": "account", "member": "person in this account", "person": "person", "project": "project", "task": "task", "parent": "task",
	"comment": "comment", "webhook": "webhook in this account", "delivery": "delivery",
	"invitation": "invitation", "client": "application in this account", "group": "tag group", "tag": "tag", "custom field": "custom field in this account",
}

// page is how a page answers an error it does not show beside a form: the
// one table from error kinds to statuses and words. ok is false for
// internal errors, which are logged and answered with a 500 instead.
func page(err error) (status int, msg string, ok bool) {
	var e *taskd.Error
	if !errors.As(err, &e) {
		return 0, "", false
	}
	switch e.Kind {
	case taskd.KindNotFound:
		if noun, ok := nouns[e.Field]; ok {
			return http.StatusNotFound, "There is no such " + noun + ", or you cannot see it.", true
		}
		return http.StatusNotFound, "There is no such page.", true
	case taskd.KindForbidden:
		return http.StatusForbidden, sentence(e.Message, "You may not do this."), true
	case taskd.KindInvalid:
		return http.StatusUnprocessableEntity, sentence(e.Message, "The form is not filled in right."), true
	case taskd.KindConflict:
		return http.StatusConflict, sentence(e.Message, "This cannot be done in the current state."), true
	case taskd.KindUnauthenticated:
		return http.StatusUnauthorized, "Please sign in.", true
	case taskd.KindRateLimited:
		return http.StatusTooManyRequests, "Too many attempts. Please wait a few minutes and try again.", true
	}
	return 0, "", false
}

// sentence ends msg with a full stop, or gives the fallback for no message.
func sentence(msg, fallback string) string {
	switch {
	case msg == "":
		return fallback
	case msg[len(msg)-1] == '.':
		return msg
	}
	return msg + "."
}

// failWith answers with the page for err and returns nil, or returns an
// internal error for the caller to report.
func (s *Server) failWith(w http.ResponseWriter, r *http.Request, err error) error {
	status, msg, ok := page(err)
	if !ok {
		return err
	}
	s.fail(w, r, status, msg)
	return nil
}
