package web

import (
	"net/http"
	"net/url"

	"github.com/taskd/taskd"
)

// nav is the header of an account's pages: where one is, the account
// switcher, and the links one's role allows.
type nav struct {
	Account  taskd.Account
	Member   taskd.Member
	Accounts []taskd.Membership
	Settings bool // may see the settings (taskd.PermSettings)
	People   bool // may add people and set roles (taskd.PermManagePeople)
}

// member resolves the path's account for the signed-in person. A visitor is
// sent to sign in; a person who is not a member gets "not found", so that
// accounts cannot be discovered. ok false means it has answered.
func (s *Server) member(w http.ResponseWriter, r *http.Request, v *view) (taskd.Account, taskd.Member, bool, error) {
	if v.Person == nil {
		return taskd.Account{}, taskd.Member{}, false, see303(w, r, "/login?next="+url.QueryEscape(r.URL.Path))
	}
	ctx := r.Context()
	acct, err := s.cfg.Store.AccountBySlug(ctx, r.PathValue("slug"))
	if taskd.IsNotFound(err) {
		s.fail(w, r, http.StatusNotFound, "There is no such account.")
		return acct, taskd.Member{}, false, nil
	}
	if err != nil {
		return acct, taskd.Member{}, false, err
	}
	m, err := s.cfg.Store.Member(ctx, acct.ID, v.Person.ID)
	if taskd.IsNotFound(err) {
		s.fail(w, r, http.StatusNotFound, "There is no such account.")
		return acct, m, false, nil
	}
	if err != nil {
		return acct, m, false, err
	}
	ms, err := s.cfg.Store.Memberships(ctx, v.Person.ID)
	if err != nil {
		return acct, m, false, err
	}
	v.Nav = &nav{Account: acct, Member: m, Accounts: ms, Settings: m.Role.Can(taskd.PermSettings), People: m.Role.Can(taskd.PermManagePeople)}
	return acct, m, true, nil
}

// allowed is member for pages that need perm (taskd.Authorize): a member
// whose role does not allow it gets 403. ok false means it has answered.
func (s *Server) allowed(w http.ResponseWriter, r *http.Request, v *view, perm taskd.Permission) (taskd.Account, bool, error) {
	acct, m, ok, err := s.member(w, r, v)
	if !ok {
		return acct, false, err
	}
	if err := taskd.Authorize(actor(acct, m), perm); err != nil {
		s.fail(w, r, http.StatusForbidden, "Only the account's owner and admins may do this.")
		return acct, false, nil
	}
	return acct, true, nil
}

// actor is who a change made in a page is made by.
func actor(acct taskd.Account, m taskd.Member) taskd.Actor {
	return taskd.Actor{AccountID: acct.ID, Person: m.Ref(), Role: m.Role}
}

// formParams reads a POSTed form the way the API reads its parameters:
// a field is "given" when it is present in the form.
func formParams(r *http.Request) taskd.Params {
	return func(name string) (string, bool) {
		v, ok := r.PostForm[name]
		if !ok || len(v) == 0 {
			return "", false
		}
		return v[0], true
	}
}

// formError is a domain error shown next to the form that caused it.
type formError struct {
	Form    string // which form on the page
	Field   string
	Message string
}

// asFormError turns a domain error into a message for the form, or
// returns false for internal errors.
func asFormError(form string, err error) (*formError, bool) {
	e := taskd.AsError(err)
	if e.Kind == taskd.KindInternal {
		return nil, false
	}
	msg := e.Message
	if e.Reason == taskd.ReasonRequired && e.Field != "" {
		msg = fieldLabel(e.Field) + " is required"
	}
	if msg == "" {
		_, msg, _ = page(err)
	}
	return &formError{Form: form, Field: e.Field, Message: msg}, true
}

func fieldLabel(field string) string {
	switch field {
	case "title":
		return "Name"
	case "text":
		return "Text"
	case "email":
		return "E-mail"
	case "password":
		return "Password"
	}
	return field
}
