package web

import (
	"net/http"
	"strconv"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/people"
)

// notificationRoutes are the addresses of the stop link of notification
// e-mails.
func (s *Server) notificationRoutes() []route {
	return []route{
		{"GET /notifications/off", s.page(s.unsubscribePage)},
		{"POST /notifications/off", s.form(s.unsubscribe)},
	}
}

// unsubscribeView is the page an e-mail digest's "stop" link opens.
type unsubscribeView struct {
	Person string // the id, as the link gives it
	MAC    string
	Done   bool
}

// unsubscribeLink checks the link's person and MAC; 0 when they do not
// match (or the person's address is no longer the one it was mailed to).
func (s *Server) unsubscribeLink(r *http.Request, person, mac string) (int64, error) {
	id, err := strconv.ParseInt(person, 10, 64)
	if err != nil || id <= 0 {
		return 0, nil
	}
	p, err := s.cfg.Accounts.PersonByID(r.Context(), id)
	if taskd.IsNotFound(err) || (err == nil && !people.CheckUnsubscribe(s.cfg.Sealer, p, mac)) {
		return 0, nil
	}
	return p.ID, err
}

// unsubscribePage is GET /notifications/off?p=…&s=…: a form that turns
// the person's e-mail notifications off (a GET changes nothing: mail
// scanners open links).
func (s *Server) unsubscribePage(w http.ResponseWriter, r *http.Request, v *view) error {
	q := r.URL.Query()
	if id, err := s.unsubscribeLink(r, q.Get("p"), q.Get("s")); id == 0 {
		if err != nil {
			return err
		}
		return s.deadLink(w, r, v)
	}
	v.Title, v.Data = "Stop e-mail notifications", unsubscribeView{Person: q.Get("p"), MAC: q.Get("s")}
	return s.render(w, r, "unsubscribe.html", v)
}

// unsubscribe is POST /notifications/off.
func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request, v *view) error {
	id, err := s.unsubscribeLink(r, r.PostFormValue("p"), r.PostFormValue("s"))
	if id == 0 {
		if err != nil {
			return err
		}
		return s.deadLink(w, r, v)
	}
	if err := s.cfg.Accounts.SetNotify(r.Context(), id, false); err != nil {
		return err
	}
	v.Title, v.Data = "Stop e-mail notifications", unsubscribeView{Done: true}
	return s.render(w, r, "unsubscribe.html", v)
}
