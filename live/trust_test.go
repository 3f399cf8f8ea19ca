package live_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/live"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// drain reads a stream until it is closed, or fails after a while; it
// returns the titles it was handed.
func drain(t *testing.T, what string, s taskd.LiveStream) string {
	t.Helper()
	var got []string
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-s.Events:
			if !ok {
				return strings.Join(got, "|")
			}
			got = append(got, e.Title)
		case <-deadline:
			t.Fatalf("%s was not ended; it was handed %v", what, got)
		}
	}
}

// handed reads a stream until it is handed an event with the title, or
// fails after a while.
func handed(t *testing.T, what string, s taskd.LiveStream, title string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-s.Events:
			if !ok {
				t.Fatalf("%s ended before %q", what, title)
			}
			if e.Title == title {
				return
			}
		case <-deadline:
			t.Fatalf("%s was not handed %q", what, title)
		}
	}
}

// TestLiveStreamsEndWithTheirTrust: a stream ends when the session it was
// opened with ends, or its person is given another role or removed, and
// is handed nothing written after: checked at each delivery, so that a
// change of trust made where this process hears no signal (another
// process on SQLite) still counts, and at once when the signal comes.
// The streams of other sessions and people go on.
func TestLiveStreamsEndWithTheirTrust(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		hub := runHub(t, db, nil)
		other := d.Open(t) // another process: on SQLite its changes signal nothing here
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		uma := testaccount.Member(t, db, acct.ID, testaccount.Person{Email: "uma-" + acct.Slug + "@example.com", First: "Uma"}, taskd.RoleUser)
		p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Trust")})
		if err != nil {
			t.Fatal(err)
		}
		expires := time.Now().Add(time.Hour)
		for _, h := range []string{"uma-1", "uma-2", "uma-3"} {
			if err := db.CreateSession(ctx, h+acct.Slug, uma.Person.ID, expires); err != nil {
				t.Fatal(err)
			}
		}
		open := func(who taskd.Actor, session string) taskd.LiveStream {
			t.Helper()
			s, err := hub.LiveEvents(ctx, taskd.LiveRequest{Viewer: who.Viewer(), Session: session})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			return s
		}
		first, second, third := open(uma, "uma-1"+acct.Slug), open(uma, "uma-2"+acct.Slug), open(uma, "uma-3"+acct.Slug)
		owners := open(owner, "")

		// Signed out in another process: the next delivery finds it.
		if err := other.DeleteSession(ctx, "uma-1"+acct.Slug); err != nil {
			t.Fatal(err)
		}
		liveTask(t, db, owner, p.ID, "after the sign-out")
		if got := drain(t, "the signed-out session's stream", first); got != "" {
			t.Errorf("the signed-out session's stream was handed %q", got)
		}
		handed(t, "another session's stream", second, "after the sign-out")

		// Made a guest on no team in another process.
		if _, err := other.SetRole(ctx, owner, uma.Person.ID, taskd.RoleGuest); err != nil {
			t.Fatal(err)
		}
		liveTask(t, db, owner, p.ID, "after the demotion")
		if got := drain(t, "the demoted person's stream", second); got != "" {
			t.Errorf("the demoted person's stream was handed %q", got)
		}
		handed(t, "the owner's stream", owners, "after the demotion")

		// A stream opened with the new role goes on; removed here, it ends
		// at once, with no change to deliver (the signal).
		guest := taskd.Actor{AccountID: acct.ID, Person: uma.Person, Role: taskd.RoleGuest}
		fourth := open(guest, "uma-3"+acct.Slug)
		if _, err := db.RemoveMember(ctx, owner, uma.Person.ID); err != nil {
			t.Fatal(err)
		}
		if got := drain(t, "the removed person's stream", fourth); got != "" {
			t.Errorf("the removed person's stream was handed %q", got)
		}
		// third was opened as a user: it ended with the demotion, at the
		// latest.
		drain(t, "a stream of the old role", third)
		if n := hub.Streams(); n != 1 {
			t.Errorf("%d streams left, want the owner's", n)
		}

		// Signed out here: the signal ends the stream, with nothing to
		// deliver.
		if err := db.CreateSession(ctx, "owner-1"+acct.Slug, owner.Person.ID, expires); err != nil {
			t.Fatal(err)
		}
		signedIn := open(owner, "owner-1"+acct.Slug)
		if err := db.DeleteSession(ctx, "owner-1"+acct.Slug); err != nil {
			t.Fatal(err)
		}
		if got := drain(t, "a stream signed out here", signedIn); got != "" {
			t.Errorf("a stream signed out here was handed %q", got)
		}
	})
}

