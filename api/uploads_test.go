package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/wire"
)

// part is one part of a multipart body: a parameter, or a file when name
// is set.
type part struct{ field, file, typ, content string }

// multipartBody writes the parts in order.
func multipartBody(t *testing.T, parts ...part) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		var err error
		var pw io.Writer
		if p.file == "" {
			pw, err = w.CreateFormField(p.field)
		} else {
			h := make(map[string][]string)
			h["Content-Disposition"] = []string{fmt.Sprintf(`form-data; name=%q; filename=%q`, p.field, p.file)}
			h["Content-Type"] = []string{p.typ}
			pw, err = w.CreatePart(h)
		}
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(pw, p.content)
	}
	w.Close()
	return b.String(), w.FormDataContentType()
}

// TestUploads: files through both flows on both databases. The PHP SDK's
// attach[n] parts on post_task, post_project and post_comment, with the
// other parameters in the signed query string or in the body before the
// files; the Python SDK's upload_files then files on post_task (a JSON
// list of the uploaded objects, C12). Limits, a body cut short and too
// many files are refused with a clear error and leave nothing stored, the
// object included; a token needs files_write.
func TestUploads(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		s := a.server
		acct := mustAccount(t, s, a)
		ctx := context.Background()
		pid := a.id("action", "post_project", "title", "P")
		big := make([]byte, 3<<20)
		for i := range big {
			big[i] = byte(rand.IntN(256))
		}
		send := func(a *account, target, contentType, body string, header http.Header) response {
			a.t.Helper()
			return a.do(http.MethodPost, target, contentType, body, header)
		}
		signed := func(pairs ...string) string {
			q := query(pairs...)
			return a.endpoint() + "?" + q + "&hash=" + hashWith(q, a.Key)
		}
		admin := func(action string) http.Header {
			return http.Header{"Authorization": {wire.AdminHeader(a.Key, action, time.Now())}}
		}
		filesOf := func(a *account, pairs ...string) []any {
			a.t.Helper()
			return a.ok(append([]string{"action", "get_files"}, pairs...)...).list()
		}
		used := func(t *testing.T) int64 {
			n, err := s.DB.FileBytes(ctx, acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		var (
			tid    string
			before int64
		)

		if !t.Run("the PHP SDK's attach parts go with the signed query's parameters", func(t *testing.T) {
			a := a.in(t)
			body, ct := multipartBody(t, part{"attach[0]", "notes.txt", "text/plain", "hello"}, part{"attach[1]", "photo.jpg", "image/jpeg", string(big)})
			r := send(a, signed("action", "post_task", "id_project", pid, "title", "With files"), ct, body, nil)
			if r.code() != -1 {
				t.Fatalf("post_task with attach[n]: %v", r)
			}
			tid = r.data()["id"].(string)
			files := filesOf(a, "id_task", tid)
			if len(files) != 2 || files[0].(map[string]any)["name"] != "notes.txt" || files[1].(map[string]any)["size"] != fmt.Sprint(len(big)) {
				t.Fatalf("the task's files: %v", files)
			}
			q := query("action", "download", "id_file", files[1].(map[string]any)["id"].(string))
			res, err := http.Get(a.endpoint() + "?" + q + "&hash=" + hashWith(q, a.Key))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if !bytes.Equal(got, big) || res.Header.Get("Content-Type") != "image/jpeg" {
				t.Fatalf("the download differs from the upload (%d bytes, %s)", len(got), res.Header.Get("Content-Type"))
			}
		}) {
			return
		}

		if !t.Run("post_comment and post_project take their parameters in the body, before the files", func(t *testing.T) {
			a := a.in(t)
			body, ct := multipartBody(t, part{field: "id_task", content: tid}, part{field: "text", content: "The signed copy"},
				part{"attach[a]", "signed.pdf", "application/pdf", "%PDF"})
			if r := send(a, a.endpoint()+"?action=post_comment", ct, body, admin("post_comment")); r.code() != -1 {
				t.Fatalf("post_comment with a file: %v", r)
			}
			body, ct = multipartBody(t, part{field: "title", content: "Filed"}, part{"attach[0]", "brief.txt", "text/plain", "brief"})
			r := send(a, a.endpoint()+"?action=post_project", ct, body, admin("post_project"))
			if r.code() != -1 || len(filesOf(a, "id_project", r.data()["id"].(string))) != 1 {
				t.Fatalf("post_project with a file: %v", r)
			}
			if n := len(filesOf(a, "id_task", tid)); n != 3 {
				t.Fatalf("the task has %d files with its comment's, want 3", n)
			}
		}) {
			return
		}

		if !t.Run("the Python SDK's upload_files, then files on post_task, once", func(t *testing.T) {
			a := a.in(t)
			body, ct := multipartBody(t, part{"files[]", "a.png", "image/png", "\x89PNG"}, part{"files[]", "b.csv", "text/csv", "x,y"})
			r := send(a, a.endpoint()+"?action=upload_files", ct, body, admin("upload_files"))
			uploaded := r.list()
			if r.code() != -1 || len(uploaded) != 2 || keys(uploaded[0].(map[string]any)) != "error,ext,icon,id,name" || uploaded[0].(map[string]any)["ext"] != "png" {
				t.Fatalf("upload_files: %v", r)
			}
			if r := a.python("post_task", map[string]any{"id_project": pid, "title": "From Python", "files": uploaded}); r.code() != -1 {
				t.Fatalf("post_task with files: %v", r)
			} else if n := len(filesOf(a, "id_task", r.data()["id"].(string))); n != 2 {
				t.Fatalf("the Python task has %d files", n)
			}
			if r := a.python("post_task", map[string]any{"id_project": pid, "title": "Again", "files": uploaded}); r.code() != int(api.CodeInvalidValue) ||
				r.Body["message_details"] != "files" {
				t.Fatalf("attaching an upload twice: %v", r)
			}
		}) {
			return
		}

		if !t.Run("a file too large, a body cut short or a parameter after a file leave nothing, the task included", func(t *testing.T) {
			a := a.in(t)
			tasksBefore := len(a.ok("action", "get_tasks", "id_project", pid).list())
			before = used(t)
			for name, b := range map[string]func() (string, string){
				"too large": func() (string, string) {
					return multipartBody(t, part{"attach[0]", "small.txt", "text/plain", "ok"}, part{"attach[1]", "huge.bin", "application/octet-stream", strings.Repeat("x", 5<<20)})
				},
				"cut short": func() (string, string) {
					b, ct := multipartBody(t, part{"attach[0]", "a.bin", "application/octet-stream", string(big)})
					return b[:len(b)/2], ct
				},
				"a parameter after a file": func() (string, string) {
					return multipartBody(t, part{"attach[0]", "a.txt", "text/plain", "a"}, part{field: "title", content: "late"})
				},
			} {
				body, ct := b()
				r := send(a, signed("action", "post_task", "id_project", pid, "title", "Refused"), ct, body, nil)
				if r.code() == -1 || r.HTTP >= 500 || r.code() == int(api.CodeInternal) {
					t.Fatalf("%s: %v", name, r)
				}
				if now := used(t); now != before {
					t.Fatalf("%s: %d bytes stored after the refusal, %d before", name, now, before)
				}
			}
			if n := len(a.ok("action", "get_tasks", "id_project", pid).list()); n != tasksBefore {
				t.Fatalf("a refused request made a task: %d tasks, %d before", n, tasksBefore)
			}
		}) {
			return
		}

		if !t.Run("too many files or parameters, and files where none are taken, are refused", func(t *testing.T) {
			a := a.in(t)
			many := make([]part, api.MaxFilesPerRequest+1)
			for i := range many {
				many[i] = part{fmt.Sprintf("attach[%d]", i), "f.txt", "text/plain", "x"}
			}
			body, ct := multipartBody(t, many...)
			if r := send(a, signed("action", "post_task", "id_project", pid, "title", "Many"), ct, body, nil); r.code() != int(api.CodeInvalidValue) ||
				r.Body["message_details"] != fmt.Sprintf("attach[%d]", api.MaxFilesPerRequest) || used(t) != before {
				t.Fatalf("too many files: %v", r)
			}
			fields := make([]part, 300) // many small parts, before anyone is known
			for i := range fields {
				fields[i] = part{field: fmt.Sprintf("f%d", i)}
			}
			body, ct = multipartBody(t, fields...)
			if r := send(a, a.endpoint()+"?action=get_projects", ct, body, nil); r.code() != int(api.CodeTooLarge) {
				t.Fatalf("300 parameters in a multipart body: %v", r)
			}
			body, ct = multipartBody(t, part{"attach[0]", "a.txt", "text/plain", "a"})
			if r := send(a, signed("action", "get_projects"), ct, body, nil); r.code() != int(api.CodeUnknownParam) {
				t.Fatalf("files on an action that takes none: %v", r)
			}
		}) {
			return
		}

		t.Run("a token needs files_write for files, whatever the action's own scope", func(t *testing.T) {
			a := a.in(t)
			token := accessToken(t, s, a, "tasks_write", "tasks_read")
			body, ct := multipartBody(t, part{field: "id_project", content: pid}, part{field: "title", content: "Tokened"},
				part{"attach[0]", "a.txt", "text/plain", "a"})
			r := send(a, a.URL+"/a/"+a.Slug+"/api/oauth2?action=post_task", ct, body, http.Header{"Authorization": {"Bearer " + token}})
			if r.code() != int(api.CodeForbidden) || r.Body["message_details"] != "files_write" {
				t.Fatalf("a token without files_write: %v", r)
			}
			both := accessToken(t, s, a, "tasks_write", "files_write")
			if r := send(a, a.URL+"/a/"+a.Slug+"/api/oauth2?action=post_task", ct, body, http.Header{"Authorization": {"Bearer " + both}}); r.code() != -1 {
				t.Fatalf("a token with files_write: %v", r)
			}
		})
	})
}

