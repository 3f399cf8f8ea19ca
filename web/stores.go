package web

import (
	"context"

	"github.com/taskd/taskd"
)

// The pages name what they use of the store by topic: the root's
// families for the work of an account (Config.Projects, Config.Tasks …),
// read as a viewer and changed as an actor, and the small interfaces
// below for the rest; one *store.DB serves them all (server/routes.go).
// The webhook changes go through Config.Hooks.

// AccountStore is what the pages read and change of accounts, their
// members and people: settings, roles, passwords, profiles, the one-time
// links of mail, and whether a person wants task notifications.
type AccountStore interface {
	taskd.AccountStore
	taskd.MemberStore
	taskd.PersonStore
	taskd.LinkStore
	SetNotify(ctx context.Context, personID int64, on bool) error
}

// AppStore keeps the OAuth applications of an account and the
// authorizations people gave them.
type AppStore interface {
	taskd.ClientStore
	taskd.GrantStore
}