// TestLiveStreamsEndWhenTrustCannotBeRead: a check of trust that fails
// (here, its context ended) ends the streams it checked, which resume
// from Last-Event-ID and are checked then, rather than keep them
// unchecked.
func TestLiveStreamsEndWhenTrustCannotBeRead(t *testing.T) {
	db := testdb.New(t, "sqlite").Open(t)
	hub := runHub(t, db, nil)
	acct := testaccount.New(t, db, testaccount.Options{})
	s, err := hub.LiveEvents(context.Background(), taskd.LiveRequest{Viewer: acct.Actor().Viewer()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	hub.RecheckForTest(ctx)
	if got := drain(t, "a stream whose trust could not be read", s); got != "" {
		t.Errorf("handed %q", got)
	}
}

// TestLiveReplayStartsWithSight: a stream resuming from before its
// viewer's sight began (joining a project's team, a new role) reloads
// instead of replaying, and a page's first stream replays only what came
// after it: a guest added to a team is not told of the project's earlier
// events, such as a task deleted before they joined. From after it, a
// stream replays as usual.
func TestLiveReplayStartsWithSight(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db, hub, clock, t0 := liveClock(t, d)
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		gusEmail := "gus-" + acct.Slug + "@example.com"
		gus := testaccount.Member(t, db, acct.ID, testaccount.Person{Email: gusEmail, First: "Gus"}, taskd.RoleGuest)
		uma := testaccount.Member(t, db, acct.ID, testaccount.Person{Email: "uma-" + acct.Slug + "@example.com", First: "Uma"}, taskd.RoleUser)
		p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Joined later")})
		if err != nil {
			t.Fatal(err)
		}
		tick := func() { clock.Add(int64(time.Second / time.Millisecond)) }
		tick()
		liveTask(t, db, owner, p.ID, "seen by the user")
		last := storetest.NewestEventID(t, db, acct.ID) // both streams close here
		tick()
		gone, err := db.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Deleted before Gus joined")})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteTask(ctx, owner, gone.ID); err != nil {
			t.Fatal(err)
		}
		tick()
		if _, err := db.SetProjectMembers(ctx, owner, p.ID, []string{gusEmail}, true); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SetRole(ctx, owner, uma.Person.ID, taskd.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		tick()
		liveTask(t, db, owner, p.ID, "after Gus joined")
		joined := storetest.NewestEventID(t, db, acct.ID)
		liveTask(t, db, owner, p.ID, "later")
		after := storetest.NewestEventID(t, db, acct.ID)
		for _, c := range []struct {
			name   string
			viewer taskd.Viewer
		}{{"the guest added to the team", gus.Viewer()}, {"the user made an admin", taskd.PersonViewer(acct.ID, uma.Person.ID, taskd.RoleAdmin)}} {
			got, reload := resume(t, hub, c.viewer, last, time.Time{})
			if !reload || len(got) != 0 {
				t.Errorf("%s, resuming from before: reload %v, replay %s", c.name, reload, replayed(got))
			}
			// A page made before: only what came after they joined.
			got, reload = resume(t, hub, c.viewer, 0, t0.Add(time.Second))
			if reload || len(got) != 2 || got[0].ID != joined || got[1].ID != after {
				t.Errorf("%s, a page made before: reload %v, replay %s, want the two changes since joining", c.name, reload, replayed(got))
			}
		}
		// From after they joined: the later change alone.
		got, reload := resume(t, hub, gus.Viewer(), joined, time.Time{})
		if reload || len(got) != 1 || got[0].ID != after {
			t.Errorf("the guest, resuming from after joining: reload %v, replay %s", reload, replayed(got))
		}
		// The owner, whose sight did not change, replays it all.
		got, reload = resume(t, hub, owner.Viewer(), last, time.Time{})
		if reload || len(got) != 4 || got[len(got)-1].ID != after {
			t.Errorf("the owner: reload %v, replay %s, want every change since", reload, replayed(got))
		}
	})
}

