package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// testInvitations: the rules of invitations, and parallel invitations of
// one new e-mail (which create the person once) answering each a clear
// result, never an internal error.
func testInvitations(t *testing.T, f *Fixture) {
	ctx := context.Background()
	db := f.Store
	a, owner := NewAccount(t, db, "inv")
	b, _ := NewAccount(t, db, "inv")
	email := fmt.Sprintf("invitee-%d@example.com", time.Now().UnixNano())
	np := taskd.NewPerson{Email: email, PasswordHash: "h", FirstName: "In", LastName: "Vitee"}

	if _, err := db.Invite(ctx, a.ID, taskd.NewPerson{Email: owner.Person.Email}, taskd.RoleUser, owner.Person.ID); taskd.ErrorKind(err) != taskd.KindConflict {
		t.Fatalf("inviting a member: %v", err)
	}
	if _, err := db.Invite(ctx, a.ID, np, taskd.RoleOwner, owner.Person.ID); taskd.ErrorKind(err) != taskd.KindInvalid {
		t.Fatalf("inviting as owner: %v", err)
	}
	inv, err := db.Invite(ctx, a.ID, np, taskd.RoleAdmin, owner.Person.ID)
	if err != nil || inv.Account.ID != a.ID || inv.Role != taskd.RoleAdmin || inv.InvitedBy != "Olga Owner" {
		t.Fatalf("invite: %+v %v", inv, err)
	}
	if _, err := db.Invite(ctx, a.ID, np, taskd.RoleUser, owner.Person.ID); taskd.ErrorKind(err) != taskd.KindConflict {
		t.Fatalf("inviting twice: %v", err)
	}
	if _, err := db.AcceptInvitation(ctx, owner.Person.ID, inv.ID); !taskd.IsNotFound(err) {
		t.Fatalf("accepting someone else's invitation: %v", err)
	}
	if err := db.CancelInvitation(ctx, b.ID, inv.ID); !taskd.IsNotFound(err) {
		t.Fatalf("cancelling another account's invitation: %v", err)
	}
	if acct, err := db.AcceptInvitation(ctx, inv.Person.ID, inv.ID); err != nil || acct.ID != a.ID {
		t.Fatalf("accept: %+v %v", acct, err)
	}
	if m, err := db.Member(ctx, a.ID, inv.Person.ID); err != nil || m.Role != taskd.RoleAdmin {
		t.Fatalf("after accepting: %+v %v", m, err)
	}
	if left, err := db.PersonInvitations(ctx, inv.Person.ID); err != nil || len(left) != 0 {
		t.Fatalf("invitations left: %v %v", left, err)
	}

	// Parallel invitations of one new e-mail to many accounts.
	fresh := taskd.NewPerson{Email: fmt.Sprintf("race-%d@example.com", time.Now().UnixNano()), PasswordHash: "h"}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		acct, by := NewAccount(t, db, "race")
		wg.Go(func() {
			_, err := db.Invite(ctx, acct.ID, fresh, taskd.RoleUser, by.Person.ID)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case taskd.ErrorKind(err) != taskd.KindConflict:
			t.Errorf("parallel invitation: %v", err)
		}
	}
	if ok == 0 {
		t.Fatal("no parallel invitation went through")
	}
}
