package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

// formFile is a file of a multipart form.
type formFile struct{ field, name, typ, content string }

// postMultipart sends a multipart form: its fields first, then its files,
// as browsers do.
func (b *browser) postMultipart(u string, fields [][2]string, files ...formFile) page {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, f := range fields {
		w.WriteField(f[0], f[1])
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f.field, f.name))
		h.Set("Content-Type", f.typ)
		pw, _ := w.CreatePart(h)
		io.WriteString(pw, f.content)
	}
	w.Close()
	req, _ := http.NewRequest(http.MethodPost, u, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return page{status: res.StatusCode, header: res.Header, body: string(raw)}
}

// TestFilePages: files in the pages on both databases. Files attached to
// a task, a comment and a project are listed with their size and author
// and download as attachments that are never rendered (HTML goes out as
// octet-stream, nosniff); a form without its token stores nothing; too
// many files are refused with nothing kept; a user cannot delete the
// owner's file, the owner can; a guest off the project gets "not found".
func TestFilePages(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	for name, d := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := newOAuthSite(t, d)
			ctx := context.Background()
			acct, by := s.owner()
			p, _ := s.setup.CreateProject(ctx, by, taskd.ProjectInput{Name: ptr("Site")})
			task, err := s.setup.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: ptr("Design")})
			if err != nil {
				t.Fatal(err)
			}
			base := s.accountURL()
			b := s.signedIn(ownerEmail)
			csrf := b.get(base+task.Page()).form(t, "", "").Get("csrf")
			tid := strconv.FormatInt(task.ID, 10)

			if r := b.postMultipart(base+"/tasks/"+tid+"/files", nil, formFile{"attach[]", "x.txt", "text/plain", "x"}); r.status != http.StatusForbidden {
				t.Fatalf("files without the form token: HTTP %d", r.status)
			}
			r := b.postMultipart(base+"/tasks/"+tid+"/files", [][2]string{{"csrf", csrf}},
				formFile{"attach[]", "mockup.html", "text/html", "<script>alert(1)</script>"}, formFile{"attach[]", "notes.txt", "text/plain", strings.Repeat("n", 2048)})
			if loc := r.location(t); loc.Fragment != "files" {
				t.Fatalf("after attaching: %v", loc)
			}
			b.postMultipart(base+"/tasks/"+tid+"/comments", [][2]string{{"csrf", csrf}, {"text", "Signed copy attached"}},
				formFile{"attach[]", "signed.pdf", "application/pdf", "%PDF"}).location(t)
			b.postMultipart(base+p.Page()+"files", [][2]string{{"csrf", csrf}}, formFile{"attach[]", "brief.txt", "text/plain", "brief"}).location(t)
			b.postMultipart(base+p.Page()+"tasks", [][2]string{{"csrf", csrf}, {"title", "Born with a file"}, {"return", "project"}},
				formFile{"attach[]", "spec.txt", "text/plain", "spec"}).location(t)
			born, err := s.setup.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), ProjectID: p.ID, Filter: taskd.QueryCond{Field: taskd.FieldName, Op: "=", Text: "Born with a file"}})
			if err != nil || len(born) != 1 {
				t.Fatalf("the task made with a file: %v, %v", born, err)
			}
			if fs, _ := s.setup.Files(ctx, taskd.FileQuery{Viewer: taskd.AccountViewer(acct.ID), TaskID: born[0].ID}); len(fs) != 1 || fs[0].Name != "spec.txt" {
				t.Fatalf("its files: %+v", fs)
			}

			files, err := s.setup.Files(ctx, taskd.FileQuery{Viewer: taskd.AccountViewer(acct.ID), TaskID: task.ID})
			if err != nil || len(files) != 3 {
				t.Fatalf("files %v, %v", files, err)
			}
			pg := b.get(base + task.Page())
			for _, want := range []string{"mockup.html", "2.0 KB", "Signed copy attached", "signed.pdf", `href="/a/` + s.slug + `/download/`} {
				if !strings.Contains(pg.body, want) {
					t.Fatalf("the task page lacks %q:\n%s", want, pg.body)
				}
			}
			if pp := b.get(base + p.Page()); !strings.Contains(pp.body, "brief.txt") || strings.Contains(pp.body, "mockup.html") {
				t.Fatalf("the project page's files:\n%s", pp.body)
			}
			html := files[0]
			dl := b.get(base + html.Page())
			if dl.body != "<script>alert(1)</script>" || dl.header.Get("Content-Type") != "application/octet-stream" ||
				dl.header.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(dl.header.Get("Content-Disposition"), `attachment; filename="mockup.html"`) {
				t.Fatalf("a download: %q %v", dl.body, dl.header)
			}

			// Too many files: refused, nothing kept.
			many := make([]formFile, 21)
			for i := range many {
				many[i] = formFile{"attach[]", "f.txt", "text/plain", "f"}
			}
			before, _ := s.setup.FileBytes(ctx, acct.ID)
			if r := b.postMultipart(base+"/tasks/"+tid+"/files", [][2]string{{"csrf", csrf}}, many...); r.status != http.StatusUnprocessableEntity ||
				!strings.Contains(r.body, "Attach at most 20 files at once") {
				t.Fatalf("21 files: HTTP %d", r.status)
			}
			if after, _ := s.setup.FileBytes(ctx, acct.ID); after != before {
				t.Fatalf("a refused form left %d bytes", after-before)
			}
			// A task refused after its files were stored leaves none of them.
			if r := b.postMultipart(base+p.Page()+"tasks", [][2]string{{"csrf", csrf}, {"title", "Backwards"}, {"datestart", "2026-05-02"}, {"dateend", "2026-05-01"}},
				formFile{"attach[]", "plan.txt", "text/plain", "plan"}); r.status != http.StatusUnprocessableEntity {
				t.Fatalf("a task ending before it starts: HTTP %d", r.status)
			}
			if after, _ := s.setup.FileBytes(ctx, acct.ID); after != before {
				t.Fatalf("a refused task left %d bytes of its files", after-before)
			}

			// Deleting: not another user's file; the owner's own.
			u := s.signedIn(userEmail)
			upg := u.get(base + task.Page())
			if strings.Contains(upg.body, "/files/"+strconv.FormatInt(html.ID, 10)+"/delete") {
				t.Fatalf("a user may delete the owner's file:\n%s", upg.body)
			}
			forged := upg.form(t, "", "")
			if r := u.post(base+"/files/"+strconv.FormatInt(html.ID, 10)+"/delete", forged); r.status != http.StatusForbidden {
				t.Fatalf("a forged delete: HTTP %d", r.status)
			}
			b.submit(s.base, b.get(base+task.Page()), "/a/"+s.slug+"/files/"+strconv.FormatInt(html.ID, 10)+"/delete", nil).location(t)
			if r := b.get(base + html.Page()); r.status != http.StatusNotFound {
				t.Fatalf("a deleted file downloads: HTTP %d", r.status)
			}

			// A guest off the project.
			s.addMember(s.slug, "guest@acme.example", "Gus", "Guest", taskd.RoleGuest)
			if _, err := s.setup.SetPassword(ctx, mustPerson(t, s, "guest@acme.example"), mustPasswordHash(t, s), false); err != nil {
				t.Fatal(err)
			}
			g := s.signedIn("guest@acme.example")
			if r := g.get(base + files[1].Page()); r.status != http.StatusNotFound {
				t.Fatalf("a guest off the project downloads: HTTP %d", r.status)
			}
		})
	}
}

func mustPerson(t *testing.T, s *oauthSite, email string) int64 {
	t.Helper()
	p, err := s.setup.PersonByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func mustPasswordHash(t *testing.T, s *oauthSite) string {
	t.Helper()
	p, err := s.setup.PersonByEmail(context.Background(), ownerEmail)
	if err != nil {
		t.Fatal(err)
	}
	return p.PasswordHash
}
