package web_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestFilePages: files in the pages on both databases. Files attached to
// a task, a comment and a project are listed with their size and author
// and download as attachments that are never rendered (HTML goes out as
// octet-stream, nosniff); a form without its token stores nothing; too
// many files are refused with nothing kept; a user cannot delete the
// owner's file, the owner can; a guest off the project gets "not found".
func TestFilePages(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		ctx := context.Background()
		acct, by := s.Owner()
		p, _ := s.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Site")})
		task, err := s.Store.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Design")})
		if err != nil {
			t.Fatal(err)
		}
		base := s.AccountURL()
		b := s.SignedIn(testsite.OwnerEmail)
		csrf := b.Get(base+task.Page()).Form(t, "", "").Get("csrf")
		tid := strconv.FormatInt(task.ID, 10)

		var (
			files  []taskd.File
			html   taskd.File
			before int64
		)

		if !t.Run("a form without its token stores nothing", func(t *testing.T) {
			b := b.In(t)
			if r := b.PostMultipart(base+"/tasks/"+tid+"/files", nil, testsite.FormFile{Field: "attach[]", Name: "x.txt", Type: "text/plain", Content: "x"}); r.Status != http.StatusForbidden {
				t.Fatalf("files without the form token: HTTP %d", r.Status)
			}
		}) {
			return
		}

		if !t.Run("files attach to a task, a comment, a project and a task made with them", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			r := b.PostMultipart(base+"/tasks/"+tid+"/files", [][2]string{{"csrf", csrf}},
				testsite.FormFile{Field: "attach[]", Name: "mockup.html", Type: "text/html", Content: "<script>alert(1)</script>"}, testsite.FormFile{Field: "attach[]", Name: "notes.txt", Type: "text/plain", Content: strings.Repeat("n", 2048)})
			if loc := r.Location(t); loc.Fragment != "files" {
				t.Fatalf("after attaching: %v", loc)
			}
			b.PostMultipart(base+"/tasks/"+tid+"/comments", [][2]string{{"csrf", csrf}, {"text", "Signed copy attached"}},
				testsite.FormFile{Field: "attach[]", Name: "signed.pdf", Type: "application/pdf", Content: "%PDF"}).Location(t)
			b.PostMultipart(base+p.Page()+"files", [][2]string{{"csrf", csrf}}, testsite.FormFile{Field: "attach[]", Name: "brief.txt", Type: "text/plain", Content: "brief"}).Location(t)
			b.PostMultipart(base+p.Page()+"tasks", [][2]string{{"csrf", csrf}, {"title", "Born with a file"}, {"return", "project"}},
				testsite.FormFile{Field: "attach[]", Name: "spec.txt", Type: "text/plain", Content: "spec"}).Location(t)
			born, err := s.Store.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), ProjectID: p.ID, Filter: taskd.QueryCond{Field: taskd.FieldName, Op: "=", Text: "Born with a file"}})
			if err != nil || len(born) != 1 {
				t.Fatalf("the task made with a file: %v, %v", born, err)
			}
			if fs, _ := s.Store.Files(ctx, taskd.FileQuery{Viewer: taskd.AccountViewer(acct.ID), TaskID: born[0].ID}); len(fs) != 1 || fs[0].Name != "spec.txt" {
				t.Fatalf("its files: %+v", fs)
			}
		}) {
			return
		}

		if !t.Run("the pages list the files with their size and author", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			var err error
			files, err = s.Store.Files(ctx, taskd.FileQuery{Viewer: taskd.AccountViewer(acct.ID), TaskID: task.ID})
			if err != nil || len(files) != 3 {
				t.Fatalf("files %v, %v", files, err)
			}
			pg := b.Get(base + task.Page())
			for _, want := range []string{"mockup.html", "2.0 KB", "Signed copy attached", "signed.pdf", `href="/a/` + s.Slug + `/download/`} {
				if !strings.Contains(pg.Body, want) {
					t.Fatalf("the task page lacks %q:\n%s", want, pg.Body)
				}
			}
			if pp := b.Get(base + p.Page()); !strings.Contains(pp.Body, "brief.txt") || strings.Contains(pp.Body, "mockup.html") {
				t.Fatalf("the project page's files:\n%s", pp.Body)
			}
		}) {
			return
		}

		if !t.Run("a download is an attachment, never rendered", func(t *testing.T) {
			b := b.In(t)
			html = files[0]
			dl := b.Get(base + html.Page())
			if dl.Body != "<script>alert(1)</script>" || dl.Header.Get("Content-Type") != "application/octet-stream" ||
				dl.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(dl.Header.Get("Content-Disposition"), `attachment; filename="mockup.html"`) {
				t.Fatalf("a download: %q %v", dl.Body, dl.Header)
			}
		}) {
			return
		}

		if !t.Run("too many files are refused, and nothing is kept", func(t *testing.T) {
			b := b.In(t)
			many := make([]testsite.FormFile, 21)
			for i := range many {
				many[i] = testsite.FormFile{Field: "attach[]", Name: "f.txt", Type: "text/plain", Content: "f"}
			}
			before, _ = s.Store.FileBytes(ctx, acct.ID)
			if r := b.PostMultipart(base+"/tasks/"+tid+"/files", [][2]string{{"csrf", csrf}}, many...); r.Status != http.StatusUnprocessableEntity ||
				!strings.Contains(r.Body, "Attach at most 20 files at once") {
				t.Fatalf("21 files: HTTP %d", r.Status)
			}
			if after, _ := s.Store.FileBytes(ctx, acct.ID); after != before {
				t.Fatalf("a refused form left %d bytes", after-before)
			}
		}) {
			return
		}

		if !t.Run("a task refused after its files were stored leaves none of them", func(t *testing.T) {
			b := b.In(t)
			if r := b.PostMultipart(base+p.Page()+"tasks", [][2]string{{"csrf", csrf}, {"title", "Backwards"}, {"datestart", "2026-05-02"}, {"dateend", "2026-05-01"}},
				testsite.FormFile{Field: "attach[]", Name: "plan.txt", Type: "text/plain", Content: "plan"}); r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("a task ending before it starts: HTTP %d", r.Status)
			}
			if after, _ := s.Store.FileBytes(ctx, acct.ID); after != before {
				t.Fatalf("a refused task left %d bytes of its files", after-before)
			}
		}) {
			return
		}

		if !t.Run("a user cannot delete the owner's file; the owner can", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			u := s.SignedIn(testsite.UserEmail)
			upg := u.Get(base + task.Page())
			if strings.Contains(upg.Body, "/files/"+strconv.FormatInt(html.ID, 10)+"/delete") {
				t.Fatalf("a user may delete the owner's file:\n%s", upg.Body)
			}
			forged := upg.Form(t, "", "")
			if r := u.Post(base+"/files/"+strconv.FormatInt(html.ID, 10)+"/delete", forged); r.Status != http.StatusForbidden {
				t.Fatalf("a forged delete: HTTP %d", r.Status)
			}
			b.Submit(s.Base, b.Get(base+task.Page()), "/a/"+s.Slug+"/files/"+strconv.FormatInt(html.ID, 10)+"/delete", nil).Location(t)
			if r := b.Get(base + html.Page()); r.Status != http.StatusNotFound {
				t.Fatalf("a deleted file downloads: HTTP %d", r.Status)
			}
		}) {
			return
		}

		t.Run("a guest off the project gets \"not found\" for its files", func(t *testing.T) {
			s := s.In(t)
			s.AddMember(s.Slug, "guest@acme.example", "Gus", "Guest", taskd.RoleGuest)
			if _, err := s.Store.SetPassword(ctx, mustPerson(t, s, "guest@acme.example"), mustPasswordHash(t, s), false); err != nil {
				t.Fatal(err)
			}
			g := s.SignedIn("guest@acme.example")
			if r := g.Get(base + files[1].Page()); r.Status != http.StatusNotFound {
				t.Fatalf("a guest off the project downloads: HTTP %d", r.Status)
			}
		})
	})
}

func mustPerson(t *testing.T, s *testsite.Site, email string) int64 {
	t.Helper()
	p, err := s.Store.PersonByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func mustPasswordHash(t *testing.T, s *testsite.Site) string {
	t.Helper()
	p, err := s.Store.PersonByEmail(context.Background(), testsite.OwnerEmail)
	if err != nil {
		t.Fatal(err)
	}
	return p.PasswordHash
}
