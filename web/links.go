package web

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// linkRoutes are the addresses of the one-time links of mail: joining, a
// password's reset, a new e-mail's confirmation.
func (s *Server) linkRoutes() []route {
	return []route{
		{"GET /join", s.page(s.joinPage)},
		{"POST /join", s.form(s.join)},
		{"GET /reset", s.page(s.resetRequestPage)},
		{"POST /reset", s.form(s.resetRequest)},
		{"GET /reset/password", s.page(s.resetPage)},
		{"POST /reset/password", s.form(s.resetPassword)},
		{"GET /confirm-email", s.page(s.confirmEmailPage)},
		{"POST /confirm-email", s.form(s.confirmEmail)},
	}
}

// linkView is a page reached from a one-time link in an e-mail.
type linkView struct {
	Token      string
	Invitation *taskd.Invitation
	Registered bool   // the invited person has a password: sign in instead
	Sent       bool   // the reset request was taken
	Kept       string // why the reset link was kept, not sent (Server.kept)
	Email      string // the reset form's address
	FirstName  string
	LastName   string
	Error      string
}

// linkToken reads the token of a link: ?t= on the page, the form field t
// when it is sent.
func linkToken(r *http.Request) string {
	if r.Method == http.MethodPost {
		return r.PostFormValue("t")
	}
	return r.URL.Query().Get("t")
}

// joinPage is GET /join?t=…: the invitation of the link. Someone new to
// taskd chooses a name and password here; someone registered signs in and
// accepts.
func (s *Server) joinPage(w http.ResponseWriter, r *http.Request, v *view) error {
	token := linkToken(r)
	inv, registered, err := s.cfg.Invitations.InvitationByLink(r.Context(), secret.HashToken(token))
	if taskd.IsNotFound(err) {
		return s.deadLink(w, r, v)
	}
	if err != nil {
		return err
	}
	v.Title = "Join " + inv.Account.Name
	lv := &linkView{Token: token, Invitation: &inv, Registered: registered}
	if !registered { // the names the inviter gave, each in its own field
		p, err := s.cfg.Accounts.PersonByID(r.Context(), inv.Person.ID)
		if err != nil {
			return err
		}
		lv.FirstName, lv.LastName = p.FirstName, p.LastName
	}
	v.Data = lv
	return s.render(w, r, "join.html", v)
}

// join is POST /join: set the password and names, become a member, and be
// signed in.
func (s *Server) join(w http.ResponseWriter, r *http.Request, v *view) error {
	ctx := r.Context()
	token := linkToken(r)
	hash := secret.HashToken(token)
	inv, registered, err := s.cfg.Invitations.InvitationByLink(ctx, hash)
	if taskd.IsNotFound(err) {
		return s.deadLink(w, r, v)
	}
	if err != nil {
		return err
	}
	lv := &linkView{Token: token, Invitation: &inv, Registered: registered,
		FirstName: r.PostFormValue("first_name"), LastName: r.PostFormValue("last_name")}
	v.Title, v.Data = "Join "+inv.Account.Name, lv
	np, err := taskd.PreparePerson(inv.Person.Email, r.PostFormValue("password"), lv.FirstName, lv.LastName, s.cfg.Passwords.Hash)
	if err == nil {
		var p taskd.Person
		var acct taskd.Account
		if acct, p, err = s.cfg.Invitations.JoinByLink(ctx, hash, np); err == nil {
			if err := s.signIn(ctx, w, p); err != nil {
				return err
			}
			return see303(w, r, s.cfg.accountPath(acct)+"/")
		}
	}
	if taskd.IsNotFound(err) {
		return s.deadLink(w, r, v)
	}
	e := taskd.AsError(err)
	if e.Kind != taskd.KindInvalid && e.Kind != taskd.KindConflict {
		return err
	}
	lv.Error = e.Message
	return s.renderStatus(w, r, http.StatusUnprocessableEntity, "join.html", v)
}

// deadLink is the page of a link that is unknown, used or expired.
func (s *Server) deadLink(w http.ResponseWriter, r *http.Request, v *view) error {
	s.fail(w, r, http.StatusNotFound, "This link does not work any more: it was used already, or it expired. Ask for a new one.")
	return nil
}

