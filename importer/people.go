package importer

import (
	"context"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/people"
)

// What became of a source person, kept as the mapping's fingerprint.
// Only the people the import brought in (made, joined) are the import's
// to change later (their team); a member it met is never changed. A
// mapping written by a version before issue 46 says "member" for both
// kinds: read as a member met, on the safe side.
const (
	personMember  = "member"  // a member here before the import met them
	personMaking  = "making"  // being made a member: kept before the write, so a stopped run knows its own
	personMade    = "made"    // made a member by the import (new to taskd)
	personInvited = "invited" // known to taskd: invited, joins when they accept
	personJoined  = "joined"  // invited by the import, and accepted
)

// sourceRole is a source role in taskd's words: "owner" for the source's
// owner, "admin" for its admins (Worksection's account and team admins).
func sourceRole(s string) taskd.Role {
	s = strings.ToLower(s)
	switch {
	case strings.Contains(s, "owner"):
		return taskd.RoleOwner
	case strings.Contains(s, "admin"):
		return taskd.RoleAdmin
	case strings.Contains(s, "guest"):
		return taskd.RoleGuest
	case strings.Contains(s, "reader"):
		return taskd.RoleReader
	}
	return taskd.RoleUser
}

// admitted is the role someone the import brings in gets (DESIGN §13): the
// source's, but an owner or admin there is a user here unless the operator
// named them (Options.Admins), and then an admin (the account has its own
// owner). demoted reports an owner or admin brought in as a user.
func (r *run) admitted(email string, from taskd.Role) (role taskd.Role, demoted bool) {
	if from != taskd.RoleOwner && from != taskd.RoleAdmin {
		return from, false
	}
	if r.admins[email] {
		return taskd.RoleAdmin, false
	}
	return taskd.RoleUser, true
}

// people brings the source's members over with their consent: an address
// new to taskd becomes a member without a password, who sets one through a
// link (mailed only with Dest.PasswordLink); an address taskd knows gets an
// invitation and joins when they accept. Nobody joins silently, and nobody
// arrives above the role user unless Options.Admins names them (admitted).
// What is theirs (assignments, authorship, subscriptions, teams of
// projects) is written without them and kept for them (taskd.WaitingRole):
// accepting gives it to them, with no run needed; declining drops it. A
// member here already is mapped and left as they are. Each person made or
// invited is listed in Summary.People.
func (r *run) people(ctx context.Context, c *Count) error {
	users, err := r.sourceUsers(ctx)
	if err != nil {
		return err
	}
	done, err := r.mappings(ctx, "person")
	if err != nil {
		return err
	}
	for _, u := range users {
		c.Read++
		email, err := taskd.NormalizeEmail(u.Email)
		if err != nil {
			r.skip(FamilyPeople, u.ID, "no valid e-mail address")
			continue
		}
		fp := done[u.ID].Fingerprint
		if m, ok := r.members[email]; ok {
			if err := r.known(ctx, c, u.ID, m, fp); err != nil {
				return err
			}
			continue
		}
		if fp == personInvited {
			c.Unchanged++
			r.stillInvited(u.ID, email)
			continue
		}
		from := sourceRole(u.Role)
		role, demoted := r.admitted(email, from)
		p := Person{Email: email, How: PersonMade, Role: role, SourceRole: from, Demoted: demoted}
		_, err = r.dst.Store.PersonByEmail(ctx, email)
		switch {
		case taskd.IsNotFound(err):
			// New to taskd: a member without a password.
			if err := r.makeMember(ctx, c, u, p); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			// Known to taskd: only they may consent to join.
			c.Created++
			p.How = PersonInvited
			r.sum.People = append(r.sum.People, p)
			r.skip(FamilyPeople, u.ID, "%s is registered in this taskd already: invited, joins when they accept", email)
			if r.opts.DryRun {
				continue
			}
			if err := r.invite(ctx, email, role); err != nil && !isConflict(err) {
				return err
			}
			if err := r.setPerson(ctx, u.ID, 0, personInvited); err != nil {
				return err
			}
		}
	}
	// The invitations made, with their roles, for what waits for them.
	return r.loadInvited(ctx)
}

