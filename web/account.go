package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// nav is the header of an account's pages: where one is, the account
// switcher, and the links one's role allows.
type nav struct {
	Account  taskd.Account
	Member   taskd.Member
	Accounts []taskd.Membership
	Settings bool // may see the settings (taskd.PermSettings)
	People   bool // may add people and set roles (taskd.PermManagePeople)
	// Timer is the person's running timer in the account, shown in the
	// header; nil when none runs.
	Timer *taskd.Timer
	// Now is when the page was made, for the timer's running time.
	Now time.Time
	// Here is the page's address, for forms in the header to come back
	// to; the account's home after a form.
	Here string
	// Section is the part of the account the page belongs to, marked in
	// the header: projects, my, timesheet, people, contacts, tags or
	// settings.
	Section string
	// Live loads live.js, which updates the page as changes commit.
	Live bool
}

// sectionOf names the header section of an account page's path.
func sectionOf(accountPath, path string) string {
	rest, _ := strings.CutPrefix(path, accountPath+"/")
	first, _, _ := strings.Cut(rest, "/")
	switch first {
	case "", "project", "projects":
		return "projects"
	case "my", "timesheet", "people", "contacts", "tags", "settings":
		return first
	}
	return ""
}

// member is the signed-in person's membership of the path's account.
type member struct {
	Account taskd.Account
	Member  taskd.Member
}

// viewer is who the page reads for: the store leaves out what they may not
// see (taskd.Viewer), so no page checks it again.
func (m member) viewer() taskd.Viewer {
	return taskd.PersonViewer(m.Account.ID, m.Member.ID, m.Member.Role)
}

// actor is who a change made in a page is made by.
func (m member) actor() taskd.Actor {
	return taskd.Actor{AccountID: m.Account.ID, Person: m.Member.Ref(), Role: m.Member.Role}
}

// accountHandler is a page or form of the path's account, for the member
// me: every handler of an account's pages, and every part of one (a task's
// change, a webhook's operation, a page rendered again with an error),
// takes the member as this one value, and reads as me.viewer() and
// changes as me.actor().
type accountHandler func(w http.ResponseWriter, r *http.Request, v *view, me member) error

// inAccount runs h for members of the path's account whose role allows
// perm (taskd.Authorize); PermWork lets every member in. A visitor is sent
// to sign in; a person who is not a member gets "not found", so that
// accounts cannot be discovered; a member whose role does not allow perm
// gets 403. It fills the account's header (nav) of the page.
func (s *Server) inAccount(perm taskd.Permission, h accountHandler) handler {
	return func(w http.ResponseWriter, r *http.Request, v *view) error {
		if v.Person == nil {
			return see303(w, r, "/login?next="+url.QueryEscape(r.URL.Path))
		}
		ctx := r.Context()
		acct, err := s.cfg.Accounts.AccountBySlug(ctx, r.PathValue("slug"))
		var m taskd.Member
		if err == nil {
			m, err = s.cfg.Accounts.Member(ctx, acct.ID, v.Person.ID)
		}
		if taskd.IsNotFound(err) {
			s.fail(w, r, http.StatusNotFound, "There is no such account.")
			return nil
		}
		if err != nil {
			return err
		}
		ms, err := s.cfg.Accounts.Memberships(ctx, v.Person.ID)
		if err != nil {
			return err
		}
		v.Nav = &nav{Account: acct, Member: m, Accounts: ms, Settings: m.Role.Can(taskd.PermSettings), People: m.Role.Can(taskd.PermManagePeople),
			Now: s.cfg.Now(), Here: s.cfg.accountPath(acct) + "/", Section: sectionOf(s.cfg.accountPath(acct), r.URL.Path), Live: s.cfg.Live != nil}
		if r.Method == http.MethodGet {
			v.Nav.Here = localPath(r.URL.RequestURI())
		}
		switch tm, err := s.cfg.Costs.TimerOf(ctx, acct.ID, m.ID); {
		case err == nil:
			v.Nav.Timer = &tm
		case !taskd.IsNotFound(err):
			return err
		}
		me := member{Account: acct, Member: m}
		if err := taskd.Authorize(me.actor(), perm); err != nil {
			msg := "Only the account's owner and admins may do this."
			if perm == taskd.PermWork {
				msg = "Your role (" + string(m.Role) + ") lets you read, not change."
			}
			s.fail(w, r, http.StatusForbidden, msg)
			return nil
		}
		return h(w, r, v, me)
	}
}

// formParams reads a POSTed form the way the API reads its parameters:
// a field is "given" when it is present in the form. Line breaks come as
// "\n": browsers send a textarea's as CR LF (HTML's form encoding), and
// saving a text unchanged must not change it.
func formParams(r *http.Request) wire.Params {
	return func(name string) (string, bool) {
		v, ok := r.PostForm[name]
		if !ok || len(v) == 0 {
			return "", false
		}
		return strings.ReplaceAll(v[0], "\r\n", "\n"), true
	}
}

// checkboxes reads the named fields of p as a form's checkboxes: "0"
// (off) when the form leaves them out, as a browser does with a box not
// ticked.
func checkboxes(p wire.Params, names ...string) wire.Params {
	return func(name string) (string, bool) {
		v, ok := p(name)
		if !ok && slices.Contains(names, name) {
			return "0", true
		}
		return v, ok
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
	if e.Reason == taskd.ReasonRequired && e.Field != "" && msg == "" {
		msg = fieldLabel(e.Field) + " is required"
	}
	if msg == "" {
		_, msg, _ = page(err)
	}
	return &formError{Form: form, Field: e.Field, Message: msg}, true
}

// formStatus is the status of a page that shows err beside its form:
// 429 with Retry-After for a rate limit, else 422.
func formStatus(w http.ResponseWriter, err error) int {
	if e := taskd.AsError(err); e.Kind == taskd.KindRateLimited {
		w.Header().Set("Retry-After", strconv.Itoa(int(max(e.RetryAfter, time.Second)/time.Second)))
		return http.StatusTooManyRequests
	}
	return http.StatusUnprocessableEntity
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
