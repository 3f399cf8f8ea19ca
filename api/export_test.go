package api

import (
	"context"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/people"
)

// ActionScopes lists every action of the access-token API with the scope
// its table entry names, for tests written from the spec.
func ActionScopes() map[string]string {
	out := map[string]string{}
	for name, a := range New(Config{Tokens: noTokens{}, People: noPeople{}}).bearer.actions {
		out[name] = a.scope
	}
	return out
}

// AdminActions lists the administrative API's actions.
func AdminActions() []string {
	var out []string
	for name := range actions() {
		out = append(out, name)
	}
	return out
}

type noTokens struct{ TokenVerifier }

// KeyOnly reports whether an action takes the administrative key only.
func KeyOnly(name string) bool { return credentialOnly[name] == keyOnly }

// TokenOnly reports whether an action takes an access token only.
func TokenOnly(name string) bool { return credentialOnly[name] == bearerOnly }

// ActionParams lists the parameters an administrative action accepts.
func ActionParams(name string) []string { return actions()[name].params }

// noPeople is an Inviter for tables that are only listed.
type noPeople struct{}

func (noPeople) Invite(context.Context, taskd.Actor, taskd.Account, people.Invitation) (taskd.Invitation, error) {
	return taskd.Invitation{}, taskd.Internal("invite", nil)
}