// resetRequestPage is GET /reset: the form that asks for a reset link.
func (s *Server) resetRequestPage(w http.ResponseWriter, r *http.Request, v *view) error {
	v.Title, v.Data = "Reset your password", &linkView{}
	return s.render(w, r, "reset.html", v)
}

// resetRequest is POST /reset. The answer is the same whether or not the
// address is registered, and requests are limited per address and client
// as sign-ins are.
func (s *Server) resetRequest(w http.ResponseWriter, r *http.Request, v *view) error {
	ctx := r.Context()
	lv := &linkView{Email: r.PostFormValue("email")}
	v.Title, v.Data = "Reset your password", lv
	email, err := taskd.NormalizeEmail(lv.Email)
	if err != nil {
		lv.Error = "Enter the e-mail address you sign in with."
		return s.renderStatus(w, r, http.StatusUnprocessableEntity, "reset.html", v)
	}
	tickets, wait, err := s.takeSignIn(r, "reset:"+email)
	if err != nil {
		return err
	}
	if tickets == nil {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
		lv.Error = "Too many requests. Wait a few minutes and try again."
		return s.renderStatus(w, r, http.StatusTooManyRequests, "reset.html", v)
	}
	if err := s.cfg.People.RequestReset(ctx, email); err != nil {
		if taskd.ErrorKind(err) != taskd.KindRateLimited { // the address's mail budget, spent whether or not it is known
			return err
		}
		lv.Error = sentence(taskd.AsError(err).Message, "Too many requests. Wait a few minutes and try again.")
		return s.renderStatus(w, r, formStatus(w, err), "reset.html", v)
	}
	lv.Sent, lv.Kept = true, s.kept()
	return s.render(w, r, "reset.html", v)
}

// resetPage is GET /reset/password?t=…: choose a new password.
func (s *Server) resetPage(w http.ResponseWriter, r *http.Request, v *view) error {
	v.Title, v.Data = "Choose a new password", &linkView{Token: linkToken(r)}
	return s.render(w, r, "resetpassword.html", v)
}

// resetPassword is POST /reset/password: the new password replaces the
// old one, every session of the person ends, and they sign in again.
func (s *Server) resetPassword(w http.ResponseWriter, r *http.Request, v *view) error {
	lv := &linkView{Token: linkToken(r)}
	v.Title, v.Data = "Choose a new password", lv
	password := r.PostFormValue("password")
	if len(password) < taskd.MinPasswordLen {
		lv.Error = "The password must be at least " + strconv.Itoa(taskd.MinPasswordLen) + " characters."
		return s.renderStatus(w, r, http.StatusUnprocessableEntity, "resetpassword.html", v)
	}
	hash, err := s.cfg.Passwords.Hash(password)
	if err != nil {
		return err
	}
	p, err := s.cfg.Accounts.ResetPassword(r.Context(), secret.HashToken(lv.Token), hash)
	if taskd.IsNotFound(err) {
		return s.deadLink(w, r, v)
	}
	if err != nil {
		return err
	}
	s.clearCookie(w, "session")
	s.setFlash(w, flash{Message: "Your password was changed. Sign in with it."})
	return see303(w, r, "/login?email="+url.QueryEscape(p.Email))
}

// confirmEmail is GET /confirm-email?t=… with a form that confirms (a GET
// changes nothing: mail scanners open links).
func (s *Server) confirmEmailPage(w http.ResponseWriter, r *http.Request, v *view) error {
	v.Title, v.Data = "Confirm your new address", &linkView{Token: linkToken(r)}
	return s.render(w, r, "confirmemail.html", v)
}

// confirmEmail is POST /confirm-email: the person's address changes.
func (s *Server) confirmEmail(w http.ResponseWriter, r *http.Request, v *view) error {
	p, err := s.cfg.Accounts.ConfirmEmail(r.Context(), secret.HashToken(linkToken(r)))
	if taskd.IsNotFound(err) {
		return s.deadLink(w, r, v)
	}
	if taskd.ErrorKind(err) == taskd.KindConflict {
		s.fail(w, r, http.StatusConflict, "Another person signs in with this address now, so yours was not changed.")
		return nil
	}
	if err != nil {
		return err
	}
	s.setFlash(w, flash{Message: "You now sign in as " + p.Email + "."})
	if v.Person != nil {
		return see303(w, r, "/profile")
	}
	return see303(w, r, "/login?email="+url.QueryEscape(p.Email))
}
