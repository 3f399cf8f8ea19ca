package storetest

import (
	"testing"

	"github.com/taskd/taskd"
)

// testDirectoryChanges: a contact is changed whole (its folder made when
// new, the date it was added kept), refused another contact's e-mail, and
// not found in another account; a member is put on a team (made when new)
// and taken off it, by those who manage people only, and not found by
// another account.
func testDirectoryChanges(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	_, otherBy := NewAccount(t, s, "dir2")

	ann := must(s.AddContact(ctx, by, taskd.Contact{Email: "ann@client.example", FirstName: "Ann"}))(t)
	must(s.AddContact(ctx, by, taskd.Contact{Email: "bea@client.example"}))(t)
	changed := must(s.UpdateContact(ctx, by, taskd.Contact{ID: ann.ID, Email: "ann@new.example", FirstName: "Anna", LastName: "Lee",
		Folder: "Vendors", Profile: taskd.Profile{Title: "Buyer", Phone3: "3", Address2: "Kyiv"}}))(t)
	if changed.Email != "ann@new.example" || changed.DisplayName() != "Anna Lee" || changed.Folder != "Vendors" || changed.Phone3 != "3" ||
		changed.Address2 != "Kyiv" || changed.Title != "Buyer" || !changed.Added.Equal(ann.Added) {
		t.Fatalf("changed contact %+v (was %+v)", changed, ann)
	}
	if fs := must(s.ContactFolders(ctx, f.Account.ID))(t); len(fs) != 1 || fs[0].Title != "Vendors" {
		t.Fatalf("contact folders %+v", fs)
	}
	_, err := s.UpdateContact(ctx, by, taskd.Contact{ID: ann.ID, Email: "bea@client.example"})
	want(t, err, taskd.KindConflict, "")
	_, err = s.UpdateContact(ctx, otherBy, taskd.Contact{ID: ann.ID, Email: "x@client.example"})
	want(t, err, taskd.KindNotFound, "")
	if cs := must(s.Contacts(ctx, f.Account.ID))(t); len(cs) != 2 || cs[0].Email != "ann@new.example" && cs[1].Email != "ann@new.example" {
		t.Fatalf("contacts after the refusals: %+v", cs)
	}

	bob := member(t, f, "bob", taskd.RoleUser)
	teamOf := func() string {
		t.Helper()
		return must(s.MemberByEmail(ctx, f.Account.ID, bob.Person.Email))(t).Team
	}
	if err := s.SetMemberTeam(ctx, by, bob.Person.ID, "Designers"); err != nil || teamOf() != "Designers" {
		t.Fatalf("on the team: %q %v", teamOf(), err)
	}
	if teams := must(s.Teams(ctx, f.Account.ID))(t); len(teams) != 1 || teams[0].Title != "Designers" {
		t.Fatalf("teams %+v", teams)
	}
	want(t, s.SetMemberTeam(ctx, bob, bob.Person.ID, ""), taskd.KindForbidden, "")
	if teamOf() != "Designers" {
		t.Fatal("a user took themselves off a team")
	}
	noErr(t, s.SetMemberTeam(ctx, by, bob.Person.ID, ""))
	if teamOf() != "" {
		t.Fatalf("off the team: %q", teamOf())
	}
	want(t, s.SetMemberTeam(ctx, otherBy, bob.Person.ID, "Designers"), taskd.KindNotFound, "")
	if teamOf() != "" {
		t.Fatalf("another account put bob on %q", teamOf())
	}
}
