package store_test

import (
	"context"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// TestHiddenLists: the batch read of hidden lists answers each task's and
// comment's own list (none for a subtask hidden by its parent, nor for an
// object that lists nobody), to the key and to a listed member; a member
// not listed, and another account's key, get nothing for the same ids.
func TestHiddenLists(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct, by := storetest.NewAccount(t, db, "hiddenlists")
		other, _ := storetest.NewAccount(t, db, "hiddenlists2")
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
		mia, ned := add("mia-h@example.com", taskd.RoleUser), add("ned-h@example.com", taskd.RoleUser)
		name, title, subTitle, openTitle := "Launch", "Secret", "Step", "Open"
		p, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		task, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: &title, Hidden: []string{mia.Person.Email}})
		if err != nil {
			t.Fatal(err)
		}
		sub, err := db.CreateTask(ctx, by, p.ID, task.ID, taskd.TaskInput{Name: &subTitle})
		if err != nil {
			t.Fatal(err)
		}
		open, err := db.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: &openTitle})
		if err != nil {
			t.Fatal(err)
		}
		c, err := db.PostComment(ctx, by, open.ID, taskd.CommentInput{Text: "Between us", VisibleTo: []string{mia.Person.Email}})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := db.PostComment(ctx, by, open.ID, taskd.CommentInput{Text: "For all"})
		if err != nil {
			t.Fatal(err)
		}
		check := func(who string, v taskd.Viewer, kind string, ids []int64, want map[int64]string) {
			t.Helper()
			got, err := db.HiddenLists(ctx, v, kind, ids)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("%s, %s lists: %+v, want %v", who, kind, got, want)
			}
			for id, email := range want {
				if l := got[id]; len(l) != 1 || l[0].Email != email || l[0].ID != mia.Person.ID {
					t.Errorf("%s, %s %d: %+v, want %s", who, kind, id, l, email)
				}
			}
		}
		tasks, comments := []int64{task.ID, sub.ID, open.ID}, []int64{c.ID, plain.ID}
		for who, v := range map[string]taskd.Viewer{"the key": taskd.AccountViewer(acct.ID), "mia": mia.Viewer()} {
			check(who, v, "task", tasks, map[int64]string{task.ID: mia.Person.Email})
			check(who, v, "comment", comments, map[int64]string{c.ID: mia.Person.Email})
		}
		for who, v := range map[string]taskd.Viewer{"ned": ned.Viewer(), "another account's key": taskd.AccountViewer(other.ID)} {
			check(who, v, "task", tasks, nil)
			check(who, v, "comment", comments, nil)
		}
		if _, err := db.HiddenLists(ctx, mia.Viewer(), "project", tasks); err == nil {
			t.Error("an unknown kind was read")
		}
		// Lists are read in batches: the task after 600 ids of nothing
		// still has its list.
		many := make([]int64, 0, 601)
		for i := range int64(600) {
			many = append(many, 1<<40+i)
		}
		check("the key, past a batch", taskd.AccountViewer(acct.ID), "task", append(many, task.ID), map[int64]string{task.ID: mia.Person.Email})
	})
}