// TestUploadRefusalsNameThePart: a file over the size limit, beyond the
// account's allowance or cut short is an invalid value (11) naming the
// part as the client sent it (attach[n], files[]), on every action that
// takes files, and leaves nothing stored.
func TestUploadRefusalsNameThePart(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		a := newServerWith(t, d, taskd.FileLimits{MaxFileBytes: 1 << 20, MaxAccountBytes: 2 << 20}).newAccount(t)
		acct := mustAccount(t, a.server, a)
		ctx := context.Background()
		pid := a.id("action", "post_project", "title", "P")
		tid := a.id("action", "post_task", "id_project", pid, "title", "T")
		used := func(t *testing.T) int64 {
			t.Helper()
			n, err := a.DB.FileBytes(ctx, acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		// Each action that takes files, with its parameters as parts
		// before the files, and the name its SDK gives a file part.
		paths := []struct {
			action string
			params []part
			name   string
		}{
			{"post_task", []part{{field: "id_project", content: pid}, {field: "title", content: "Refused"}}, "attach[%d]"},
			{"post_comment", []part{{field: "id_task", content: tid}, {field: "text", content: "Refused"}}, "attach[%d]"},
			{"post_project", []part{{field: "title", content: "Refused"}}, "attach[%d]"},
			{"upload_files", nil, "files[]"},
		}
		send := func(t *testing.T, action string, body, ct string) response {
			t.Helper()
			return a.in(t).do(http.MethodPost, a.endpoint()+"?action="+action, ct, body,
				http.Header{"Authorization": {wire.AdminHeader(a.Key, action, time.Now())}})
		}
		refused := func(t *testing.T, r response, part, message string) {
			t.Helper()
			if r.code() != int(api.CodeInvalidValue) || r.Body["message_details"] != part || r.Body["message"] != message {
				t.Fatalf("want 11 naming %s (%q), got %v", part, message, r)
			}
			if n := used(t); n != 0 && n != 3<<19 {
				t.Fatalf("%d bytes stored after a refusal", n)
			}
		}
		for _, p := range paths {
			t.Run(p.action, func(t *testing.T) {
				name := func(i int) string { return strings.ReplaceAll(p.name, "%d", fmt.Sprint(i)) }
				body, ct := multipartBody(t, append(p.params, part{name(0), "small.txt", "text/plain", "ok"},
					part{name(1), "huge.bin", "application/octet-stream", strings.Repeat("x", 1<<20+1)})...)
				refused(t, send(t, p.action, body, ct), name(1), "A file is at most 1 MB")

				body, ct = multipartBody(t, append(p.params, part{name(0), "half.bin", "application/octet-stream", strings.Repeat("y", 3<<18)})...)
				refused(t, send(t, p.action, body[:len(body)/2], ct), name(0), "The file could not be read to its end")
			})
		}
		// 1.5 MB of the 2 MB allowance taken, a file of 0.75 MB passes it.
		body, ct := multipartBody(t, part{"files[]", "a.bin", "application/octet-stream", strings.Repeat("a", 1<<20)},
			part{"files[]", "b.bin", "application/octet-stream", strings.Repeat("b", 1<<19)})
		if r := send(t, "upload_files", body, ct); r.code() != -1 || used(t) != 3<<19 {
			t.Fatalf("upload_files of 1.5 MB: %v", r)
		}
		for _, p := range paths {
			t.Run(p.action+" beyond the allowance", func(t *testing.T) {
				name := strings.ReplaceAll(p.name, "%d", "0")
				body, ct := multipartBody(t, append(p.params, part{name, "more.bin", "application/octet-stream", strings.Repeat("m", 3<<18)})...)
				refused(t, send(t, p.action, body, ct), name, "The account's files would pass their allowance of 2 MB")
			})
		}
	})
}
