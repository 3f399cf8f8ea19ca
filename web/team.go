package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/taskd/taskd"
)

// teamRoutes are the addresses of teams: a project's team, a task's
// followers, the account's teams and contacts, and taking a member out.
func (s *Server) teamRoutes() []route {
	return []route{
		{"POST /a/{slug}/project/{project}/members", s.form(s.inAccount(taskd.PermWork, s.setProjectTeam(true)))},
		{"POST /a/{slug}/project/{project}/members/remove", s.form(s.inAccount(taskd.PermWork, s.setProjectTeam(false)))},
		{"POST /a/{slug}/tasks/{task}/subscribers", s.form(s.inAccount(taskd.PermWork, s.subscribe))},
		{"POST /a/{slug}/teams", s.form(s.inAccount(taskd.PermManagePeople, s.addTeam))},
		{"POST /a/{slug}/people/{person}/remove", s.form(s.inAccount(taskd.PermManagePeople, s.removeMember))},
		{"GET /a/{slug}/contacts", s.page(s.inAccount(taskd.PermRead, s.contacts))},
		{"POST /a/{slug}/contacts", s.form(s.inAccount(taskd.PermWork, s.addContact))},
	}
}

// teams is POST /a/{slug}/teams: a team made unless one has the title.
func (s *Server) addTeam(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	_, err := s.cfg.Directory.AddTeam(r.Context(), me.actor(), r.PostFormValue("title"), r.PostFormValue("client") == "1")
	if err != nil {
		fe, ok := asFormError("team", err)
		if !ok {
			return err
		}
		return s.renderPeople(w, r, v, me, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: "Team " + strings.TrimSpace(r.PostFormValue("title")) + " is ready."})
	return see303(w, r, s.cfg.accountPath(acct)+"/people")
}

// removeMember is POST /a/{slug}/people/{person}/remove: the person leaves
// the account; their tasks stay, assigned to nobody.
func (s *Server) removeMember(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	id, err := taskd.ParseID(r.PathValue("person"), "member")
	var gone taskd.Member
	var ended taskd.TrustEnded
	if err == nil {
		if gone, err = s.cfg.Accounts.Member(r.Context(), acct.ID, id); err == nil {
			ended, err = s.cfg.Accounts.RemoveMember(r.Context(), me.actor(), id)
		}
	}
	if err != nil {
		fe, ok := asFormError("role", err)
		if !ok {
			return err
		}
		return s.renderPeople(w, r, v, me, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: gone.DisplayName() + " was removed from the account; their tasks are assigned to nobody." + endedText(ended)})
	return see303(w, r, s.cfg.accountPath(acct)+"/people")
}

// setProjectTeam is POST /a/{slug}/project/{project}/members and
// /members/remove: a member joins or leaves the project's team.
func (s *Server) setProjectTeam(add bool) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		acct := me.Account
		p, ok, err := s.pathProject(w, r, me)
		if !ok {
			return err
		}
		email, err := taskd.NormalizeEmail(r.PostFormValue("email"))
		var ended taskd.TrustEnded
		if err == nil {
			ended, err = s.cfg.Teams.SetProjectMembers(r.Context(), me.actor(), p.ID, []string{email}, add)
		}
		if err != nil {
			fe, ok := asFormError("team", err)
			if !ok {
				return err
			}
			return s.renderProject(w, r, v, me, p, http.StatusUnprocessableEntity, fe)
		}
		if ended.Timer {
			s.setFlash(w, flash{Message: email + " left the project's team." + endedText(ended)})
		}
		return see303(w, r, s.cfg.accountPath(acct)+p.Page()+"#team")
	}
}

