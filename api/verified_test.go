package api

import (
	"context"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
)

// TestVerifiedHashesBounds: an entry answers only for its account, slug
// and sealed key; a new key forgets the old one's; a long signed text is
// not kept; a full cache starts again.
func TestVerifiedHashesBounds(t *testing.T) {
	t.Parallel()
	v := newVerifiedHashes(3)
	sealed, other := []byte("sealed-1"), []byte("sealed-2")
	v.add(1, "acme", sealed, "a=1&hash=x")
	for _, c := range []struct {
		acct   int64
		slug   string
		sealed []byte
		form   string
		want   bool
	}{
		{1, "acme", sealed, "a=1&hash=x", true},
		{1, "acme", sealed, "a=2&hash=x", false},
		{2, "acme", sealed, "a=1&hash=x", false},
		{1, "other", sealed, "a=1&hash=x", false},
		{1, "acme", other, "a=1&hash=x", false},
	} {
		if got := v.has(c.acct, c.slug, c.sealed, c.form); got != c.want {
			t.Errorf("has(%d, %s, %s, %s) = %v", c.acct, c.slug, c.sealed, c.form, got)
		}
	}
	v.add(1, "acme", other, "a=2&hash=y")
	if v.has(1, "acme", sealed, "a=1&hash=x") || !v.has(1, "acme", other, "a=2&hash=y") || v.n != 1 {
		t.Fatalf("after a new key: old %v, new %v, n %d", v.has(1, "acme", sealed, "a=1&hash=x"), v.has(1, "acme", other, "a=2&hash=y"), v.n)
	}
	long := strings.Repeat("a", maxVerifiedForm+1)
	v.add(1, "acme", other, long)
	if v.has(1, "acme", other, long) {
		t.Fatal("a long signed text was kept")
	}
	v.add(1, "acme", other, "b")
	v.add(1, "acme", other, "c")
	v.add(1, "acme", other, "d") // the fourth: emptied first
	if v.n != 1 || v.has(1, "acme", other, "b") || !v.has(1, "acme", other, "d") {
		t.Fatalf("full cache: n %d", v.n)
	}
}

// TestKnownVersionServesOnlyItsProject: the version read with the account
// (for the project of get_tasks as sent) answers only for that project: a
// call whose authenticated parameters name another project reads that
// one's version, or its absence, from the store, never the one read along.
func TestKnownVersionServesOnlyItsProject(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		a := testaccount.New(t, db, testaccount.Options{})
		other := testaccount.New(t, db, testaccount.Options{})
		mine, err := db.CreateProject(ctx, a.Actor(), taskd.ProjectInput{Name: ptr("Mine")})
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := db.CreateProject(ctx, other.Actor(), taskd.ProjectInput{Name: ptr("Theirs")})
		if err != nil {
			t.Fatal(err)
		}
		want, err := db.ProjectVersion(ctx, taskd.AccountViewer(a.ID), mine.ID)
		if err != nil {
			t.Fatal(err)
		}
		c := &call{ctx: ctx, store: db, who: &caller{account: a.Account}}
		// Read along for the other account's project, as seen by nobody.
		c.known = knownVersion{project: theirs.ID, version: 0, seen: false}
		if got, err := c.projectVersion(mine.ID); err != nil || got != want {
			t.Errorf("own project read after another's version: %d, %v; want %d", got, err, want)
		}
		// Read along for its own project: another project's call must not be served it.
		c.known = knownVersion{project: mine.ID, version: want + 1000, seen: true}
		if got, err := c.projectVersion(theirs.ID); err == nil {
			t.Errorf("another account's project served version %d", got)
		}
		if got, _ := c.projectVersion(mine.ID); got != want+1000 {
			t.Errorf("the version read along was not used for its own project: %d", got)
		}
	})
}

func ptr[T any](v T) *T { return &v }
