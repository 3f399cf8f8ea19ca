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

// InviteInput is an invitation to make.
type InviteInput struct {
	AccountID int64
	// Person holds the e-mail, and for someone new to taskd their names
	// and password hash ("" when they set it themselves).
	Person NewPerson
	Role   Role
	// Team (by title, made when missing) and Department are the member's
	// once they accept.
	Team       string
	Department string
	By         int64 // the inviting person; 0 for the command line
	// Link, when set, is the one-time link sent with the invitation.
	Link *Link
	// Mail, when set, is the invitation's e-mail.
	Mail *QueuedMail
}

// Link is a one-time link sent by e-mail: only the hash of its token is
// kept, and it works once, until it expires.
type Link struct {
	Hash    string
	Expires time.Time
	// EndGrants, on a link that changes an e-mail address, ends every
	// authorization of an application the person gave when it is used.
	EndGrants bool
}

// InvitationStore keeps invitations.
type InvitationStore interface {
	// Invite invites the person with in.Person's e-mail to the account. A
	// person new to taskd is created with in.Person's names and password
	// hash (empty: they set their own through the invitation's link); an
	// existing person keeps theirs. The link and the mail, when given, are
	// written in the same transaction. A conflict when they are already a
	// member or invited; forbidden ("role") when in.By may not grant the
	// role (Role.MayGrant).
	//
	// The invitation returned names its person by the e-mail alone (ID 0),
	// as AccountInvitations does: nothing an inviter sees tells whether
	// the address had a person in taskd before.
	Invite(ctx context.Context, in InviteInput) (Invitation, error)
	// InvitationByLink returns the invitation of a one-time link, and
	// whether its person has a password yet. Not found ("link") when the
	// link is unknown, used or expired.
	InvitationByLink(ctx context.Context, hash string) (Invitation, bool, error)
	// JoinByLink accepts the invitation of a link for a person who has no
	// password yet: it sets their password and names and makes them a
	// member. Not found ("link") as InvitationByLink, and ("invitation")
	// as AcceptInvitation; a conflict when the person has a password (they
	// sign in and accept instead).
	JoinByLink(ctx context.Context, hash string, p NewPerson) (Account, Person, error)
	// AccountInvitations lists the account's pending invitations, each
	// naming its person by the e-mail alone (ID 0).
	AccountInvitations(ctx context.Context, accountID int64) ([]Invitation, error)
	// PersonInvitations lists the invitations waiting for a person.
	PersonInvitations(ctx context.Context, personID int64) ([]Invitation, error)
	// AcceptInvitation makes the person a member with the invitation's
	// role and returns the account. Not found ("invitation") when the
	// person has no such invitation, or when its inviter is, at this
	// moment, no longer a member who may grant its role.
	AcceptInvitation(ctx context.Context, personID, id int64) (Account, error)
	// DeclineInvitation deletes an invitation of the person; not found when
	// there is none.
	DeclineInvitation(ctx context.Context, personID, id int64) error
	// CancelInvitation deletes an invitation of the account; not found when
	// there is none.
	CancelInvitation(ctx context.Context, accountID, id int64) error
}
