package store_test

import (
	"context"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// TestSetViewers: the import's change of who sees a task or a comment
// replaces the list whole, hides a task's subtasks with it, shows the
// object to the project again when the list is emptied, and keeps to the
// actor's account, to members and to those who may work.
func TestSetViewers(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, by := storetest.NewAccount(t, db, "viewers")
		_, otherBy := storetest.NewAccount(t, db, "viewers2")
		add := func(email string, role taskd.Role) taskd.Actor {
			m, err := db.AddMember(ctx, acct.ID, taskd.NewPerson{Email: email, PasswordHash: "x"}, role)
			if err != nil {
				t.Fatal(err)
			}
			mem, err := db.MemberByEmail(ctx, acct.ID, m.Email)
			if err != nil {
				t.Fatal(err)
			}
			return taskd.Actor{AccountID: acct.ID, Person: mem.Ref(), Role: role}
		}
		mia, ned := add("mia-v@example.com", taskd.RoleUser), add("ned-v@example.com", taskd.RoleUser)
		reader := add("rea-v@example.com", taskd.RoleReader)
		name := "Launch"
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SetProjectMembers(ctx, by, p.ID, []string{mia.Person.Email, ned.Person.Email, reader.Person.Email}, true); err != nil {
			t.Fatal(err)
		}
		title, subTitle := "Secret", "Step"
		task, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: &title, Hidden: []string{mia.Person.Email}})
		if err != nil {
			t.Fatal(err)
		}
		sub, err := db.CreateTask(ctx, by, p.ID, task.ID, taskd.TaskInput{Name: &subTitle})
		if err != nil {
			t.Fatal(err)
		}
		c, err := db.PostComment(ctx, by, task.ID, taskd.CommentInput{Text: "Between us", VisibleTo: []string{mia.Person.Email}})
		if err != nil {
			t.Fatal(err)
		}
		sees := func(step string, who taskd.Actor, want bool) {
			t.Helper()
			for _, id := range []int64{task.ID, sub.ID} {
				_, err := db.Task(ctx, who.Viewer(), id)
				if got := err == nil; got != want {
					t.Errorf("%s: %s sees task %d: %v, want %v", step, who.Person.Email, id, got, want)
				}
			}
			cs, err := db.Comments(ctx, who.Viewer(), task.ID)
			if got := err == nil && len(cs) == 1; got != want {
				t.Errorf("%s: %s sees the comment: %v, want %v (%v)", step, who.Person.Email, got, want, err)
			}
		}
		sees("made", mia, true)
		sees("made", ned, false)

		for _, bad := range []struct {
			name  string
			by    taskd.Actor
			kind  string
			id    int64
			email string
			want  taskd.Kind
		}{
			{"another account's task", otherBy, "task", task.ID, "", taskd.KindNotFound},
			{"another account's comment", otherBy, "comment", c.ID, "", taskd.KindNotFound},
			{"a kind of no hidden object", by, "project", p.ID, "", taskd.KindInvalid},
			{"someone not a member", by, "task", task.ID, "zed@else.example", taskd.KindNotFound},
			{"a reader", reader, "task", task.ID, "", taskd.KindForbidden},
		} {
			// Another account's object is refused before anything else: with
			// no e-mails, the list would simply be emptied (shown to all).
			var emails []string
			if bad.by.AccountID == acct.ID {
				emails = []string{ned.Person.Email}
			}
			if bad.email != "" {
				emails = append(emails, bad.email)
			}
			if err := db.SetViewers(ctx, bad.by, bad.kind, bad.id, emails); taskd.ErrorKind(err) != bad.want {
				t.Errorf("%s: %v, want %v", bad.name, err, bad.want)
			}
			sees(bad.name+" refused", ned, false)
		}

		for _, kind := range []string{"task", "comment"} {
			id := task.ID
			if kind == "comment" {
				id = c.ID
			}
			if err := db.SetViewers(ctx, by, kind, id, []string{ned.Person.Email}); err != nil {
				t.Fatal(err)
			}
		}
		sees("Ned alone listed", ned, true)
		sees("Ned alone listed", mia, false)
		for _, kind := range []string{"task", "comment"} {
			id := task.ID
			if kind == "comment" {
				id = c.ID
			}
			if err := db.SetViewers(ctx, by, kind, id, nil); err != nil {
				t.Fatal(err)
			}
		}
		sees("no list", mia, true)
		sees("no list", ned, true)
	})
}
