package web

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/people"
)

// peopleRoutes are the addresses of an account's people and their roles.
func (s *Server) peopleRoutes() []route {
	return []route{
		{"GET /a/{slug}/people", s.page(s.inAccount(taskd.PermRead, s.people))},
		{"POST /a/{slug}/people", s.form(s.inAccount(taskd.PermManagePeople, s.addPerson))},
		{"POST /a/{slug}/people/{person}/role", s.form(s.inAccount(taskd.PermManagePeople, s.setRole))},
	}
}

// peopleFuncs are the template functions of the people pages.
func peopleFuncs() template.FuncMap {
	return template.FuncMap{
		"isOwner": func(m taskd.Member) bool { return m.Role == taskd.RoleOwner },
	}
}

// peopleView is the people page.
type peopleView struct {
	Members     []taskd.Member
	Teams       []taskd.Team
	Roles       []taskd.Role       // the roles a member may be given
	Invitations []taskd.Invitation // pending; shown to those who manage people
	Error       *formError
	Values      map[string][]string
	Shown       *flash
}

func (s *Server) people(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	return s.renderPeople(w, r, v, me, http.StatusOK, nil)
}

func (s *Server) renderPeople(w http.ResponseWriter, r *http.Request, v *view, me member, status int, fe *formError) error {
	acct := me.Account
	members, err := s.cfg.Accounts.Members(r.Context(), acct.ID)
	if err != nil {
		return err
	}
	teams, err := s.cfg.Directory.Teams(r.Context(), acct.ID)
	if err != nil {
		return err
	}
	pv := &peopleView{Members: members, Teams: teams, Error: fe, Shown: s.takeFlash(w, r),
		Roles: []taskd.Role{taskd.RoleUser, taskd.RoleAdmin, taskd.RoleGuest, taskd.RoleReader}}
	if fe != nil && fe.Form == "person" { // the other forms share its field names (role, title)
		pv.Values = r.PostForm
	}
	if v.Nav != nil && v.Nav.People {
		if pv.Invitations, err = s.cfg.Invitations.AccountInvitations(r.Context(), acct.ID); err != nil {
			return err
		}
	}
	v.Title, v.Data = "People", pv
	return s.renderStatus(w, r, status, "people.html", v)
}

// addPerson invites a person by e-mail (owners and admins). Nobody joins
// without consenting: someone new to taskd follows the e-mail's link and
// chooses a password; someone registered signs in and accepts. The page
// answers the same in both cases, so it does not tell whether an address
// is registered.
func (s *Server) addPerson(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	role, err := taskd.ParseRole(r.PostFormValue("role"))
	var inv taskd.Invitation
	if err == nil {
		inv, err = s.cfg.People.Invite(r.Context(), me.actor(), acct, people.Invitation{Email: r.PostFormValue("email"),
			FirstName: r.PostFormValue("first_name"), LastName: r.PostFormValue("last_name"), Role: role,
			Title: r.PostFormValue("title"), Team: r.PostFormValue("team"), Department: r.PostFormValue("department")})
	}
	if err != nil {
		fe, ok := asFormError("person", err)
		if !ok {
			return err
		}
		return s.renderPeople(w, r, v, me, formStatus(w, err), fe)
	}
	sent := "An invitation was sent to " + inv.Person.Email + "."
	if why := s.kept(); why != "" {
		sent = "The invitation to " + inv.Person.Email + " was kept, not sent: " + why + "."
	}
	s.setFlash(w, flash{Message: sent + " They join as " + string(role) + " when they accept it."})
	return see303(w, r, s.cfg.accountPath(acct)+"/people")
}

func (s *Server) setRole(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	id, err := taskd.ParseID(r.PathValue("person"), "member")
	var role taskd.Role
	if err == nil {
		role, err = taskd.ParseRole(r.PostFormValue("role"))
	}
	var who taskd.Member
	var ended taskd.TrustEnded
	if err == nil {
		if who, err = s.cfg.Accounts.Member(r.Context(), acct.ID, id); err == nil {
			ended, err = s.cfg.Accounts.SetRole(r.Context(), me.actor(), id, role)
		}
	}
	if err != nil {
		fe, ok := asFormError("role", err)
		if !ok {
			return err
		}
		return s.renderPeople(w, r, v, me, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: who.DisplayName() + " is now " + string(role) + "." + endedText(ended)})
	return see303(w, r, s.cfg.accountPath(acct)+"/people")
}

// endedText tells whoever changed a member's standing what it ended
// (taskd.TrustEnded), as sentences after the notice; "" for nothing.
func endedText(e taskd.TrustEnded) string {
	var out []string
	if e.Invitations > 0 {
		out = append(out, counted(e.Invitations, "invitation they sent was", "invitations they sent were")+" cancelled.")
	}
	if e.Grants > 0 {
		out = append(out, counted(e.Grants, "authorization they gave an application was", "authorizations they gave applications were")+" revoked.")
	}
	if e.Webhooks > 0 {
		out = append(out, counted(e.Webhooks, "webhook they made was", "webhooks they made were")+" disabled.")
	}
	if e.APIKey {
		out = append(out, "The API key they were shown was revoked: make a new one.")
	}
	if e.Timer {
		out = append(out, "Their timer was stopped and its time recorded.")
	}
	if len(out) == 0 {
		return ""
	}
	return " " + strings.Join(out, " ")
}

// counted is n with the singular or plural words.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
