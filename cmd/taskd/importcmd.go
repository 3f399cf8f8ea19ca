package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
)

// importAccount is "taskd import": it copies a source account (Worksection,
// or another taskd) into an account of this one (issue 36). The key is a
// secret: it is never printed, and the source's errors never carry it.
func importAccount(ctx context.Context, e env, args []string) error {
	var sf storageFlags
	fs := newFlags("import", "Copy a whole account from a server that speaks the Worksection API (Worksection, or another taskd) into an account of this taskd, through its administrative API: people (with their consent: someone new becomes a member without a password, someone taskd knows is invited), teams and who is on them, contacts and their folders, project folders, tags in their order, projects, tasks at every depth (with their hidden lists, where the source shows them), dependencies between tasks, comments, cost lines and files (each checked by its size and SHA-256). Safe to run again: what was imported is found and only what changed in the source is brought over. Imported history fires no webhooks and sends no notifications. Nobody arrives above the role user unless --admins names them, and the account's members are left as they are. Prints a summary (JSON with --json) listing who was made a member or invited, with their roles, and a progress line per family on stderr.")
	sf.register(fs, e.stderr, withKey)
	fs.StringVar(&sf.publicURL, "public-url", "", "the server's public URL, for the links mailed with --invite (default http://127.0.0.1:8080)")
	from := fs.String("from", "", "the source account's address: https://NAME.worksection.com, or a taskd's {public-url}/a/{slug} (required)")
	key := fs.String("key", "", "the source account's administrative API `KEY`, a secret, never printed. "+
		"Given here, every local user sees it (ps): give it "+keyWays+". One way is required")
	keyFile := fs.String("key-file", "", "the `PATH` of a file holding the source account's administrative API key, one line, in place of --key")
	slug := fs.String("account", "", "the slug of the account to write into; made when missing, with --owner-email as its owner (required)")
	ownerEmail := fs.String("owner-email", "", "the owner of the account when the import makes it: an address new to this taskd, who sets a password through a link")
	admins := fs.String("admins", "", "the e-mail addresses (`EMAILS`, comma-separated) of the source's owners and admins who arrive as admins; "+
		"every other owner or admin arrives as a user (the summary says who). Each must be an owner or admin of the source")
	dryRun := fs.Bool("dry-run", false, "read everything and print what would be made, and who would arrive as what, writing nothing")
	only := fs.String("only", "", "the families to import, comma-separated: "+strings.Join(importer.Families, ", ")+" (default: all)")
	invite := fs.Bool("invite", false, "mail invitations and the links to set a password; without it invitations wait for people to sign in, and nothing is mailed")
	mailFrom := fs.String("mail-from", "", "the sender of the mail of --invite (default taskd@ the host of --public-url)")
	concurrency := fs.Int("concurrency", source.DefaultConcurrency, "the most requests in flight to the source")
	maxAnswer := fs.Int("max-answer", source.DefaultMaxAnswerBytes>>20, "the bound of one answer of the source, in MiB: its bytes, and the memory of what is kept of it; a larger answer stops the import with an error that names it. The reads hold at most this, and "+
		source.Size(source.DefaultAheadBytes)+" more for what is read ahead, whatever --concurrency")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if err := parseFlags(fs, e, args, "from", "account"); err != nil {
		return helpOK(err)
	}
	sf.secret("key", "with --key-file PATH, or --key - to read it from standard input")
	sf.warnExposed() // before the source is read: the key is in ps for the whole run
	srcKey, err := sourceKey(e, *key, *keyFile, sf.warn)
	if err != nil {
		return err
	}
	if err := taskd.ValidateSlug(*slug); err != nil {
		return cliError(err)
	}
	var families []string
	for f := range strings.SplitSeq(*only, ",") {
		if f = strings.TrimSpace(f); f != "" {
			families = append(families, f)
		}
	}
	named, err := adminList(*admins)
	if err != nil {
		return err
	}
	if *maxAnswer < 1 || *maxAnswer > maxAnswerMiB {
		return fmt.Errorf("--max-answer must be 1 to %d (MiB)", maxAnswerMiB)
	}
	opts := source.Options{Concurrency: *concurrency}
	opts.MaxAnswerBytes = int64(*maxAnswer) << 20
	src, err := source.New(*from, srcKey, opts)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	if len(named) > 0 { // before the account is made
		if err := importer.CheckAdmins(ctx, src, named); err != nil {
			return err
		}
	}
	// Each object commits with its mapping, so a commit lost to a crash
	// of the database is made again by the next run: no wait for the disk.
	db, sealer, err := sf.openWith(ctx, store.Options{AsyncCommit: true})
	if err != nil {
		return err
	}
	defer db.Close()
	acct, err := db.AccountBySlug(ctx, *slug)
	if taskd.IsNotFound(err) {
		acct, err = importTarget(ctx, db, sealer, *slug, *ownerEmail, *dryRun)
	}
	if err != nil {
		return err
	}
	dst := importer.Dest{Account: acct, Store: db, FileLimits: taskd.DefaultFileLimits}
	if *invite {
		base := sf.baseURL("127.0.0.1:8080")
		sender := *mailFrom
		if sender == "" {
			u, _ := url.Parse(base)
			sender = "taskd <taskd@" + u.Hostname() + ">"
		}
		folks := &people.Service{Store: db, Outbox: &mail.Outbox{Store: db, Sealer: sealer, From: sender}, PublicURL: base}
		dst.Invite, dst.PasswordLink = folks.Invite, folks.RequestReset
	}
	sum, err := importer.Run(ctx, src, dst, importer.Options{Only: families, DryRun: *dryRun, Admins: named,
		Progress: e.stderr, ProgressEvery: 2 * time.Second})
	if errors.Is(err, source.ErrAnswerTooLarge) {
		return fmt.Errorf("%w (give --max-answer MiB to raise the bound, now %d MiB; what was imported is kept, and a run again goes on from there)", err, *maxAnswer)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e.stdout, sum)
	}
	printSummary(e, sum)
	return nil
}

