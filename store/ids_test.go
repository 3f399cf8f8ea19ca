package store_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/live"
	"github.com/taskd/taskd/store"
)

// TestIDsAreNeverReused (issue 46): an id names one object forever. The
// newest task, comment and project deleted, the next of each gets a new
// id, never the deleted one's; and the events of a task and of a comment
// that were hidden from a member stay hidden from them once deleted,
// however many objects are made after: in Events, Activity and a live
// stream's replay. On SQLite, before migration 0036, the new task took
// the deleted one's id and the member read "SECRET plan" in its events.
func TestIDsAreNeverReused(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db, now, t0 := liveClock(t, d)
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		uma := testaccount.Member(t, db, acct.ID, testaccount.Person{Email: "uma-" + acct.Slug + "@example.com"}, taskd.RoleUser)
		proj, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Plans")})
		if err != nil {
			t.Fatal(err)
		}
		secret, err := db.CreateTask(ctx, owner, proj.ID, 0, taskd.TaskInput{Name: new("SECRET plan"), Hidden: []string{acct.Owner.Email}})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteTask(ctx, owner, secret.ID); err != nil {
			t.Fatal(err)
		}
		visible, err := db.CreateTask(ctx, owner, proj.ID, 0, taskd.TaskInput{Name: new("visible")})
		if err != nil {
			t.Fatal(err)
		}
		if visible.ID <= secret.ID {
			t.Errorf("the task made after task %d was deleted got id %d", secret.ID, visible.ID)
		}
		note, err := db.CreateHiddenComment(ctx, owner, visible.ID, "SECRET note", []string{acct.Owner.Email})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteComment(ctx, owner, note.ID); err != nil {
			t.Fatal(err)
		}
		open, err := db.CreateComment(ctx, owner, visible.ID, "open note")
		if err != nil {
			t.Fatal(err)
		}
		if open.ID <= note.ID {
			t.Errorf("the comment made after comment %d was deleted got id %d", note.ID, open.ID)
		}

		secrets := secretEvents(t, db, acct.ID)
		if len(secrets) != 4 {
			t.Fatalf("the owner's key reads %d events of the secrets, want 4 (post and delete of each)", len(secrets))
		}
		evs, err := db.Events(ctx, uma.Viewer(), time.Time{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		act, err := db.Activity(ctx, taskd.ActivityQuery{Viewer: uma.Viewer()})
		if err != nil {
			t.Fatal(err)
		}
		replay, reload := resume(t, db, now, uma.Viewer(), 0, t0)
		if reload {
			t.Fatal("the replay reloads")
		}
		for name, got := range map[string][]int64{"Events": storedIDs(evs), "Activity": storedIDs(act), "the live replay": liveIDs(replay)} {
			if len(got) == 0 {
				t.Errorf("%s: the member reads nothing, not even the visible task", name)
			}
			for _, id := range got {
				if secrets[id] {
					t.Errorf("%s: the member reads event %d of a deleted task or comment hidden from them", name, id)
				}
			}
		}

		// taskd deletes no project; one deleted by hand does not give its
		// id to the next either.
		last, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Gone")})
		if err != nil {
			t.Fatal(err)
		}
		deleteProject(t, d, last.ID)
		next, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Next")})
		if err != nil {
			t.Fatal(err)
		}
		if next.ID <= last.ID {
			t.Errorf("the project made after project %d was deleted got id %d", last.ID, next.ID)
		}
	})
}

// deleteProject deletes the project, with its events and (its foreign
// keys' cascades) all it holds, as an operator might by hand.
func deleteProject(t *testing.T, d testdb.DB, id int64) {
	t.Helper()
	conn, err := openRaw(t, d).Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stmts := []string{`DELETE FROM events WHERE project_id = ` + fmt.Sprint(id), `DELETE FROM projects WHERE id = ` + fmt.Sprint(id)}
	if d.Backend == "sqlite" {
		stmts = append([]string{`PRAGMA foreign_keys = ON`}, stmts...)
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// secretEvents is the set of the account's events, read with its key,
// whose body holds "SECRET".
func secretEvents(t *testing.T, db *store.DB, accountID int64) map[int64]bool {
	t.Helper()
	all, err := db.Events(context.Background(), taskd.AccountViewer(accountID), time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]bool{}
	for _, e := range all {
		if strings.Contains(string(e.Body), "SECRET") {
			out[e.ID] = true
		}
	}
	return out
}

// storedIDs is the events' ids.
func storedIDs(evs []taskd.StoredEvent) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}

// liveIDs is the live events' ids.
func liveIDs(evs []taskd.LiveEvent) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// liveClock is a store opened on a clock that stays at t0, and the clock.
func liveClock(t *testing.T, d testdb.DB) (*store.DB, func() time.Time, time.Time) {
	t.Helper()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return t0 }
	return d.OpenWith(t, store.Options{Now: now}), now, t0
}

// resume opens a stream for the viewer on a hub of the store's events
// (on the clock now), as a page does (after the event last, or else
// since), and closes it: what it replays, and whether it reloads.
func resume(t *testing.T, db *store.DB, now func() time.Time, v taskd.Viewer, last int64, since time.Time) ([]taskd.LiveEvent, bool) {
	t.Helper()
	s, err := live.New(db, live.Config{Now: now}).LiveEvents(context.Background(), taskd.LiveRequest{Viewer: v, Last: last, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return s.Replay, s.Reload
}
