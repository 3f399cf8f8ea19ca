package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// newClient registers an application in the fixture's account.
func newClient(t *testing.T, f *Fixture, name string) taskd.Client {
	t.Helper()
	return must(f.Store.CreateClient(context.Background(), taskd.Client{AccountID: f.Account.ID, ClientID: name + "-" + f.Account.Slug,
		SecretHash: "hash", Name: name, RedirectURIs: []string{"https://app.example/cb"}}))(t)
}

// testClients: applications belong to one account; another account can
// neither rotate nor delete them.
func testClients(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	c := newClient(t, f, "app")
	got := must(s.Client(ctx, c.ClientID))(t)
	if got.ID != c.ID || got.AccountID != f.Account.ID || got.Name != "app" || got.AccountName != f.Account.Name ||
		len(got.RedirectURIs) != 1 || got.RedirectURIs[0] != "https://app.example/cb" {
		t.Fatalf("client = %+v", got)
	}
	_, err := s.Client(ctx, "no-such-client")
	want(t, err, taskd.KindNotFound, "")
	if list := must(s.Clients(ctx, f.Account.ID))(t); len(list) != 1 || list[0].ClientID != c.ClientID {
		t.Fatalf("clients = %+v", list)
	}
	other, _ := NewAccount(t, s, "other")
	want(t, s.SetClientSecret(ctx, other.ID, c.ClientID, "stolen"), taskd.KindNotFound, "")
	want(t, s.DeleteClient(ctx, other.ID, c.ClientID), taskd.KindNotFound, "")
	noErr(t, s.SetClientSecret(ctx, f.Account.ID, c.ClientID, "new-hash"))
	if got := must(s.Client(ctx, c.ClientID))(t); got.SecretHash != "new-hash" {
		t.Fatalf("secret not replaced: %+v", got)
	}
	noErr(t, s.DeleteClient(ctx, f.Account.ID, c.ClientID))
	_, err = s.Client(ctx, c.ClientID)
	want(t, err, taskd.KindNotFound, "")
}

