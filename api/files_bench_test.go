package api_test

import (
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/memstat"
	"github.com/taskd/taskd/internal/testdb"
)

// BenchmarkFileAPI uploads a 200 MB file with post_task's attach[0] over
// HTTP on loopback, streamed from a pipe, and downloads it back, reporting
// each way's throughput and how much the process's peak resident memory
// grew. Client and server share the process, so the figure bounds both.
func BenchmarkFileAPI(b *testing.B) {
	const size = 200 << 20
	for _, backend := range testdb.Backends() {
		b.Run(backend, func(b *testing.B) {
			s := newServer(b, testdb.New(b, backend))
			mux := http.NewServeMux()
			api.New(s.config(taskd.FileLimits{MaxFileBytes: 1 << 30, MaxAccountBytes: 100 << 30})).Mount(mux)
			srv := httptest.NewServer(mux)
			b.Cleanup(srv.Close)
			a := s.newAccount(b)
			a.server = &server{URL: srv.URL, DB: s.DB, Sealer: s.Sealer}
			pid := a.id("action", "post_project", "title", "P")
			before := memstat.Peak(b)
			var up, down time.Duration
			for b.Loop() {
				start := time.Now()
				pr, pw := io.Pipe()
				mw := multipart.NewWriter(pw)
				go func() {
					part, _ := mw.CreateFormFile("attach[0]", "big.bin")
					_, err := io.Copy(part, io.LimitReader(memstat.Pattern{}, size))
					if err == nil {
						err = mw.Close()
					}
					pw.CloseWithError(err)
				}()
				q := query("action", "post_task", "id_project", pid, "title", "Big")
				res, err := http.Post(srv.URL+"/a/"+a.Slug+"/api/admin/v2/?"+q+"&hash="+hashWith(q, a.Key), mw.FormDataContentType(), pr)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if !strings.Contains(string(body), `"status":"ok"`) {
					b.Fatalf("upload: %s", body)
				}
				up += time.Since(start)
				tid := strings.SplitN(strings.SplitN(string(body), `"id":"`, 2)[1], `"`, 2)[0]
				files := a.ok("action", "get_files", "id_task", tid).list()
				fid := files[0].(map[string]any)["id"].(string)
				start = time.Now()
				q = query("action", "download", "id_file", fid)
				res, err = http.Get(srv.URL + "/a/" + a.Slug + "/api/admin/v2/?" + q + "&hash=" + hashWith(q, a.Key))
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if err != nil || n != size {
					b.Fatalf("download: %d bytes, %v", n, err)
				}
				down += time.Since(start)
			}
			mb := float64(size) / (1 << 20) * float64(b.N)
			b.ReportMetric(mb/up.Seconds(), "upload-MB/s")
			b.ReportMetric(mb/down.Seconds(), "download-MB/s")
			b.ReportMetric(float64(memstat.Peak(b)-before)/(1<<20), "peak-RSS-growth-MB")
		})
	}
}
