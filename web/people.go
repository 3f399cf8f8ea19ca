package web

import (
	"net/http"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// peopleView is the people page.
type peopleView struct {
	Members     []taskd.Member
	Invitations []taskd.Invitation // pending; shown to those who manage people
	Error       *formError
	Values      map[string][]string
	Shown       *flash
}

func (s *Server) people(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	return s.renderPeople(w, r, v, acct, http.StatusOK, nil)
}

func (s *Server) renderPeople(w http.ResponseWriter, r *http.Request, v *view, acct taskd.Account, status int, fe *formError) error {
	members, err := s.cfg.Store.Members(r.Context(), acct.ID)
	if err != nil {
		return err
	}
	pv := &peopleView{Members: members, Error: fe, Values: r.PostForm, Shown: s.takeFlash(w, r)}
	if v.Nav != nil && v.Nav.People {
		if pv.Invitations, err = s.cfg.Store.AccountInvitations(r.Context(), acct.ID); err != nil {
			return err
		}
	}
	v.Title, v.Data = "People", pv
	return s.renderStatus(w, r, status, "people.html", v)
}

// addPerson invites a person (owners and admins). Nobody joins without
// consenting: the person accepts the invitation after signing in. Someone
// new to taskd is registered with the password given; someone already
// registered keeps theirs. Both cases take the same steps and get the
// same answer, so the page does not tell whether an e-mail is registered.
func (s *Server) addPerson(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	ctx := r.Context()
	role, err := taskd.ParseRole(r.PostFormValue("role"))
	var np taskd.NewPerson
	if err == nil {
		np, err = s.newMember(r)
	}
	if err == nil {
		_, err = s.cfg.Store.Invite(ctx, acct.ID, np, role, v.Person.ID)
	}
	if err != nil {
		fe, ok := asFormError("person", err)
		if !ok {
			return err
		}
		return s.renderPeople(w, r, v, acct, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: np.Email + " was invited as " + string(role) + ". They join when they accept, after signing in."})
	return see303(w, r, s.cfg.accountPath(acct)+"/people")
}

// newMember reads the person of the add form. The password is checked and
// hashed whether or not the e-mail is registered (a registered person keeps
// their own), so neither the answer nor its time tells the two apart.
func (s *Server) newMember(r *http.Request) (taskd.NewPerson, error) {
	email, err := taskd.NormalizeEmail(r.PostFormValue("email"))
	if err != nil {
		return taskd.NewPerson{}, taskd.Invalid("email", "E-mail address is invalid")
	}
	return taskd.PreparePerson(email, r.PostFormValue("password"), r.PostFormValue("first_name"), r.PostFormValue("last_name"), secret.HashPassword)
}

func (s *Server) setRole(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	id, err := taskd.ParseID(r.PathValue("pid"), "member")
	var role taskd.Role
	if err == nil {
		role, err = taskd.ParseRole(r.PostFormValue("role"))
	}
	if err == nil {
		err = s.cfg.Store.SetRole(r.Context(), acct.ID, id, role)
	}
	if err != nil {
		fe, ok := asFormError("role", err)
		if !ok {
			return err
		}
		return s.renderPeople(w, r, v, acct, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: "Role changed."})
	return see303(w, r, s.cfg.accountPath(acct)+"/people")
}

// apiKey is the administrative-key page: rotate, and see the new key once.
func (s *Server) apiKey(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	v.Title, v.Data = "Administrative API key", s.takeFlash(w, r)
	return s.render(w, r, "apikey.html", v)
}

func (s *Server) rotateAPIKey(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	key := secret.APIKey()
	if err := s.cfg.Store.SetAPIKey(r.Context(), acct.ID, s.cfg.Sealer.SealAPIKey(acct.Slug, key)); err != nil {
		return err
	}
	s.setFlash(w, flash{Secret: key, Message: "A new key was made; the old one stopped working."})
	return see303(w, r, s.cfg.accountPath(acct)+"/settings/apikey")
}
