package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// profileRoutes are the addresses of a person's profile and of an account's
// time zone and currency.
func (s *Server) profileRoutes() []route {
	return []route{
		{"GET /profile", s.page(s.profilePage)},
		{"POST /profile", s.form(s.saveProfile)},
		{"POST /profile/email", s.form(s.changeEmail)},
		{"POST /profile/password", s.form(s.changePassword)},
		{"GET /a/{slug}/settings/account", s.page(s.inAccount(taskd.PermSettings, s.accountZonePage))},
		{"POST /a/{slug}/settings/account", s.form(s.inAccount(taskd.PermSettings, s.setAccountZone))},
	}
}

// profileView is the signed-in person's profile page.
type profileView struct {
	Person taskd.Person
	Zones  []string
	// Currencies are the codes the account page offers (any three
	// letters are taken).
	Currencies []string
	Error      *formError
	Shown      *flash
	// Unticked names the form ("email" or "password") sent back with its
	// end_grants box unticked, to show it so again; the box is ticked
	// otherwise.
	Unticked string
	// FeedUnticked: the password form came back with its end_feed box
	// unticked, to show it so again.
	FeedUnticked bool
	// Feed is the person's iCalendar feed (icalfeed.go); nil without one.
	Feed *feedView
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
	pv := &profileView{Person: *v.Person, Zones: commonZones, Error: fe, Shown: s.takeFlash(w, r)}
	if fe != nil && r.PostFormValue("end_grants") != "1" {
		pv.Unticked = fe.Form
	}
	pv.FeedUnticked = fe != nil && r.PostFormValue("end_feed") != "1"
	var err error
	if pv.Feed, err = s.feedOf(r.Context(), v.Person.ID); err != nil {
		return err
	}
	v.Title, v.Data = "Your profile", pv
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
		if p, err = s.cfg.Accounts.SetProfile(r.Context(), v.Person.ID, first, last, pr); err == nil {
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
// address, after the password is checked (checkPassword). With end_grants,
// following the link also ends every authorization of an application the
// person gave.
func (s *Server) changeEmail(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login")
	}
	err := s.checkPassword(r, *v.Person, "email")
	if err == nil {
		err = s.cfg.People.RequestEmailChange(r.Context(), *v.Person, r.PostFormValue("email"), r.PostFormValue("end_grants") == "1")
	}
	if err != nil {
		return s.profileFailed(w, r, v, "email", err)
	}
	sent := "A link to confirm the new address was sent there."
	if why := s.kept(); why != "" {
		sent = "The link to confirm the new address was kept, not sent: " + why + "."
	}
	s.setFlash(w, flash{Message: sent + " Until you follow it, you sign in as " + v.Person.Email + "."})
	return see303(w, r, "/profile")
}

// changePassword is POST /profile/password: the current password
// (checkPassword), then the new one. Every other session ends; with
// end_grants, every authorization of an application the person gave too.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login")
	}
	next := r.PostFormValue("new_password")
	err := s.checkPassword(r, *v.Person, "password")
	if err == nil && len(next) < taskd.MinPasswordLen {
		err = taskd.Invalid("new_password", "The password must be at least %d characters", taskd.MinPasswordLen)
	}
	var ended taskd.PasswordEnded
	if err == nil {
		c := taskd.PasswordChange{EndGrants: r.PostFormValue("end_grants") == "1", EndFeed: r.PostFormValue("end_feed") == "1"}
		if c.Hash, err = s.cfg.Passwords.Hash(next); err == nil {
			// Every session ends with the old password; this one starts anew.
			if ended, err = s.cfg.Accounts.SetPassword(r.Context(), v.Person.ID, c); err == nil {
				err = s.signIn(r.Context(), w, *v.Person)
			}
		}
	}
	if err != nil {
		return s.profileFailed(w, r, v, "password", err)
	}
	msg := "Your password was changed; you were signed out everywhere else."
	if ended.Grants > 0 {
		msg += " " + counted(ended.Grants, "application lost", "applications lost") + " the access you had given: authorize again the ones you use."
	}
	if ended.Feed {
		msg += " Your calendar feed's address stopped working: make a new one below and subscribe to it again."
	}
	s.setFlash(w, flash{Message: msg})
	return see303(w, r, "/profile")
}

// checkPassword checks the signed-in person's password as signing in
// does: counted against the sign-in limits of their address and of the
// client before it is checked, and given back when it is right, so that a
// session is no way around them. A wrong password is invalid (field), too
// many rate limited.
func (s *Server) checkPassword(r *http.Request, p taskd.Person, field string) error {
	tickets, wait, err := s.takeSignIn(r, p.Email)
	if err != nil {
		return err
	}
	if tickets == nil {
		return &taskd.Error{Kind: taskd.KindRateLimited, RetryAfter: wait, Field: field,
			Message: "Too many wrong passwords. Wait a few minutes and try again"}
	}
	if !secret.VerifyPassword(p.PasswordHash, r.PostFormValue("password")) {
		return taskd.Invalid(field, "The password is not right")
	}
	for _, t := range tickets {
		if err := t.give(r.Context()); err != nil {
			return err
		}
	}
	return nil
}

// profileFailed shows the profile again with err beside the form, or
// returns an internal err.
func (s *Server) profileFailed(w http.ResponseWriter, r *http.Request, v *view, form string, err error) error {
	fe, ok := asFormError(form, err)
	if !ok {
		return err
	}
	return s.renderProfile(w, r, v, formStatus(w, err), fe)
}

// commonCurrencies are offered on the account page.
var commonCurrencies = []string{"USD", "EUR", "GBP", "UAH", "PLN", "CHF", "CAD", "AUD", "JPY", "CNY", "INR", "BRL", "SEK", "NOK", "DKK", "CZK"}

// accountZonePage is GET /a/{slug}/settings/account: the account's time
// zone and currency (owners and admins).
func (s *Server) accountZonePage(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	return s.renderAccountZone(w, r, v, me, http.StatusOK, nil)
}

func (s *Server) renderAccountZone(w http.ResponseWriter, r *http.Request, v *view, me member, status int, fe *formError) error {
	v.Title, v.Data = "Account settings", &profileView{Zones: commonZones, Currencies: commonCurrencies, Error: fe, Shown: s.takeFlash(w, r)}
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
	currency := me.Account.Currency
	if sent := r.PostFormValue("currency"); sent != "" {
		var err error
		if currency, err = taskd.ParseCurrency(sent); err != nil {
			return s.renderAccountZone(w, r, v, me, http.StatusUnprocessableEntity,
				&formError{Form: "account", Field: "currency", Message: taskd.AsError(err).Message})
		}
	}
	if err := s.cfg.Accounts.SetAccountZone(r.Context(), me.Account.ID, zone); err != nil {
		return err
	}
	if err := s.cfg.Accounts.SetAccountCurrency(r.Context(), me.Account.ID, currency); err != nil {
		return err
	}
	s.setFlash(w, flash{Message: "The account's time zone is now " + zone + ", its currency " + currency + "."})
	return see303(w, r, s.cfg.accountPath(me.Account)+"/settings/account")
}
