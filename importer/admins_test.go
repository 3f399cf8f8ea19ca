package importer_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/internal/testsite"
)

// The people of hostileSource and of the account it is imported into.
const (
	boss    = "boss@evil.example"    // the source's owner, new here
	mallory = "mallory@evil.example" // an admin there, new here
	ian     = "ian@evil.example"     // an admin there, registered here in another account
	greta   = "greta@evil.example"   // a guest there, new here
	remy    = "remy@evil.example"    // a reader there, new here
	dora    = "dora@home.example"    // the destination's owner; an admin there, on its team "Takeover"
	edna    = "edna@home.example"    // a user here on the team "Editors"; an admin there, on "Takeover"
)

// hostileSource is a source account whose owner and admins are addresses
// the destination's operator never chose (boss, mallory, ian), with a
// guest and a reader, and which names the destination's owner (Dora) and
// a member (Edna) as its admins, under other names, on its team
// "Takeover".
func hostileSource(t *testing.T) *source.Client {
	t.Helper()
	ctx := context.Background()
	src := testsite.New(t)
	s := src.In(t)
	s.Slug = "hostile"
	s.Key = src.CreateAccount(s.Slug, "Hostile", boss, "Boss", "Evil")
	for _, p := range []struct {
		email string
		role  taskd.Role
	}{{mallory, taskd.RoleAdmin}, {ian, taskd.RoleAdmin}, {greta, taskd.RoleGuest}, {remy, taskd.RoleReader},
		{dora, taskd.RoleAdmin}, {edna, taskd.RoleAdmin}} {
		src.AddMember(s.Slug, p.email, "Taken", "Over", p.role)
	}
	s.APIOK(q("action", "add_user_group", "title", "Takeover"))
	acct, err := s.Store.AccountBySlug(ctx, s.Slug)
	if err != nil {
		t.Fatal(err)
	}
	owner, err := s.Store.MemberByEmail(ctx, acct.ID, boss)
	if err != nil {
		t.Fatal(err)
	}
	by := taskd.Actor{AccountID: acct.ID, Person: owner.Ref(), Role: owner.Role}
	for _, email := range []string{dora, edna, boss} {
		m, err := s.Store.MemberByEmail(ctx, acct.ID, email)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Store.SetMemberTeam(ctx, by, m.ID, "Takeover"); err != nil {
			t.Fatal(err)
		}
	}
	c, err := source.New(s.AccountURL(), s.Key, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// home is an account of d to import into, owned by Dora (on the team
// "Office"), where Edna is a user on the team "Editors"; Ian is
// registered in d in another account. It returns the account, its
// address and its key.
func home(t *testing.T, d *testsite.Site, slug string) (taskd.Account, string, string) {
	t.Helper()
	ctx := context.Background()
	key := d.CreateAccount(slug, "Home", dora, "Dora", "Owner")
	d.AddMember(slug, edna, "Edna", "Editor", taskd.RoleUser)
	if _, err := d.Store.PersonByEmail(ctx, ian); taskd.IsNotFound(err) {
		d.CreateAccount("ians-"+slug, "Ian's", ian, "Ian", "Elsewhere")
	}
	acct, err := d.Store.AccountBySlug(ctx, slug)
	if err != nil {
		t.Fatal(err)
	}
	owner, err := d.Store.Owner(ctx, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	by := taskd.Actor{AccountID: acct.ID, Person: owner.Ref(), Role: owner.Role}
	for email, team := range map[string]string{dora: "Office", edna: "Editors"} {
		m, err := d.Store.MemberByEmail(ctx, acct.ID, email)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Store.SetMemberTeam(ctx, by, m.ID, team); err != nil {
			t.Fatal(err)
		}
	}
	return acct, d.Base + "/a/" + slug, key
}

// apiRoles are the roles of an account's members as its API (get_users)
// shows them, by e-mail.
func apiRoles(t *testing.T, accountURL, key string) map[string]string {
	t.Helper()
	c, err := source.New(accountURL, key, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	users, err := c.Users(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, u := range users {
		out[u.Email] = u.Role
	}
	return out
}

// TestImportHostileSourceGrantsNoAdmin: a source names outside addresses
// as its owner and admins. Imported without the operator naming anyone,
// each arrives as a user (the role the API shows): the owner and an admin
// made members, an admin taskd knows invited as a user, who is a user
// once he accepts; a guest and a reader keep their roles. No member
// without a password is above a user. (Before issue 46 the owner and the
// admins arrived as admins without a password, theirs through "Forgot
// your password?".)
func TestImportHostileSourceGrantsNoAdmin(t *testing.T) {
	t.Parallel()
	client := hostileSource(t)
	testsite.One(t, func(t *testing.T, d *testsite.Site) {
		ctx := context.Background()
		acct, url, key := home(t, d, "home")
		dst := importer.Dest{Account: acct, Store: d.Store}
		if _, err := importer.Run(ctx, client, dst, importer.Options{}); err != nil {
			t.Fatal(err)
		}
		user := taskd.RoleUser.APIName()
		want := map[string]string{dora: taskd.RoleOwner.APIName(), edna: user, boss: user, mallory: user,
			greta: taskd.RoleGuest.APIName(), remy: taskd.RoleReader.APIName()}
		eq(t, "the roles after the import", apiRoles(t, url, key), want)
		invs, err := d.Store.AccountInvitations(ctx, acct.ID)
		if err != nil || len(invs) != 1 || invs[0].Person.Email != ian || invs[0].Role != taskd.RoleUser {
			t.Fatalf("invitations %+v %v, want Ian's as a user", invs, err)
		}
		accept(t, d, ian)
		want[ian] = user
		eq(t, "the roles once Ian accepted", apiRoles(t, url, key), want)

		// Nobody who has no password yet holds more than a user's rights.
		ms, err := d.Store.Members(ctx, acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.PasswordHash == "" && (m.Role == taskd.RoleAdmin || m.Role == taskd.RoleOwner) {
				t.Errorf("%s is %s without a password: a reset would give the account away", m.Email, m.Role)
			}
		}
	})
}

// TestImportAdmins: Options.Admins names who of the source's owners and
// admins arrive as admins. The dry run and the run list everyone made or
// invited with their roles, and which owners and admins came in as users;
// the source's owner named arrives as an admin, not an owner; an address
// that is not an owner or admin of the source is refused before anything
// is written; a later run changes no member's role, even named.
func TestImportAdmins(t *testing.T) {
	t.Parallel()
	client := hostileSource(t)
	testsite.One(t, func(t *testing.T, d *testsite.Site) {
		ctx := context.Background()
		acct, url, key := home(t, d, "home")
		dst := importer.Dest{Account: acct, Store: d.Store}
		people := func(sum importer.Summary) map[string]string {
			out := map[string]string{}
			for _, p := range sum.People {
				out[p.Email] = p.How + " " + string(p.Role) + " (" + string(p.SourceRole) + " there)"
				if p.Demoted {
					out[p.Email] += " demoted"
				}
			}
			return out
		}
		want := map[string]string{
			boss:    "made user (owner there) demoted",
			mallory: "made admin (admin there)",
			ian:     "invited user (admin there) demoted",
			greta:   "made guest (guest there)",
			remy:    "made reader (reader there)",
		}
		before := apiRoles(t, url, key)

		// Refused: someone not in the source, someone not an admin there.
		for _, admins := range [][]string{{"nobody@evil.example"}, {mallory, greta}, {"not an address"}} {
			sum, err := importer.Run(ctx, client, dst, importer.Options{Admins: admins})
			if err == nil || !strings.Contains(err.Error(), "--admins") {
				t.Errorf("--admins %v: %v, want it refused", admins, err)
			}
			if len(sum.People) != 0 || len(sum.Families) != 0 {
				t.Errorf("--admins %v: the run went on: %+v", admins, sum)
			}
		}
		eq(t, "the roles after the refusals", apiRoles(t, url, key), before)

		dry, err := importer.Run(ctx, client, dst, importer.Options{DryRun: true, Admins: []string{" Mallory@Evil.example "}})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "the dry run's people", people(dry), want)
		eq(t, "the roles after the dry run", apiRoles(t, url, key), before)

		sum, err := importer.Run(ctx, client, dst, importer.Options{Admins: []string{mallory}})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "the run's people", people(sum), want)
		got := apiRoles(t, url, key)
		eq(t, "Mallory, named", got[mallory], taskd.RoleAdmin.APIName())
		eq(t, "Boss, not named", got[boss], taskd.RoleUser.APIName())

		// Named later, the owner stays a user: a run changes no member's
		// role, and says so.
		again, err := importer.Run(ctx, client, dst, importer.Options{Admins: []string{boss, mallory}})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "the second run's people", people(again), map[string]string{})
		eq(t, "the roles after the second run", apiRoles(t, url, key), got)
		said := slices.ContainsFunc(again.Skipped, func(s importer.Skip) bool {
			return strings.Contains(s.Reason, boss+" is a member here already") && strings.Contains(s.Reason, "changes no member's role")
		})
		if !said {
			t.Errorf("the second run did not say Boss stays a user: %+v", again.Skipped)
		}

		// Into a second account, the source's owner named: registered now,
		// he is invited there as an admin, never an owner; Mallory, not
		// named, as a user.
		two, _, _ := home(t, d, "home-two")
		dst.Account = two
		if _, err := importer.Run(ctx, client, dst, importer.Options{Admins: []string{boss}}); err != nil {
			t.Fatal(err)
		}
		invs, err := d.Store.AccountInvitations(ctx, two.ID)
		if err != nil {
			t.Fatal(err)
		}
		invited := map[string]taskd.Role{}
		for _, inv := range invs {
			invited[inv.Person.Email] = inv.Role
		}
		eq(t, "the invitations of the second account", invited, map[string]taskd.Role{boss: taskd.RoleAdmin, mallory: taskd.RoleUser,
			ian: taskd.RoleUser, greta: taskd.RoleGuest, remy: taskd.RoleReader})
	})
}