// subscribe is POST /a/{slug}/tasks/{task}/subscribers: email (the
// signed-in person's when absent) is subscribed (on=1) or unsubscribed.
func (s *Server) subscribe(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	t, ok, err := s.pathTask(w, r, me, r.PathValue("task"))
	if !ok {
		return err
	}
	email := r.PostFormValue("email")
	if email == "" {
		email = me.Member.Email
	}
	if email, err = taskd.NormalizeEmail(email); err == nil {
		err = s.cfg.Teams.Subscribe(r.Context(), me.actor(), t.ID, email, r.PostFormValue("on") == "1")
	}
	if err != nil {
		fe, ok := asFormError("subscribers", err)
		if !ok {
			return err
		}
		return s.renderTask(w, r, v, me, t, http.StatusUnprocessableEntity, fe)
	}
	return see303(w, r, s.cfg.accountPath(acct)+t.Page()+"#subscribers")
}

// contactsView is the contacts page.
type contactsView struct {
	Folders  []contactFolder
	Titles   []string // every folder's title, for the form
	Error    *formError
	Values   map[string][]string
	Shown    *flash
	CanWrite bool
}

// contactFolder is a folder's contacts; Title "" holds those in none.
type contactFolder struct {
	Title    string
	Contacts []taskd.Contact
}

func (s *Server) contacts(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	return s.renderContacts(w, r, v, me, http.StatusOK, nil)
}

func (s *Server) renderContacts(w http.ResponseWriter, r *http.Request, v *view, me member, status int, fe *formError) error {
	ctx := r.Context()
	list, err := s.cfg.Directory.Contacts(ctx, me.Account.ID)
	if err != nil {
		return err
	}
	folders, err := s.cfg.Directory.ContactFolders(ctx, me.Account.ID)
	if err != nil {
		return err
	}
	cv := &contactsView{Error: fe, Values: r.PostForm, Shown: s.takeFlash(w, r), CanWrite: me.Member.Role.Can(taskd.PermWork)}
	for _, f := range folders {
		cv.Titles = append(cv.Titles, f.Title)
		cv.Folders = append(cv.Folders, contactFolder{Title: f.Title})
	}
	cv.Folders = append(cv.Folders, contactFolder{})
	for _, c := range list {
		i := slices.IndexFunc(cv.Folders, func(f contactFolder) bool { return f.Title == c.Folder })
		if i < 0 {
			i = len(cv.Folders) - 1
		}
		cv.Folders[i].Contacts = append(cv.Folders[i].Contacts, c)
	}
	v.Title, v.Data = "Contacts", cv
	return s.renderStatus(w, r, status, "contacts.html", v)
}

// addContact is POST /a/{slug}/contacts; the folder is made when new.
func (s *Server) addContact(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	c := taskd.Contact{FirstName: strings.TrimSpace(r.PostFormValue("first_name")), LastName: strings.TrimSpace(r.PostFormValue("last_name")),
		Folder: strings.TrimSpace(r.PostFormValue("folder")), Profile: taskd.Profile{Title: strings.TrimSpace(r.PostFormValue("title")),
			Phone: strings.TrimSpace(r.PostFormValue("phone")), Address: strings.TrimSpace(r.PostFormValue("address"))}}
	email, err := taskd.NormalizeEmail(r.PostFormValue("email"))
	c.Email = email
	for _, f := range []string{c.FirstName, c.LastName, c.Folder, c.Title, c.Phone, c.Address} {
		if err == nil && (len(f) > taskd.MaxTitleLen || strings.ContainsAny(f, "\r\n")) {
			err = taskd.Invalid("contact", "Each field is one line of at most %d bytes", taskd.MaxTitleLen)
		}
	}
	if err == nil {
		_, err = s.cfg.Directory.AddContact(r.Context(), me.actor(), c)
	}
	if err != nil {
		fe, ok := asFormError("contact", err)
		if !ok {
			return err
		}
		return s.renderContacts(w, r, v, me, http.StatusUnprocessableEntity, fe)
	}
	s.setFlash(w, flash{Message: c.Email + " was added to the contacts."})
	return see303(w, r, s.cfg.accountPath(me.Account)+"/contacts")
}
