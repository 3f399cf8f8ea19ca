package web

import (
	"net/http"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// peopleView is the people page.
type peopleView struct {
	Members []taskd.Member
	Error   *formError
	Values  map[string][]string
	Shown   *flash
}

func (s *Server) people(w http.ResponseWriter, r *http.Request, v *view) error {
	acct, _, ok, err := s.member(w, r, v)
	if !ok {
		return err
	}
	return s.renderPeople(w, r, v, acct, http.StatusOK, nil)
}

func (s *Server) renderPeople(w http.ResponseWriter, r *http.Request, v *view, acct taskd.Account, status int, fe *formError) error {
	members, err := s.cfg.Store.Members(r.Context(), acct.ID)
	if err != nil {
		return err
	}
	v.Title, v.Data = "People", &peopleView{Members: members, Error: fe, Values: r.PostForm, Shown: s.takeFlash(w, r)}
	return s.renderStatus(w, r, status, "people.html", v)
}

// addPerson adds a member (owners and admins). Someone new to taskd gets
// the password given; someone already registered keeps theirs.
func (s *Server) addPerson(w http.ResponseWriter, r *http.Request, v *view) error {
	acct, ok, err := s.allowed(w, r, v, taskd.PermManagePeople)
	if !ok {
		return err
	}
	ctx := r.Context()
	role, err := taskd.ParseRole(r.PostFormValue("role"))
	var np taskd.NewPerson
	if err == nil {
		np, err = s.newMember(r)
	}
	if err == nil {
		_, err = s.cfg.Store.AddMember(ctx, acct.ID, np, role)
	}
	if err != nil {
		fe, ok := asFormError("person", err)
		if !ok {
			return err
		}
		return s.renderPeople(w, r, v, acct, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: np.Email + " was added as " + string(role) + "."})
	return see303(w, r, s.cfg.accountPath(acct)+"/people")
}

// newMember reads the person of the add form. A registered e-mail needs no
// password: the person keeps their own.
func (s *Server) newMember(r *http.Request) (taskd.NewPerson, error) {
	email, err := taskd.NormalizeEmail(r.PostFormValue("email"))
	if err != nil {
		return taskd.NewPerson{}, taskd.Errorf(taskd.CodeInvalidValue, "email", "E-mail address is invalid")
	}
	if p, err := s.cfg.Store.PersonByEmail(r.Context(), email); err == nil {
		return taskd.NewPerson{Email: p.Email}, nil
	} else if taskd.ErrorCode(err) != taskd.CodeUserInvalid {
		return taskd.NewPerson{}, err
	}
	return taskd.PreparePerson(email, r.PostFormValue("password"), r.PostFormValue("first_name"), r.PostFormValue("last_name"), secret.HashPassword)
}

func (s *Server) setRole(w http.ResponseWriter, r *http.Request, v *view) error {
	acct, ok, err := s.allowed(w, r, v, taskd.PermManagePeople)
	if !ok {
		return err
	}
	id, err := taskd.ParseID(r.PathValue("pid"), taskd.CodeUserInvalid, "member")
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
func (s *Server) apiKey(w http.ResponseWriter, r *http.Request, v *view) error {
	if _, ok, err := s.allowed(w, r, v, taskd.PermSettings); !ok {
		return err
	}
	v.Title, v.Data = "Administrative API key", s.takeFlash(w, r)
	return s.render(w, r, "apikey.html", v)
}

func (s *Server) rotateAPIKey(w http.ResponseWriter, r *http.Request, v *view) error {
	acct, ok, err := s.allowed(w, r, v, taskd.PermSettings)
	if !ok {
		return err
	}
	key := secret.APIKey()
	if err := s.cfg.Store.SetAPIKey(r.Context(), acct.ID, s.cfg.Sealer.SealAPIKey(acct.Slug, key)); err != nil {
		return err
	}
	s.setFlash(w, flash{Secret: key, Message: "A new key was made; the old one stopped working."})
	return see303(w, r, s.cfg.accountPath(acct)+"/settings/apikey")
}
