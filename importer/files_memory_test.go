package importer_test

import (
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/internal/memstat"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/wire"
)

// TestImportFilesMemory is a measurement, run only when TASKD_IMPORT_FILES
// names a number of files (TASKD_IMPORT_FILE_MB their size, 4 by
// default): it imports an account with that many files and fails unless
// the process's peak resident memory grew by less than 64 MB over the
// import, whatever the files weigh. Source, destination and importer
// share the process, so the figure bounds all three. On SQLite.
func TestImportFilesMemory(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TASKD_IMPORT_FILES"))
	if n <= 0 {
		t.Skip("a measurement: TASKD_IMPORT_FILES=500 runs it")
	}
	mb := int64(4)
	if v, err := strconv.ParseInt(os.Getenv("TASKD_IMPORT_FILE_MB"), 10, 64); err == nil && v > 0 {
		mb = v
	}
	d := testsite.New(t)
	p := newPair(t, d)
	start := time.Now()
	for made := 0; made < n; made += 20 {
		postPattern(t, p.src, min(20, n-made), mb<<20)
	}
	t.Logf("the source's %d files of %d MB stored in %v", n, mb, time.Since(start).Round(time.Second))

	runtime.GC()
	before, err := rss()
	if err != nil {
		t.Skip(err)
	}
	// The peak from here on (Linux: 5 resets VmHWM to VmRSS).
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skip(err)
	}
	start = time.Now()
	sum, err := importer.Run(context.Background(), p.client, p.dest(d.Store), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	peak := memstat.Peak(t)
	c := family(sum, importer.FamilyFiles)
	if c.Created != n+4 || c.Skipped != 0 {
		t.Fatalf("files: %+v; skipped %v", c, sum.Skipped)
	}
	used, err := d.Store.FileBytes(context.Background(), p.acct.ID)
	if err != nil || used < int64(n)*mb<<20 {
		t.Fatalf("the destination holds %d bytes of files (%v)", used, err)
	}
	growth := float64(peak-before) / (1 << 20)
	t.Logf("imported %d files, %d MB, in %v (%.0f MB/s); RSS before %.0f MB, peak RSS growth %.1f MB",
		c.Created, used>>20, took.Round(time.Second), float64(used>>20)/took.Seconds(), float64(before)/(1<<20), growth)
	if growth >= 64 {
		t.Errorf("the peak resident memory grew by %.1f MB", growth)
	}
}

// postPattern adds a task to the source's project Launch with k files of
// size bytes each, streamed from a pipe.
func postPattern(t *testing.T, s *testsite.Site, k int, size int64) {
	t.Helper()
	pid := ""
	for _, p := range s.APIOK(q("action", "get_projects"))["data"].([]any) {
		if p.(map[string]any)["name"] == "Launch" {
			pid = p.(map[string]any)["id"].(string)
		}
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		var err error
		for i := 0; i < k && err == nil; i++ {
			var part io.Writer
			if part, err = mw.CreateFormFile(fmt.Sprintf("attach[%d]", i), fmt.Sprintf("big-%d.bin", i)); err == nil {
				_, err = io.Copy(part, io.LimitReader(memstat.Pattern{}, size))
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	query := q("action", "post_task", "id_project", pid, "title", "Files")
	req, err := http.NewRequest(http.MethodPost, s.AccountURL()+"/api/admin/v2/?"+query+"&hash="+wire.Hash(query, s.Key), pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if status, body, _ := testsite.DoJSON(t, req); status != http.StatusOK || body["status"] != "ok" {
		t.Fatalf("post_task with %d files: %d %v", k, status, body)
	}
}

// rss is the process's resident memory now (VmRSS).
func rss() (int64, error) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}
