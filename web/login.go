package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/secret"
)

// signInRoutes are the addresses of signing in and out, and the home page.
func (s *Server) signInRoutes() []route {
	return []route{
		{"GET /{$}", s.page(s.home)},
		{"GET /login", s.page(s.loginPage)},
		{"POST /login", s.form(s.login)},
		{"POST /logout", s.form(s.logout)},
	}
}

// Sign-in limits: failed attempts per e-mail and per client address within
// 15 minutes, counted in the database so that every replica sees them. An
// attempt is counted before its password is checked and given back if it
// succeeds, so parallel attempts cannot pass the limit.
var (
	signInLimitPerEmail   = ratelimit.Limit{Max: 10, Window: 15 * time.Minute}
	signInLimitPerAddress = ratelimit.Limit{Max: 50, Window: 15 * time.Minute}
)

// loginView is the sign-in form.
type loginView struct {
	Next  string
	Email string
	Error string
	// Client is the application asking for access, when signing in is
	// the first step of an authorization.
	Client *taskd.Client
	Shown  *flash
}

func (s *Server) home(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login")
	}
	ms, err := s.cfg.Accounts.Memberships(r.Context(), v.Person.ID)
	if err != nil {
		return err
	}
	invitations, err := s.cfg.Invitations.PersonInvitations(r.Context(), v.Person.ID)
	if err != nil {
		return err
	}
	if len(ms) == 1 && len(invitations) == 0 {
		return see303(w, r, s.cfg.accountPath(ms[0].Account)+"/")
	}
	type entry struct {
		taskd.Membership
		URL      string
		Settings bool
	}
	var list []entry
	for _, m := range ms {
		list = append(list, entry{m, s.cfg.AccountURL(m.Account.Slug), m.Role.Can(taskd.PermSettings)})
	}
	v.Title, v.Data = "Your accounts", struct {
		Accounts    []entry
		Invitations []taskd.Invitation
	}{list, invitations}
	return s.render(w, r, "home.html", v)
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request, v *view) error {
	next := localPath(r.URL.Query().Get("next"))
	v.Title = "Sign in"
	v.Data = loginView{Next: next, Email: r.URL.Query().Get("email"), Shown: s.takeFlash(w, r), Client: s.askingClient(r, next)}
	return s.render(w, r, "login.html", v)
}

// askingClient is the application that asks for access when next, where
// signing in leads, is a valid authorization request on this server: the
// path /oauth2/authorize with a registered client_id and one of its
// redirect URIs (oauth.Server.ParseRequest). Its name comes from the
// registration, never from the address. nil for any other next.
func (s *Server) askingClient(r *http.Request, next string) *taskd.Client {
	u, err := url.Parse(localPath(next))
	if err != nil || u.Path != "/oauth2/authorize" || s.cfg.OAuth == nil {
		return nil
	}
	req, err := s.cfg.OAuth.ParseRequest(r.Context(), u.Query())
	var re *oauth.RequestError
	if err != nil {
		if !errors.As(err, &re) {
			s.cfg.Log.WarnContext(r.Context(), "sign-in page: reading the authorization request", "err", err)
		}
		return nil
	}
	return &req.Client
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
	// The attempt is counted, and the person read, in one statement.
	limiters := []*ratelimit.Strict{s.signInsPerEmail, s.signInsPerAddress}
	var attempts []ratelimit.Attempt
	var used []*ratelimit.Strict
	for i, key := range []string{email, ratelimit.ClientAddress(r, s.cfg.TrustProxy)} {
		if a, on := limiters[i].Plan(key); on {
			attempts, used = append(attempts, a), append(used, limiters[i])
		}
	}
	p, invited, counted, err := s.cfg.Sessions.SignInAttempt(ctx, email, attempts)
	if err != nil && !taskd.IsNotFound(err) {
		return err
	}
	var tickets []signInTicket
	var wait time.Duration
	refused := false
	for i, a := range attempts {
		t, w, ok := used[i].Judge(a, counted[i].Cur, counted[i].Counts)
		tickets = append(tickets, signInTicket{used[i], t})
		if !ok {
			refused, wait = true, max(wait, w)
		}
	}
	if refused { // nothing stays counted
		for _, t := range tickets {
			if err := t.give(ctx); err != nil {
				return err
			}
		}
		w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
		lv.Error, lv.Client = "Too many failed sign-ins. Wait a few minutes and try again.", s.askingClient(r, next)
		return s.renderStatus(w, r, http.StatusTooManyRequests, "login.html", v)
	}
	hash := p.PasswordHash
	if hash == "" {
		hash = s.dummyHash
	}
	if !secret.VerifyPassword(hash, r.PostFormValue("password")) || p.ID == 0 {
		lv.Error, lv.Client = "The e-mail or password is not right.", s.askingClient(r, next)
		return s.renderStatus(w, r, http.StatusUnauthorized, "login.html", v)
	}
	// The session starts and the attempts are given back in one statement.
	back := make([]ratelimit.Ticket, len(tickets))
	for i, t := range tickets {
		back[i] = t.ticket
	}
	v2 := secret.Token(32)
	if err := s.cfg.Sessions.StartSession(ctx, secret.HashToken(v2), p.ID, s.cfg.Now().Add(sessionTTL), back); err != nil {
		return err
	}
	s.setCookie(w, "session", v2, sessionTTL)
	if invited { // invitations first (afterSignIn)
		next = "/invitations?next=" + url.QueryEscape(next)
	}
	return see303(w, r, next)
}

// signInTicket is an attempt counted by a sign-in limiter.
type signInTicket struct {
	limiter *ratelimit.Strict
	ticket  ratelimit.Ticket
}

func (t signInTicket) give(ctx context.Context) error { return t.limiter.Return(ctx, t.ticket) }

// takeSignIn counts a sign-in attempt under the e-mail and the client
// address. If either limit is reached it returns no tickets, how long to
// wait, and nothing stays counted.
func (s *Server) takeSignIn(r *http.Request, email string) ([]signInTicket, time.Duration, error) {
	ctx := r.Context()
	var tickets []signInTicket
	for _, k := range []struct {
		limiter *ratelimit.Strict
		key     string
	}{{s.signInsPerEmail, email}, {s.signInsPerAddress, ratelimit.ClientAddress(r, s.cfg.TrustProxy)}} {
		t, wait, ok, err := k.limiter.Take(ctx, k.key)
		if err == nil && ok {
			tickets = append(tickets, signInTicket{k.limiter, t})
			continue
		}
		for _, t := range tickets {
			err = errors.Join(err, t.give(ctx))
		}
		return nil, wait, err
	}
	return tickets, 0, nil
}

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
