package web

import (
	"net/http"
	"strconv"

	"github.com/taskd/taskd/people"
)

// unsubscribeView is the page an e-mail digest's "stop" link opens.
type unsubscribeView struct {
	Person string // the id, as the link gives it
	MAC    string
	Done   bool
}

// unsubscribeLink checks the link's person and MAC; 0 when they do not
// match.
func (s *Server) unsubscribeLink(person, mac string) int64 {
	id, err := strconv.ParseInt(person, 10, 64)
	if err != nil || id <= 0 || !people.CheckUnsubscribe(s.cfg.Sealer, id, mac) {
		return 0
	}
	return id
}

// unsubscribePage is GET /notifications/off?p=…&s=…: a form that turns
// the person's e-mail notifications off (a GET changes nothing: mail
// scanners open links).
func (s *Server) unsubscribePage(w http.ResponseWriter, r *http.Request, v *view) error {
	q := r.URL.Query()
	if s.unsubscribeLink(q.Get("p"), q.Get("s")) == 0 {
		return s.deadLink(w, r, v)
	}
	v.Title, v.Data = "Stop e-mail notifications", unsubscribeView{Person: q.Get("p"), MAC: q.Get("s")}
	return s.render(w, r, "unsubscribe.html", v)
}

// unsubscribe is POST /notifications/off.
func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request, v *view) error {
	id := s.unsubscribeLink(r.PostFormValue("p"), r.PostFormValue("s"))
	if id == 0 {
		return s.deadLink(w, r, v)
	}
	if err := s.cfg.Store.SetNotify(r.Context(), id, false); err != nil {
		return err
	}
	v.Title, v.Data = "Stop e-mail notifications", unsubscribeView{Done: true}
	return s.render(w, r, "unsubscribe.html", v)
}
