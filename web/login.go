package web

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// Sign-in limits: failed attempts per e-mail and per client address within
// loginWindow, counted in the database so that every replica sees them.
const (
	loginWindow     = 15 * time.Minute
	loginPerEmail   = 10
	loginPerAddress = 50
)

// loginView is the sign-in form.
type loginView struct {
	Next  string
	Email string
	Error string
}

func (s *Server) home(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login")
	}
	ms, err := s.cfg.Store.Memberships(r.Context(), v.Person.ID)
	if err != nil {
		return err
	}
	if len(ms) == 1 {
		return see303(w, r, s.cfg.accountPath(ms[0].Account)+"/")
	}
	type entry struct {
		taskd.Membership
		URL      string
		Settings bool
	}
	var list []entry
	for _, m := range ms {
		list = append(list, entry{m, s.cfg.AccountURL(m.Account.Slug), m.Role != taskd.RoleUser})
	}
	v.Title, v.Data = "Your accounts", list
	return s.render(w, r, "home.html", v)
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request, v *view) error {
	v.Title = "Sign in"
	v.Data = loginView{Next: localPath(r.URL.Query().Get("next"))}
	return s.render(w, r, "login.html", v)
}

// login checks the password. Unknown e-mails and wrong passwords get the
// same answer, after the same work.
func (s *Server) login(w http.ResponseWriter, r *http.Request, v *view) error {
	ctx := r.Context()
	next := localPath(r.PostFormValue("next"))
	lv := loginView{Next: next, Email: r.PostFormValue("email")}
	v.Title, v.Data = "Sign in", &lv
	email, err := taskd.NormalizeEmail(lv.Email)
	if err != nil {
		email = lv.Email
	}
	if len(email) > 320 { // no address is longer; keep the counter keys small
		email, lv.Email = email[:320], ""
	}
	keys := []string{"email:" + email, "ip:" + s.clientIP(r)}
	since := s.cfg.Now().Add(-loginWindow)
	for i, limit := range []int{loginPerEmail, loginPerAddress} {
		n, err := s.cfg.Store.LoginFailures(ctx, keys[i], since)
		if err != nil {
			return err
		}
		if n >= limit {
			w.Header().Set("Retry-After", strconv.Itoa(int(loginWindow/time.Second)))
			lv.Error = "Too many failed sign-ins. Wait a few minutes and try again."
			return s.renderStatus(w, r, http.StatusTooManyRequests, "login.html", v)
		}
	}
	p, err := s.cfg.Store.PersonByEmail(ctx, email)
	if err != nil && taskd.ErrorCode(err) != taskd.CodeUserInvalid {
		return err
	}
	hash := p.PasswordHash
	if hash == "" {
		hash = dummyHash
	}
	if !secret.VerifyPassword(hash, r.PostFormValue("password")) || p.ID == 0 {
		if err := s.cfg.Store.AddLoginFailure(ctx, keys); err != nil {
			return err
		}
		lv.Error = "The e-mail or password is not right."
		return s.renderStatus(w, r, http.StatusUnauthorized, "login.html", v)
	}
	if err := s.signIn(ctx, w, p); err != nil {
		return err
	}
	return see303(w, r, next)
}

// dummyHash makes a sign-in with an unknown e-mail cost what a real one does.
var dummyHash = func() string {
	h, err := secret.HashPassword(secret.Token(16))
	if err != nil {
		panic(err)
	}
	return h
}()

func (s *Server) logout(w http.ResponseWriter, r *http.Request, v *view) error {
	if err := s.signOut(r.Context(), w, r); err != nil {
		return err
	}
	next := localPath(r.PostFormValue("next"))
	if next == "/" {
		return see303(w, r, "/login")
	}
	return see303(w, r, "/login?next="+url.QueryEscape(next))
}
