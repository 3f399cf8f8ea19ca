package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// TestConformance runs the store suite on each database, every subtest on
// a fresh one.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			storetest.Run(t, func(t *testing.T, now func() time.Time) storetest.Store {
				return testdb.New(t, backend).OpenWith(t, store.Options{Now: now})
			})
		})
	}
}

// TestAcceptChecksTheInviterNow: an invitation is worth what its inviter
// may grant when it is accepted, even where their role changed without the
// store's trust rules (a database from before them, or by hand).
func TestAcceptChecksTheInviterNow(t *testing.T) {
	t.Parallel()
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := testdb.New(t, backend).Open(t)
			acct, _ := storetest.NewAccount(t, db, "accept")
			admin, err := db.AddMember(ctx, acct.ID, taskd.NewPerson{Email: acct.Slug + "-admin@example.com", PasswordHash: "x"}, taskd.RoleAdmin)
			if err != nil {
				t.Fatal(err)
			}
			invite := func(email string, role taskd.Role) taskd.Invitation {
				inv, err := db.Invite(ctx, taskd.InviteInput{AccountID: acct.ID, Role: role, By: admin.ID,
					Person: taskd.NewPerson{Email: email}, Link: &taskd.Link{Hash: "h-" + email, Expires: time.Now().Add(time.Hour)}})
				if err != nil {
					t.Fatal(err)
				}
				return inv
			}
			registered, fresh := acct.Slug+"-own@example.com", acct.Slug+"-fresh@example.com"
			if _, err := db.AddMember(ctx, storetestOther(t, db), taskd.NewPerson{Email: registered, PasswordHash: "x"}, taskd.RoleUser); err != nil {
				t.Fatal(err)
			}
			inv := invite(registered, taskd.RoleAdmin)
			invite(fresh, taskd.RoleReader) // every role, not only admin
			setRole := func(role taskd.Role) {
				if err := db.ExecForTest(ctx, `UPDATE members SET role = ? WHERE account_id = ? AND person_id = ?`, string(role), acct.ID, admin.ID); err != nil {
					t.Fatal(err)
				}
			}
			setRole(taskd.RoleUser)
			p, err := db.PersonByEmail(ctx, registered)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.AcceptInvitation(ctx, p.ID, inv.ID); !taskd.IsNotFound(err) {
				t.Fatalf("accepting an invitation of an inviter who may no longer grant it: %v", err)
			}
			if _, _, err := db.JoinByLink(ctx, "h-"+fresh, taskd.NewPerson{Email: fresh, PasswordHash: "y"}); !taskd.IsNotFound(err) {
				t.Fatalf("joining through the link of an inviter who may no longer grant it: %v", err)
			}
			setRole(taskd.RoleAdmin)
			if _, err := db.AcceptInvitation(ctx, p.ID, inv.ID); err != nil {
				t.Fatalf("accepting once the inviter may grant it again: %v", err)
			}
			if _, _, err := db.JoinByLink(ctx, "h-"+fresh, taskd.NewPerson{Email: fresh, PasswordHash: "y"}); err != nil {
				t.Fatalf("joining once the inviter may grant it again: %v", err)
			}
		})
	}
}

// storetestOther is another account's id, for a person registered there.
func storetestOther(t *testing.T, db *store.DB) int64 {
	a, _ := storetest.NewAccount(t, db, "elsewhere")
	return a.ID
}

// TestNewerSchemaRefused: a database that a newer taskd migrated (an
// upgrade rolled back without its backup) is refused with a message that
// says so, rather than run on by code that does not know its schema.
func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		d.Open(t).Close()
		driver, dsn := "sqlite", "file:"+filepath.Join(d.Dir, "taskd.db")
		if d.URL != "" {
			driver, dsn = "pgx", d.URL
		}
		raw, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		if _, err := raw.Exec(`INSERT INTO schema_migrations (version) VALUES (9999)`); err != nil {
			t.Fatal(err)
		}
		db, err := store.Open(context.Background(), d.Options())
		if err == nil {
			db.Close()
			t.Fatal("a database at schema 9999 was opened")
		}
		if !strings.Contains(err.Error(), "newer taskd (schema 9999") {
			t.Fatalf("error %q does not say the database is newer", err)
		}
	})
}

// TestTagPositionsKeepTheOldOrder: migration 0023 gives the tags and
// groups of a database from before it positions in the order they were
// listed in, by title (ties by id) in the database's own collation, so
// that boards and lists look as they did until the account sorts them.
func TestTagPositionsKeepTheOldOrder(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, by := storetest.NewAccount(t, db, "positions")
		for _, g := range []string{"stage", "Kind", "area"} {
			if _, err := db.AddTagGroups(ctx, by, taskd.TagsOfTasks, "label", "public", []string{g}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.AddTags(ctx, by, taskd.TagsOfTasks, "stage", []string{"review", "Done", "doing", "To do", "b"}); err != nil {
			t.Fatal(err)
		}
		db.Close()
		raw := openRaw(t, d)
		// The database as it was before 0023, and the order it listed in.
		for _, q := range []string{`ALTER TABLE tags DROP COLUMN position`, `ALTER TABLE tag_groups DROP COLUMN position`,
			`DELETE FROM schema_migrations WHERE version = 23`} {
			if _, err := raw.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		column := func(q string) string {
			rows, err := raw.Query(q)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				out = append(out, s)
			}
			return strings.Join(out, ",")
		}
		wantGroups := column(`SELECT title FROM tag_groups ORDER BY title, id`)
		wantTags := column(`SELECT t.title FROM tags t JOIN tag_groups g ON g.id = t.group_id ORDER BY g.title, g.id, t.title, t.id`)

		db = d.Open(t)
		var groups, tags []string
		gs, _ := db.TagGroups(ctx, acct.ID, taskd.TagsOfTasks, "", "")
		for _, g := range gs {
			groups = append(groups, g.Title)
		}
		ts, _ := db.Tags(ctx, acct.ID, taskd.TagsOfTasks, "", "", "")
		for _, tg := range ts {
			tags = append(tags, tg.Title)
		}
		if got := strings.Join(groups, ","); got != wantGroups {
			t.Errorf("groups after the migration: %s, before: %s", got, wantGroups)
		}
		if got := strings.Join(tags, ","); got != wantTags {
			t.Errorf("tags after the migration: %s, before: %s", got, wantTags)
		}
		if _, err := db.AddTags(ctx, by, taskd.TagsOfTasks, "stage", []string{"a new one"}); err != nil {
			t.Fatal(err)
		}
		if ts, _ := db.Tags(ctx, acct.ID, taskd.TagsOfTasks, "stage", "", ""); ts[len(ts)-1].Title != "a new one" {
			t.Errorf("a tag made after the migration is not last: %v", ts)
		}
	})
}
