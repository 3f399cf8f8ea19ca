package web

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/ratelimit"
	"github.com/taskd/taskd/secret"
)

// SessionStore keeps sign-in sessions under the hashes of their cookies.
// Only the pages sign people in, so the interface is theirs (package
// store implements it, store/storetest checks it).
type SessionStore interface {
	CreateSession(ctx context.Context, hash string, personID int64, expires time.Time) error
	// SessionPerson returns the person of a current session; not found
	// for an unknown or expired one.
	SessionPerson(ctx context.Context, hash string) (taskd.Person, error)
	DeleteSession(ctx context.Context, hash string) error
	// SessionPage reads, in one query, the person of a current session,
	// their memberships and, when clientID is not empty, that application
	// (a zero Client when there is none); not found for an unknown or
	// expired session.
	SessionPage(ctx context.Context, hash, clientID string) (taskd.Person, []taskd.Membership, taskd.Client, error)
	// SignInAttempt counts a sign-in attempt under each of attempts and
	// reads the person with the e-mail and whether invitations wait for
	// them (one statement on PostgreSQL); not found for an unknown e-mail,
	// with the attempts counted all the same.
	SignInAttempt(ctx context.Context, email string, attempts []ratelimit.Attempt) (taskd.Person, bool, []ratelimit.Counted, error)
	// StartSession is CreateSession that also gives back the sign-in's
	// counted attempts (one statement on PostgreSQL).
	StartSession(ctx context.Context, hash string, personID int64, expires time.Time, giveBack []ratelimit.Ticket) error
}

// sessionTTL is how long a sign-in lasts.
const sessionTTL = 7 * 24 * time.Hour

// cookieName prefixes a name with __Host- when cookies are Secure, which
// pins them to this host and path "/".
func (s *Server) cookieName(name string) string {
	if s.cfg.Secure {
		return "__Host-" + name
	}
	return name
}

func (s *Server) setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(name), Value: value, Path: "/", MaxAge: int(maxAge / time.Second),
		HttpOnly: true, Secure: s.cfg.Secure, SameSite: http.SameSiteLaxMode})
}

func (s *Server) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(name), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.cfg.Secure, SameSite: http.SameSiteLaxMode})
}

func (s *Server) cookie(r *http.Request, name string) string {
	limit := 512
	if name == "flash" { // a notice may name people and what ended (endedText)
		limit = 2048
	}
	c, err := r.Cookie(s.cookieName(name))
	if err != nil || len(c.Value) > limit {
		return ""
	}
	return c.Value
}

// person returns the signed-in person, if any. Sessions live in the
// database, so any replica can serve any request.
func (s *Server) person(ctx context.Context, r *http.Request) (taskd.Person, bool, error) {
	v := s.cookie(r, "session")
	if v == "" {
		return taskd.Person{}, false, nil
	}
	p, err := s.cfg.Sessions.SessionPerson(ctx, secret.HashToken(v))
	if taskd.IsNotFound(err) {
		return p, false, nil
	}
	return p, err == nil, err
}

// signIn starts a new session (a fresh cookie, so a planted one is useless).
func (s *Server) signIn(ctx context.Context, w http.ResponseWriter, p taskd.Person) error {
	v := secret.Token(32)
	if err := s.cfg.Sessions.CreateSession(ctx, secret.HashToken(v), p.ID, s.cfg.Now().Add(sessionTTL)); err != nil {
		return err
	}
	s.setCookie(w, "session", v, sessionTTL)
	return nil
}

func (s *Server) signOut(ctx context.Context, w http.ResponseWriter, r *http.Request) error {
	if v := s.cookie(r, "session"); v != "" {
		if err := s.cfg.Sessions.DeleteSession(ctx, secret.HashToken(v)); err != nil {
			return err
		}
	}
	s.clearCookie(w, "session")
	return nil
}

// csrfToken returns the form token for this browser, setting the random
// cookie it is derived from when there is none. The token is a MAC of the
// cookie under the server key, so every replica accepts it and a page of
// another origin can neither read nor forge it.
func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	v := s.cookie(r, "csrf")
	if v == "" {
		v = secret.Token(24)
		s.setCookie(w, "csrf", v, 0)
		r.AddCookie(&http.Cookie{Name: s.cookieName("csrf"), Value: v}) // later calls in this request see it
	}
	return base64.RawURLEncoding.EncodeToString(s.cfg.Sealer.MAC("csrf", []byte(v)))
}

// checkCSRF verifies a POSTed form's token against the cookie.
func (s *Server) checkCSRF(r *http.Request) bool {
	v := s.cookie(r, "csrf")
	if v == "" {
		return false
	}
	got := []byte(r.PostFormValue("csrf"))
	for _, mac := range s.cfg.Sealer.MACs("csrf", []byte(v)) { // the old keys' too, during a rotation
		if subtle.ConstantTimeCompare(got, []byte(base64.RawURLEncoding.EncodeToString(mac))) == 1 {
			return true
		}
	}
	return false
}
