package taskd

// Viewer is who a read is for. Every read of projects, tasks, comments,
// costs, timers, files and events takes one, and the store applies the
// rule of who sees what in its queries (DESIGN §10): the administrative
// key sees its whole account; a person sees projects by role (owner,
// admin and user every project; guest and reader those whose team they
// are on) and hidden tasks and comments only where listed or the author.
// What a viewer may not see is not found, exactly as an id of nothing,
// and is left out of every list, count and sum.
type Viewer struct {
	AccountID int64
	// PersonID is the person the read is for; with Key it is the member
	// the administrative key acts as, which does not narrow what it sees.
	PersonID int64
	// Role is the person's role in the account, read for this request.
	Role Role
	// Key marks the administrative key, which sees the whole account.
	Key bool
}

// AccountViewer is the whole account's viewer: the administrative key's,
// and the server's own work (fan-out, digests, exports of an account).
func AccountViewer(accountID int64) Viewer { return Viewer{AccountID: accountID, Key: true} }

// PersonViewer is a member's viewer.
func PersonViewer(accountID, personID int64, role Role) Viewer {
	return Viewer{AccountID: accountID, PersonID: personID, Role: role}
}

// SeesAll reports whether the viewer sees every project of the account
// (hidden tasks and comments apart): the key, and roles that are not
// limited to their projects' teams.
func (v Viewer) SeesAll() bool {
	return v.Key || (v.Role.Can(PermRead) && !v.Role.Limited())
}

// SeesNothing reports whether the viewer may read nothing at all: no key
// and no role that reads.
func (v Viewer) SeesNothing() bool { return !v.Key && !v.Role.Can(PermRead) }

// Viewer is what the actor sees, for the reads a change makes: a change
// of an object the actor may not see finds nothing.
func (a Actor) Viewer() Viewer {
	return Viewer{AccountID: a.AccountID, PersonID: a.Person.ID, Role: a.Role, Key: a.Key}
}
