package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// profileView is the signed-in person's profile page.
type profileView struct {
	Person taskd.Person
	Zones  []string
	Error  *formError
	Shown  *flash
}

// commonZones are offered on the profile page; any IANA name is accepted.
var commonZones = []string{"UTC", "Europe/London", "Europe/Berlin", "Europe/Kyiv", "Europe/Warsaw", "Europe/Madrid", "America/New_York",
	"America/Chicago", "America/Denver", "America/Los_Angeles", "America/Sao_Paulo", "Asia/Dubai", "Asia/Kolkata", "Asia/Singapore",
	"Asia/Tokyo", "Australia/Sydney"}

func (s *Server) profilePage(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login?next="+url.QueryEscape("/profile"))
	}
	return s.renderProfile(w, r, v, http.StatusOK, nil)
}

func (s *Server) renderProfile(w http.ResponseWriter, r *http.Request, v *view, status int, fe *formError) error {
	v.Title, v.Data = "Your profile", &profileView{Person: *v.Person, Zones: commonZones, Error: fe, Shown: s.takeFlash(w, r)}
	return s.renderStatus(w, r, status, "profile.html", v)
}

// saveProfile is POST /profile: names, position, time zone and e-mail
// notifications.
func (s *Server) saveProfile(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login")
	}
	first, last := strings.TrimSpace(r.PostFormValue("first_name")), strings.TrimSpace(r.PostFormValue("last_name"))
	pr := v.Person.Profile
	pr.Title = strings.TrimSpace(r.PostFormValue("title"))
	pr.TimeZone = strings.TrimSpace(r.PostFormValue("time_zone"))
	pr.Notify = r.PostFormValue("notify") == "1"
	var err error
	switch {
	case len(first) > taskd.MaxNameLen || len(last) > taskd.MaxNameLen || strings.ContainsAny(first+last, "\r\n"):
		err = taskd.Invalid("first_name", "Names are one line of at most %d bytes", taskd.MaxNameLen)
	case len(pr.Title) > taskd.MaxTitleLen || strings.ContainsAny(pr.Title, "\r\n"):
		err = taskd.Invalid("title", "The position is one line of at most %d bytes", taskd.MaxTitleLen)
	case pr.TimeZone != "" && !validZone(pr.TimeZone):
		err = taskd.Invalid("time_zone", "Unknown time zone %q: use a name such as Europe/Kyiv", pr.TimeZone)
	}
	if err == nil {
		var p taskd.Person
		if p, err = s.cfg.Store.SetProfile(r.Context(), v.Person.ID, first, last, pr); err == nil {
			*v.Person = p
		}
	}
	if err != nil {
		fe, ok := asFormError("profile", err)
		if !ok {
			return err
		}
		return s.renderProfile(w, r, v, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: "Your profile was saved."})
	return see303(w, r, "/profile")
}

// validZone reports whether name is an IANA time zone.
func validZone(name string) bool {
	if strings.HasPrefix(name, "/") || strings.Contains(name, "..") || len(name) > 64 {
		return false
	}
	_, err := time.LoadLocation(name)
	return err == nil
}

// changeEmail is POST /profile/email: a confirmation link goes to the new
// address, after the password is checked.
func (s *Server) changeEmail(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login")
	}
	var err error
	if !secret.VerifyPassword(v.Person.PasswordHash, r.PostFormValue("password")) {
		err = taskd.Invalid("password", "The password is not right")
	} else {
		err = s.cfg.People.RequestEmailChange(r.Context(), *v.Person, r.PostFormValue("email"))
	}
	if err != nil {
		fe, ok := asFormError("email", err)
		if !ok {
			return err
		}
		return s.renderProfile(w, r, v, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: "A link to confirm the new address was sent there. Until you follow it, you sign in as " + v.Person.Email + "."})
	return see303(w, r, "/profile")
}

// changePassword is POST /profile/password: the current password, then
// the new one.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login")
	}
	var err error
	next := r.PostFormValue("new_password")
	switch {
	case !secret.VerifyPassword(v.Person.PasswordHash, r.PostFormValue("password")):
		err = taskd.Invalid("password", "The current password is not right")
	case len(next) < taskd.MinPasswordLen:
		err = taskd.Invalid("new_password", "The password must be at least %d characters", taskd.MinPasswordLen)
	}
	if err == nil {
		var hash string
		if hash, err = secret.HashPassword(next); err == nil {
			// Every session ends with the old password; this one starts anew.
			if err = s.cfg.Store.SetPassword(r.Context(), v.Person.ID, hash); err == nil {
				err = s.signIn(r.Context(), w, *v.Person)
			}
		}
	}
	if err != nil {
		fe, ok := asFormError("password", err)
		if !ok {
			return err
		}
		return s.renderProfile(w, r, v, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: "Your password was changed; you were signed out everywhere else."})
	return see303(w, r, "/profile")
}

// accountZonePage is GET /a/{slug}/settings/account: the account's time
// zone (owners and admins).
func (s *Server) accountZonePage(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	return s.renderAccountZone(w, r, v, me, http.StatusOK, nil)
}

func (s *Server) renderAccountZone(w http.ResponseWriter, r *http.Request, v *view, me member, status int, fe *formError) error {
	v.Title, v.Data = "Account settings", &profileView{Zones: commonZones, Error: fe, Shown: s.takeFlash(w, r)}
	return s.renderStatus(w, r, status, "account.html", v)
}

// setAccountZone is POST /a/{slug}/settings/account.
func (s *Server) setAccountZone(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	zone := strings.TrimSpace(r.PostFormValue("time_zone"))
	if zone == "" {
		zone = "UTC"
	}
	if !validZone(zone) {
		return s.renderAccountZone(w, r, v, me, http.StatusUnprocessableEntity,
			&formError{Form: "account", Field: "time_zone", Message: "Unknown time zone: use a name such as Europe/Kyiv"})
	}
	if err := s.cfg.Store.SetAccountZone(r.Context(), me.Account.ID, zone); err != nil {
		return err
	}
	s.setFlash(w, flash{Message: "The account's time zone is now " + zone + "."})
	return see303(w, r, s.cfg.accountPath(me.Account)+"/settings/account")
}
