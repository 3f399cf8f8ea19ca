package web

import (
	"context"
	"net/url"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/webhook"
)

// Authorizer answers the authorization requests of OAuth applications
// (oauth.Server): the pages sign the person in, ask which account and
// for consent, and hand the answer back to it.
type Authorizer interface {
	ParseRequest(ctx context.Context, q url.Values) (oauth.Request, error)
	// CheckRequest is ParseRequest with the application already read
	// (a zero Client when there is none).
	CheckRequest(q url.Values, c taskd.Client) (oauth.Request, error)
	Approve(ctx context.Context, r oauth.Request, person taskd.Person, m taskd.Membership) (string, error)
	Deny(r oauth.Request) string
}

// WebhookService makes the changes of the webhook pages (webhook.Service,
// which the API's webhook actions use too).
type WebhookService interface {
	List(ctx context.Context, accountID int64) ([]taskd.Webhook, error)
	Add(ctx context.Context, v taskd.Viewer, in taskd.WebhookInput, allowed []string) (taskd.Webhook, string, error)
	EnableHeld(ctx context.Context, accountID, id, by int64) (int, error)
	Disable(ctx context.Context, accountID, id int64) error
	Test(ctx context.Context, accountID, id int64) (taskd.Webhook, webhook.Result, error)
	RotateSecret(ctx context.Context, accountID, id int64) (string, error)
	Redeliver(ctx context.Context, accountID, deliveryID int64) error
	Delete(ctx context.Context, accountID, id int64) error
}

// Mailer sends invitations and one-time links by e-mail (people.Service).
type Mailer interface {
	Invite(ctx context.Context, by taskd.Actor, acct taskd.Account, in people.Invitation) (taskd.Invitation, error)
	RequestReset(ctx context.Context, email string) error
	RequestEmailChange(ctx context.Context, p taskd.Person, newEmail string, endGrants bool) error
}
