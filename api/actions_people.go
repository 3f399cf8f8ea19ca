package api

import (
	"context"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/wire"
)

// userOut is a member as get_users, me and add_user show them
// (spec/account-api.md §2.4). date_added goes to the administrative key
// only; rate only when set.
type userOut struct {
	ID         string `json:"id"`
	FirstName  string `json:"first_name"`
	LastName   string `json:"last_name"`
	Name       string `json:"name"`
	Title      string `json:"title"`
	Group      string `json:"group"`
	Department string `json:"department"`
	Role       string `json:"role"`
	Email      string `json:"email"`
	Phone      string `json:"phone"`
	Phone2     string `json:"phone2"`
	Phone3     string `json:"phone3"`
	Phone4     string `json:"phone4"`
	Address    string `json:"address"`
	Address2   string `json:"address2"`
	Rate       *rate  `json:"rate,omitempty"`
	DateAdded  string `json:"date_added,omitempty"`
}

// rate is an hourly rate in minor units, shown as a bare number of major
// units (the docs' "rate": 25.5).
type rate int64

func (r rate) MarshalJSON() ([]byte, error) {
	neg := ""
	v := int64(r)
	if v < 0 {
		neg, v = "-", -v
	}
	s := neg + strconv.FormatInt(v/100, 10)
	if v%100 != 0 {
		s += "." + strings.TrimRight(strconv.FormatInt(100+v%100, 10)[1:], "0")
	}
	return []byte(s), nil
}

func renderUser(m taskd.Member, admin bool) userOut {
	out := userOut{ID: strconv.FormatInt(m.ID, 10), FirstName: m.FirstName, LastName: m.LastName, Name: m.DisplayName(),
		Title: m.Title, Group: m.Team, Department: m.Department, Role: m.Role.APIName(), Email: m.Email,
		Phone: m.Phone, Phone2: m.Phone2, Phone3: m.Phone3, Phone4: m.Phone4, Address: m.Address, Address2: m.Address2}
	if m.Rate != nil {
		r := rate(*m.Rate)
		out.Rate = &r
	}
	if admin && !m.Added.IsZero() {
		out.DateAdded = wire.FormatDateTime(m.Added)
	}
	return out
}

func getUsers(c *call) (any, error) {
	members, err := c.store.Members(c.ctx, c.accountID())
	if err != nil {
		return nil, err
	}
	admin := c.who.person == nil
	return ok(renderEach(members, func(m taskd.Member) userOut { return renderUser(m, admin) })), nil
}

// addUser invites a person by e-mail (people.Service): the answer shows
// what was asked, never what taskd knows of someone already registered,
// and "id" is "0" until they accept: an id would tell a known address (its
// old, lower one) from a new one.
func addUser(c *call) (any, error) {
	email, err := c.required("email")
	if err != nil {
		return nil, err
	}
	role := taskd.RoleUser
	if v := c.p["role"]; v != "" {
		if role, err = taskd.ParseRole(v); err != nil {
			return nil, err
		}
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	in := people.Invitation{Email: email, FirstName: c.p["first_name"], LastName: c.p["last_name"], Role: role,
		Title: c.p["title"], Team: c.p["group"], Department: c.p["department"]}
	if err := in.Check(); err != nil {
		return nil, err
	}
	inv, err := c.people.Invite(c.ctx, by, c.who.account, in)
	if err != nil {
		return nil, err
	}
	m := taskd.Member{Person: taskd.Person{Email: inv.Person.Email, FirstName: strings.TrimSpace(in.FirstName),
		LastName: strings.TrimSpace(in.LastName), Profile: taskd.Profile{Title: strings.TrimSpace(in.Title)}},
		Role: role, Team: strings.TrimSpace(in.Team), Department: strings.TrimSpace(in.Department)}
	return ok(renderUser(m, false)), nil
}

// teamOut is a user group: type "company", client a bare 0 or 1.
type teamOut struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Type   string `json:"type"`
	Client int    `json:"client"`
}

func renderTeam(t taskd.Team) teamOut {
	return teamOut{ID: strconv.FormatInt(t.ID, 10), Title: t.Title, Type: "company", Client: flag(t.Client)}
}

func getUserGroups(c *call) (any, error) {
	teams, err := c.directory.Teams(c.ctx, c.accountID())
	if err != nil {
		return nil, err
	}
	return ok(renderEach(teams, renderTeam)), nil
}

func addUserGroup(c *call) (any, error) {
	title, err := c.required("title")
	if err != nil {
		return nil, err
	}
	client, err := c.choice("client", "0", "1")
	if err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	t, err := c.directory.AddTeam(c.ctx, by, title, client == "1")
	if err != nil {
		return nil, err
	}
	return ok(renderTeam(t)), nil
}

// folderOut is a project or contact folder.
type folderOut struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Type  string `json:"type"`
}

func renderFolders(list []taskd.Folder) []folderOut {
	return renderEach(list, func(f taskd.Folder) folderOut {
		return folderOut{ID: strconv.FormatInt(f.ID, 10), Title: f.Title, Type: "folder"}
	})
}

func getProjectGroups(c *call) (any, error) {
	list, err := c.directory.ProjectFolders(c.ctx, c.accountID())
	if err != nil {
		return nil, err
	}
	return ok(renderFolders(list)), nil
}

func getContactGroups(c *call) (any, error) {
	list, err := c.directory.ContactFolders(c.ctx, c.accountID())
	if err != nil {
		return nil, err
	}
	return ok(renderFolders(list)), nil
}

