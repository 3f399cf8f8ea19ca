package api_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
)

// TestFilesReadSide: get_files, download and extra=files on both paths.
// A project's files are its own, its tasks' and
// its comments' (C10); a task's are its own and its comments'. A download
// is the raw content as an attachment with nosniff, a safe type (never
// HTML or SVG) and the name both ways; its errors are JSON. Guests and
// people a task is hidden from get "not found", as for an id of nothing;
// an upload not attached is its uploader's alone.
func TestFilesReadSide(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		s := a.server
		acct := mustAccount(t, s, a)
		ctx := context.Background()
		owner := taskd.Actor{AccountID: acct.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}
		add := func(by taskd.Actor, name, typ, content, kind string, id int64) string {
			t.Helper()
			f, err := s.DB.CreateFile(ctx, by, name, typ, strings.NewReader(content), taskd.DefaultFileLimits)
			if err != nil {
				t.Fatal(err)
			}
			if kind != "" {
				if err := s.DB.AttachFiles(ctx, by, []int64{f.ID}, kind, id); err != nil {
					t.Fatal(err)
				}
			}
			return strconv.FormatInt(f.ID, 10)
		}
		num := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
		gus, err := s.DB.AddMember(ctx, acct.ID, taskd.NewPerson{Email: "gus-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: "Gus"}, taskd.RoleGuest)
		if err != nil {
			t.Fatal(err)
		}
		pid := a.id("action", "post_project", "title", "P", "members", gus.Email)
		other := a.id("action", "post_project", "title", "Other")
		tid := a.id("action", "post_task", "id_project", pid, "title", "T")
		secret := a.id("action", "post_task", "id_project", pid, "title", "Secret", "hidden", a.Owner.Email)
		cid := a.id("action", "post_comment", "id_task", tid, "text", "See attached")

		brief := add(owner, "brief.pdf", "application/pdf", "%PDF-1.7 brief", taskd.OwnerProject, num(pid))
		page := add(owner, `звіт "Q1".html`, "text/html", "<script>alert(1)</script>", taskd.OwnerTask, num(tid))
		logo := add(owner, "logo.svg", "image/svg+xml", "<svg onload=alert(1)>", taskd.OwnerComment, num(cid))
		hidden := add(owner, "hidden.txt", "text/plain", "psst", taskd.OwnerTask, num(secret))
		elsewhere := add(owner, "other.png", "image/png", "\x89PNG", taskd.OwnerProject, num(other))
		upload := add(owner, "draft.txt", "text/plain", "not yet", "", 0)

		get := func(t *testing.T, header http.Header, q string) (*http.Response, string) {
			t.Helper()
			req, _ := http.NewRequest(http.MethodGet, q, nil)
			req.Header = header
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			return res, string(body)
		}
		bearer := func(t *testing.T, token string, pairs ...string) (*http.Response, string) {
			return get(t, http.Header{"Authorization": {"Bearer " + token}}, a.URL+"/a/"+a.Slug+"/api/oauth2?"+query(pairs...))
		}
		var gusToken string

		t.Run("get_files lists a project's files with its tasks' and comments'", func(t *testing.T) {
			a := a.in(t)
			ids := func(r response) string {
				var out []string
				for _, f := range r.list() {
					out = append(out, f.(map[string]any)["id"].(string))
				}
				return strings.Join(out, ",")
			}
			if got := ids(a.ok("action", "get_files", "id_project", pid)); got != strings.Join([]string{brief, page, logo, hidden}, ",") {
				t.Fatalf("a project's files: %s", got)
			}
			if got := ids(a.ok("action", "get_files", "id_task", tid)); got != page+","+logo {
				t.Fatalf("a task's files: %s", got)
			}
			f := a.ok("action", "get_files", "id_task", tid).list()[0].(map[string]any)
			if keys(f) != "date_added,id,name,page,size,user_from" || f["page"] != "/download/"+page || f["size"] != "25" || f["name"] != `звіт Q1.html` {
				t.Fatalf("a file: %v", f)
			}
			a.fails(api.CodeFieldRequired, "action", "get_files")
			a.fails(api.CodeProjectInvalid, "action", "get_files", "id_project", "999999")
		})

		t.Run("a download is the raw content as an attachment of a safe type", func(t *testing.T) {
			a := a.in(t)
			keyed := func(id string) (*http.Response, string) {
				q := query("action", "download", "id_file", id)
				return get(t, http.Header{}, a.endpoint()+"?"+q+"&hash="+hashWith(q, a.Key))
			}
			res, body := keyed(page)
			if res.StatusCode != 200 || body != "<script>alert(1)</script>" || res.Header.Get("Content-Type") != "application/octet-stream" ||
				res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Content-Length") != "25" ||
				res.Header.Get("Content-Disposition") != `attachment; filename="____ Q1.html"; filename*=UTF-8''%D0%B7%D0%B2%D1%96%D1%82%20Q1.html` ||
				!strings.Contains(res.Header.Get("Content-Security-Policy"), "sandbox") {
				t.Fatalf("download of an HTML file: HTTP %d %q %v", res.StatusCode, body, res.Header)
			}
			if res, _ := keyed(logo); res.Header.Get("Content-Type") != "application/octet-stream" {
				t.Fatalf("an SVG is served as %s", res.Header.Get("Content-Type"))
			}
			if res, body := keyed(brief); res.Header.Get("Content-Type") != "application/pdf" || body != "%PDF-1.7 brief" {
				t.Fatalf("a PDF: %v %q", res.Header, body)
			}
			for _, id := range []string{"999999", upload} {
				if res, body := keyed(id); res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), "json") ||
					!strings.Contains(body, `"status_code":25`) || !strings.Contains(body, `"message_details":"id_file"`) {
					t.Fatalf("download of %s: HTTP %d %s", id, res.StatusCode, body)
				}
			}
		})

		// A guest keeps to their projects and to what is not hidden from
		// them; the uploader alone reaches an upload; files_read is needed.
		if !t.Run("a token downloads only what its person may see, with files_read", func(t *testing.T) {
			a := a.in(t)
			gusToken = tokenFor(t, s, a, gus, taskd.RoleGuest, "files_read", "tasks_read", "comments_read")
			ownerToken := tokenFor(t, s, a, a.Owner, taskd.RoleOwner, "files_read")
			noFiles := tokenFor(t, s, a, a.Owner, taskd.RoleOwner, "tasks_read")
			if res, body := bearer(t, gusToken, "action", "download", "id_file", brief); res.StatusCode != 200 || body != "%PDF-1.7 brief" {
				t.Fatalf("a guest's download on their project: HTTP %d %s", res.StatusCode, body)
			}
			for _, id := range []string{elsewhere, hidden, upload} {
				_, theirs := bearer(t, gusToken, "action", "download", "id_file", id)
				_, nothing := bearer(t, gusToken, "action", "download", "id_file", "999999")
				if theirs != nothing {
					t.Fatalf("a guest's download of %s: %s, not as for nothing: %s", id, theirs, nothing)
				}
			}
			if _, body := bearer(t, ownerToken, "action", "download", "id_file", upload); body != "not yet" {
				t.Fatalf("the uploader's own upload: %s", body)
			}
			if res, _ := bearer(t, noFiles, "action", "download", "id_file", brief); res.StatusCode != http.StatusForbidden {
				t.Fatalf("download without files_read: HTTP %d", res.StatusCode)
			}
		}) {
			return
		}

		t.Run("extra=files lists the files of tasks and comments, none hidden", func(t *testing.T) {
			a := a.in(t)
			for _, call := range [][]string{{"action", "get_task", "id_task", tid, "extra", "files"}, {"action", "get_tasks", "id_project", pid, "extra", "files"},
				{"action", "get_all_tasks", "extra", "files"}} {
				if _, body := bearer(t, gusToken, call...); !strings.Contains(body, `"files":[{"id":"`+page+`"`) || strings.Contains(body, `"id":"`+hidden+`"`) {
					t.Fatalf("extra=files on %s: %s", call[1], body)
				}
			}
			comments := a.ok("action", "get_comments", "id_task", tid, "extra", "files").list()
			if fs := comments[0].(map[string]any)["files"].([]any); len(fs) != 1 || fs[0].(map[string]any)["id"] != logo {
				t.Fatalf("extra=files on comments: %v", comments)
			}
			if c := a.ok("action", "get_comments", "id_task", tid).list()[0].(map[string]any); c["files"] != nil {
				t.Fatalf("files without extra=files: %v", c)
			}
		})
	})
}
