package taskd

import (
	"context"
	"time"
)

// How long the one-time links sent by e-mail work.
const (
	InvitationLinkLife = 7 * 24 * time.Hour
	ResetLinkLife      = time.Hour
	EmailLinkLife      = 24 * time.Hour
)

// LinkStore keeps the one-time links for password resets and e-mail
// changes (invitations' links are in InvitationStore).
type LinkStore interface {
	// RequestReset records a reset link for the person with the e-mail and
	// queues its mail, made by mail for that person, in one transaction.
	// Not found ("person") when nobody has the address: the caller must
	// answer the same either way.
	RequestReset(ctx context.Context, email string, link Link, mail func(Person) QueuedMail) error
	// ResetPassword sets the password of the link's person, ends every
	// session of theirs, every reset or e-mail link, and every
	// authorization of an application they gave (a reset is for a
	// compromised account). Not found ("link") when the link is unknown,
	// used or expired.
	ResetPassword(ctx context.Context, hash, passwordHash string) (Person, error)
	// RequestEmailChange records a link that moves the person to the new
	// address, and queues its mail (to the new address).
	RequestEmailChange(ctx context.Context, personID int64, newEmail string, link Link, mail QueuedMail) error
	// ConfirmEmail moves the link's person to the new address, ends their
	// other reset and e-mail links and, when the link was made with
	// EndGrants, every authorization of an application they gave. Not
	// found ("link") as ResetPassword; a conflict when the address has
	// been taken meanwhile.
	ConfirmEmail(ctx context.Context, hash string) (Person, error)
}
