package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// trustFixture is an admin of the fixture's account holding everything a
// membership can give: two pending invitations they sent, an application
// authorized with and one without the administrative scope, an enabled
// webhook they made, the current administrative key (shown to them), a
// running timer, and a notification waiting to be mailed.
type trustFixture struct {
	admin               taskd.Actor
	project             taskd.Project
	task                taskd.Task
	invitedAdmin        taskd.Invitation
	invitedUser         taskd.Invitation
	adminGrant, rwGrant taskd.Grant
	hook                taskd.Webhook
}

func newTrustFixture(t *testing.T, f *Fixture, name string) trustFixture {
	t.Helper()
	ctx := context.Background()
	s := f.Store
	slug := f.Account.Slug + "-" + name
	p := must(s.AddMember(ctx, f.Account.ID, taskd.NewPerson{Email: slug + "@example.com", PasswordHash: "x", FirstName: "Ada",
		LastName: strings.ToUpper(name[:1]) + name[1:]}, taskd.RoleAdmin))(t)
	tf := trustFixture{admin: taskd.Actor{AccountID: f.Account.ID, Person: p.Ref(), Role: taskd.RoleAdmin}}
	tf.project = must(s.CreateProject(ctx, f.Owner, taskd.ProjectInput{Name: new("Trust " + name)}))(t)
	tf.task = must(s.CreateTask(ctx, f.Owner, tf.project.ID, 0, taskd.TaskInput{Name: new("Followed"), AssigneeEmail: new(p.Email)}))(t)
	tf.invitedAdmin = must(s.Invite(ctx, taskd.InviteInput{AccountID: f.Account.ID, Role: taskd.RoleAdmin, By: p.ID,
		Person: taskd.NewPerson{Email: slug + "-second@example.com"}, Link: &taskd.Link{Hash: "inv-" + slug, Expires: f.Clock.Now().Add(time.Hour)}}))(t)
	tf.invitedUser = must(s.Invite(ctx, taskd.InviteInput{AccountID: f.Account.ID, Role: taskd.RoleUser, By: p.ID,
		Person: taskd.NewPerson{Email: slug + "-friend@example.com"}}))(t)
	c := newClient(t, f, "trust-"+name)
	grant := func(scopes ...string) taskd.Grant {
		t.Helper()
		now := f.Clock.Now()
		g := must(s.CreateGrant(ctx, taskd.Grant{ClientPK: c.ID, AccountID: f.Account.ID, PersonID: p.ID, Scopes: scopes,
			RedirectURI: "https://app.example/cb", CodeExpires: now.Add(time.Minute)}, "code-"+slug+scopes[0]))(t)
		tok := taskd.Tokens{AccessJTI: "jti-" + slug + scopes[0], AccessExpires: now.Add(time.Hour), RefreshHash: "rt-" + slug + scopes[0],
			RefreshExpires: now.Add(24 * time.Hour)}
		if ok := must(s.RedeemCode(ctx, g.ID, tok))(t); !ok {
			t.Fatal("code not redeemed")
		}
		return g
	}
	tf.adminGrant = grant("tasks_read", taskd.ScopeAdministrative)
	tf.rwGrant = grant("tasks_write")
	tf.hook = must(s.CreateWebhook(ctx, taskd.Webhook{AccountID: f.Account.ID, URL: "https://hooks.example/" + slug,
		Events: []string{"post_task"}, Secret: []byte("sealed"), By: p.ID}))(t)
	noErr(t, s.EnableWebhook(ctx, f.Account.ID, tf.hook.ID, p.ID))
	noErr(t, s.SetAPIKey(ctx, f.Account.ID, []byte("sealed by "+slug), p.ID))
	must3(s.StartTimer(ctx, tf.admin, tf.task.ID, time.UTC))(t)
	// A change by the owner leaves the admin, the assignee, a notification.
	must(s.UpdateTask(ctx, f.Owner, tf.task.ID, taskd.TaskInput{Priority: new(7)}))(t)
	return tf
}

