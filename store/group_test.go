package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// holdWriter starts a change whose transaction stays open until release is
// called, so that the changes made meanwhile queue and then commit in one
// batch (group commit).
func holdWriter(t *testing.T, db *store.DB, by taskd.Actor) (release func()) {
	t.Helper()
	started, hold, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- db.ChangeForTest(context.Background(), by, func() error {
			close(started)
			<-hold
			return nil
		})
	}()
	<-started
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(hold)
			if err := <-done; err != nil {
				t.Errorf("holding change: %v", err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// waitQueued waits until n changes wait for a batch.
func waitQueued(t *testing.T, db *store.DB, n int) {
	t.Helper()
	for db.QueuedForTest() != n {
		time.Sleep(time.Millisecond)
	}
}

// taskEvents returns the ids of the tasks the post_task events of project
// p name, in the order of the events' ids.
func taskEvents(t *testing.T, db *store.DB, accountID, p int64) []int64 {
	t.Helper()
	evs, err := db.Events(context.Background(), taskd.AccountViewer(accountID), time.Time{}, p)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	last := int64(0)
	for _, e := range evs {
		if e.ID <= last {
			t.Fatalf("events out of order: %d after %d", e.ID, last)
		}
		last = e.ID
		if e.Name != "post_task" {
			continue
		}
		var ev struct {
			Object struct {
				ID int64 `json:"id,string"`
			} `json:"object"`
		}
		if err := json.Unmarshal(e.Body, &ev); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ev.Object.ID)
	}
	return ids
}

// taskIDs returns the ids of project p's tasks, in order.
func taskIDs(t *testing.T, db *store.DB, accountID, p int64) []int64 {
	t.Helper()
	tasks, err := db.Tasks(context.Background(), taskd.TaskQuery{Viewer: taskd.AccountViewer(accountID), ProjectID: p, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(tasks))
	for i, tk := range tasks {
		ids[i] = tk.ID
	}
	slices.Sort(ids)
	return ids
}

// TestGroupCommitAnswersEach: changes queued behind a running one commit in
// one batch, some failing (an archived project, checked before any write;
// an unknown file, found after the task's row was written) and the rest
// succeeding. Each caller gets its own answer, the database holds exactly
// the changes that succeeded, none of the failed ones' writes, and their
// events in the order the changes ran.
func TestGroupCommitAnswersEach(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, by := storetest.NewAccount(t, db, "group")
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Open")})
		if err != nil {
			t.Fatal(err)
		}
		archived, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Archived")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SetProjectStatus(ctx, by, archived.ID, taskd.ProjectArchive); err != nil {
			t.Fatal(err)
		}

		release := holdWriter(t, db, by)
		const n = 40
		type answer struct {
			task taskd.Task
			err  error
		}
		answers := make([]answer, n)
		var wg sync.WaitGroup
		for i := range n {
			in := taskd.TaskInput{Name: new(fmt.Sprintf("t%d", i))}
			project := p.ID
			switch i % 4 {
			case 1:
				project = archived.ID
			case 2:
				in.Files = []int64{1 << 40}
			}
			wg.Go(func() {
				tk, err := db.CreateTask(ctx, by, project, 0, in)
				answers[i] = answer{tk, err}
			})
			waitQueued(t, db, i+1) // so that the queue's order is i's
		}
		release()
		wg.Wait()

		var want []int64
		for i, a := range answers {
			switch i % 4 {
			case 1:
				if taskd.AsError(a.err).Reason != taskd.ReasonProjectArchived {
					t.Errorf("change %d, in an archived project: %v", i, a.err)
				}
			case 2:
				if taskd.AsError(a.err).Kind != taskd.KindNotFound {
					t.Errorf("change %d, with an unknown file: %v, want not found", i, a.err)
				}
			default:
				if a.err != nil || a.task.ID == 0 {
					t.Fatalf("change %d: %+v, %v", i, a.task, a.err)
				}
				if len(want) > 0 && a.task.ID <= want[len(want)-1] {
					t.Errorf("change %d: task %d after task %d: not in the queue's order", i, a.task.ID, want[len(want)-1])
				}
				want = append(want, a.task.ID)
			}
		}
		if got := taskIDs(t, db, acct.ID, p.ID); !slices.Equal(got, want) {
			t.Errorf("tasks in the database: %v, want those that succeeded: %v", got, want)
		}
		if got := taskIDs(t, db, acct.ID, archived.ID); len(got) != 0 {
			t.Errorf("tasks in the archived project: %v", got)
		}
		if got := taskEvents(t, db, acct.ID, p.ID); !slices.Equal(got, want) {
			t.Errorf("post_task events name tasks %v, want %v", got, want)
		}
	})
}