// testGrants: a code is redeemed once however many try at once, a refresh
// token rotates once, and revoked grants stop answering.
func testGrants(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	c := newClient(t, f, "grants")
	now := f.Clock.Now()
	g := must(s.CreateGrant(ctx, taskd.Grant{ClientPK: c.ID, AccountID: f.Account.ID, PersonID: f.Owner.Person.ID,
		Scopes: []string{"tasks_read"}, RedirectURI: "https://app.example/cb", CodeExpires: now.Add(time.Minute)}, "code-hash"))(t)
	gc, got, err := s.ClientGrantByCode(ctx, c.ClientID, "code-hash")
	noErr(t, err)
	if got.ID != g.ID || got.ClientID != c.ClientID || got.AccountSlug != f.Account.Slug || got.CodeUsed || len(got.Scopes) != 1 ||
		got.RedirectURI != "https://app.example/cb" || !got.CodeExpires.Equal(now.Add(time.Minute)) {
		t.Fatalf("grant by code = %+v", got)
	}
	if gc.ID != c.ID || gc.ClientID != c.ClientID || gc.SecretHash != "hash" || gc.AccountID != f.Account.ID ||
		gc.AccountName != f.Account.Name || gc.Name != "grants" || len(gc.RedirectURIs) != 1 || gc.RedirectURIs[0] != "https://app.example/cb" {
		t.Fatalf("client with its grant = %+v", gc)
	}
	_, _, err = s.ClientGrantByCode(ctx, c.ClientID, "other-hash")
	want(t, err, taskd.KindNotFound, "")
	// Another client's code is not found for this one, nor this one's for it.
	other := newClient(t, f, "other")
	_, _, err = s.ClientGrantByCode(ctx, other.ClientID, "code-hash")
	want(t, err, taskd.KindNotFound, "")
	_, _, err = s.ClientGrantByCode(ctx, "no-such-client", "code-hash")
	want(t, err, taskd.KindNotFound, "")

	first := taskd.Tokens{AccessJTI: "jti-1", AccessExpires: now.Add(time.Hour), RefreshHash: "refresh-1", RefreshExpires: now.Add(24 * time.Hour)}
	var redeemed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if ok, err := s.RedeemCode(ctx, g.ID, first); err != nil {
				t.Error(err)
			} else if ok {
				redeemed.Add(1)
			}
		})
	}
	wg.Wait()
	if redeemed.Load() != 1 {
		t.Fatalf("the code was redeemed %d times", redeemed.Load())
	}
	if got := must(s.GrantByAccess(ctx, "jti-1"))(t); got.ID != g.ID || !got.CodeUsed || got.RefreshHash != "refresh-1" {
		t.Fatalf("grant by access = %+v", got)
	}
	if list := must(s.PersonGrants(ctx, f.Owner.Person.ID))(t); len(list) != 1 || list[0].ID != g.ID {
		t.Fatalf("person grants = %+v", list)
	}

	second := taskd.Tokens{AccessJTI: "jti-2", AccessExpires: now.Add(time.Hour), RefreshHash: "refresh-2", RefreshExpires: now.Add(24 * time.Hour)}
	var rotated atomic.Int64
	for i := range 8 {
		wg.Go(func() {
			tk := second
			tk.AccessJTI = tk.AccessJTI + "-" + string(rune('a'+i))
			if ok, err := s.Rotate(ctx, g.ID, "refresh-1", tk); err != nil {
				t.Error(err)
			} else if ok {
				rotated.Add(1)
			}
		})
	}
	wg.Wait()
	if rotated.Load() != 1 {
		t.Fatalf("one refresh token rotated %d times", rotated.Load())
	}
	if id, _, err := s.SpentRefresh(ctx, "refresh-1"); err != nil || id != g.ID {
		t.Fatalf("spent refresh: %d %v", id, err)
	}
	_, _, err = s.SpentRefresh(ctx, "refresh-2")
	want(t, err, taskd.KindNotFound, "")
	if got := must(s.GrantByRefresh(ctx, "refresh-2"))(t); got.ID != g.ID {
		t.Fatalf("grant by refresh = %+v", got)
	}
	if gc, got, err := s.ClientGrantByRefresh(ctx, c.ClientID, "refresh-2"); err != nil || got.ID != g.ID || got.RefreshHash != "refresh-2" ||
		gc.ID != c.ID || gc.SecretHash != "hash" {
		t.Fatalf("client and grant by refresh = %+v %+v %v", gc, got, err)
	}
	_, _, err = s.ClientGrantByRefresh(ctx, c.ClientID, "refresh-1") // rotated: spent, not current
	want(t, err, taskd.KindNotFound, "")
	_, _, err = s.ClientGrantByRefresh(ctx, other.ClientID, "refresh-2")
	want(t, err, taskd.KindNotFound, "")

	noErr(t, s.RevokeClientGrants(ctx, f.Owner.Person.ID, c.ClientID))
	if got := must(s.GrantByRefresh(ctx, "refresh-2"))(t); !got.Revoked {
		t.Fatalf("revoked grant = %+v", got)
	}
	if ok, err := s.Rotate(ctx, g.ID, "refresh-2", first); ok || err != nil {
		t.Fatalf("a revoked grant rotated: %v %v", ok, err)
	}
	if list := must(s.PersonGrants(ctx, f.Owner.Person.ID))(t); len(list) != 0 {
		t.Fatalf("revoked grants still listed: %+v", list)
	}
	noErr(t, s.RevokeGrant(ctx, g.ID))
}

// testKeysAndSessions: signing keys are kept as given; sessions name their
// person until they expire or are deleted.
func testKeysAndSessions(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	before := len(must(s.SigningKeys(ctx))(t))
	noErr(t, s.AddSigningKey(ctx, taskd.SigningKey{KID: "kid-" + f.Account.Slug, Private: []byte("sealed"), Added: f.Clock.Now()}))
	keys := must(s.SigningKeys(ctx))(t)
	if len(keys) != before+1 || keys[len(keys)-1].KID != "kid-"+f.Account.Slug || string(keys[len(keys)-1].Private) != "sealed" {
		t.Fatalf("signing keys = %+v", keys)
	}

	noErr(t, s.CreateSession(ctx, "session-hash", f.Owner.Person.ID, f.Clock.Now().Add(time.Hour)))
	if p := must(s.SessionPerson(ctx, "session-hash"))(t); p.ID != f.Owner.Person.ID {
		t.Fatalf("session person = %+v", p)
	}
	f.Clock.Advance(2 * time.Hour)
	_, err := s.SessionPerson(ctx, "session-hash")
	want(t, err, taskd.KindNotFound, "")
	noErr(t, s.CreateSession(ctx, "session-2", f.Owner.Person.ID, f.Clock.Now().Add(time.Hour)))
	noErr(t, s.DeleteSession(ctx, "session-2"))
	_, err = s.SessionPerson(ctx, "session-2")
	want(t, err, taskd.KindNotFound, "")
}
