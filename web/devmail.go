package web

import (
	"net/http"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/mail"
)

// mailEntry is one message of the outbox on the developer's page.
type mailEntry struct {
	taskd.QueuedMail
	Message mail.Message
}

// devMail is GET /dev/mail (--dev only): the outbox, newest first. Without
// --smtp-url nothing is sent, and the messages are read here.
func (s *Server) devMail(w http.ResponseWriter, r *http.Request, v *view) error {
	list, err := s.cfg.Outbox.Store.Mail(r.Context(), 100)
	if err != nil {
		return err
	}
	v.Title, v.Data = "Outgoing mail", list
	return s.render(w, r, "devmail.html", v)
}

// devMailMessage is GET /dev/mail/{id}: one message, text and HTML.
func (s *Server) devMailMessage(w http.ResponseWriter, r *http.Request, v *view) error {
	id, err := taskd.ParseID(r.PathValue("id"), "mail")
	if err != nil {
		s.Error(w, r, http.StatusNotFound)
		return nil
	}
	q, err := s.cfg.Outbox.Store.MailByID(r.Context(), id)
	if taskd.IsNotFound(err) {
		s.Error(w, r, http.StatusNotFound)
		return nil
	}
	if err != nil {
		return err
	}
	m, err := s.cfg.Outbox.Open(q)
	if err != nil {
		return err
	}
	v.Title, v.Data = q.Subject, mailEntry{QueuedMail: q, Message: m}
	return s.render(w, r, "devmailmessage.html", v)
}