// quietEnds opens a stream for the member on a session of theirs, makes
// the change of trust, and checks that the stream ends with nothing
// handed to it and no change to deliver: the signal of the change, in
// this process or (PostgreSQL) from another.
func quietEnds(t *testing.T, db *store.DB, hub *live.Hub, who taskd.Actor, session, what string, change func() error) {
	t.Helper()
	ctx := context.Background()
	if err := db.CreateSession(ctx, session, who.Person.ID, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	s, err := hub.LiveEvents(ctx, taskd.LiveRequest{Viewer: who.Viewer(), Session: session})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := change(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got := drain(t, "a quiet stream after "+what, s); got != "" {
		t.Errorf("a quiet stream after %s was handed %q", what, got)
	}
}

// TestLiveQuietStreamsEndOnEveryChangeOfTrust: every change of trust
// ends the streams it concerns at once, with no change to deliver: sign-
// out, a password changed or reset, a new role, removal. On PostgreSQL
// the change is also made through another replica, whose NOTIFY must
// carry it.
func TestLiveQuietStreamsEndOnEveryChangeOfTrust(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		hub := runHub(t, db, nil)
		changers := map[string]*store.DB{"this replica": db}
		if d.Backend == "postgres" {
			changers["another replica"] = d.Open(t)
		}
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		for where, by := range changers {
			n := 0
			person := func() taskd.Actor {
				n++
				return testaccount.Member(t, db, acct.ID, testaccount.Person{Email: fmt.Sprintf("p%d-%s-%s@example.com", n, strings.Fields(where)[0], acct.Slug)}, taskd.RoleUser)
			}
			session := func() string { n++; return fmt.Sprintf("s%d-%s-%s", n, strings.Fields(where)[0], acct.Slug) }
			p := person()
			h := session()
			quietEnds(t, db, hub, p, h, "a sign-out "+where, func() error { return by.DeleteSession(ctx, h) })
			p = person()
			quietEnds(t, db, hub, p, session(), "a password change "+where, func() error {
				_, err := by.SetPassword(ctx, p.Person.ID, taskd.PasswordChange{Hash: "argon-x"})
				return err
			})
			p = person()
			quietEnds(t, db, hub, p, session(), "a password reset "+where, func() error {
				l := taskd.Link{Hash: session(), Expires: time.Now().Add(time.Hour)}
				mail := func(taskd.Person) taskd.QueuedMail {
					return taskd.QueuedMail{To: "x@example.com", Subject: "s", Body: []byte("b")}
				}
				if err := by.RequestReset(ctx, p.Person.Email, l, mail); err != nil {
					return err
				}
				_, err := by.ResetPassword(ctx, l.Hash, "argon-y")
				return err
			})
			p = person()
			quietEnds(t, db, hub, p, session(), "a new role "+where, func() error {
				_, err := by.SetRole(ctx, owner, p.Person.ID, taskd.RoleReader)
				return err
			})
			p = person()
			quietEnds(t, db, hub, p, session(), "a removal "+where, func() error {
				_, err := by.RemoveMember(ctx, owner, p.Person.ID)
				return err
			})
		}
	})
}

// TestLiveTrustIsOfTheStreamsAccount: a person removed from one account
// loses their stream there, though they hold the same role in another.
func TestLiveTrustIsOfTheStreamsAccount(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		hub := runHub(t, db, nil)
		a := testaccount.New(t, db, testaccount.Options{})
		b := testaccount.New(t, db, testaccount.Options{})
		email := "both-" + a.Slug + "@example.com"
		inA := testaccount.Member(t, db, a.ID, testaccount.Person{Email: email}, taskd.RoleUser)
		person, err := db.PersonByEmail(ctx, email)
		if err != nil {
			t.Fatal(err)
		}
		testaccount.Member(t, db, b.ID, testaccount.Person{Email: email, Hash: person.PasswordHash}, taskd.RoleUser)
		other := d.Open(t) // no signal on SQLite: the check at delivery decides
		quietlyRemoved, err := hub.LiveEvents(ctx, taskd.LiveRequest{Viewer: inA.Viewer()})
		if err != nil {
			t.Fatal(err)
		}
		defer quietlyRemoved.Close()
		if _, err := other.RemoveMember(ctx, a.Actor(), inA.Person.ID); err != nil {
			t.Fatal(err)
		}
		p, err := db.CreateProject(ctx, a.Actor(), taskd.ProjectInput{Name: new("After the removal")})
		if err != nil {
			t.Fatal(err)
		}
		liveTask(t, db, a.Actor(), p.ID, "after the removal")
		if got := drain(t, "the stream of the account they left", quietlyRemoved); got != "" {
			t.Errorf("the stream of the account they left was handed %q", got)
		}
	})
}

// TestLiveTrustOfManyStreams: every stream of an account is checked,
// however many: a signed-out session's 201 streams (more than one check's
// batch of 200) all end, handed nothing.
func TestLiveTrustOfManyStreams(t *testing.T) {
	d := testdb.New(t, "sqlite")
	db := d.Open(t)
	other := d.Open(t) // another process: on SQLite its changes signal nothing here
	hub := runHub(t, db, nil)
	acct := testaccount.New(t, db, testaccount.Options{})
	owner := acct.Actor()
	ctx := context.Background()
	uma := testaccount.Member(t, db, acct.ID, testaccount.Person{Email: "uma-" + acct.Slug + "@example.com"}, taskd.RoleUser)
	if err := db.CreateSession(ctx, "many", uma.Person.ID, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	var streams []taskd.LiveStream
	for range 201 {
		s, err := hub.LiveEvents(ctx, taskd.LiveRequest{Viewer: uma.Viewer(), Session: "many"})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		streams = append(streams, s)
	}
	p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Many")})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range streams { // the project's event reached them all
		if got := drainUntil(t, s, "Many"); got != "" {
			t.Fatalf("a stream ended before its first event: %s", got)
		}
	}
	if err := other.DeleteSession(ctx, "many"); err != nil { // no signal
		t.Fatal(err)
	}
	liveTask(t, db, owner, p.ID, "after the sign-out")
	for i, s := range streams {
		if got := drain(t, "a signed-out stream", s); got != "" {
			t.Fatalf("stream %d of 201 was handed %q after its session ended", i, got)
		}
	}
}

