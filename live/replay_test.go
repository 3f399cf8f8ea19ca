package live_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/live"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// The tests of a stream resuming (issue 35) open each stream only after
// the events it is to replay are written, and write none between two
// streams: the hub's cursor is then the newest event, and every missed
// event comes in Replay (read by the rule of replay.go), none from the
// hub's own reads.

// liveClock is a store opened on a clock the test moves, and a hub of its
// events on the same clock, running until the test ends.
func liveClock(t *testing.T, d testdb.DB) (*store.DB, *live.Hub, *atomic.Int64, time.Time) {
	t.Helper()
	var clock atomic.Int64
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock.Store(t0.UnixMilli())
	now := func() time.Time { return time.UnixMilli(clock.Load()).UTC() }
	db := d.OpenWith(t, store.Options{Now: now})
	return db, runHub(t, db, now), &clock, t0
}

// resume opens a stream for the viewer, as a page does (after the event
// last, or else since), and closes it: what it replays, and whether it
// reloads.
func resume(t *testing.T, hub *live.Hub, v taskd.Viewer, last int64, since time.Time) ([]taskd.LiveEvent, bool) {
	t.Helper()
	s, err := hub.LiveEvents(context.Background(), taskd.LiveRequest{Viewer: v, Last: last, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return s.Replay, s.Reload
}

// liveTask makes a task, failing the test if it cannot.
func liveTask(t *testing.T, db *store.DB, by taskd.Actor, projectID int64, name string, hidden ...string) {
	t.Helper()
	if _, err := db.CreateTask(context.Background(), by, projectID, 0, taskd.TaskInput{Name: new(name), Hidden: hidden}); err != nil {
		t.Fatal(err)
	}
}

// replayed is the events' ids and titles, to read in a failure.
func replayed(evs []taskd.LiveEvent) string {
	s := ""
	for _, e := range evs {
		s += fmt.Sprintf("%d %s %q; ", e.ID, e.Name, e.Title)
	}
	return s
}

// TestLiveReplayIsByTheViewersRule: the events a stream missed, resuming
// after Last-Event-ID or from when its page was made (?since=), are those
// the viewer sees: a guest's leave out a task of a project whose team
// they are not on, a task hidden from them and a comment hidden from
// them, made while their stream was closed, and include the change they
// see made after them. The owner's replay holds all of them.
func TestLiveReplayIsByTheViewersRule(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db, hub, clock, t0 := liveClock(t, d)
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		gusEmail := "gus-" + acct.Slug + "@example.com"
		gus := testaccount.Member(t, db, acct.ID, testaccount.Person{Email: gusEmail, First: "Gus", Last: "Guest"}, taskd.RoleGuest)
		open, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Open")})
		if err != nil {
			t.Fatal(err)
		}
		closed, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Closed")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SetProjectMembers(ctx, owner, open.ID, []string{gusEmail}, true); err != nil {
			t.Fatal(err)
		}
		seen, err := db.CreateTask(ctx, owner, open.ID, 0, taskd.TaskInput{Name: new("before")})
		if err != nil {
			t.Fatal(err)
		}
		last := storetest.NewestEventID(t, db, acct.ID) // the guest's stream closes here
		clock.Store(t0.Add(2 * time.Second).UnixMilli())
		pageMade := t0.Add(2 * time.Second) // a page made now opens its first stream later
		liveTask(t, db, owner, closed.ID, "not on the team")
		liveTask(t, db, owner, open.ID, "hidden from Gus", acct.Owner.Email)
		if _, err := db.CreateHiddenComment(ctx, owner, seen.ID, "for the owner", []string{acct.Owner.Email}); err != nil {
			t.Fatal(err)
		}
		liveTask(t, db, owner, open.ID, "after")
		after := storetest.NewestEventID(t, db, acct.ID)

		for _, c := range []struct {
			name  string
			last  int64
			since time.Time
		}{{"resuming after Last-Event-ID", last, time.Time{}}, {"a page's first stream (?since=)", 0, pageMade}} {
			all, reload := resume(t, hub, owner.Viewer(), c.last, c.since)
			if reload || len(all) != 4 || all[3].ID != after {
				t.Errorf("%s: the owner's replay (reload %v): %s, want the four changes", c.name, reload, replayed(all))
			}
			got, reload := resume(t, hub, gus.Viewer(), c.last, c.since)
			if reload || len(got) != 1 || got[0].ID != after || got[0].Title != "after" {
				t.Errorf("%s: the guest's replay (reload %v): %s, want only the task after (event %d)", c.name, reload, replayed(got), after)
			}
		}
	})
}