// known maps a source person who is a member here (m), by what the
// mapping says (fp); nothing of the member is changed.
func (r *run) known(ctx context.Context, c *Count, sourceID string, m taskd.Member, fp string) error {
	if r.admins[m.Email] && m.Role != taskd.RoleAdmin && m.Role != taskd.RoleOwner {
		r.skip(FamilyPeople, sourceID, "%s is a member here already, as %s: the import changes no member's role (--admins)", m.Email, m.Role)
	}
	switch fp {
	case personMember, personMade, personJoined:
		c.Unchanged++
		return nil
	case personMaking:
		// Made by a run stopped before it said so.
		c.Unchanged++
		return r.setPerson(ctx, sourceID, m.ID, personMade)
	case personInvited:
		// They accepted, and took what waited for them then: the
		// account is as it should be, only the mapping says so now.
		c.Unchanged++
		return r.setPerson(ctx, sourceID, m.ID, personJoined)
	}
	c.Updated++ // a member already: mapped, and left as they are
	return r.setPerson(ctx, sourceID, m.ID, personMember)
}

// stillInvited reports someone an earlier run invited who is not a member:
// they have not answered, or declined. An invitation to be an admin that
// the operator did not name (made by a version before issue 46) is
// pointed out: the import does not change it.
func (r *run) stillInvited(sourceID, email string) {
	role, ok := r.invited[email]
	switch {
	case !ok:
		r.skip(FamilyPeople, sourceID, "%s declined the invitation, or it was cancelled: not invited again", email)
	case (role == taskd.RoleAdmin || role == taskd.RoleOwner) && !r.admins[email]:
		r.skip(FamilyPeople, sourceID, "%s is invited as %s by an earlier run and has not accepted: cancel the invitation on the people page unless they should be one", email, role)
	default:
		r.skip(FamilyPeople, sourceID, "%s is invited and has not accepted: what is theirs waits for them", email)
	}
}

// makeMember makes someone new to taskd a member without a password, with
// the role p says, and mails them the link to set one (Dest.PasswordLink).
// The mapping says "making" before the write, so that a run stopped
// between the two knows the member as its own.
func (r *run) makeMember(ctx context.Context, c *Count, u source.User, p Person) error {
	c.Created++
	r.sum.People = append(r.sum.People, p)
	if r.opts.DryRun {
		return nil
	}
	if err := r.setPerson(ctx, u.ID, 0, personMaking); err != nil {
		return err
	}
	np := taskd.NewPerson{Email: p.Email, FirstName: u.FirstName, LastName: u.LastName, Title: u.Title}
	if np.FirstName == "" && np.LastName == "" {
		np.FirstName = u.Name
	}
	if _, err := r.dst.Store.AddMember(ctx, r.dst.Account.ID, np, p.Role); err != nil && !isConflict(err) {
		return err
	}
	if err := r.loadMembers(ctx); err != nil {
		return err
	}
	if err := r.setPerson(ctx, u.ID, r.members[p.Email].ID, personMade); err != nil {
		return err
	}
	if r.dst.PasswordLink != nil {
		if err := r.dst.PasswordLink(ctx, p.Email); err != nil {
			r.skip(FamilyPeople, u.ID, "the link to set a password was not sent to %s: %v", p.Email, err)
		}
	}
	return nil
}

// setPerson writes a source person's mapping: the local person (0 when
// none yet) and what became of them (fp).
func (r *run) setPerson(ctx context.Context, sourceID string, local int64, fp string) error {
	if r.opts.DryRun {
		return nil
	}
	return r.dst.Store.SetImportMapping(ctx, r.key("person", sourceID), taskd.ImportMapping{LocalID: local, Fingerprint: fp})
}

// invite invites a registered person with the role admitted gave them:
// mailed through Dest.Invite, else kept without a mail.
func (r *run) invite(ctx context.Context, email string, role taskd.Role) error {
	by := r.owner
	by.Imported = false
	if r.dst.Invite != nil {
		_, err := r.dst.Invite(ctx, by, r.dst.Account, people.Invitation{Email: email, Role: role})
		return err
	}
	_, err := r.dst.Store.Invite(ctx, taskd.InviteInput{AccountID: r.dst.Account.ID, Person: taskd.NewPerson{Email: email},
		Role: role, By: by.Person.ID})
	return err
}

func isConflict(err error) bool { return err != nil && taskd.ErrorKind(err) == taskd.KindConflict }

// sourceUsers reads (once) the source's members.
func (r *run) sourceUsers(ctx context.Context) ([]source.User, error) {
	if r.users != nil {
		return r.users, nil
	}
	users, err := r.src.Users(ctx)
	if err != nil {
		return nil, err
	}
	r.users = users
	return users, nil
}
