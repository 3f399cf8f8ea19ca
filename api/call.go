package api

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// action is one operation of the API: the scope a token needs for it, what
// the caller's role must allow, the parameters it accepts and what it does.
type action struct {
	scope  string
	perm   taskd.Permission
	params []string
	run    func(*call) (any, error)
}

// accepts reports whether the action takes the parameter: one of its
// list, or custom_fields[…] where the list has fieldsParam.
func (a action) accepts(name string) bool {
	return slices.Contains(a.params, name) || wire.IsFieldParam(name) && slices.Contains(a.params, fieldsParam)
}

// call is one dispatched action with its parameters.
type call struct {
	ctx       context.Context
	store     Store
	directory taskd.DirectoryStore
	p         map[string]string
	who       *caller
	now       func() time.Time
	lists     *listCache
	hooks     WebhookService
	// fileLimits bound the files an upload stores.
	fileLimits taskd.FileLimits
	// people invites by e-mail; nil when the server has no mail.
	people Inviter
	// parts are the files of a multipart request, not read yet; uploads
	// those stored for the action to attach (receiveFiles).
	parts   *fileParts
	uploads []taskd.File
	// known is a project's version read with the account, for the
	// administrative key; project 0 when none was.
	known knownVersion
}

// knownVersion is the version of a project as the administrative key sees
// it, read in the same query as the account (adminAPI.account).
type knownVersion struct {
	project, version int64
	seen             bool
}

// projectVersion is the version of the project's task list as the caller
// sees it (Store.ProjectVersion): the one read with the account when it is
// this project's and the caller is the key, else read now.
func (c *call) projectVersion(pid int64) (int64, error) {
	if k := c.known; k.project != 0 && k.project == pid && c.who.person == nil {
		if !k.seen {
			return 0, taskd.NotFound("project")
		}
		return k.version, nil
	}
	return c.store.ProjectVersion(c.ctx, c.viewer(), pid)
}

func (c *call) accountID() int64 { return c.who.account.ID }

// viewer is who the call reads for: the token's person with their role,
// or the whole account for the administrative key. The store applies the
// rule of who sees what (taskd.Viewer); no action checks it again.
func (c *call) viewer() taskd.Viewer {
	if p := c.who.person; p != nil {
		return taskd.PersonViewer(c.accountID(), p.ID, p.Role)
	}
	return taskd.AccountViewer(c.accountID())
}

// opt returns a parameter and whether it was given.
func (c *call) opt(name string) (string, bool) {
	v, ok := c.p[name]
	return v, ok
}

// required returns a non-blank parameter, or code 10 naming it.
func (c *call) required(name string) (string, error) {
	v := c.p[name]
	if strings.TrimSpace(v) == "" {
		return "", fail(CodeFieldRequired, name)
	}
	return v, nil
}

// id reads a required id parameter; code 10 when absent.
func (c *call) id(name string, code Code) (int64, error) {
	v, err := c.required(name)
	if err != nil {
		return 0, err
	}
	return parseID(v, code, name)
}

// parseID reads an id parameter. Anything but a positive decimal answers
// as an id of nothing does (docs/api.md, Formats): code, with the object's
// own message (unknownID).
func parseID(v string, code Code, name string) (int64, error) {
	id, err := taskd.ParseID(v, name)
	if err != nil {
		return 0, unknownID(code, name)
	}
	return id, nil
}

// optID reads an optional id parameter; 0 when absent or empty.
func (c *call) optID(name string, code Code) (int64, error) {
	v := c.p[name]
	if v == "" {
		return 0, nil
	}
	return parseID(v, code, name)
}

// choice reads an optional parameter restricted to the allowed values.
func (c *call) choice(name string, allowed ...string) (string, error) {
	v := c.p[name]
	if v == "" || slices.Contains(allowed, v) {
		return v, nil
	}
	return "", failf(CodeInvalidValue, name, "Value must be one of: %s", strings.Join(allowed, ", "))
}

// extra reports whether the comma-separated extra parameter names word.
func (c *call) extra(word string) bool {
	extra := c.p["extra"]
	if extra == "" {
		return false
	}
	for _, w := range strings.Split(extra, ",") {
		if strings.TrimSpace(w) == word {
			return true
		}
	}
	return false
}

// personID is the person the credential acts for, whom from_me and to_me
// are relative to: the token's; 0 for the administrative key, which acts
// for the account.
func (c *call) personID() int64 {
	if c.who.person != nil {
		return c.who.person.ID
	}
	return 0
}

// actor returns who a change is made by: the token's person, or for the
// administrative key the member named by email_user_from, else the owner.
func (c *call) actor() (taskd.Actor, error) {
	a := taskd.Actor{AccountID: c.accountID()}
	if p := c.who.person; p != nil {
		if email, ok := c.p["email_user_from"]; ok && !strings.EqualFold(email, p.Email) {
			return a, failf(CodeForbidden, "email_user_from", "An access token acts as its own user; email_user_from is for the administrative key")
		}
		a.Person, a.Role = p.Ref(), p.Role
		return a, nil
	}
	var m taskd.Member
	var err error
	if email := c.p["email_user_from"]; email != "" {
		e, nerr := taskd.NormalizeEmail(email)
		if nerr != nil {
			return a, failf(CodeUserInvalid, "email_user_from", "User is not a member of this account")
		}
		m, err = c.store.MemberByEmail(c.ctx, c.accountID(), e)
	} else if c.who.owner != nil {
		m = *c.who.owner // read with the account
	} else {
		m, err = c.store.Owner(c.ctx, c.accountID())
	}
	if err != nil {
		return a, err
	}
	a.Person, a.Role, a.Key = m.Ref(), m.Role, true
	return a, nil
}

// target reads the required id of the object an action changes, and who
// changes it.
func (c *call) target(name string, code Code) (int64, taskd.Actor, error) {
	id, err := c.id(name, code)
	if err != nil {
		return 0, taskd.Actor{}, err
	}
	by, err := c.actor()
	return id, by, err
}
