package taskd

// Permission is something a member of an account may be allowed to do. Who
// may do what is decided here and nowhere else: the account API, the pages
// and the store ask these functions, so no surface can drift from another.
type Permission string

// The permissions, from what every member may do to what only owners and
// admins may.
const (
	// PermRead is seeing projects, tasks and comments: every project for
	// owners, admins and users; only the projects one is a member of for
	// guests and readers (Role.Limited).
	PermRead Permission = "read"
	// PermWork is changing projects, tasks and subtasks, and writing
	// comments and changing one's own, where one may read.
	PermWork Permission = "work"
	// PermModerate is editing and deleting other people's comments.
	PermModerate Permission = "moderate"
	// PermManagePeople is adding people and changing their roles.
	PermManagePeople Permission = "manage people"
	// PermSettings is the administrative API key, API applications,
	// webhooks and the account's custom fields, in the pages.
	PermSettings Permission = "settings"
	// PermAdministrative is the administrative scope of the API: webhook
	// actions and the event log. Only members who hold it may grant it to
	// an application.
	PermAdministrative Permission = "administrative"
)

// rolePermissions lists what each role may do. Owners and admins may do
// everything; they differ only in that the owner's role cannot change.
var rolePermissions = map[Role][]Permission{
	RoleOwner:  {PermRead, PermWork, PermModerate, PermManagePeople, PermSettings, PermAdministrative},
	RoleAdmin:  {PermRead, PermWork, PermModerate, PermManagePeople, PermSettings, PermAdministrative},
	RoleUser:   {PermRead, PermWork},
	RoleGuest:  {PermRead, PermWork},
	RoleReader: {PermRead},
}

// Can reports whether a member with role r may do p. An unknown role may
// do nothing.
func (r Role) Can(p Permission) bool {
	for _, q := range rolePermissions[r] {
		if q == p {
			return true
		}
	}
	return false
}

// MayGrant reports whether a member with role r may give role to someone:
// by an invitation, or by changing a member's role. Owners and admins may
// give every role but owner (which comes only with the account); other
// roles may give none. A change of trust ends the invitations their
// inviter may no longer grant (TrustEnded).
func (r Role) MayGrant(role Role) bool {
	if _, err := ParseRole(string(role)); err != nil {
		return false
	}
	return r.Can(PermManagePeople)
}

// MayGrantScope reports whether a member with role r may grant an
// application the scope: administrative needs PermAdministrative, the
// others any role. A demotion revokes the grants that hold a scope the
// new role may not grant.
func (r Role) MayGrantScope(scope string) bool {
	return scope != ScopeAdministrative || r.Can(PermAdministrative)
}

// Authorize returns nil when by may do p, else a forbidden error naming p.
func Authorize(by Actor, p Permission) error {
	if by.Role.Can(p) {
		return nil
	}
	return Forbidden(string(p), "Your role (%s) does not allow this", roleName(by.Role))
}

func roleName(r Role) string {
	if r == "" {
		return "none"
	}
	return string(r)
}

// CanChangeComment returns nil when by may edit or delete c: its author,
// or a member who may moderate. Otherwise it is forbidden.
func CanChangeComment(by Actor, c Comment) error {
	if by.AccountID != c.AccountID {
		return NotFound("comment")
	}
	if c.Author.ID == by.Person.ID && by.Role.Can(PermWork) {
		return nil
	}
	if by.Role.Can(PermModerate) {
		return nil
	}
	return Forbidden("comment", "Only the comment's author, an admin or the owner may change it")
}

// CanChangeTags returns nil when by may rename, reorder or delete the
// account's tags and tag groups: a member who may work, as adding them
// needs, and who sees every project (or the administrative key). Guests
// may add tags but not change these: a tag is the whole account's, and
// renaming or deleting one changes projects and boards they do not see.
// Otherwise it is forbidden.
func CanChangeTags(by Actor) error {
	if err := Authorize(by, PermWork); err != nil {
		return err
	}
	if !by.Key && by.Role.Limited() {
		return Forbidden("tags", "Only owners, admins and users may rename, reorder or delete tags; your role (%s) may add them", roleName(by.Role))
	}
	return nil
}
