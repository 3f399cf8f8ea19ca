package work_test

import (
	"context"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/work"
)

// TestObjectsAndTheirFilesAreOne: a project, a task or a comment is made
// with its files in one transaction. A file that cannot be attached (not
// the author's upload, or attached already) fails the change, and nothing
// of it is left: no object, no event, the good upload still unattached.
func TestObjectsAndTheirFilesAreOne(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		acct := testaccount.New(t, db, testaccount.Options{Slug: "acme", Name: "Acme", Owner: testaccount.Person{Email: "olga@example.com", First: "Olga"}})
		by := acct.Actor()
		umaBy := testaccount.Member(t, db, acct.ID, testaccount.Person{Email: "uma@example.com", First: "Uma"}, taskd.RoleUser)
		s := work.New(db, taskd.DefaultFileLimits)
		upload := func(t *testing.T, as taskd.Actor, name string) int64 {
			f, err := s.Files.Upload(ctx, as, name, "text/plain", strings.NewReader(name))
			if err != nil {
				t.Fatal(err)
			}
			return f.ID
		}
		p, err := s.Projects.Create(ctx, by, taskd.ProjectInput{Name: new("P")})
		if err != nil {
			t.Fatal(err)
		}
		task, err := s.Tasks.Create(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("T")})
		if err != nil {
			t.Fatal(err)
		}
		everything := func(t *testing.T) (tasks, comments, projects, events int) {
			t.Helper()
			v := taskd.AccountViewer(acct.ID)
			ts, err := db.Tasks(ctx, taskd.TaskQuery{Viewer: v})
			if err != nil {
				t.Fatal(err)
			}
			cs, err := db.Comments(ctx, v, task.ID)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := db.Projects(ctx, v, "")
			if err != nil {
				t.Fatal(err)
			}
			evs, err := db.Events(ctx, v, task.DateAdded.Add(-3600e9), 0)
			if err != nil {
				t.Fatal(err)
			}
			return len(ts), len(cs), len(ps), len(evs)
		}
		for _, bad := range []struct {
			name string
			file int64
		}{
			{"another member's upload", upload(t, umaBy, "uma.txt")},
			{"a file attached already", func() int64 {
				id := upload(t, by, "attached.txt")
				if err := s.Files.Attach(ctx, by, []int64{id}, taskd.OwnerTask, task.ID); err != nil {
					t.Fatal(err)
				}
				return id
			}()},
		} {
			good := upload(t, by, "good.txt")
			t.Run("a task, a comment and a project with "+bad.name+" fail and leave nothing", func(t *testing.T) {
				t1, c1, p1, e1 := everything(t)
				files := []int64{good, bad.file}
				_, errTask := s.Tasks.Create(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("With files"), Files: files})
				_, errComment := s.Comments.Post(ctx, by, task.ID, taskd.CommentInput{Text: "With files", Files: files})
				_, errProject := s.Projects.Create(ctx, by, taskd.ProjectInput{Name: new("With files"), Files: files})
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
				made, err := s.Tasks.Create(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Now"), Files: []int64{good}})
				if err != nil {
					t.Fatalf("the good upload after the failed changes: %v", err)
				}
				got, err := db.Files(ctx, taskd.FileQuery{Viewer: taskd.AccountViewer(acct.ID), TaskID: made.ID})
				if err != nil || len(got) != 1 || got[0].ID != good {
					t.Fatalf("files of the task made with the good upload: %v %v", got, err)
				}
			}) {
				return
			}
		}
	})
}
