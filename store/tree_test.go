package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
)

// TestTreeKeysFilledByTheMigration makes tasks at every level, created out
// of order (a subtask after a later top-level task), and checks the tree
// order in whole lists and in pages of every size; then it takes the
// database back to before migration 0030 and checks that the migration
// fills the same keys as CreateTask wrote, so that the order is the same.
func TestTreeKeysFilledByTheMigration(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct := testaccount.New(t, db, testaccount.Options{})
		by := acct.Actor()
		name := "Tree keys"
		proj, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]int64{}
		mk := func(parent, n string) {
			task, err := db.CreateTask(ctx, by, proj.ID, ids[parent], taskd.TaskInput{Name: &n})
			if err != nil {
				t.Fatal(err)
			}
			ids[n] = task.ID
		}
		mk("", "A")
		mk("", "B")
		mk("A", "A1")
		mk("A1", "A1a")
		mk("B", "B1")
		mk("A", "A2")
		mk("A1", "A1b")
		mk("", "C")
		mk("B1", "B1a")
		mk("A2", "A2a")
		want := []string{"A", "A1", "A1a", "A1b", "A2", "A2a", "B", "B1", "B1a", "C"}

		order := func() {
			t.Helper()
			q := taskd.TaskQuery{Viewer: by.Viewer(), ProjectID: proj.ID, Sort: taskd.SortTree}
			all, err := db.Tasks(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, task := range all {
				got = append(got, task.Name)
			}
			if !slices.Equal(got, want) {
				t.Errorf("tree order %v, want %v", got, want)
			}
			for size := 1; size <= len(want); size++ {
				var paged []string
				for off := 0; off < len(want); off += size {
					q.Limit, q.Offset = size, off
					page, err := db.Tasks(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					for _, task := range page {
						paged = append(paged, task.Name)
					}
				}
				if !slices.Equal(paged, want) {
					t.Errorf("pages of %d: %v, want %v", size, paged, want)
				}
			}
		}
		order()
		db.Close()

		raw := openRaw(t, d)
		keys := func() map[int64]string {
			t.Helper()
			rows, err := raw.Query(`SELECT id, COALESCE(top_id, -1), COALESCE(sub_id, -1) FROM tasks WHERE project_id = ` + fmt.Sprint(proj.ID))
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			out := map[int64]string{}
			for rows.Next() {
				var id, top, sub int64
				if err := rows.Scan(&id, &top, &sub); err != nil {
					t.Fatal(err)
				}
				out[id] = fmt.Sprint(top, "/", sub)
			}
			return out
		}
		written := keys()
		// The keys as documented in the migration: -1 stands for NULL.
		for n, k := range map[string]string{"A": "-1/0", "A1": fmt.Sprint(ids["A"], "/-1"), "A1a": fmt.Sprint(ids["A"], "/", ids["A1"])} {
			if written[ids[n]] != k {
				t.Errorf("%s's keys %s, want %s", n, written[ids[n]], k)
			}
		}
		for _, q := range []string{`DROP INDEX tasks_tree`, `ALTER TABLE tasks DROP COLUMN top_id`,
			`ALTER TABLE tasks DROP COLUMN sub_id`, `DELETE FROM schema_migrations WHERE version = 30`} {
			if _, err := raw.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		db = d.Open(t)
		if got := keys(); fmt.Sprint(got) != fmt.Sprint(written) {
			t.Errorf("keys after the migration %v, as written %v", got, written)
		}
		order()
	})
}

// openRaw opens the test's database directly, past the store, to take it
// back to an older schema; closed when the test ends.
func openRaw(t *testing.T, d testdb.DB) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite", "file:"+filepath.Join(d.Dir, "taskd.db")
	if d.URL != "" {
		driver, dsn = "pgx", d.URL
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}
