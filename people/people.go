// Package people invites people by e-mail and sends the one-time links
// that let them set or reset a password and confirm a new address. The
// pages and the account API both come here, so an invitation is the same
// whichever way it is made: a link in an e-mail, written to the outbox in
// the same transaction as the invitation.
package people

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/secret"
)

// Store is what the service changes.
type Store interface {
	taskd.InvitationStore
	taskd.LinkStore
}

// Service sends invitations and links.
type Service struct {
	Store  Store
	Outbox *mail.Outbox
	// Budget bounds the mail people cause to addresses they choose; nil:
	// no bound.
	Budget *Budget
	// PublicURL is the server's address as people reach it; links start
	// with it.
	PublicURL string
	Now       func() time.Time
}

// Invitation is an invitation to make.
type Invitation struct {
	Email      string
	FirstName  string
	LastName   string
	Role       taskd.Role
	Title      string // position, for someone new to taskd
	Team       string // made when missing
	Department string
}

// Check validates the invitation's fields, naming the bad one.
func (in Invitation) Check() error {
	if _, err := taskd.NormalizeEmail(in.Email); err != nil {
		return &taskd.Error{Kind: taskd.KindInvalid, Field: "email", Value: strings.TrimSpace(in.Email), Message: "Invalid e-mail"}
	}
	for field, v := range map[string]string{"first_name": in.FirstName, "last_name": in.LastName, "title": in.Title,
		"group": in.Team, "department": in.Department} {
		if len(v) > taskd.MaxTitleLen || strings.ContainsAny(v, "\r\n") {
			return taskd.Invalid(field, "The value is one line of at most %d bytes", taskd.MaxTitleLen)
		}
	}
	return nil
}

// Invite invites a person to the account by e-mail. The answer does not
// tell whether the address was registered: someone new sets their password
// through the link, someone registered signs in and accepts.
func (s *Service) Invite(ctx context.Context, by taskd.Actor, acct taskd.Account, in Invitation) (taskd.Invitation, error) {
	if err := taskd.Authorize(by, taskd.PermManagePeople); err != nil {
		return taskd.Invitation{}, err
	}
	if err := in.Check(); err != nil {
		if taskd.AsError(err).Field == "email" {
			return taskd.Invitation{}, taskd.Invalid("email", "E-mail address is invalid")
		}
		return taskd.Invitation{}, err
	}
	email, _ := taskd.NormalizeEmail(in.Email)
	first, last := strings.TrimSpace(in.FirstName), strings.TrimSpace(in.LastName)
	token := secret.Token(32)
	m, err := s.Outbox.Seal("invitation", invitationMail(email, acct.Name, by.Person.Name, s.link("/join", token)))
	if err != nil {
		return taskd.Invitation{}, taskd.Internal("invitation mail", err)
	}
	back, err := s.Budget.spend(ctx, s.Budget.invitation(acct.ID, email)...)
	if err != nil {
		return taskd.Invitation{}, err
	}
	inv, err := s.Store.Invite(ctx, taskd.InviteInput{AccountID: acct.ID,
		Person: taskd.NewPerson{Email: email, FirstName: first, LastName: last, Title: strings.TrimSpace(in.Title)},
		Role:   in.Role, Team: strings.TrimSpace(in.Team), Department: strings.TrimSpace(in.Department), By: by.Person.ID,
		Link: &taskd.Link{Hash: secret.HashToken(token), Expires: s.now().Add(taskd.InvitationLinkLife)}, Mail: &m})
	if err != nil { // no mail went: it costs nothing
		return inv, refunded(ctx, err, back)
	}
	return inv, nil
}

// RequestReset sends a reset link to the address if a person has it, and
// does nothing otherwise; the caller answers the same either way.
func (s *Service) RequestReset(ctx context.Context, email string) error {
	email, err := taskd.NormalizeEmail(email)
	if err != nil {
		return err
	}
	// Spent whether or not a person has the address, and never given
	// back: a count that differed would tell.
	if _, err := s.Budget.spend(ctx, s.Budget.reset(email)...); err != nil {
		return err
	}
	token := secret.Token(32)
	var sealErr error
	err = s.Store.RequestReset(ctx, email, taskd.Link{Hash: secret.HashToken(token), Expires: s.now().Add(taskd.ResetLinkLife)},
		func(p taskd.Person) taskd.QueuedMail {
			m, err := s.Outbox.Seal("reset", resetMail(p.Email, s.link("/reset/password", token)))
			sealErr = err
			return m
		})
	if taskd.IsNotFound(err) {
		return nil
	}
	if err == nil && sealErr != nil {
		return taskd.Internal("reset mail", sealErr)
	}
	return err
}

// RequestEmailChange sends a confirmation link to the new address; the
// person moves to it when they follow the link, and with endGrants every
// authorization of an application they gave ends then.
func (s *Service) RequestEmailChange(ctx context.Context, p taskd.Person, newEmail string, endGrants bool) error {
	email, err := taskd.NormalizeEmail(newEmail)
	if err != nil {
		return err
	}
	if email == p.Email {
		return taskd.Invalid("email", "This is your address already")
	}
	token := secret.Token(32)
	m, err := s.Outbox.Seal("email", emailChangeMail(email, p.DisplayName(), s.link("/confirm-email", token)))
	if err != nil {
		return taskd.Internal("confirmation mail", err)
	}
	back, err := s.Budget.spend(ctx, s.Budget.emailChange(p.ID, email)...)
	if err != nil {
		return err
	}
	err = s.Store.RequestEmailChange(ctx, p.ID, email, taskd.Link{Hash: secret.HashToken(token), Expires: s.now().Add(taskd.EmailLinkLife),
		EndGrants: endGrants}, m)
	if err != nil {
		return refunded(ctx, err, back)
	}
	return nil
}

// refunded gives back what a mail that was not sent took of the budget,
// and returns err (joined with the refund's own error, if any).
func refunded(ctx context.Context, err error, back refund) error {
	if rerr := back(context.WithoutCancel(ctx)); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// link is the address of a one-time link: the token in the query, which
// the access log never records.
func (s *Service) link(path, token string) string {
	return strings.TrimRight(s.PublicURL, "/") + path + "?t=" + url.QueryEscape(token)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