func must3[A, B any](a A, b B, err error) func(*testing.T) A {
	return must(a, err)
}

// live reports whether a grant is still in force.
func live(t *testing.T, s Store, g taskd.Grant) bool {
	t.Helper()
	for _, h := range must(s.PersonGrants(context.Background(), g.PersonID))(t) {
		if h.ID == g.ID {
			return true
		}
	}
	return false
}

// testTrustChanges: a demotion and a removal end, in their transaction,
// what the old standing gave beyond the new one (taskd.TrustEnded), and
// nothing else; an invitation is worth what its inviter may grant when it
// is accepted.
func testTrustChanges(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	keyOf := func() []byte { return must(s.AccountBySlug(ctx, f.Account.Slug))(t).APIKey }
	pending := func(by taskd.Invitation) bool {
		for _, inv := range must(s.AccountInvitations(ctx, f.Account.ID))(t) {
			if inv.ID == by.ID {
				return true
			}
		}
		return false
	}
	waiting := func(personID int64) int {
		n := 0
		for _, p := range must(s.DigestsDue(ctx, f.Clock.Now().Add(time.Hour), 100))(t) {
			if p == personID {
				n++
			}
		}
		return n
	}

	t.Run("demotion", func(t *testing.T) {
		tf := newTrustFixture(t, f, "demoted")
		if waiting(tf.admin.Person.ID) != 1 {
			t.Fatal("the fixture's notification is not waiting")
		}
		// A user may not give roles: nobody below admin may demote.
		user := tf.admin
		user.Role = taskd.RoleUser
		want(t, second(s.SetRole(ctx, user, tf.admin.Person.ID, taskd.RoleUser)), taskd.KindForbidden, "role")

		ended := must(s.SetRole(ctx, f.Owner, tf.admin.Person.ID, taskd.RoleUser))(t)
		if ended != (taskd.TrustEnded{Invitations: 2, Grants: 1, Webhooks: 1, APIKey: true}) {
			t.Fatalf("admin to user ended %+v", ended)
		}
		if pending(tf.invitedAdmin) || pending(tf.invitedUser) {
			t.Fatal("a user's invitations are still pending")
		}
		if live(t, s, tf.adminGrant) || !live(t, s, tf.rwGrant) {
			t.Fatal("only the grant with the administrative scope ends on a demotion to user")
		}
		hook := must(s.Webhook(ctx, f.Account.ID, tf.hook.ID))(t)
		if hook.Enabled || hook.DisabledReason != "Its maker, Ada Demoted, may no longer manage webhooks" {
			t.Fatalf("the webhook of a demoted admin: %+v", hook)
		}
		if len(keyOf()) != 0 {
			t.Fatal("the key shown to a demoted admin still works")
		}
		if _, err := s.TimerOf(ctx, f.Account.ID, tf.admin.Person.ID); err != nil {
			t.Fatalf("a user may work on: their timer runs (%v)", err)
		}
		if waiting(tf.admin.Person.ID) != 1 {
			t.Fatal("a user still sees the project: the notification stays")
		}

		// Guest, not on the project's team: the timer stops and is
		// recorded, the notification goes.
		f.Clock.Advance(30 * time.Minute)
		ended = must(s.SetRole(ctx, f.Owner, tf.admin.Person.ID, taskd.RoleGuest))(t)
		if ended != (taskd.TrustEnded{Timer: true}) {
			t.Fatalf("user to guest ended %+v", ended)
		}
		if _, err := s.TimerOf(ctx, f.Account.ID, tf.admin.Person.ID); !taskd.IsNotFound(err) {
			t.Fatalf("a guest off the team keeps a timer on its project: %v", err)
		}
		lines := must(s.Costs(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(f.Account.ID), PersonID: tf.admin.Person.ID}))(t)
		if len(lines) != 1 || !lines[0].IsTimer || lines[0].Minutes != 30 || lines[0].TaskID != tf.task.ID {
			t.Fatalf("the stopped timer's line: %+v", lines)
		}
		if waiting(tf.admin.Person.ID) != 0 {
			t.Fatal("a guest off the team is still to be told of the project")
		}

		// On the team again with a timer, then off it: it stops again.
		noErr(t, second(s.SetProjectMembers(ctx, f.Owner, tf.project.ID, []string{tf.admin.Person.Email}, true)))
		guest := tf.admin
		guest.Role = taskd.RoleGuest
		must3(s.StartTimer(ctx, guest, tf.task.ID, time.UTC))(t)
		if ended := must(s.SetProjectMembers(ctx, f.Owner, tf.project.ID, []string{tf.admin.Person.Email}, false))(t); !ended.Timer {
			t.Fatalf("taking a guest off the team ended %+v", ended)
		}
		if _, err := s.TimerOf(ctx, f.Account.ID, tf.admin.Person.ID); !taskd.IsNotFound(err) {
			t.Fatalf("a guest taken off the team keeps a timer on its project: %v", err)
		}

		// A reader on the team still sees the task, but works on nothing:
		// a guest's timer stops when they are made a reader.
		noErr(t, second(s.SetProjectMembers(ctx, f.Owner, tf.project.ID, []string{tf.admin.Person.Email}, true)))
		must3(s.StartTimer(ctx, guest, tf.task.ID, time.UTC))(t)
		if ended := must(s.SetRole(ctx, f.Owner, tf.admin.Person.ID, taskd.RoleReader))(t); ended != (taskd.TrustEnded{Timer: true}) {
			t.Fatalf("guest to reader, on the team, ended %+v", ended)
		}
	})

	t.Run("off the team, by either path", func(t *testing.T) {
		// Taking people off a project's team one by one and setting its
		// whole team are one path: a guest's timer on its task stops and
		// is recorded, the waiting notices of a guest and a reader go,
		// and a guest who stays keeps theirs.
		for _, path := range []struct {
			name string
			drop func(p taskd.Project, gone []string, stays string)
		}{
			{"SetProjectMembers", func(p taskd.Project, gone []string, _ string) {
				if ended := must(s.SetProjectMembers(ctx, f.Owner, p.ID, gone, false))(t); !ended.Timer {
					t.Fatalf("taking a guest with a timer off the team ended %+v", ended)
				}
			}},
			{"UpdateProject", func(p taskd.Project, _ []string, stays string) {
				must(s.UpdateProject(ctx, f.Owner, p.ID, taskd.ProjectInput{Members: &[]string{stays}}))(t)
			}},
		} {
			i := path.name
			member := func(name string, role taskd.Role) taskd.Actor {
				p := must(s.AddMember(ctx, f.Account.ID, taskd.NewPerson{Email: fmt.Sprintf("%s-%s-%s@example.com", f.Account.Slug, name, strings.ToLower(i)),
					PasswordHash: "x"}, role))(t)
				return taskd.Actor{AccountID: f.Account.ID, Person: p.Ref(), Role: role}
			}
			gus, rae, gil := member("gus", taskd.RoleGuest), member("rae", taskd.RoleReader), member("gil", taskd.RoleGuest)
			p := must(s.CreateProject(ctx, f.Owner, taskd.ProjectInput{Name: new("Team " + i),
				Members: &[]string{gus.Person.Email, rae.Person.Email, gil.Person.Email}}))(t)
			// Its creation is told to its assignee and subscribers.
			task := must(s.CreateTask(ctx, f.Owner, p.ID, 0, taskd.TaskInput{Name: new("Followed"), AssigneeEmail: new(gus.Person.Email),
				Subscribe: []string{rae.Person.Email, gil.Person.Email}}))(t)
			for _, m := range []taskd.Actor{gus, gil} {
				must3(s.StartTimer(ctx, m, task.ID, time.UTC))(t)
			}
			for _, m := range []taskd.Actor{gus, rae, gil} {
				if waiting(m.Person.ID) != 1 {
					t.Fatalf("%s: %s has no notice waiting", i, m.Person.Email)
				}
			}
			f.Clock.Advance(10 * time.Minute)

			path.drop(p, []string{gus.Person.Email, rae.Person.Email}, gil.Person.Email)

			if _, err := s.TimerOf(ctx, f.Account.ID, gus.Person.ID); !taskd.IsNotFound(err) {
				t.Fatalf("%s: a guest off the team keeps a timer on its task: %v", i, err)
			}
			lines := must(s.Costs(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(f.Account.ID), PersonID: gus.Person.ID}))(t)
			if len(lines) != 1 || !lines[0].IsTimer || lines[0].Minutes != 10 || lines[0].TaskID != task.ID {
				t.Fatalf("%s: the stopped timer's line: %+v", i, lines)
			}
			if waiting(gus.Person.ID) != 0 || waiting(rae.Person.ID) != 0 {
				t.Fatalf("%s: notices of the project wait for who is off its team", i)
			}
			if _, err := s.TimerOf(ctx, f.Account.ID, gil.Person.ID); err != nil || waiting(gil.Person.ID) != 1 {
				t.Fatalf("%s: the guest who stays lost their timer (%v) or notice", i, err)
			}
			// The team is the one asked for.
			team := must(s.ProjectMembers(ctx, f.Account.ID, p.ID))(t)
			if len(team) != 1 || team[0].ID != gil.Person.ID {
				t.Fatalf("%s: the team after: %+v", i, team)
			}
		}
	})

	t.Run("removal", func(t *testing.T) {
		tf := newTrustFixture(t, f, "removed")
		if _, _, err := s.InvitationByLink(ctx, "inv-"+f.Account.Slug+"-removed"); err != nil {
			t.Fatalf("the invitation's link before: %v", err)
		}
		f.Clock.Advance(5 * time.Minute)
		ended := must(s.RemoveMember(ctx, f.Owner, tf.admin.Person.ID))(t)
		if ended != (taskd.TrustEnded{Invitations: 2, Grants: 2, Webhooks: 1, APIKey: true, Timer: true}) {
			t.Fatalf("removal ended %+v", ended)
		}
		if live(t, s, tf.adminGrant) || live(t, s, tf.rwGrant) {
			t.Fatal("a removed member's grants are in force")
		}
		if hook := must(s.Webhook(ctx, f.Account.ID, tf.hook.ID))(t); hook.Enabled ||
			hook.DisabledReason != "Its maker, Ada Removed, left the account" || hook.By != tf.admin.Person.ID {
			t.Fatalf("the webhook of a removed admin: %+v", hook)
		}
		if waiting(tf.admin.Person.ID) != 0 {
			t.Fatal("a removed member is still to be told of the account")
		}
		// Their invitation's link died with it.
		_, _, err := s.InvitationByLink(ctx, "inv-"+f.Account.Slug+"-removed")
		want(t, err, taskd.KindNotFound, "link")

		// Enabled again by the owner, the webhook acts for the owner.
		noErr(t, s.EnableWebhook(ctx, f.Account.ID, tf.hook.ID, f.Owner.Person.ID))
		if hook := must(s.Webhook(ctx, f.Account.ID, tf.hook.ID))(t); !hook.Enabled || hook.By != f.Owner.Person.ID {
			t.Fatalf("a webhook enabled again: %+v", hook)
		}
	})

	t.Run("others keep theirs", func(t *testing.T) {
		tf := newTrustFixture(t, f, "stays")
		other := must(s.AddMember(ctx, f.Account.ID, taskd.NewPerson{Email: f.Account.Slug + "-bystander@example.com", PasswordHash: "x"},
			taskd.RoleAdmin))(t)
		// Another admin's demotion and removal touch nothing of tf.admin's.
		ended := must(s.SetRole(ctx, f.Owner, other.ID, taskd.RoleReader))(t)
		if ended != (taskd.TrustEnded{}) {
			t.Fatalf("a bystander's demotion ended %+v", ended)
		}
		noErr(t, second(s.RemoveMember(ctx, f.Owner, other.ID)))
		if !pending(tf.invitedAdmin) || !live(t, s, tf.adminGrant) || len(keyOf()) == 0 {
			t.Fatal("a change of another member's trust ended this admin's")
		}
		if hook := must(s.Webhook(ctx, f.Account.ID, tf.hook.ID))(t); !hook.Enabled {
			t.Fatalf("a change of another member's trust disabled this admin's webhook: %+v", hook)
		}
		// A key the command line made (by 0) survives every change.
		noErr(t, s.SetAPIKey(ctx, f.Account.ID, []byte("sealed by the operator"), 0))
		noErr(t, second(s.RemoveMember(ctx, f.Owner, tf.admin.Person.ID)))
		if string(keyOf()) != "sealed by the operator" {
			t.Fatal("removing a member revoked a key that was never shown to them")
		}
	})

	t.Run("invitations race demotions", func(t *testing.T) {
		// An invitation made while its inviter is being demoted either is
		// refused or ends with the demotion: none outlives both.
		for i := range 10 {
			email := fmt.Sprintf("%s-racer-%d@example.com", f.Account.Slug, i)
			admin := must(s.AddMember(ctx, f.Account.ID, taskd.NewPerson{Email: email, PasswordHash: "x"}, taskd.RoleAdmin))(t)
			invitee := fmt.Sprintf("%s-raced-%d@example.com", f.Account.Slug, i)
			var wg sync.WaitGroup
			wg.Go(func() {
				_, err := s.Invite(ctx, taskd.InviteInput{AccountID: f.Account.ID, Role: taskd.RoleUser, By: admin.ID,
					Person: taskd.NewPerson{Email: invitee}})
				if err != nil && taskd.ErrorKind(err) != taskd.KindForbidden {
					t.Error(err)
				}
			})
			wg.Go(func() {
				if _, err := s.SetRole(ctx, f.Owner, admin.ID, taskd.RoleUser); err != nil {
					t.Error(err)
				}
			})
			wg.Wait()
			for _, inv := range must(s.AccountInvitations(ctx, f.Account.ID))(t) {
				if inv.Person.Email == invitee {
					t.Fatalf("round %d: an invitation outlived its inviter's demotion", i)
				}
			}
		}
	})

	t.Run("invitations need their inviter's trust", func(t *testing.T) {
		// A user may not invite; an admin may not invite after losing the
		// role, even in a transaction that began before.
		inviter := must(s.AddMember(ctx, f.Account.ID, taskd.NewPerson{Email: f.Account.Slug + "-inviter@example.com", PasswordHash: "x"},
			taskd.RoleUser))(t)
		_, err := s.Invite(ctx, taskd.InviteInput{AccountID: f.Account.ID, Role: taskd.RoleReader, By: inviter.ID,
			Person: taskd.NewPerson{Email: f.Account.Slug + "-nobody@example.com"}})
		want(t, err, taskd.KindForbidden, "role")
	})
}