// maxAnswerMiB is the most --max-answer takes: 4 GiB.
const maxAnswerMiB = 4096

// importTarget makes the account an import writes into, owned by someone
// new to this taskd (they set a password through a reset link): someone
// registered must make the account themselves, or be invited to it.
func importTarget(ctx context.Context, db *store.DB, sealer *secret.Sealer, slug, ownerEmail string, dryRun bool) (taskd.Account, error) {
	if ownerEmail == "" {
		return taskd.Account{}, fmt.Errorf("no account %q: give --owner-email to make it", slug)
	}
	email, err := taskd.NormalizeEmail(ownerEmail)
	if err != nil {
		return taskd.Account{}, errors.New("--owner-email is not an e-mail address")
	}
	if _, err := db.PersonByEmail(ctx, email); err == nil {
		return taskd.Account{}, fmt.Errorf("%s is registered already: make the account with \"taskd account create\" (their password) and import into it", email)
	} else if !taskd.IsNotFound(err) {
		return taskd.Account{}, err
	}
	if dryRun {
		return taskd.Account{}, fmt.Errorf("no account %q yet: a dry run writes nothing, so it needs the account (make it with \"taskd account create\")", slug)
	}
	a, _, err := db.CreateAccount(ctx, taskd.NewAccount{Slug: slug, Name: slug, APIKey: sealer.SealAPIKey(slug, secret.APIKey()),
		Owner: taskd.NewPerson{Email: email}})
	return a, cliError(err)
}

// adminList is --admins: comma-separated e-mail addresses, normalized.
func adminList(flag string) ([]string, error) {
	var out []string
	for a := range strings.SplitSeq(flag, ",") {
		if strings.TrimSpace(a) == "" {
			continue
		}
		e, err := taskd.NormalizeEmail(a)
		if err != nil {
			return nil, fmt.Errorf("--admins: %q is not an e-mail address", strings.TrimSpace(a))
		}
		out = append(out, e)
	}
	return out, nil
}
