package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/filter"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// TestTrigramSearchMatchesThePlainScan: a search through the trigram
// indexes (migration 0029: SQLite's FTS5 table asked first, PostgreSQL's
// pg_trgm with sequential scans off) answers exactly the tasks the plain
// LIKE scan finds, for parts where the index folds differently from LIKE
// (case beyond ASCII, accents), LIKE's own characters, quotes, parts too
// short for a trigram, and after names and texts change and tasks go.
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
			var ids []int64
			for i, n := range names {
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
			// The index follows changes: a renamed task, a new text, a deleted task.
			if _, err := db.UpdateTask(ctx, by, ids[0], taskd.TaskInput{Name: new("Quarterly summary"), Text: new("was a REPORT")}); err != nil {
				t.Fatal(err)
			}
			if err := db.DeleteTask(ctx, by, ids[1]); err != nil {
				t.Fatal(err)
			}
			// A statement that sets the text alone (every write of the store
			// sets the name with it) re-indexes the task too.
			if err := db.ExecForTest(ctx, `UPDATE tasks SET text = 'Zebra crossing' WHERE id = ?`, ids[2]); err != nil {
				t.Fatal(err)
			}
			viewer := taskd.AccountViewer(acct.ID)
			for _, n := range needles {
				for _, text := range []bool{false, true} {
					want, err := db.PlainSearchForTest(ctx, acct.ID, n, text)
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
			// The new text is found, with text search, and the old one no longer.
			for n, want := range map[string]bool{"zebra": true, "日本語のタスク": false} {
				got, err := db.Tasks(ctx, taskd.TaskQuery{Viewer: viewer, Text: n})
				if err != nil {
					t.Fatal(err)
				}
				if found := slices.ContainsFunc(got, func(task taskd.Task) bool { return task.ID == ids[2] }); found != want {
					t.Errorf("%q after the text alone changed: task found %v, want %v", n, found, want)
				}
			}
			// Some needle matches something in each form, so that the comparison is not of empty lists.
			if got, _ := db.PlainSearchForTest(ctx, acct.ID, "report", false); len(got) < 3 {
				t.Fatalf("report: %v", got)
			}
		})
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
