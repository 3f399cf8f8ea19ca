package storetest

import (
	"testing"

	"github.com/taskd/taskd"
)

// testHiddenLists: the batch read of hidden lists answers each task's and
// comment's own list (none for a subtask hidden by its parent, nor for an
// object that lists nobody), to the key and to a listed member; a member
// not listed, and another account's key, get nothing for the same ids.
func testHiddenLists(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	other, _ := NewAccount(t, s, "hiddenlists2")
	mia, ned := member(t, f, "mia", taskd.RoleUser), member(t, f, "ned", taskd.RoleUser)
	p := newProject(t, f)
	task := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Secret"), Hidden: []string{mia.Person.Email}}))(t)
	sub := must(s.CreateTask(ctx, by, p.ID, task.ID, taskd.TaskInput{Name: new("Step")}))(t)
	open := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Open")}))(t)
	c := must(s.PostComment(ctx, by, open.ID, taskd.CommentInput{Text: "Between us", VisibleTo: []string{mia.Person.Email}}))(t)
	plain := must(s.PostComment(ctx, by, open.ID, taskd.CommentInput{Text: "For all"}))(t)
	check := func(who string, v taskd.Viewer, kind string, ids []int64, want map[int64]string) {
		t.Helper()
		got := must(s.HiddenLists(ctx, v, kind, ids))(t)
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
	for who, v := range map[string]taskd.Viewer{"the key": taskd.AccountViewer(f.Account.ID), "mia": mia.Viewer()} {
		check(who, v, "task", tasks, map[int64]string{task.ID: mia.Person.Email})
		check(who, v, "comment", comments, map[int64]string{c.ID: mia.Person.Email})
	}
	for who, v := range map[string]taskd.Viewer{"ned": ned.Viewer(), "another account's key": taskd.AccountViewer(other.ID)} {
		check(who, v, "task", tasks, nil)
		check(who, v, "comment", comments, nil)
	}
	if _, err := s.HiddenLists(ctx, mia.Viewer(), "project", tasks); err == nil {
		t.Error("an unknown kind was read")
	}
	// Lists are read in batches: the task after 600 ids of nothing still
	// has its list.
	many := make([]int64, 0, 601)
	for i := range int64(600) {
		many = append(many, 1<<40+i)
	}
	check("the key, past a batch", taskd.AccountViewer(f.Account.ID), "task", append(many, task.ID), map[int64]string{task.ID: mia.Person.Email})
}

// testSetViewers: the import's change of who sees a task or a comment
// replaces the list whole, hides a task's subtasks with it, shows the
// object to the project again when the list is emptied, and keeps to the
// actor's account, to members and to those who may work.
func testSetViewers(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	_, otherBy := NewAccount(t, s, "viewers2")
	mia, ned := member(t, f, "mia", taskd.RoleUser), member(t, f, "ned", taskd.RoleUser)
	reader := member(t, f, "rea", taskd.RoleReader)
	p := newProject(t, f)
	noErr(t, second(s.SetProjectMembers(ctx, by, p.ID, []string{mia.Person.Email, ned.Person.Email, reader.Person.Email}, true)))
	task := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Secret"), Hidden: []string{mia.Person.Email}}))(t)
	sub := must(s.CreateTask(ctx, by, p.ID, task.ID, taskd.TaskInput{Name: new("Step")}))(t)
	c := must(s.PostComment(ctx, by, task.ID, taskd.CommentInput{Text: "Between us", VisibleTo: []string{mia.Person.Email}}))(t)
	sees := func(step string, who taskd.Actor, want bool) {
		t.Helper()
		for _, id := range []int64{task.ID, sub.ID} {
			_, err := s.Task(ctx, who.Viewer(), id)
			if got := err == nil; got != want {
				t.Errorf("%s: %s sees task %d: %v, want %v", step, who.Person.Email, id, got, want)
			}
		}
		cs, err := s.Comments(ctx, who.Viewer(), task.ID)
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
		if bad.by.AccountID == f.Account.ID {
			emails = []string{ned.Person.Email}
		}
		if bad.email != "" {
			emails = append(emails, bad.email)
		}
		if err := s.SetViewers(ctx, bad.by, bad.kind, bad.id, emails); taskd.ErrorKind(err) != bad.want {
			t.Errorf("%s: %v, want %v", bad.name, err, bad.want)
		}
		sees(bad.name+" refused", ned, false)
	}

	for _, kind := range []string{"task", "comment"} {
		id := task.ID
		if kind == "comment" {
			id = c.ID
		}
		noErr(t, s.SetViewers(ctx, by, kind, id, []string{ned.Person.Email}))
	}
	sees("Ned alone listed", ned, true)
	sees("Ned alone listed", mia, false)
	for _, kind := range []string{"task", "comment"} {
		id := task.ID
		if kind == "comment" {
			id = c.ID
		}
		noErr(t, s.SetViewers(ctx, by, kind, id, nil))
	}
	sees("no list", mia, true)
	sees("no list", ned, true)
}
