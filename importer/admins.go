package importer

import (
	"context"
	"fmt"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
)

// How a person came in (Person.How).
const (
	PersonMade    = "made"    // new to taskd: made a member without a password
	PersonInvited = "invited" // known to taskd: invited, joins when they accept
)

// Person is someone a run made a member of the account or invited to it (a
// dry run: would have), with the role they have or will have there.
type Person struct {
	Email string `json:"email"`
	// How is PersonMade or PersonInvited.
	How  string     `json:"how"`
	Role taskd.Role `json:"role"`
	// SourceRole is their role in the source in taskd's words, "owner"
	// for the source's owner.
	SourceRole taskd.Role `json:"source_role"`
	// Demoted is set for an owner or admin of the source brought in as a
	// user because Options.Admins did not name them.
	Demoted bool `json:"demoted,omitempty"`
}

// CheckAdmins refuses admins (Options.Admins) unless each is an owner or
// admin of the source, as Run does before it writes anything; a command
// calls it before it makes the account to import into.
func CheckAdmins(ctx context.Context, src *source.Client, admins []string) error {
	r := &run{src: src, opts: Options{Admins: admins}}
	return r.checkAdmins(ctx)
}

// checkAdmins reads Options.Admins: each must be an owner or admin of the
// source, else the run is refused before it writes anything (a misspelt
// address would leave the person a user without a word).
func (r *run) checkAdmins(ctx context.Context) error {
	r.admins = map[string]bool{}
	if len(r.opts.Admins) == 0 {
		return nil
	}
	users, err := r.sourceUsers(ctx)
	if err != nil {
		return fmt.Errorf("import: the source's people: %w", err)
	}
	roles := map[string]taskd.Role{}
	for _, u := range users {
		if e, err := taskd.NormalizeEmail(u.Email); err == nil {
			roles[e] = sourceRole(u.Role)
		}
	}
	var wrong []string
	for _, a := range r.opts.Admins {
		e, err := taskd.NormalizeEmail(a)
		if err != nil {
			return fmt.Errorf("import: --admins: %q is not an e-mail address", a)
		}
		switch role, ok := roles[e]; {
		case !ok:
			wrong = append(wrong, e+" is not in the source")
		case role != taskd.RoleOwner && role != taskd.RoleAdmin:
			wrong = append(wrong, fmt.Sprintf("%s is a %s there", e, role))
		}
		r.admins[e] = true
	}
	if len(wrong) > 0 {
		return fmt.Errorf("import: --admins names only owners and admins of the source: %s; nothing was imported", strings.Join(wrong, ", "))
	}
	return nil
}
