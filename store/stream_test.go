package store_test

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
)

// TestTaskTreesAreBuildTreeOfTasks reads lists longer than one part of
// TaskTrees (three levels, done and active tasks, so that filters leave
// subtasks without their parents, and hidden subtrees) and checks that
// the parts, put together, are BuildTree of Tasks for every viewer and
// filter, and that a hidden subtree never reaches a viewer it hides from.
func TestTaskTreesAreBuildTreeOfTasks(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		listed, err := db.AddMember(ctx, acct.ID, taskd.NewPerson{Email: acct.Slug + "-listed@example.com", PasswordHash: "x"}, taskd.RoleUser)
		if err != nil {
			t.Fatal(err)
		}
		other, err := db.AddMember(ctx, acct.ID, taskd.NewPerson{Email: acct.Slug + "-other@example.com", PasswordHash: "x"}, taskd.RoleUser)
		if err != nil {
			t.Fatal(err)
		}
		hiddenIDs := fillTrees(t, db, owner, listed.Email)
		viewers := map[string]taskd.Viewer{
			"key":    taskd.AccountViewer(acct.ID),
			"owner":  owner.Viewer(),
			"listed": taskd.PersonViewer(acct.ID, listed.ID, taskd.RoleUser),
			"other":  taskd.PersonViewer(acct.ID, other.ID, taskd.RoleUser),
		}
		for name, v := range viewers {
			for _, status := range []string{"", taskd.StatusActive, taskd.StatusDone} {
				q := taskd.TaskQuery{Viewer: v, Status: status}
				flat, err := db.Tasks(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				want := taskd.BuildTree(flat)
				var got []taskd.Task
				parts := 0
				err = db.TaskTrees(ctx, q, func(tops []taskd.Task) error {
					parts++
					got = append(got, tops...)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if status == "" && parts < 2 {
					t.Errorf("%s: %d tasks came in %d part(s), want several", name, len(flat), parts)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s, filter %q: TaskTrees differs from BuildTree(Tasks) (%d and %d top-level entries)", name, status, len(got), len(want))
				}
				seen := map[int64]bool{}
				var walk func([]taskd.Task)
				walk = func(ts []taskd.Task) {
					for _, k := range ts {
						seen[k.ID] = true
						walk(k.Children)
					}
				}
				walk(got)
				for _, id := range hiddenIDs {
					if name == "other" && seen[id] || name != "other" && status == "" && !seen[id] {
						t.Errorf("%s, filter %q: hidden task %d seen %v", name, status, id, seen[id])
					}
				}
			}
		}
		// An error of fn ends the reading and comes back as is.
		stop := fmt.Errorf("stop")
		calls := 0
		err = db.TaskTrees(ctx, taskd.TaskQuery{Viewer: owner.Viewer()}, func([]taskd.Task) error { calls++; return stop })
		if err != stop || calls != 1 {
			t.Errorf("TaskTrees with a failing fn: %v after %d calls, want stop after 1", err, calls)
		}
	})
}

// fillTrees makes about 1,300 tasks in two projects: top-level tasks,
// subtasks and sub-subtasks, some done, and a few hidden from all but
// listed (with their subtrees). It returns the ids of the hidden tasks and
// of the tasks below them.
func fillTrees(t *testing.T, db *store.DB, by taskd.Actor, listed string) []int64 {
	t.Helper()
	ctx := context.Background()
	var hidden []int64
	for p := range 2 {
		name := fmt.Sprintf("Trees %d", p)
		proj, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		mk := func(parent int64, n string, hide bool) taskd.Task {
			in := taskd.TaskInput{Name: &n}
			if hide {
				in.Hidden = []string{listed}
			}
			task, err := db.CreateTask(ctx, by, proj.ID, parent, in)
			if err != nil {
				t.Fatal(err)
			}
			return task
		}
		done := func(id int64) {
			if _, err := db.CompleteTask(ctx, by, id); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 220 {
			hide := i%50 == 7
			top := mk(0, fmt.Sprintf("Task %d.%d", p, i), hide)
			if hide {
				hidden = append(hidden, top.ID)
			}
			if i%3 != 0 {
				continue
			}
			for j := range 3 {
				sub := mk(top.ID, fmt.Sprintf("Sub %d.%d.%d", p, i, j), false)
				subsub := mk(sub.ID, fmt.Sprintf("Subsub %d.%d.%d", p, i, j), false)
				if hide {
					hidden = append(hidden, sub.ID, subsub.ID)
				}
				switch j {
				case 0: // a done sub-subtask under an active subtask
					done(subsub.ID)
				case 1: // a done subtask with its sub-subtask done
					done(subsub.ID)
					done(sub.ID)
				}
			}
			if i%6 == 0 { // a later top-level task, after its subtasks
				mk(0, fmt.Sprintf("Later %d.%d", p, i), false)
			}
		}
	}
	return hidden
}

// TestTaskTreesShareOneSnapshot: a write that commits while TaskTrees is
// between parts (here from its fn, after the first part) is in none of
// the later parts: every part is read in the snapshot of the ids.
func TestTaskTreesShareOneSnapshot(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		name := "Snapshot"
		proj, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 700 { // two parts at least
			n := fmt.Sprintf("Task %d", i)
			if _, err := db.CreateTask(ctx, owner, proj.ID, 0, taskd.TaskInput{Name: &n}); err != nil {
				t.Fatal(err)
			}
		}
		q := taskd.TaskQuery{Viewer: owner.Viewer(), ProjectID: proj.ID}
		flat, err := db.Tasks(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want := taskd.BuildTree(flat)
		var got []taskd.Task
		parts := 0
		err = db.TaskTrees(ctx, q, func(tops []taskd.Task) error {
			parts++
			got = append(got, tops...)
			if parts == 1 {
				return db.ExecForTest(ctx, `UPDATE tasks SET name = 'Renamed' WHERE account_id = ?`, acct.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if parts < 2 {
			t.Fatalf("%d tasks came in %d part(s), want several", len(flat), parts)
		}
		if !reflect.DeepEqual(got, want) {
			for i := range min(len(got), len(want)) {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("task %d of %d read as %q, want %q: a part was read outside the ids' snapshot", i, len(want), got[i].Name, want[i].Name)
				}
			}
			t.Fatalf("%d tasks read, want %d", len(got), len(want))
		}
	})
}

// TestEachEventPeriodAndCursorErrors: EachEvent streams the events of the
// period only (as Events answers them), and a cursor that fails midway (its
// context cancelled after the first event) is an error, never a short list
// that ends well.
func TestEachEventPeriodAndCursorErrors(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		var clock atomic.Int64
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		clock.Store(t0.UnixMilli())
		db := d.OpenWith(t, store.Options{Now: func() time.Time { return time.UnixMilli(clock.Load()).UTC() }})
		acct := testaccount.New(t, db, testaccount.Options{})
		owner := acct.Actor()
		name := "Events"
		proj, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		mk := func(n int) {
			for i := range n {
				s := fmt.Sprintf("Task %d", i)
				if _, err := db.CreateTask(ctx, owner, proj.ID, 0, taskd.TaskInput{Name: &s}); err != nil {
					t.Fatal(err)
				}
			}
		}
		mk(5) // old: before the period
		since := t0.Add(24 * time.Hour)
		clock.Store(t0.Add(48 * time.Hour).UnixMilli())
		mk(40)
		v := taskd.AccountViewer(acct.ID)
		all, err := db.Events(ctx, v, time.Time{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		want, err := db.Events(ctx, v, since, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) < 40 || len(all) <= len(want) {
			t.Fatalf("%d events in all, %d in the period: the test means old events and new ones", len(all), len(want))
		}
		for _, pid := range []int64{0, proj.ID} {
			var got []int64
			if err := db.EachEvent(ctx, v, since, pid, func(e taskd.StoredEvent) error {
				if e.Time.Before(since) {
					t.Errorf("event %d of %v streamed for the period since %v", e.ID, e.Time, since)
				}
				got = append(got, e.ID)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("project %d: EachEvent streamed %d events since %v, Events answers %d", pid, len(got), since, len(want))
			}
		}

		// The cursor's context ends after the first event: the cursor is
		// closed (its connection back in the pool), and EachEvent fails.
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		n := 0
		err = db.EachEvent(cctx, v, time.Time{}, 0, func(taskd.StoredEvent) error {
			n++
			if n == 1 {
				cancel()
				for db.ReadsInUseForTest() > 0 { // the cursor closing
					runtime.Gosched()
				}
			}
			return nil
		})
		if err == nil {
			t.Errorf("a cursor cut after %d of %d events ended without an error", n, len(all))
		}
		if n >= len(all) {
			t.Errorf("the cut cursor still streamed all %d events", n)
		}
	})
}
