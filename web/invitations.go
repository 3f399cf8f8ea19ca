package web

import (
	"net/http"
	"net/url"

	"github.com/taskd/taskd"
)

// invitationRoutes are the addresses of invitations: a person's, and an
// account's to cancel.
func (s *Server) invitationRoutes() []route {
	return []route{
		{"GET /invitations", s.page(s.invitations)},
		{"POST /invitations/{invitation}/accept", s.form(s.answerInvitation(true))},
		{"POST /invitations/{invitation}/decline", s.form(s.answerInvitation(false))},
		{"POST /a/{slug}/invitations/{invitation}/cancel", s.form(s.inAccount(taskd.PermManagePeople, s.cancelInvitation))},
	}
}

// invitationsView is the list of invitations waiting for the signed-in
// person.
type invitationsView struct {
	Invitations []taskd.Invitation
	Next        string
}

// invitations is GET /invitations: the invitations waiting for the signed-in
// person, each to accept or decline; "next" is where to go afterwards.
func (s *Server) invitations(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()))
	}
	list, err := s.cfg.Invitations.PersonInvitations(r.Context(), v.Person.ID)
	if err != nil {
		return err
	}
	v.Title, v.Data = "Invitations", invitationsView{Invitations: list, Next: localPath(r.URL.Query().Get("next"))}
	return s.render(w, r, "invitations.html", v)
}

// answerInvitation is POST /invitations/{invitation}/accept or /decline. Accepting
// leads to the account; declining back to the list, or to next once none
// is left.
func (s *Server) answerInvitation(accept bool) handler {
	return func(w http.ResponseWriter, r *http.Request, v *view) error {
		if v.Person == nil {
			return see303(w, r, "/login")
		}
		ctx := r.Context()
		next := localPath(r.PostFormValue("next"))
		id, err := taskd.ParseID(r.PathValue("invitation"), "invitation")
		if err != nil {
			return s.failWith(w, r, err)
		}
		if accept {
			acct, err := s.cfg.Invitations.AcceptInvitation(ctx, v.Person.ID, id)
			if err != nil {
				return s.failWith(w, r, err)
			}
			return see303(w, r, s.cfg.accountPath(acct)+"/")
		}
		if err := s.cfg.Invitations.DeclineInvitation(ctx, v.Person.ID, id); err != nil {
			return s.failWith(w, r, err)
		}
		left, err := s.cfg.Invitations.PersonInvitations(ctx, v.Person.ID)
		if err != nil {
			return err
		}
		if len(left) == 0 {
			return see303(w, r, next)
		}
		return see303(w, r, "/invitations?next="+url.QueryEscape(next))
	}
}

// cancelInvitation is POST /a/{slug}/invitations/{invitation}/cancel (owners and
// admins).
func (s *Server) cancelInvitation(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	id, err := taskd.ParseID(r.PathValue("invitation"), "invitation")
	if err == nil {
		err = s.cfg.Invitations.CancelInvitation(r.Context(), acct.ID, id)
	}
	if err != nil {
		return s.failWith(w, r, err)
	}
	return see303(w, r, s.cfg.accountPath(acct)+"/people")
}
