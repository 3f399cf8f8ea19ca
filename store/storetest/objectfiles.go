package storetest

import (
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

// testObjectsAndTheirFilesAreOne: a project, a task or a comment is made
// with its files in one transaction. A file that cannot be attached (not
// the author's upload, or attached already) fails the change, and nothing
// of it is left: no object, no event, the good upload still unattached.
func testObjectsAndTheirFilesAreOne(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, by := f.Store, f.Owner
	umaBy := member(t, f, "uma", taskd.RoleUser)
	upload := func(t *testing.T, as taskd.Actor, name string) int64 {
		return must(s.CreateFile(ctx, as, name, "text/plain", strings.NewReader(name), taskd.DefaultFileLimits))(t).ID
	}
	p := newProject(t, f)
	task := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("T")}))(t)
	everything := func(t *testing.T) (tasks, comments, projects, events int) {
		t.Helper()
		v := taskd.AccountViewer(f.Account.ID)
		ts := must(s.Tasks(ctx, taskd.TaskQuery{Viewer: v}))(t)
		cs := must(s.Comments(ctx, v, task.ID))(t)
		ps := must(s.Projects(ctx, v, ""))(t)
		evs := must(s.Events(ctx, v, task.DateAdded.Add(-3600e9), 0))(t)
		return len(ts), len(cs), len(ps), len(evs)
	}
	for _, bad := range []struct {
		name string
		file int64
	}{
		{"another member's upload", upload(t, umaBy, "uma.txt")},
		{"a file attached already", func() int64 {
			id := upload(t, by, "attached.txt")
			if err := s.AttachFiles(ctx, by, []int64{id}, taskd.OwnerTask, task.ID); err != nil {
				t.Fatal(err)
			}
			return id
		}()},
	} {
		good := upload(t, by, "good.txt")
		t.Run("a task, a comment and a project with "+bad.name+" fail and leave nothing", func(t *testing.T) {
			t1, c1, p1, e1 := everything(t)
			files := []int64{good, bad.file}
			_, errTask := s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("With files"), Files: files})
			_, errComment := s.PostComment(ctx, by, task.ID, taskd.CommentInput{Text: "With files", Files: files})
			_, errProject := s.CreateProject(ctx, by, taskd.ProjectInput{Name: new("With files"), Files: files})
			for what, err := range map[string]error{"task": errTask, "comment": errComment, "project": errProject} {
				if !taskd.IsNotFound(err) {
					t.Errorf("a %s with %s: %v, want not found (file)", what, bad.name, err)
				}
			}
			if t2, c2, p2, e2 := everything(t); t2 != t1 || c2 != c1 || p2 != p1 || e2 != e1 {
				t.Errorf("with %s, a failed change left something: tasks %d→%d, comments %d→%d, projects %d→%d, events %d→%d",
					bad.name, t1, t2, c1, c2, p1, p2, e1, e2)
			}
		})
		if !t.Run("the good upload beside "+bad.name+" is still an upload: it attaches now", func(t *testing.T) {
			made, err := s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Now"), Files: []int64{good}})
			if err != nil {
				t.Fatalf("the good upload after the failed changes: %v", err)
			}
			got, err := s.Files(ctx, taskd.FileQuery{Viewer: taskd.AccountViewer(f.Account.ID), TaskID: made.ID})
			if err != nil || len(got) != 1 || got[0].ID != good {
				t.Fatalf("files of the task made with the good upload: %v %v", got, err)
			}
		}) {
			return
		}
	}
}
