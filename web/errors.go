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

// Error answers with the error page of an HTTP status, in words safe for
// anyone to read.
func (s *Server) Error(w http.ResponseWriter, r *http.Request, status int) {
	msg := "Something went wrong on our side. Please try again."
	if status == http.StatusNotFound {
		msg = "There is no such page."
	}
	s.fail(w, r, status, msg)
}

// fail shows the error page with a message safe for the user.
// The page keeps the header of whoever is signed in, so they can go on.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	v := &view{Title: failTitle(status), Data: msg, CSRF: s.csrfToken(w, r)}
	if p, ok, err := s.person(r.Context(), r); err == nil && ok {
		v.Person = &p
	}
	if err := s.renderStatus(w, r, status, "error.html", v); err != nil {
		s.cfg.Log.ErrorContext(r.Context(), "render error page", "err", err)
	}
}

// failTitle is an error page's heading: what happened, in plain words,
// not the status's name.
func failTitle(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "This request could not be read"
	case http.StatusUnauthorized:
		return "Please sign in"
	case http.StatusForbidden:
		return "You cannot do this"
	case http.StatusNotFound:
		return "Nothing here"
	case http.StatusConflict:
		return "This cannot be done now"
	case http.StatusRequestEntityTooLarge:
		return "This is too large"
	case http.StatusUnprocessableEntity:
		return "Please check what you entered"
	case http.StatusTooManyRequests:
		return "Too many attempts"
	}
	if status >= 500 {
		return "Something went wrong"
	}
	return "This did not work"
}

func (s *Server) internal(w http.ResponseWriter, r *http.Request, err error) {
	s.cfg.Log.ErrorContext(r.Context(), "page failed", "path", r.URL.Path, "err", err)
	s.fail(w, r, http.StatusInternalServerError, "Something went wrong on our side. Please try again.")
}