// TestGroupCommitEventsInCommitOrder: under many concurrent changes, the
// events' ids follow the order their changes committed in: every task's
// event comes after the events of the tasks made before it.
func TestGroupCommitEventsInCommitOrder(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, by := storetest.NewAccount(t, db, "order")
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: new("P")})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for w := range 12 {
			wg.Go(func() {
				for i := range 15 {
					if _, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new(fmt.Sprintf("w%d-%d", w, i))}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		events, tasks := taskEvents(t, db, acct.ID, p.ID), taskIDs(t, db, acct.ID, p.ID)
		if len(tasks) != 12*15 || !slices.Equal(events, tasks) {
			t.Fatalf("%d tasks; post_task events in id order name tasks %v, want %v", len(tasks), events, tasks)
		}
	})
}

// TestGroupCommitCancelled: a change whose caller gives up while it waits
// for a batch is not made and its caller is told at once; one whose caller
// gives up after it ran in a batch that commits is reported done; the
// other changes of the batch are made.
func TestGroupCommitCancelled(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, by := storetest.NewAccount(t, db, "cancel")
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: new("P")})
		if err != nil {
			t.Fatal(err)
		}
		release := holdWriter(t, db, by)
		type answer struct {
			task taskd.Task
			err  error
		}
		create := func(ctx context.Context, name string, queued int) chan answer {
			c := make(chan answer, 1)
			go func() {
				tk, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new(name)})
				c <- answer{tk, err}
			}()
			waitQueued(t, db, queued)
			return c
		}
		// a leads the batch; b runs in it and its caller gives up then (d
		// does it); c's caller gives up while c waits; e runs last.
		ctxB, cancelB := context.WithCancel(ctx)
		defer cancelB()
		ctxC, cancelC := context.WithCancel(ctx)
		defer cancelC()
		a := create(ctx, "a", 1)
		b := create(ctxB, "b", 2)
		c := create(ctxC, "c", 3)
		done := make(chan error, 1)
		go func() { done <- db.ChangeForTest(ctx, by, func() error { cancelB(); return nil }) }()
		waitQueued(t, db, 4)
		e := create(ctx, "e", 5)

		cancelC()
		ac := <-c // told at once, while the batch it waited for has not started
		if !errors.Is(ac.err, context.Canceled) {
			t.Fatalf("c, given up while queued: %+v, %v", ac.task, ac.err)
		}
		waitQueued(t, db, 4)
		release()

		aa, ab, ae := <-a, <-b, <-e
		if err := <-done; err != nil {
			t.Fatalf("d: %v", err)
		}
		if ab.err != nil || ab.task.ID == 0 {
			t.Fatalf("b, given up after it ran in a batch that committed: %+v, %v; want done", ab.task, ab.err)
		}
		if ctxB.Err() == nil {
			t.Fatal("b's caller was not given up: the test tests nothing")
		}
		if aa.err != nil || ae.err != nil {
			t.Fatalf("a: %v; e: %v", aa.err, ae.err)
		}
		want := []int64{aa.task.ID, ab.task.ID, ae.task.ID}
		if got := taskIDs(t, db, acct.ID, p.ID); !slices.Equal(got, want) {
			t.Errorf("tasks: %v, want a's, b's and e's %v", got, want)
		}
		if got := taskEvents(t, db, acct.ID, p.ID); !slices.Equal(got, want) {
			t.Errorf("post_task events name tasks %v, want %v", got, want)
		}
	})
}
