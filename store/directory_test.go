package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// TestDirectoryChanges: a contact is changed whole (its folder made when
// new), refused another contact's e-mail, and not found in another
// account; a member is put on a team (made when new) and taken off it,
// by those who manage people only; an imported contact and relation write
// their mappings in their own transactions, the contact with the source's
// date.
func TestDirectoryChanges(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, by := storetest.NewAccount(t, db, "dir")
		_, otherBy := storetest.NewAccount(t, db, "dir2")

		ann, err := db.AddContact(ctx, by, taskd.Contact{Email: "ann@client.example", FirstName: "Ann"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.AddContact(ctx, by, taskd.Contact{Email: "bea@client.example"}); err != nil {
			t.Fatal(err)
		}
		changed, err := db.UpdateContact(ctx, by, taskd.Contact{ID: ann.ID, Email: "ann@new.example", FirstName: "Anna", LastName: "Lee",
			Folder: "Vendors", Profile: taskd.Profile{Title: "Buyer", Phone3: "3", Address2: "Kyiv"}})
		if err != nil {
			t.Fatal(err)
		}
		if changed.Email != "ann@new.example" || changed.DisplayName() != "Anna Lee" || changed.Folder != "Vendors" || changed.Phone3 != "3" ||
			changed.Address2 != "Kyiv" || changed.Title != "Buyer" || !changed.Added.Equal(ann.Added) {
			t.Fatalf("changed contact %+v (was %+v)", changed, ann)
		}
		if fs, err := db.ContactFolders(ctx, acct.ID); err != nil || len(fs) != 1 || fs[0].Title != "Vendors" {
			t.Fatalf("contact folders %+v %v", fs, err)
		}
		_, err = db.UpdateContact(ctx, by, taskd.Contact{ID: ann.ID, Email: "bea@client.example"})
		if taskd.ErrorKind(err) != taskd.KindConflict {
			t.Fatalf("another contact's e-mail: %v", err)
		}
		_, err = db.UpdateContact(ctx, otherBy, taskd.Contact{ID: ann.ID, Email: "x@client.example"})
		if !taskd.IsNotFound(err) {
			t.Fatalf("another account's contact: %v", err)
		}

		bob, err := db.AddMember(ctx, acct.ID, taskd.NewPerson{Email: "bob-dir@example.com", PasswordHash: "x", FirstName: "Bob"}, taskd.RoleUser)
		if err != nil {
			t.Fatal(err)
		}
		teamOf := func() string {
			t.Helper()
			m, err := db.MemberByEmail(ctx, acct.ID, bob.Email)
			if err != nil {
				t.Fatal(err)
			}
			return m.Team
		}
		if err := db.SetMemberTeam(ctx, by, bob.ID, "Designers"); err != nil || teamOf() != "Designers" {
			t.Fatalf("on the team: %q %v", teamOf(), err)
		}
		if teams, err := db.Teams(ctx, acct.ID); err != nil || len(teams) != 1 || teams[0].Title != "Designers" {
			t.Fatalf("teams %+v %v", teams, err)
		}
		asBob := taskd.Actor{AccountID: acct.ID, Person: taskd.PersonRef{ID: bob.ID, Email: bob.Email}, Role: taskd.RoleUser}
		if err := db.SetMemberTeam(ctx, asBob, bob.ID, ""); taskd.ErrorKind(err) != taskd.KindForbidden || teamOf() != "Designers" {
			t.Fatalf("a user took themselves off a team: %v", err)
		}
		if err := db.SetMemberTeam(ctx, by, bob.ID, ""); err != nil || teamOf() != "" {
			t.Fatalf("off the team: %q %v", teamOf(), err)
		}
		if err := db.SetMemberTeam(ctx, otherBy, bob.ID, "Designers"); !taskd.IsNotFound(err) {
			t.Fatalf("a member of another account: %v", err)
		}

		// Imported: the mapping is written with the object.
		imp := by
		imp.Imported, imp.Key = true, true
		src := "https://source.example/a/x"
		added := time.Date(2024, 1, 16, 10, 0, 0, 0, time.UTC)
		key := taskd.ImportKey{AccountID: acct.ID, Source: src, Family: "contact", SourceID: "7"}
		c, err := db.AddImportedContact(ctx, imp, taskd.Contact{Email: "cy@client.example"},
			taskd.ImportRecord{Key: key, Fingerprint: "fp", Added: added})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := db.ImportMappings(ctx, acct.ID, src, "contact")
		if err != nil || ms["7"] != (taskd.ImportMapping{LocalID: c.ID, Fingerprint: "fp"}) || !c.Added.Equal(added) {
			t.Fatalf("contact mapping %+v %v, added %v", ms, err, c.Added)
		}
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: new("P")})
		if err != nil {
			t.Fatal(err)
		}
		a, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("a")})
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("b")})
		if err != nil {
			t.Fatal(err)
		}
		key = taskd.ImportKey{AccountID: acct.ID, Source: src, Family: "relation", SourceID: "1>2"}
		if err := db.AddImportedRelation(ctx, imp, taskd.Relation{From: a.ID, To: b.ID, Type: taskd.RelationStartToStart},
			taskd.ImportRecord{Key: key, Fingerprint: taskd.RelationStartToStart}); err != nil {
			t.Fatal(err)
		}
		ms, err = db.ImportMappings(ctx, acct.ID, src, "relation")
		if err != nil || ms["1>2"] != (taskd.ImportMapping{LocalID: b.ID, Fingerprint: taskd.RelationStartToStart}) {
			t.Fatalf("relation mapping %+v %v", ms, err)
		}
	})
}
