package storetest

import (
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
	ctx := t.Context()
	db := f.Store
	a, owner := NewAccount(t, db, "inv")
	b, _ := NewAccount(t, db, "inv")
	email := fmt.Sprintf("invitee-%d@example.com", time.Now().UnixNano())
	np := taskd.NewPerson{Email: email, PasswordHash: "h", FirstName: "In", LastName: "Vitee"}

	if _, err := db.Invite(ctx, taskd.InviteInput{AccountID: a.ID, Person: taskd.NewPerson{Email: owner.Person.Email}, Role: taskd.RoleUser, By: owner.Person.ID}); taskd.ErrorKind(err) != taskd.KindConflict {
		t.Fatalf("inviting a member: %v", err)
	}
	if _, err := db.Invite(ctx, taskd.InviteInput{AccountID: a.ID, Person: np, Role: taskd.RoleOwner, By: owner.Person.ID}); taskd.ErrorKind(err) != taskd.KindInvalid {
		t.Fatalf("inviting as owner: %v", err)
	}
	inv, err := db.Invite(ctx, taskd.InviteInput{AccountID: a.ID, Person: np, Role: taskd.RoleAdmin, By: owner.Person.ID})
	if err != nil || inv.Account.ID != a.ID || inv.Role != taskd.RoleAdmin || inv.InvitedBy != "Olga Owner" {
		t.Fatalf("invite: %+v %v", inv, err)
	}
	if _, err := db.Invite(ctx, taskd.InviteInput{AccountID: a.ID, Person: np, Role: taskd.RoleUser, By: owner.Person.ID}); taskd.ErrorKind(err) != taskd.KindConflict {
		t.Fatalf("inviting twice: %v", err)
	}
	if _, err := db.AcceptInvitation(ctx, owner.Person.ID, inv.ID); !taskd.IsNotFound(err) {
		t.Fatalf("accepting someone else's invitation: %v", err)
	}
	if err := db.CancelInvitation(ctx, b.ID, inv.ID); !taskd.IsNotFound(err) {
		t.Fatalf("cancelling another account's invitation: %v", err)
	}
	if inv.Person.ID != 0 || inv.Person.Email != email || inv.Person.Name != email {
		t.Fatalf("an invitation tells its inviter more than the e-mail: %+v", inv.Person)
	}
	invitee := must(db.PersonByEmail(ctx, email))(t)
	if acct, err := db.AcceptInvitation(ctx, invitee.ID, inv.ID); err != nil || acct.ID != a.ID {
		t.Fatalf("accept: %+v %v", acct, err)
	}
	if m, err := db.Member(ctx, a.ID, invitee.ID); err != nil || m.Role != taskd.RoleAdmin {
		t.Fatalf("after accepting: %+v %v", m, err)
	}
	if left, err := db.PersonInvitations(ctx, invitee.ID); err != nil || len(left) != 0 {
		t.Fatalf("invitations left: %v %v", left, err)
	}

	// Parallel invitations of one new e-mail to many accounts.
	fresh := taskd.NewPerson{Email: fmt.Sprintf("race-%d@example.com", time.Now().UnixNano()), PasswordHash: "h"}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		acct, by := NewAccount(t, db, "race")
		wg.Go(func() {
			_, err := db.Invite(ctx, taskd.InviteInput{AccountID: acct.ID, Person: fresh, Role: taskd.RoleUser, By: by.Person.ID})
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

// testLinks: an invitation's link lets a person new to taskd set their
// password and join, once; a registered person must sign in instead. A
// reset link works once and signs the person out everywhere; an e-mail
// change moves the person once the new address confirms. Every link's mail
// is written with it, and links expire.
func testLinks(t *testing.T, f *Fixture) {
	ctx := t.Context()
	db := f.Store
	mails := func() int { return len(must(db.Mail(ctx, 1000))(t)) }
	email := fmt.Sprintf("new-%d@example.com", time.Now().UnixNano())
	inv := must(db.Invite(ctx, taskd.InviteInput{AccountID: f.Account.ID, Person: taskd.NewPerson{Email: email, FirstName: "Nina"},
		Role: taskd.RoleUser, By: f.Owner.Person.ID, Link: &taskd.Link{Hash: "h-invite", Expires: f.Clock.Now().Add(time.Hour)},
		Mail: &taskd.QueuedMail{To: email, Subject: "Join", Kind: "invitation", Body: []byte("x")}}))(t)
	if mails() != 1 {
		t.Fatalf("%d mails after inviting, want 1", mails())
	}
	got, registered, err := db.InvitationByLink(ctx, "h-invite")
	if err != nil || got.ID != inv.ID || registered {
		t.Fatalf("by link: %+v %v %v", got, registered, err)
	}
	_, _, err = db.InvitationByLink(ctx, "h-other")
	want(t, err, taskd.KindNotFound, "link")
	acct, p, err := db.JoinByLink(ctx, "h-invite", taskd.NewPerson{PasswordHash: "argon", FirstName: "Nina", LastName: "New"})
	if err != nil || acct.ID != f.Account.ID || p.PasswordHash != "argon" || p.LastName != "New" {
		t.Fatalf("join: %+v %+v %v", acct, p, err)
	}
	if m := must(db.Member(ctx, f.Account.ID, p.ID))(t); m.Role != taskd.RoleUser {
		t.Fatalf("member: %+v", m)
	}
	_, _, err = db.JoinByLink(ctx, "h-invite", taskd.NewPerson{PasswordHash: "again"})
	want(t, err, taskd.KindNotFound, "link")

	// A registered person's link does not set a password.
	b, byB := NewAccount(t, db, "links")
	must(db.Invite(ctx, taskd.InviteInput{AccountID: b.ID, Person: taskd.NewPerson{Email: email}, Role: taskd.RoleAdmin, By: byB.Person.ID,
		Link: &taskd.Link{Hash: "h-registered", Expires: f.Clock.Now().Add(time.Hour)}}))(t)
	if _, registered, err := db.InvitationByLink(ctx, "h-registered"); err != nil || !registered {
		t.Fatalf("registered: %v %v", registered, err)
	}
	_, _, err = db.JoinByLink(ctx, "h-registered", taskd.NewPerson{PasswordHash: "takeover"})
	want(t, err, taskd.KindConflict, "email")
	if again := must(db.PersonByID(ctx, p.ID))(t); again.PasswordHash != "argon" {
		t.Fatal("a link changed a registered person's password")
	}
	// Expired.
	f.Clock.Advance(2 * time.Hour)
	_, _, err = db.InvitationByLink(ctx, "h-registered")
	want(t, err, taskd.KindNotFound, "link")

	// Password reset.
	before := mails()
	err = db.RequestReset(ctx, "nobody-here@example.com", taskd.Link{Hash: "h-r0", Expires: f.Clock.Now().Add(time.Hour)},
		func(taskd.Person) taskd.QueuedMail {
			return taskd.QueuedMail{To: "x@example.com", Subject: "Reset", Body: []byte("x")}
		})
	want(t, err, taskd.KindNotFound, "person")
	if mails() != before {
		t.Fatal("a reset for an unknown address queued mail")
	}
	for _, h := range []string{"h-r1", "h-r2"} {
		noErr(t, db.RequestReset(ctx, email, taskd.Link{Hash: h, Expires: f.Clock.Now().Add(time.Hour)},
			func(p taskd.Person) taskd.QueuedMail {
				return taskd.QueuedMail{To: p.Email, Subject: "Reset", Body: []byte("x")}
			}))
	}
	if mails() != before+2 {
		t.Fatalf("%d reset mails, want 2", mails()-before)
	}
	noErr(t, db.CreateSession(ctx, "sess-1", p.ID, f.Clock.Now().Add(time.Hour)))
	if p2, err := db.ResetPassword(ctx, "h-r1", "argon-2"); err != nil || p2.PasswordHash != "argon-2" {
		t.Fatalf("reset: %+v %v", p2, err)
	}
	_, err = db.SessionPerson(ctx, "sess-1")
	want(t, err, taskd.KindNotFound, "session")
	_, err = db.ResetPassword(ctx, "h-r2", "argon-3") // every reset link ends with one use
	want(t, err, taskd.KindNotFound, "link")

	// E-mail change.
	newEmail := "moved-" + email
	noErr(t, db.RequestEmailChange(ctx, p.ID, newEmail, taskd.Link{Hash: "h-e1", Expires: f.Clock.Now().Add(time.Hour)},
		taskd.QueuedMail{To: newEmail, Subject: "Confirm", Body: []byte("x")}))
	_, err = db.ResetPassword(ctx, "h-e1", "x") // links have kinds
	want(t, err, taskd.KindNotFound, "link")
	if moved, err := db.ConfirmEmail(ctx, "h-e1"); err != nil || moved.Email != newEmail {
		t.Fatalf("confirm: %+v %v", moved, err)
	}
	_, err = db.ConfirmEmail(ctx, "h-e1")
	want(t, err, taskd.KindNotFound, "link")
	noErr(t, db.RequestEmailChange(ctx, p.ID, f.Owner.Person.Email, taskd.Link{Hash: "h-e2", Expires: f.Clock.Now().Add(time.Hour)},
		taskd.QueuedMail{To: f.Owner.Person.Email, Subject: "Confirm", Body: []byte("x")}))
	_, err = db.ConfirmEmail(ctx, "h-e2")
	want(t, err, taskd.KindConflict, "email")

	// A reset link works until it expires, and not after.
	noErr(t, db.RequestReset(ctx, newEmail, taskd.Link{Hash: "h-r5", Expires: f.Clock.Now().Add(time.Minute)},
		func(p taskd.Person) taskd.QueuedMail {
			return taskd.QueuedMail{To: p.Email, Subject: "Reset", Body: []byte("x")}
		}))
	f.Clock.Advance(2 * time.Minute)
	_, err = db.ResetPassword(ctx, "h-r5", "late")
	want(t, err, taskd.KindNotFound, "link")

	// A new password ends every e-mail and reset link made before it.
	noErr(t, db.RequestEmailChange(ctx, p.ID, "thief-"+email, taskd.Link{Hash: "h-e3", Expires: f.Clock.Now().Add(time.Hour)},
		taskd.QueuedMail{To: "thief-" + email, Subject: "Confirm", Body: []byte("x")}))
	noErr(t, db.RequestReset(ctx, newEmail, taskd.Link{Hash: "h-r4", Expires: f.Clock.Now().Add(time.Hour)},
		func(p taskd.Person) taskd.QueuedMail {
			return taskd.QueuedMail{To: p.Email, Subject: "Reset", Body: []byte("x")}
		}))
	noErr(t, second(db.SetPassword(ctx, p.ID, taskd.PasswordChange{Hash: "argon-4"})))
	_, err = db.ConfirmEmail(ctx, "h-e3")
	want(t, err, taskd.KindNotFound, "link")
	_, err = db.ResetPassword(ctx, "h-r4", "x")
	want(t, err, taskd.KindNotFound, "link")
}