// TestLiveResumeWindowAndAccount: a stream resumes, replaying what it
// missed, from an event of its account just under Window (10
// minutes) old; from one older (10 minutes and a second, 11 minutes) or
// from an event of another account (or none) it is told to reload,
// replaying nothing; a page's first stream from longer ago than the
// window reloads too.
func TestLiveResumeWindowAndAccount(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db, hub, clock, t0 := liveClock(t, d)
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		other := testaccount.New(t, db, testaccount.Options{})
		p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Window")})
		if err != nil {
			t.Fatal(err)
		}
		op, err := db.CreateProject(ctx, other.Actor(), taskd.ProjectInput{Name: new("Elsewhere")})
		if err != nil {
			t.Fatal(err)
		}
		liveTask(t, db, owner, p.ID, "seen")
		last := storetest.NewestEventID(t, db, acct.ID)
		liveTask(t, db, other.Actor(), op.ID, "another account's")
		foreign := storetest.NewestEventID(t, db, other.ID)
		liveTask(t, db, owner, p.ID, "missed")
		missed := storetest.NewestEventID(t, db, acct.ID)
		if !(last < foreign && foreign < missed) {
			t.Fatalf("event ids %d, %d, %d: not in the order made", last, foreign, missed)
		}
		v := owner.Viewer()

		for _, bad := range []int64{foreign, missed + 1_000_000} {
			if got, reload := resume(t, hub, v, bad, time.Time{}); !reload || len(got) != 0 {
				t.Errorf("resuming from event %d, not of the account: reload %v, replay %s", bad, reload, replayed(got))
			}
		}
		for _, age := range []time.Duration{0, live.Window - time.Second} {
			clock.Store(t0.Add(age).UnixMilli())
			if got, reload := resume(t, hub, v, last, time.Time{}); reload || len(got) != 1 || got[0].ID != missed {
				t.Errorf("resuming from an event %v old: reload %v, replay %s, want event %d", age, reload, replayed(got), missed)
			}
			if got, reload := resume(t, hub, v, 0, t0); reload || len(got) != 3 || got[2].ID != missed {
				t.Errorf("a page's first stream from %v ago: reload %v, replay %s", age, reload, replayed(got))
			}
		}
		for _, age := range []time.Duration{live.Window + time.Second, 11 * time.Minute} {
			clock.Store(t0.Add(age).UnixMilli())
			if got, reload := resume(t, hub, v, last, time.Time{}); !reload || len(got) != 0 {
				t.Errorf("resuming from an event %v old: reload %v, replay %s", age, reload, replayed(got))
			}
			if got, reload := resume(t, hub, v, 0, t0); !reload || len(got) != 0 {
				t.Errorf("a page's first stream from %v ago: reload %v, replay %s", age, reload, replayed(got))
			}
		}
	})
}

// TestLiveReplaysUpTo500: a stream that missed Replay (500) events it
// sees gets them all, in order, and no reload; one that missed 501 is
// told to reload. Events it does not see, among them, do not count.
func TestLiveReplaysUpTo500(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		hub := runHub(t, db, nil)
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		user := testaccount.Member(t, db, acct.ID, testaccount.Person{Email: "ula-" + acct.Slug + "@example.com", First: "Ula", Last: "User"}, taskd.RoleUser)
		p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Many")})
		if err != nil {
			t.Fatal(err)
		}
		liveTask(t, db, owner, p.ID, "first")
		before501 := storetest.NewestEventID(t, db, acct.ID)
		liveTask(t, db, owner, p.ID, "second")
		before500 := storetest.NewestEventID(t, db, acct.ID)
		start := time.Now()
		for i := range live.Replay {
			liveTask(t, db, owner, p.ID, fmt.Sprint("task ", i))
			if i%100 == 0 { // hidden from the user: not theirs to miss
				liveTask(t, db, owner, p.ID, fmt.Sprint("hidden ", i), acct.Owner.Email)
			}
		}
		t.Logf("%d tasks made in %v", live.Replay, time.Since(start))
		evs, err := db.Events(ctx, user.Viewer(), time.Time{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for _, e := range evs {
			if e.ID > before500 {
				want = append(want, e.ID)
			}
		}
		if len(want) != live.Replay {
			t.Fatalf("%d events after the second task, want %d (one a task)", len(want), live.Replay)
		}
		got, reload := resume(t, hub, user.Viewer(), before500, time.Time{})
		if reload || len(got) != len(want) {
			t.Fatalf("%d missed: reload %v, %d replayed", len(want), reload, len(got))
		}
		for i, e := range got {
			if e.ID != want[i] || e.Title != fmt.Sprint("task ", i) {
				t.Fatalf("replayed event %d is %d %q, want %d %q", i, e.ID, e.Title, want[i], fmt.Sprint("task ", i))
			}
		}
		if got, reload := resume(t, hub, user.Viewer(), before501, time.Time{}); !reload || len(got) != 0 {
			t.Errorf("%d missed: reload %v, %d replayed", len(want)+1, reload, len(got))
		}
		// The owner sees the hidden tasks too: more than 500 missed.
		if _, reload := resume(t, hub, owner.Viewer(), before500, time.Time{}); !reload {
			t.Errorf("the owner, who missed %d, is not told to reload", len(want)+live.Replay/100)
		}
	})
}