// drainUntil reads a stream until an event with the title; it returns
// what it read when the stream ended first.
func drainUntil(t *testing.T, s taskd.LiveStream, title string) string {
	t.Helper()
	var got []string
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-s.Events:
			if !ok {
				return "ended after " + strings.Join(got, "|")
			}
			if e.Title == title {
				return ""
			}
			got = append(got, e.Title)
		case <-deadline:
			t.Fatalf("no %q on the stream", title)
		}
	}
}

// TestLiveTrustByTheClock: a session that expires ends its stream at
// the next delivery; and a change of trust whose signal never comes
// (another process on SQLite) ends a quiet stream within a minute of the
// store's clock.
func TestLiveTrustByTheClock(t *testing.T) {
	ctx := context.Background()
	d := testdb.New(t, "sqlite")
	db, hub, clock, t0 := liveClock(t, d)
	other := d.Open(t)
	acct := testaccount.New(t, db, testaccount.Options{})
	owner := acct.Actor()
	uma := testaccount.Member(t, db, acct.ID, testaccount.Person{Email: "uma-" + acct.Slug + "@example.com"}, taskd.RoleUser)
	p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Clock")})
	if err != nil {
		t.Fatal(err)
	}
	open := func(session string, expires time.Time) taskd.LiveStream {
		t.Helper()
		if err := db.CreateSession(ctx, session, uma.Person.ID, expires); err != nil {
			t.Fatal(err)
		}
		s, err := hub.LiveEvents(ctx, taskd.LiveRequest{Viewer: uma.Viewer(), Session: session})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	expiring := open("expiring", t0.Add(time.Hour))
	clock.Store(t0.Add(2 * time.Hour).UnixMilli())
	liveTask(t, db, owner, p.ID, "after the expiry")
	if got := drain(t, "an expired session's stream", expiring); got != "" {
		t.Errorf("an expired session's stream was handed %q", got)
	}

	quiet := open("quiet", t0.Add(24*time.Hour))
	if err := other.DeleteSession(ctx, "quiet"); err != nil { // no signal reaches db
		t.Fatal(err)
	}
	clock.Add(int64(61 * time.Second / time.Millisecond))
	if got := drain(t, "a stream whose sign-out was not signalled, a minute later", quiet); got != "" {
		t.Errorf("handed %q", got)
	}
}

// TestLiveReplayStartsWhenTheyJoined: a member who joined after an
// event, whether added or by accepting an invitation made before it, and
// who resumes from it (a guessed Last-Event-ID) is told to reload, not
// replayed what came before they joined.
func TestLiveReplayStartsWhenTheyJoined(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db, hub, clock, _ := liveClock(t, d)
		tick := func() { clock.Add(int64(time.Second / time.Millisecond)) }
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Before them")})
		if err != nil {
			t.Fatal(err)
		}
		invitedEmail := "invited-" + acct.Slug + "@example.com"
		inv, err := db.Invite(ctx, taskd.InviteInput{AccountID: acct.ID, Person: taskd.NewPerson{Email: invitedEmail, PasswordHash: "h"},
			Role: taskd.RoleUser, By: owner.Person.ID})
		if err != nil {
			t.Fatal(err)
		}
		tick()
		liveTask(t, db, owner, p.ID, "written before they joined")
		guessed := storetest.NewestEventID(t, db, acct.ID)
		tick()
		added := testaccount.Member(t, db, acct.ID, testaccount.Person{Email: "added-" + acct.Slug + "@example.com"}, taskd.RoleUser)
		invited, err := db.PersonByEmail(ctx, invitedEmail)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.AcceptInvitation(ctx, invited.ID, inv.ID); err != nil {
			t.Fatal(err)
		}
		tick()
		liveTask(t, db, owner, p.ID, "written after")
		for name, v := range map[string]taskd.Viewer{"added": added.Viewer(), "invited": taskd.PersonViewer(acct.ID, invited.ID, taskd.RoleUser)} {
			if got, reload := resume(t, hub, v, guessed, time.Time{}); !reload || len(got) != 0 {
				t.Errorf("the %s member resuming from before they joined: reload %v, replay %s", name, reload, replayed(got))
			}
		}
	})
}
