package main

import (
	"context"
	"flag"
	"strings"
	"time"

	"github.com/taskd/taskd/oauth"
)

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

var _ flag.Value = (*stringList)(nil)

func clientCreate(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("client create", "Register an OAuth application in an account. Prints its client_id and client_secret; the secret is shown only now.")
	sf.register(fs, e.stderr, 0)
	slug := fs.String("account", "", "account slug (required)")
	name := fs.String("name", "", "application name (required)")
	var uris stringList
	fs.Var(&uris, "redirect-uri", "exact HTTPS redirect `URI` (required; repeat for several)")
	if err := parseFlags(fs, e, args, "account", "name", "redirect-uri"); err != nil {
		return helpOK(err)
	}
	db, a, err := sf.openAccount(ctx, *slug)
	if err != nil {
		return err
	}
	defer db.Close()
	c, sec, err := oauth.NewClient(a.ID, *name, uris)
	if err != nil {
		return cliError(err)
	}
	if c, err = db.CreateClient(ctx, c); err != nil {
		return cliError(err)
	}
	return printJSON(e.stdout, map[string]string{"client_id": c.ClientID, "client_secret": sec})
}

func signingKeyRotate(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("signing-key rotate", "Add a new access-token signing key. It is published in the JWKS at once and signs new tokens after ten minutes; tokens signed with older keys stay valid until they expire.")
	sf.register(fs, e.stderr, withKey|withOldKeys)
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	db, sealer, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	// Only the keys: no token is issued, so no issuer or account URL.
	s, err := oauth.New(ctx, oauth.Config{Store: db, Sealer: sealer, Now: time.Now})
	if err != nil {
		return err
	}
	if err := s.RotateKey(ctx); err != nil {
		return err
	}
	return printJSON(e.stdout, map[string]string{"status": "ok"})
}