// addFolder is add_project_group and add_contact_group: a folder made
// unless one has the title, returned either way.
func addFolder(add func(taskd.DirectoryStore, context.Context, taskd.Actor, string) (taskd.Folder, error)) func(*call) (any, error) {
	return func(c *call) (any, error) {
		title, err := c.required("title")
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		f, err := add(c.directory, c.ctx, by, title)
		if err != nil {
			return nil, err
		}
		return ok(renderFolders([]taskd.Folder{f})[0]), nil
	}
}

// contactOut is a contact (§2.4: a user's fields without rate, avatar,
// department and role).
type contactOut struct {
	ID        string `json:"id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Name      string `json:"name"`
	Title     string `json:"title"`
	Group     string `json:"group"`
	Email     string `json:"email"`
	Phone     string `json:"phone"`
	Phone2    string `json:"phone2"`
	Phone3    string `json:"phone3"`
	Phone4    string `json:"phone4"`
	Address   string `json:"address"`
	Address2  string `json:"address2"`
	DateAdded string `json:"date_added"`
}

func renderContact(ct taskd.Contact) contactOut {
	return contactOut{ID: strconv.FormatInt(ct.ID, 10), FirstName: ct.FirstName, LastName: ct.LastName, Name: ct.DisplayName(),
		Title: ct.Title, Group: ct.Folder, Email: ct.Email, Phone: ct.Phone, Phone2: ct.Phone2, Phone3: ct.Phone3, Phone4: ct.Phone4,
		Address: ct.Address, Address2: ct.Address2, DateAdded: wire.FormatDateTime(ct.Added)}
}

func getContacts(c *call) (any, error) {
	list, err := c.directory.Contacts(c.ctx, c.accountID())
	if err != nil {
		return nil, err
	}
	return ok(renderEach(list, renderContact)), nil
}

// contactFields are add_contact's short text fields, each one line.
var contactFields = []string{"title", "phone", "phone2", "phone3", "phone4", "address", "address2"}

func addContact(c *call) (any, error) {
	email, err := c.required("email")
	if err != nil {
		return nil, err
	}
	name, err := c.required("name")
	if err != nil {
		return nil, err
	}
	e, err := taskd.NormalizeEmail(email)
	if err != nil {
		return nil, failf(CodeInvalidValue, email, "Invalid e-mail")
	}
	for _, f := range append(contactFields, "name") {
		if v := c.p[f]; len(v) > taskd.MaxTitleLen || strings.ContainsAny(v, "\r\n") {
			return nil, failf(CodeInvalidValue, f, "The value is one line of at most %d bytes", taskd.MaxTitleLen)
		}
	}
	first, last, _ := strings.Cut(strings.TrimSpace(name), " ")
	ct := taskd.Contact{Email: e, FirstName: first, LastName: strings.TrimSpace(last), Profile: taskd.Profile{
		Title: c.p["title"], Phone: c.p["phone"], Phone2: c.p["phone2"], Phone3: c.p["phone3"], Phone4: c.p["phone4"],
		Address: c.p["address"], Address2: c.p["address2"]}}
	if ct.Folder, err = c.contactFolder(c.p["group"]); err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	ct, err = c.directory.AddContact(c.ctx, by, ct)
	if err != nil {
		return nil, err
	}
	return ok(renderContact(ct)), nil
}

// contactFolder reads add_contact's group: a folder's title, or (as the
// Python SDK's README passes it) the id of an existing folder.
func (c *call) contactFolder(group string) (string, error) {
	group = strings.TrimSpace(group)
	if id, err := strconv.ParseInt(group, 10, 64); err == nil {
		folders, err := c.directory.ContactFolders(c.ctx, c.accountID())
		if err != nil {
			return "", err
		}
		for _, f := range folders {
			if f.ID == id {
				return f.Title, nil
			}
		}
	}
	if len(group) > taskd.MaxTitleLen || strings.ContainsAny(group, "\r\n") {
		return "", failf(CodeInvalidValue, "group", "A folder's title is one line of at most %d bytes", taskd.MaxTitleLen)
	}
	return group, nil
}

// projectMembers is add_project_members and delete_project_members.
func projectMembers(add bool) func(*call) (any, error) {
	return func(c *call) (any, error) {
		id, by, err := c.target("id_project", CodeProjectInvalid)
		if err != nil {
			return nil, err
		}
		v, err := c.required("members")
		if err != nil {
			return nil, err
		}
		emails, err := wire.ParseEmails("members", v)
		if err != nil {
			return nil, err
		}
		if _, err := c.store.SetProjectMembers(c.ctx, by, id, emails, add); err != nil {
			return nil, err
		}
		return okBody{Status: "ok"}, nil
	}
}

// subscription is subscribe and unsubscribe.
func subscription(on bool) func(*call) (any, error) {
	return func(c *call) (any, error) {
		id, by, err := c.target("id_task", CodeTaskInvalid)
		if err != nil {
			return nil, err
		}
		v, err := c.required("email_user")
		if err != nil {
			return nil, err
		}
		email, err := taskd.NormalizeEmail(v)
		if err != nil {
			return nil, failf(CodeUserInvalid, v, "User is not a member of this account")
		}
		if err := c.store.Subscribe(c.ctx, by, id, email, on); err != nil {
			return nil, err
		}
		return okBody{Status: "ok"}, nil
	}
}
