package store_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/filter"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// TestTrigramSearchMatchesThePlainScan: a search through the trigram
// indexes (migration 0029: SQLite's FTS5 table asked first, PostgreSQL's
// pg_trgm with sequential scans off) answers exactly the tasks the plain
// LIKE scan finds, for parts where the index folds differently from LIKE
// (case beyond ASCII, accents), LIKE's own characters, quotes, parts too
// short for a trigram, and after names and texts change and tasks go. On
// SQLite it does so whether the index has caught up with the tasks or not
// (migration 0037): with half of them above its mark, changed and deleted
// there too, and after it catches up.
func TestTrigramSearchMatchesThePlainScan(t *testing.T) {
	t.Parallel()
	names := []string{"Quarterly Report", "report draft", "REPORTS", "Rép. report", "RÉPORT final", "réport",
		"Straße plan", "STRASSE", "100% done", "100 percent", "a_b c", "abc", `say "hi"`, "it's", "Ünïcode ÜNÏ",
		"ab", "x", "Kelvin \u212a", "k", "日本語のタスク", "tab\tsep", "tail report"}
	needles := []string{"report", "REPORT", "Rep", "rép", "RÉP", "ÉPO", "straße", "STRASSE", "ss", "100%", "0%", "%",
		"_", "a_b", "b c", `"hi"`, `"`, "it's", "'", "ünï", "ÜNÏ", "ab", "x", "k", "\u212a", "本語", "日本語の",
		"tab\ts", "ort", "zzz", " r", "zebra", "CROSSING"}
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := testdb.New(t, backend).Open(t)
			acct, by := storetest.NewAccount(t, db, "trgm")
			_, otherBy := storetest.NewAccount(t, db, "trgm2")
			p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Search")})
			if err != nil {
				t.Fatal(err)
			}
			op, err := db.CreateProject(ctx, otherBy, taskd.ProjectInput{Name: new("Elsewhere")})
			if err != nil {
				t.Fatal(err)
			}
			db.PauseSearchIndexForTest()
			var ids []int64
			for i, n := range names {
				if i == len(names)/2 { // the first half indexed, the rest above the mark
					if err := db.CatchUpSearchForTest(ctx); err != nil {
						t.Fatal(err)
					}
				}
				text := "Notes on " + names[len(names)-1-i]
				task, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new(n), Text: new(text)})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, task.ID)
				if _, err := db.CreateTask(ctx, otherBy, op.ID, 0, taskd.TaskInput{Name: new(n)}); err != nil {
					t.Fatal(err)
				}
			}
			// The index follows changes: a renamed task, a new text, a
			// deleted task, among those indexed (ids[0:3]) and those above
			// the mark (the last three).
			last := len(ids) - 1
			if _, err := db.UpdateTask(ctx, by, ids[0], taskd.TaskInput{Name: new("Quarterly summary"), Text: new("was a REPORT")}); err != nil {
				t.Fatal(err)
			}
			if _, err := db.UpdateTask(ctx, by, ids[last], taskd.TaskInput{Name: new("Tail summary"), Text: new("once a Report")}); err != nil {
				t.Fatal(err)
			}
			if err := db.DeleteTask(ctx, by, ids[1]); err != nil {
				t.Fatal(err)
			}
			if err := db.DeleteTask(ctx, by, ids[last-1]); err != nil {
				t.Fatal(err)
			}
			// A statement that sets the text alone (every write of the store
			// sets the name with it) re-indexes the task too.
			if err := db.ExecForTest(ctx, `UPDATE tasks SET text = 'Zebra crossing' WHERE id = ?`, ids[2]); err != nil {
				t.Fatal(err)
			}
			if err := db.ExecForTest(ctx, `UPDATE tasks SET text = 'Crossing zebras' WHERE id = ?`, ids[last-2]); err != nil {
				t.Fatal(err)
			}
			if n, err := db.SearchBehindForTest(ctx); err != nil || (backend == "sqlite" && n != 2*(len(names)-len(names)/2)-1) {
				t.Fatalf("%d tasks above the index's mark (%v), want the second half of both accounts' but the deleted one", n, err)
			}
			compare(t, db, acct.ID, needles)
			// The new text is found, with text search, and the old one no longer.
			viewer := taskd.AccountViewer(acct.ID)
			for id, old := range map[int64]string{ids[2]: "日本語のタスク", ids[last-2]: "Notes on REPORTS"} {
				for n, want := range map[string]bool{"zebra": true, old: false} {
					got, err := db.Tasks(ctx, taskd.TaskQuery{Viewer: viewer, Text: n})
					if err != nil {
						t.Fatal(err)
					}
					if found := slices.ContainsFunc(got, func(task taskd.Task) bool { return task.ID == id }); found != want {
						t.Errorf("%q after the text alone changed: task %d found %v, want %v", n, id, found, want)
					}
				}
			}
			// Some needle matches something in each form, so that the comparison is not of empty lists.
			if got, _ := db.PlainSearchForTest(ctx, acct.ID, "report", false); len(got) < 2 {
				t.Fatalf("report: %v", got)
			}
			if backend != "sqlite" {
				return
			}
			// Caught up: the same answers from the index alone, which then
			// follows the changes of the tasks that were above the mark.
			if err := db.CatchUpSearchForTest(ctx); err != nil {
				t.Fatal(err)
			}
			if n, err := db.SearchBehindForTest(ctx); err != nil || n != 0 {
				t.Fatalf("%d tasks above the index's mark after it caught up (%v)", n, err)
			}
			// FTS5 checks its index against the tasks: the changes above the
			// mark left no trace in it, and every task is in it once.
			if err := db.ExecForTest(ctx, `INSERT INTO tasks_search (tasks_search, rank) VALUES ('integrity-check', 1)`); err != nil {
				t.Fatalf("the search index after catching up: %v", err)
			}
			compare(t, db, acct.ID, needles)
			if _, err := db.UpdateTask(ctx, by, ids[last], taskd.TaskInput{Name: new("Renamed again"), Text: new("")}); err != nil {
				t.Fatal(err)
			}
			if err := db.DeleteTask(ctx, by, ids[last-2]); err != nil {
				t.Fatal(err)
			}
			if err := db.ExecForTest(ctx, `INSERT INTO tasks_search (tasks_search, rank) VALUES ('integrity-check', 1)`); err != nil {
				t.Fatalf("the search index after changes to tasks it holds: %v", err)
			}
			compare(t, db, acct.ID, needles)
		})
	}
}

