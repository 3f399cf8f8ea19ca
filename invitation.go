package taskd

import (
	"context"
	"time"
)

// Invitation is an offer to join an account. Nobody is added to an account
// without their consent: an owner or admin invites, and the person accepts
// or declines after signing in.
type Invitation struct {
	ID        int64
	Account   Account // ID, Slug and Name
	Person    PersonRef
	Role      Role
	InvitedBy string // the inviter's display name; "" when they are gone
	Added     time.Time
}

// InvitationStore keeps invitations.
type InvitationStore interface {
	// Invite invites the person with np's e-mail to the account with
	// role. A person new to taskd is created with np's password and names;
	// an existing person keeps theirs. A conflict when they are already a
	// member or invited.
	Invite(ctx context.Context, accountID int64, np NewPerson, role Role, by int64) (Invitation, error)
	// AccountInvitations lists the account's pending invitations.
	AccountInvitations(ctx context.Context, accountID int64) ([]Invitation, error)
	// PersonInvitations lists the invitations waiting for a person.
	PersonInvitations(ctx context.Context, personID int64) ([]Invitation, error)
	// AcceptInvitation makes the person a member with the invitation's
	// role and returns the account. Not found when the person has no such
	// invitation.
	AcceptInvitation(ctx context.Context, personID, id int64) (Account, error)
	// DeclineInvitation deletes an invitation of the person; not found when
	// there is none.
	DeclineInvitation(ctx context.Context, personID, id int64) error
	// CancelInvitation deletes an invitation of the account; not found when
	// there is none.
	CancelInvitation(ctx context.Context, accountID, id int64) error
}
