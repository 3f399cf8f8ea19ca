package web

import (
	"html/template"
	"net/http"
	"regexp"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/mail"
)

// devMailRoutes are the addresses of the outbox's page (--dev); none unless
// Config.ShowMail.
func (s *Server) devMailRoutes() []route {
	if !s.cfg.ShowMail {
		return nil
	}
	return []route{
		{"GET /dev/mail", s.page(s.devMail)},
		{"GET /dev/mail/{message}", s.page(s.devMailMessage)},
	}
}

// devMailFuncs are the template functions of the outbox's page.
func devMailFuncs() template.FuncMap {
	return template.FuncMap{
		"linked": linked,
	}
}

// mailEntry is one message of the outbox on the developer's page.
type mailEntry struct {
	taskd.QueuedMail
	Message mail.Message
}

// kept says why a message was kept, not sent, when no mail server is
// configured (the message waits in the outbox, on /dev/mail in --dev),
// and is empty when mail is sent.
func (s *Server) kept() string {
	switch {
	case s.cfg.Outbox == nil || !s.cfg.Outbox.Keeps():
		return ""
	case s.cfg.ShowMail:
		return "no mail server is configured (read it at /dev/mail)"
	default:
		return "no mail server is configured"
	}
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

// devMailMessage is GET /dev/mail/{message}: one message, text and HTML.
func (s *Server) devMailMessage(w http.ResponseWriter, r *http.Request, v *view) error {
	id, err := taskd.ParseID(r.PathValue("message"), "mail")
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

// webAddress is an http(s) address in a message's text.
var webAddress = regexp.MustCompile(`https?://[^\s<>"']+`)

// linked is a message's text, escaped, with its web addresses as links, so
// that a kept invitation is followed with one click. Punctuation that ends
// a sentence stays outside the link.
func linked(text string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range webAddress.FindAllStringIndex(text, -1) {
		addr := strings.TrimRight(text[m[0]:m[1]], ".,;:!?)")
		b.WriteString(template.HTMLEscapeString(text[last:m[0]]))
		b.WriteString(`<a href="` + template.HTMLEscapeString(addr) + `">` + template.HTMLEscapeString(addr) + `</a>`)
		last = m[0] + len(addr)
	}
	b.WriteString(template.HTMLEscapeString(text[last:]))
	return template.HTML(b.String())
}
