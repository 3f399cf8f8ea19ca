package importer_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/wire"
)

// upload is a file fill sends.
type upload struct {
	name    string
	content []byte
}

// randomBytes are n bytes that do not compress.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{36})
	r.Read(b)
	return b
}

// withFiles calls the site's API, its query signed, with files as the
// parts of a multipart body (attach[n], as the PHP SDK sends them), fails
// the test unless the answer is ok, and returns the id of what it made.
func withFiles(t *testing.T, s *testsite.Site, query string, files ...upload) string {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for i, f := range files {
		pw, err := w.CreateFormFile(fmt.Sprintf("attach[%d]", i), f.name)
		if err != nil {
			t.Fatal(err)
		}
		pw.Write(f.content)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.AccountURL()+"/api/admin/v2/?"+query+"&hash="+wire.Hash(query, s.Key), &b)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	status, body, _ := testsite.DoJSON(t, req)
	if status != http.StatusOK || body["status"] != "ok" {
		t.Fatalf("%s with %d files: %d %v", query, len(files), status, body)
	}
	id, _ := body["data"].(map[string]any)["id"].(string)
	return id
}

// files reads the files of a project: listed is its list (get_files), by
// id, which alone gives each file's author and date (tasks and comments
// name their files with an id, a name and a size); attached collects the
// lists of the tasks and comments read.
type files struct {
	c        *source.Client
	listed   map[string]source.File
	attached [][]source.File
}

// read describes list as the API shows it, each file with the size and
// SHA-256 of its content downloaded through the API, sorted.
func (fs *files) read(t *testing.T, list []source.File) []string {
	t.Helper()
	fs.attached = append(fs.attached, list)
	var out []string
	for _, f := range list {
		l, ok := fs.listed[f.ID]
		if !ok || l.Name != f.Name || l.Size != f.Size {
			t.Fatalf("file %+v: the project lists %+v", f, l)
		}
		size, sum, err := fs.c.Download(context.Background(), f, io.Discard)
		if err != nil {
			t.Fatalf("downloading %s: %v", f.Name, err)
		}
		out = append(out, fmt.Sprintf("%s (%d bytes listed, %d downloaded, SHA-256 %s) by %s @%s",
			f.Name, f.Size, size, sum, l.Author.Email, l.Added.Format(time.RFC3339)))
	}
	slices.Sort(out)
	return out
}

// downloads counts the source's download calls a client makes; the
// content of the file named by corrupt comes with a byte more than the
// source listed.
type downloads struct {
	n       atomic.Int64
	corrupt atomic.Value // a source file id, or ""
}

func (d *downloads) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Query().Get("action") != "download" {
		return http.DefaultTransport.RoundTrip(req)
	}
	d.n.Add(1)
	res, err := http.DefaultTransport.RoundTrip(req)
	if id, _ := d.corrupt.Load().(string); err == nil && id != "" && req.URL.Query().Get("id_file") == id {
		res.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(res.Body, strings.NewReader("!")), res.Body}
		res.ContentLength = -1
		res.Header.Del("Content-Length")
	}
	return res, err
}

// count is the downloads since the last count.
func (d *downloads) count() int64 { return d.n.Swap(0) }

// TestImportFiles: a file whose content differs from what the source
// listed is skipped with the reason, the others brought over, and the next
// run brings it; files alone (--only files) find their tasks and comments
// from the mappings; a mapped file whose listing changed is brought again
// in place of its old copy, once (issue 36).
func TestImportFiles(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, d *testsite.Site) {
		p := newPair(t, d)
		d.AddMember("moved", testsite.UserEmail, "Uma", "User", taskd.RoleUser)
		ctx := context.Background()
		dst := p.dest(d.Store)
		run := func(step string, only ...string) importer.Summary {
			t.Helper()
			sum, err := importer.Run(ctx, p.client, dst, importer.Options{Only: only})
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			return sum
		}
		all := slices.DeleteFunc(slices.Clone(importer.Families), func(f string) bool { return f == importer.FamilyFiles })
		run("all but files", all...)

		listed, err := p.client.Files(ctx, "", p.top)
		if err != nil || len(listed) == 0 {
			t.Fatalf("the files of the task: %v %v", listed, err)
		}
		bad := listed[0]
		p.downloads.corrupt.Store(bad.ID)
		sum := run("a file corrupted", importer.FamilyFiles)
		if c := family(sum, importer.FamilyFiles); c.Read != 5 || c.Created != 4 || c.Skipped != 1 {
			t.Fatalf("a corrupted file: %+v %+v", c, sum.Skipped)
		}
		i := slices.IndexFunc(sum.Skipped, func(s importer.Skip) bool { return s.Family == importer.FamilyFiles })
		if s := sum.Skipped[i]; s.SourceID != bad.ID || !strings.Contains(s.Reason, "listed") || !strings.Contains(s.Reason, quoteName(bad.Name)) {
			t.Fatalf("the skip of the corrupted file: %+v", s)
		}
		p.downloads.corrupt.Store("")
		sum = run("the file as listed", importer.FamilyFiles)
		if c := family(sum, importer.FamilyFiles); c.Created != 1 || c.Unchanged != 4 || c.Skipped != 0 {
			t.Fatalf("the file brought over: %+v", c)
		}
		p.same(t, "files alone")

		// A listing that changed since: the file is brought again, its old
		// copy deleted.
		key := taskd.ImportKey{AccountID: p.acct.ID, Source: p.client.URL(), Family: "file", SourceID: bad.ID}
		maps, err := d.Store.ImportMappings(ctx, p.acct.ID, p.client.URL(), "file")
		if err != nil || len(maps) != 5 {
			t.Fatalf("the file mappings %v %v", maps, err)
		}
		old := maps[bad.ID]
		if err := d.Store.SetImportMapping(ctx, key, taskd.ImportMapping{LocalID: old.LocalID, Fingerprint: "stale:" + old.Fingerprint}); err != nil {
			t.Fatal(err)
		}
		p.downloads.count()
		sum = run("a listing changed", importer.FamilyFiles)
		if c, n := family(sum, importer.FamilyFiles), p.downloads.count(); c.Updated != 1 || c.Unchanged != 4 || n != 1 {
			t.Fatalf("a changed listing: %+v, %d downloads", c, n)
		}
		maps, err = d.Store.ImportMappings(ctx, p.acct.ID, p.client.URL(), "file")
		if err != nil || maps[bad.ID].LocalID == old.LocalID || maps[bad.ID].Fingerprint != old.Fingerprint {
			t.Fatalf("the mapping after the change %+v, was %+v (%v)", maps[bad.ID], old, err)
		}
		if _, err := d.Store.File(ctx, taskd.AccountViewer(p.acct.ID), old.LocalID); !taskd.IsNotFound(err) {
			t.Fatalf("the old copy: %v", err)
		}
		p.same(t, "the file brought again")
	})
}

// quoteName is a name as the report quotes it.
func quoteName(s string) string { return fmt.Sprintf("%q", s) }
