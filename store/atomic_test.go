package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// refuseEvents makes every insert into the outbox fail, on a connection of
// its own, and returns a function that lifts the ban.
func refuseEvents(t *testing.T, d testdb.DB) (lift func()) {
	t.Helper()
	var raw *sql.DB
	var err error
	ban, unban := []string{`CREATE TRIGGER refuse_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'events refused'); END`},
		[]string{`DROP TRIGGER refuse_events`}
	if d.URL == "" {
		raw, err = sql.Open("sqlite", "file:"+filepath.Join(d.Dir, "taskd.db")+"?_pragma=busy_timeout(10000)")
	} else {
		raw, err = sql.Open("pgx", d.URL)
		ban = []string{`CREATE FUNCTION refuse_events() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'events refused'; END $$ LANGUAGE plpgsql`,
			`CREATE TRIGGER refuse_events BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_events()`}
		unban = []string{`DROP TRIGGER refuse_events ON events`, `DROP FUNCTION refuse_events()`}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	exec := func(stmts []string) {
		for _, s := range stmts {
			if _, err := raw.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	exec(ban)
	return func() { exec(unban) }
}

// TestChangeAndEventCommitTogether: when the event of a change cannot be
// written, the change is not made either, for every kind of change, on
// both databases. A change committed before its event would be a change
// that webhooks and get_events never hear of.
func TestChangeAndEventCommitTogether(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, by := storetest.NewAccount(t, db, "atomic")
		name := func(s string) *string { return &s }
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: name("Project")})
		if err != nil {
			t.Fatal(err)
		}
		tk, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: name("Task")})
		if err != nil {
			t.Fatal(err)
		}
		c, err := db.CreateComment(ctx, by, tk.ID, "Comment")
		if err != nil {
			t.Fatal(err)
		}
		snapshot := func(t *testing.T) string {
			t.Helper()
			pr, err1 := db.Project(ctx, taskd.AccountViewer(acct.ID), p.ID)
			ps, err2 := db.Projects(ctx, taskd.AccountViewer(acct.ID), "")
			ts, err3 := db.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID)})
			cs, err4 := db.Comments(ctx, taskd.AccountViewer(acct.ID), tk.ID)
			v, err5 := db.ProjectVersion(ctx, taskd.AccountViewer(acct.ID), p.ID)
			for _, err := range []error{err1, err2, err3, err4, err5} {
				if err != nil {
					t.Fatal(err)
				}
			}
			out := fmt.Sprintf("project %s/%s of %d, version %d", pr.Name, pr.Status, len(ps), v)
			for _, t := range ts {
				out += "; task " + t.Name + "/" + t.Status
			}
			for _, c := range cs {
				out += "; comment " + c.Text
			}
			return out
		}
		if !t.Run("no kind of change is made while its event is refused", func(t *testing.T) {
			before := snapshot(t)
			lift := refuseEvents(t, d)
			changes := map[string]func() error{
				"CreateProject": func() error { _, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: name("New")}); return err },
				"UpdateProject": func() error {
					_, err := db.UpdateProject(ctx, by, p.ID, taskd.ProjectInput{Name: name("Renamed")})
					return err
				},
				"SetProjectStatus": func() error { _, err := db.SetProjectStatus(ctx, by, p.ID, taskd.ProjectArchive); return err },
				"CreateTask": func() error {
					_, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: name("New")})
					return err
				},
				"UpdateTask": func() error {
					_, err := db.UpdateTask(ctx, by, tk.ID, taskd.TaskInput{Name: name("Renamed")})
					return err
				},
				"CompleteTask":  func() error { _, err := db.CompleteTask(ctx, by, tk.ID); return err },
				"DeleteTask":    func() error { return db.DeleteTask(ctx, by, tk.ID) },
				"CreateComment": func() error { _, err := db.CreateComment(ctx, by, tk.ID, "New"); return err },
				"UpdateComment": func() error { _, err := db.UpdateComment(ctx, by, c.ID, "Edited"); return err },
				"DeleteComment": func() error { return db.DeleteComment(ctx, by, c.ID) },
			}
			for op, change := range changes {
				if err := change(); taskd.ErrorKind(err) != taskd.KindInternal {
					t.Errorf("%s with the outbox refusing: %v, want an internal error", op, err)
				}
				if after := snapshot(t); after != before {
					t.Fatalf("%s changed the data although its event was refused:\nbefore %s\nafter  %s", op, before, after)
				}
			}
			lift()
		}) {
			return
		}

		if !t.Run("changes are made again once events are written", func(t *testing.T) {
			if _, err := db.CompleteTask(ctx, by, tk.ID); err != nil {
				t.Fatalf("with the outbox open again: %v", err)
			}
			if _, err := db.ReopenTask(ctx, by, tk.ID); err != nil {
				t.Fatal(err)
			}
		}) {
			return
		}

		t.Run("ReopenTask is not made either while its event is refused", func(t *testing.T) {
			// ReopenTask, the one change not tried above: it needs a done task.
			if _, err := db.CompleteTask(ctx, by, tk.ID); err != nil {
				t.Fatal(err)
			}
			mid := snapshot(t)
			refuseEvents(t, d)
			if _, err := db.ReopenTask(ctx, by, tk.ID); taskd.ErrorKind(err) != taskd.KindInternal {
				t.Errorf("ReopenTask with the outbox refusing: %v", err)
			}
			if snapshot(t) != mid {
				t.Fatal("ReopenTask changed the data although its event was refused")
			}
		})
	})
}