// compare fails the test for each needle (in names, and in names and
// texts) whose answer through the index, or from Tasks, is not the plain
// scan's.
func compare(t *testing.T, db *store.DB, accountID int64, needles []string) {
	t.Helper()
	ctx := context.Background()
	viewer := taskd.AccountViewer(accountID)
	for _, n := range needles {
		for _, text := range []bool{false, true} {
			want, err := db.PlainSearchForTest(ctx, accountID, n, text)
			if err != nil {
				t.Fatal(err)
			}
			q := taskd.TaskQuery{Viewer: viewer, Text: n}
			if !text {
				f, err := filter.ParseTasks("name has '" + strings.ReplaceAll(n, "'", `\'`) + "'")
				if err != nil {
					t.Fatalf("%q: %v", n, err)
				}
				q = taskd.TaskQuery{Viewer: viewer, Filter: f}
			}
			got, err := db.IndexSearchForTest(ctx, q)
			if err != nil {
				t.Fatalf("%q: %v", n, err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q (text %v): index search %v, plain scan %v", n, text, got, want)
			}
			tasks, err := db.Tasks(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var listed []int64
			for _, task := range tasks {
				listed = append(listed, task.ID)
			}
			if !slices.Equal(listed, want) && !(len(listed) == 0 && len(want) == 0) {
				t.Errorf("%q (text %v): Tasks %v, plain scan %v", n, text, listed, want)
			}
		}
	}
}

// TestTrigramSearchPlan: on SQLite, a search for a part of 3 characters or
// more asks tasks_search first; a shorter one scans.
func TestTrigramSearchPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t, "sqlite").Open(t)
	acct, _ := storetest.NewAccount(t, db, "plan")
	for _, tc := range []struct {
		filter string
		index  bool
	}{{"name has 'Report'", true}, {"name has 'Re'", false}, {"name has 'Rép' or id = 3", true}} {
		f, err := filter.ParseTasks(tc.filter)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := db.PlanForTest(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(strings.Join(plan, "\n"), "tasks_search"); got != tc.index {
			t.Errorf("%s: tasks_search in the plan = %v, want %v:\n%s", tc.filter, got, tc.index, strings.Join(plan, "\n"))
		}
	}
	q := taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), Text: "report"}
	plan, err := db.PlanForTest(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(plan, "\n"), "tasks_search") {
		t.Errorf("text search plan without tasks_search:\n%s", strings.Join(plan, "\n"))
	}
}