// testCredentialChanges: a password reset ends every authorization of an
// application the person gave, and their calendar feed's secret; a
// password change ends each when asked, and only then; an e-mail change
// ends grants when asked, and never the feed.
func testCredentialChanges(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	c := newClient(t, f, "creds")
	me := f.Owner.Person
	n := 0
	grant := func() taskd.Grant {
		t.Helper()
		n++
		now := f.Clock.Now()
		tag := f.Account.Slug + "-" + string(rune('a'+n))
		g := must(s.CreateGrant(ctx, taskd.Grant{ClientPK: c.ID, AccountID: f.Account.ID, PersonID: me.ID, Scopes: []string{"tasks_read"},
			RedirectURI: "https://app.example/cb", CodeExpires: now.Add(time.Minute)}, "code-"+tag))(t)
		must(s.RedeemCode(ctx, g.ID, taskd.Tokens{AccessJTI: "jti-" + tag, AccessExpires: now.Add(time.Hour), RefreshHash: "rt-" + tag,
			RefreshExpires: now.Add(24 * time.Hour)}))(t)
		return g
	}
	link := func(hash string, end bool) taskd.Link {
		return taskd.Link{Hash: hash, Expires: f.Clock.Now().Add(time.Hour), EndGrants: end}
	}
	mail := taskd.QueuedMail{To: "x@example.com", Subject: "s", Body: []byte("b")}

	// The calendar feed's secret, where the store keeps feeds.
	feeds, _ := f.Store.(calendarStore)
	feed := func(hash string) bool {
		t.Helper()
		if feeds == nil {
			return false
		}
		if hash != "" {
			must(feeds.SetICalToken(ctx, me.ID, hash))(t)
		}
		_, err := feeds.ICalTokenSet(ctx, me.ID)
		if err != nil && !taskd.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	hasFeeds := feeds != nil

	g := grant()
	feed("feed-1")
	if ended := must(s.SetPassword(ctx, me.ID, taskd.PasswordChange{Hash: "argon-1"}))(t); ended != (taskd.PasswordEnded{}) || !live(t, s, g) || feed("") != hasFeeds {
		t.Fatalf("a password change without ending grants or the feed ended %+v", ended)
	}
	if ended := must(s.SetPassword(ctx, me.ID, taskd.PasswordChange{Hash: "argon-2", EndGrants: true}))(t); ended.Grants != 1 || ended.Feed ||
		live(t, s, g) || feed("") != hasFeeds {
		t.Fatalf("a password change that ends grants ended %+v", ended)
	}
	if ended := must(s.SetPassword(ctx, me.ID, taskd.PasswordChange{Hash: "argon-2", EndFeed: true}))(t); ended.Grants != 0 || ended.Feed != hasFeeds || feed("") {
		t.Fatalf("a password change that ends the feed ended %+v", ended)
	}

	g = grant()
	noErr(t, s.RequestEmailChange(ctx, me.ID, "kept-"+me.Email, link("e-keep", false), mail))
	must(s.ConfirmEmail(ctx, "e-keep"))(t)
	if !live(t, s, g) {
		t.Fatal("an e-mail change not asked to end grants ended one")
	}
	// A reset link mailed to the old address dies with it.
	noErr(t, s.RequestReset(ctx, "kept-"+me.Email, link("r-old", false), func(taskd.Person) taskd.QueuedMail { return mail }))
	noErr(t, s.RequestEmailChange(ctx, me.ID, "ended-"+me.Email, link("e-end", true), mail))
	if !live(t, s, g) {
		t.Fatal("asking for an e-mail change ended grants before the link was used")
	}
	must(s.ConfirmEmail(ctx, "e-end"))(t)
	if live(t, s, g) {
		t.Fatal("an e-mail change asked to end grants left one in force")
	}
	if _, err := s.ResetPassword(ctx, "r-old", "argon-x"); !taskd.IsNotFound(err) {
		t.Fatalf("a reset link mailed to the old address after the change: %v", err)
	}

	g = grant()
	feed("feed-2")
	if !live(t, s, g) || feed("") != hasFeeds {
		t.Fatal("an e-mail change ended the feed")
	}
	noErr(t, s.RequestReset(ctx, "ended-"+me.Email, link("r-1", false), func(taskd.Person) taskd.QueuedMail { return mail }))
	must(s.ResetPassword(ctx, "r-1", "argon-3"))(t)
	if live(t, s, g) {
		t.Fatal("a password reset left a grant in force")
	}
	if feed("") {
		t.Fatal("a password reset left the calendar feed's secret in force")
	}
	// Its access token is still found, revoked: the OAuth server refuses it.
	if got := must(s.GrantByAccess(ctx, "jti-"+f.Account.Slug+"-d"))(t); got.ID != g.ID || !got.Revoked {
		t.Fatalf("the reset's grant: %+v", got)
	}
}
