package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/server"
	"github.com/taskd/taskd/store"
)

// cliError turns a domain error into a message for the terminal: its
// message, or its kind, and the field or value it concerns.
func cliError(err error) error {
	var e *taskd.Error
	if !errors.As(err, &e) || e.Kind == taskd.KindInternal {
		return err
	}
	msg := cmp.Or(e.Message, e.Kind.String())
	if e.Reason == taskd.ReasonRequired && e.Message == "" {
		msg = "required"
	}
	if about := cmp.Or(e.Value, e.Field); about != "" {
		return fmt.Errorf("%s (%s)", msg, about)
	}
	return errors.New(msg)
}

// newPerson validates and hashes a person's details.
func newPerson(email, password, first, last string) (taskd.NewPerson, error) {
	p, err := taskd.PreparePerson(email, password, first, last, secret.Hasher{}.Hash)
	return p, cliError(err)
}

// joinsAtOnce reports whether p may be made a member without an
// invitation: they are new to taskd, or the password given is theirs (so
// whoever gives it could as well sign in and accept). A second account
// must never change or bypass a registered person's password.
func joinsAtOnce(ctx context.Context, db *store.DB, p taskd.NewPerson, password string) (bool, error) {
	existing, err := db.PersonByEmail(ctx, p.Email)
	if taskd.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return secret.VerifyPassword(existing.PasswordHash, password), nil
}

func migrate(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("migrate", "Apply pending database migrations and exit. Every command and serve apply them too; this one does nothing else.")
	sf.register(fs, e.stderr, 0)
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	db, err := sf.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return printJSON(e.stdout, map[string]string{"status": "ok", "database": db.Dialect()})
}

func accountCreate(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("account create", "Create an account with its owner. Prints the account and its administrative API key (shown once).")
	sf.register(fs, e.stderr, withKey)
	fs.StringVar(&sf.publicURL, "public-url", "", "the server's public URL, for the account URL printed (default http://127.0.0.1:8080)")
	slug := fs.String("slug", "", "account slug: lower-case letters, digits and hyphens (required)")
	name := fs.String("name", "", "account name (default: the slug)")
	email := fs.String("owner-email", "", "owner's e-mail address (required)")
	password := fs.String("owner-password", "", "owner's password, at least 8 characters (required)")
	first := fs.String("owner-first-name", "", "owner's first name")
	last := fs.String("owner-last-name", "", "owner's last name")
	if err := parseFlags(fs, e, args, "slug", "owner-email", "owner-password"); err != nil {
		return helpOK(err)
	}
	if err := taskd.ValidateSlug(*slug); err != nil {
		return cliError(err)
	}
	if *name == "" {
		*name = *slug
	}
	owner, err := newPerson(*email, *password, *first, *last)
	if err != nil {
		return err
	}
	db, sealer, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if ok, err := joinsAtOnce(ctx, db, owner, *password); err != nil || !ok {
		return cmp.Or(err, fmt.Errorf("%s is already registered with a different password", owner.Email))
	}
	key := secret.APIKey()
	a, _, err := db.CreateAccount(ctx, taskd.NewAccount{Slug: *slug, Name: *name,
		APIKey: sealer.SealAPIKey(*slug, key), Owner: owner})
	if err != nil {
		return cliError(err)
	}
	return printJSON(e.stdout, map[string]string{
		"id": strconv.FormatInt(a.ID, 10), "slug": a.Slug, "account_url": server.AccountURL(sf.baseURL("127.0.0.1:8080"), a.Slug), "api_key": key,
	})
}

func userAdd(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("user add", "Add a person to an account. Someone new to taskd joins at once with the password given. Someone already registered joins at once only if the password given is theirs; otherwise they are invited, and join when they accept after signing in.")
	sf.register(fs, e.stderr, 0)
	slug := fs.String("account", "", "account slug (required)")
	email := fs.String("email", "", "e-mail address (required)")
	password := fs.String("password", "", "password, at least 8 characters (required)")
	first := fs.String("first-name", "", "first name")
	last := fs.String("last-name", "", "last name")
	roleName := fs.String("role", "user", "role: user, admin, guest or reader")
	if err := parseFlags(fs, e, args, "account", "email", "password"); err != nil {
		return helpOK(err)
	}
	role, err := taskd.ParseRole(*roleName)
	if err != nil {
		return cliError(err)
	}
	p, err := newPerson(*email, *password, *first, *last)
	if err != nil {
		return err
	}
	db, a, err := sf.openAccount(ctx, *slug)
	if err != nil {
		return err
	}
	defer db.Close()
	ok, err := joinsAtOnce(ctx, db, p, *password)
	if err != nil {
		return err
	}
	if !ok {
		// Registered, and the password is not theirs: only they can consent.
		inv, err := db.Invite(ctx, taskd.InviteInput{AccountID: a.ID, Person: p, Role: role})
		if err != nil {
			return cliError(err)
		}
		// No id until they accept, as for any inviter (taskd.InvitationStore.Invite).
		return printJSON(e.stdout, map[string]string{"email": inv.Person.Email, "status": "invited"})
	}
	person, err := db.AddMember(ctx, a.ID, p, role)
	if err != nil {
		return cliError(err)
	}
	return printJSON(e.stdout, map[string]string{"id": strconv.FormatInt(person.ID, 10), "email": person.Email, "status": "member"})
}

func apikeyRotate(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("apikey rotate", "Replace an account's administrative API key; the old key stops working at once. Prints the new key.")
	sf.register(fs, e.stderr, withKey)
	slug := fs.String("account", "", "account slug (required)")
	if err := parseFlags(fs, e, args, "account"); err != nil {
		return helpOK(err)
	}
	db, sealer, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := findAccount(ctx, db, *slug)
	if err != nil {
		return err
	}
	key := secret.APIKey()
	if err := db.SetAPIKey(ctx, a.ID, sealer.SealAPIKey(a.Slug, key), 0); err != nil {
		return cliError(err)
	}
	return printJSON(e.stdout, map[string]string{"api_key": key})
}
