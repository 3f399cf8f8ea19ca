package importer_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/internal/testsite"
)

// pair is a source taskd filled through its API (fill) and a new account
// "moved" of the destination d to import it into.
type pair struct {
	src      *testsite.Site
	client   *source.Client
	acct     taskd.Account
	movedURL string // the destination account's address
	key      string // the destination account's administrative key
	top, sub string // source ids of a task and its subtask
	planB    string // source id of a task that depends on top
	// downloads counts the files client downloads.
	downloads *downloads
}

func newPair(t *testing.T, d *testsite.Site) *pair {
	t.Helper()
	p := &pair{src: testsite.New(t), downloads: &downloads{}}
	// The source's history is three days old: the dates kept differ
	// from the import's own.
	p.src.Clock.Advance(-72 * time.Hour)
	p.top, p.sub, p.planB = fill(t, p.src)
	p.key = d.CreateAccount("moved", "Moved", testsite.OwnerEmail, "Olga", "Owner")
	p.movedURL = d.Base + "/a/moved"
	var err error
	if p.acct, err = d.Store.AccountBySlug(context.Background(), "moved"); err != nil {
		t.Fatal(err)
	}
	if p.client, err = source.New(p.src.AccountURL(), p.src.Key, source.Options{HTTPClient: &http.Client{Transport: p.downloads}}); err != nil {
		t.Fatal(err)
	}
	return p
}

// dest is the destination account written through s.
func (p *pair) dest(s importer.Store) importer.Dest {
	return importer.Dest{Account: p.acct, Store: s}
}

// same fails the test where the destination differs from the source as
// imported (asImported: the destination's owner was a member before).
func (p *pair) same(t *testing.T, step string) {
	t.Helper()
	same(t, step, read(t, p.movedURL, p.key), asImported(read(t, p.src.AccountURL(), p.src.Key), testsite.OwnerEmail))
}

// asImported is what the destination reads as once the source account a
// is imported: a, but the members the destination had before the import
// (kept) stay on their own teams, not the source's (DESIGN §13).
func asImported(a account, kept ...string) account {
	a.OnTeams = slices.DeleteFunc(slices.Clone(a.OnTeams), func(on string) bool {
		email, _, _ := strings.Cut(on, ": ")
		return slices.Contains(kept, email)
	})
	return a
}

// accept has the person with the e-mail accept their one invitation.
func accept(t *testing.T, d *testsite.Site, email string) {
	t.Helper()
	ctx := context.Background()
	p, err := d.Store.PersonByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	invs, err := d.Store.PersonInvitations(ctx, p.ID)
	if err != nil || len(invs) != 1 {
		t.Fatalf("the invitations of %s: %+v %v", email, invs, err)
	}
	if _, err := d.Store.AcceptInvitation(ctx, p.ID, invs[0].ID); err != nil {
		t.Fatal(err)
	}
}