// TestSearchMigrationKeepsTheIndex: migration 0037 on a database whose
// tasks the old triggers indexed one by one starts the index's mark at the
// newest task, so that none is indexed twice or left out, even when the
// newest ids went with deleted tasks; the tasks made after it are found
// before and after the index catches up.
func TestSearchMigrationKeepsTheIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.Blank(t, "sqlite")
	old, err := store.OpenAtSchemaForTest(ctx, d.Options(), 36)
	if err != nil {
		t.Fatal(err)
	}
	acct, by := storetest.NewAccount(t, old, "mig")
	p, err := old.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Old")})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, n := range []string{"alpha report", "beta report", "gamma report"} {
		task, err := old.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new(n)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.ID)
	}
	if err := old.DeleteTask(ctx, by, ids[2]); err != nil { // the newest id is gone
		t.Fatal(err)
	}
	old.Close()

	db := d.Open(t)
	db.PauseSearchIndexForTest()
	check := func(step string, behind int, want ...int64) {
		t.Helper()
		if n, err := db.SearchBehindForTest(ctx); err != nil || n != behind {
			t.Errorf("%s: %d tasks above the index's mark (%v), want %d", step, n, err, behind)
		}
		got, err := db.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), Text: "report"})
		if err != nil {
			t.Fatal(err)
		}
		var found []int64
		for _, task := range got {
			found = append(found, task.ID)
		}
		slices.Sort(found)
		if !slices.Equal(found, want) {
			t.Errorf("%s: a search finds %v, want %v", step, found, want)
		}
	}
	check("after the migration", 0, ids[0], ids[1])
	task, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("delta report")})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID <= ids[2] {
		t.Fatalf("the new task has id %d, not above the deleted %d", task.ID, ids[2])
	}
	check("a new task above the mark", 1, ids[0], ids[1], task.ID)
	if err := db.CatchUpSearchForTest(ctx); err != nil {
		t.Fatal(err)
	}
	check("caught up", 0, ids[0], ids[1], task.ID)
	// The newest task is at the mark now: a change to it reaches the index.
	if _, err := db.UpdateTask(ctx, by, task.ID, taskd.TaskInput{Name: new("delta summary")}); err != nil {
		t.Fatal(err)
	}
	check("the task at the mark renamed", 0, ids[0], ids[1])
	if got, err := db.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), Text: "summary"}); err != nil || len(got) != 1 || got[0].ID != task.ID {
		t.Errorf("a search for the new name finds %v (%v), want task %d", got, err, task.ID)
	}
	if err := db.ExecForTest(ctx, `INSERT INTO tasks_search (tasks_search, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("the search index after the migration and a catch-up: %v", err)
	}
}

// TestSearchIndexEndsAtClose: the goroutine that keeps the search index
// caught up ends when the store closes. Not parallel: it counts the
// goroutines of every store open in the process.
func TestSearchIndexEndsAtClose(t *testing.T) {
	indexers := func() int {
		buf := make([]byte, 1<<22)
		return strings.Count(string(buf[:runtime.Stack(buf, true)]), "store.(*DB).startSearchIndex")
	}
	before := indexers()
	d := testdb.New(t, "sqlite")
	db, err := store.Open(context.Background(), d.Options())
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); indexers() != before+1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) { // a goroutine started shows its function once it runs
			t.Fatalf("%d goroutines keep search indexes with the store open, want %d", indexers(), before+1)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := indexers(); n != before {
		t.Errorf("%d goroutines keep search indexes after the store closed, want %d", n, before)
	}
}

// TestSearchIndexCatchesUpByItself: on SQLite the tasks a change makes are
// indexed soon after it, with no call but the change.
func TestSearchIndexCatchesUpByItself(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t, "sqlite").Open(t)
	_, by := storetest.NewAccount(t, db, "soon")
	p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Soon")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new(fmt.Sprintf("task %d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n, err := db.SearchBehindForTest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tasks still above the search index's mark 30 s after they were made", n)
		}
	}
	if err := db.ExecForTest(ctx, `INSERT INTO tasks_search (tasks_search, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("the search index after catching up by itself: %v", err)
	}
}
