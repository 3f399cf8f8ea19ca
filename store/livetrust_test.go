package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
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
			s, err := db.LiveEvents(ctx, taskd.LiveRequest{Viewer: who.Viewer(), Session: session})
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
		if n := db.LiveStreams(); n != 1 {
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
	acct := testaccount.New(t, db, testaccount.Options{})
	s, err := db.LiveEvents(context.Background(), taskd.LiveRequest{Viewer: acct.Actor().Viewer()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	db.RecheckLiveForTest(ctx)
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
		db, clock, t0 := liveClock(t, d)
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
		last := newestID(t, db, acct.ID) // both streams close here
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
		joined := newestID(t, db, acct.ID)
		liveTask(t, db, owner, p.ID, "later")
		after := newestID(t, db, acct.ID)
		for _, c := range []struct {
			name   string
			viewer taskd.Viewer
		}{{"the guest added to the team", gus.Viewer()}, {"the user made an admin", taskd.PersonViewer(acct.ID, uma.Person.ID, taskd.RoleAdmin)}} {
			got, reload := resume(t, db, c.viewer, last, time.Time{})
			if !reload || len(got) != 0 {
				t.Errorf("%s, resuming from before: reload %v, replay %s", c.name, reload, replayed(got))
			}
			// A page made before: only what came after they joined.
			got, reload = resume(t, db, c.viewer, 0, t0.Add(time.Second))
			if reload || len(got) != 2 || got[0].ID != joined || got[1].ID != after {
				t.Errorf("%s, a page made before: reload %v, replay %s, want the two changes since joining", c.name, reload, replayed(got))
			}
		}
		// From after they joined: the later change alone.
		got, reload := resume(t, db, gus.Viewer(), joined, time.Time{})
		if reload || len(got) != 1 || got[0].ID != after {
			t.Errorf("the guest, resuming from after joining: reload %v, replay %s", reload, replayed(got))
		}
		// The owner, whose sight did not change, replays it all.
		got, reload = resume(t, db, owner.Viewer(), last, time.Time{})
		if reload || len(got) != 4 || got[len(got)-1].ID != after {
			t.Errorf("the owner: reload %v, replay %s, want every change since", reload, replayed(got))
		}
	})
}
