package importer

import (
	"context"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/store"
)

// What became of a source person, kept as the mapping's fingerprint.
const (
	personMember  = "member"  // a member already, or made one (new to taskd)
	personInvited = "invited" // known to taskd: invited, joins when they accept
)

// roleOf maps a source role to a role of the destination: the source's
// owner becomes an admin (the account has its owner).
func roleOf(s string) taskd.Role {
	s = strings.ToLower(s)
	switch {
	case strings.Contains(s, "owner"), strings.Contains(s, "admin"):
		return taskd.RoleAdmin
	case strings.Contains(s, "guest"):
		return taskd.RoleGuest
	case strings.Contains(s, "reader"):
		return taskd.RoleReader
	}
	return taskd.RoleUser
}

// people brings the source's members over with their consent: an address
// new to taskd becomes a member without a password, who sets one through a
// link (mailed only with Dest.PasswordLink); an address taskd knows gets an
// invitation and joins when they accept. Nobody joins silently. What is
// theirs (assignments, authorship, subscriptions, teams of projects) is
// written without them and kept for them (store.Waiting): accepting gives
// it to them, with no run needed; declining drops it.
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
		if _, ok := r.members[email]; ok {
			switch done[u.ID].Fingerprint {
			case personMember:
				c.Unchanged++
				continue
			case personInvited:
				// They accepted, and took what waited for them then: the
				// account is as it should be, only the mapping says so now.
				c.Unchanged++
			default:
				c.Updated++ // a member already: mapped
			}
			if err := r.mapPerson(ctx, u.ID, email); err != nil {
				return err
			}
			continue
		}
		if done[u.ID].Fingerprint == personInvited {
			c.Unchanged++
			if _, ok := r.invited[email]; ok {
				r.skip(FamilyPeople, u.ID, "%s is invited and has not accepted: what is theirs waits for them", email)
			} else {
				r.skip(FamilyPeople, u.ID, "%s declined the invitation, or it was cancelled: not invited again", email)
			}
			continue
		}
		_, err = r.dst.Store.PersonByEmail(ctx, email)
		switch {
		case taskd.IsNotFound(err):
			// New to taskd: a member without a password.
			c.Created++
			if r.opts.DryRun {
				continue
			}
			np := taskd.NewPerson{Email: email, FirstName: u.FirstName, LastName: u.LastName, Title: u.Title}
			if np.FirstName == "" && np.LastName == "" {
				np.FirstName = u.Name
			}
			if _, err := r.dst.Store.AddMember(ctx, r.dst.Account.ID, np, roleOf(u.Role)); err != nil && !isConflict(err) {
				return err
			}
			if err := r.loadMembers(ctx); err != nil {
				return err
			}
			if err := r.mapPerson(ctx, u.ID, email); err != nil {
				return err
			}
			if r.dst.PasswordLink != nil {
				if err := r.dst.PasswordLink(ctx, email); err != nil {
					r.skip(FamilyPeople, u.ID, "the link to set a password was not sent to %s: %v", email, err)
				}
			}
		case err != nil:
			return err
		default:
			// Known to taskd: only they may consent to join.
			c.Created++
			r.skip(FamilyPeople, u.ID, "%s is registered in this taskd already: invited, joins when they accept", email)
			if r.opts.DryRun {
				continue
			}
			if err := r.invite(ctx, email, u.Role); err != nil && !isConflict(err) {
				return err
			}
			if err := r.dst.Store.SetImportMapping(ctx, r.key("person", u.ID), store.ImportMapping{Fingerprint: personInvited}); err != nil {
				return err
			}
		}
	}
	// The invitations made, with their roles, for what waits for them.
	return r.loadInvited(ctx)
}

func (r *run) mapPerson(ctx context.Context, sourceID, email string) error {
	if r.opts.DryRun {
		return nil
	}
	return r.dst.Store.SetImportMapping(ctx, r.key("person", sourceID), store.ImportMapping{LocalID: r.members[email].ID, Fingerprint: personMember})
}

// invite invites a registered person: mailed through Dest.Invite, else
// kept without a mail.
func (r *run) invite(ctx context.Context, email, role string) error {
	by := r.owner
	by.Imported = false
	if r.dst.Invite != nil {
		_, err := r.dst.Invite(ctx, by, r.dst.Account, people.Invitation{Email: email, Role: roleOf(role)})
		return err
	}
	_, err := r.dst.Store.Invite(ctx, taskd.InviteInput{AccountID: r.dst.Account.ID, Person: taskd.NewPerson{Email: email},
		Role: roleOf(role), By: by.Person.ID})
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
