package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testsite"
)

// inFlight is a proxy in front of a source that records the most
// requests it had in flight at once. The first get_comments waits (up to
// two seconds) for a second request to arrive, so requests allowed to
// overlap do.
type inFlight struct {
	mu         sync.Mutex
	now, most  int
	first      bool
	second     chan struct{}
	secondOnce sync.Once
}

func (f *inFlight) serve(t *testing.T, target string) *httptest.Server {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.now++
		f.most = max(f.most, f.now)
		wait := !f.first && r.URL.Query().Get("action") == "get_comments"
		f.first = f.first || wait
		if f.now >= 2 {
			f.secondOnce.Do(func() { close(f.second) })
		}
		f.mu.Unlock()
		if wait {
			select {
			case <-f.second:
			case <-time.After(2 * time.Second):
			}
		}
		proxy.ServeHTTP(w, r)
		f.mu.Lock()
		f.now--
		f.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestImportConcurrency: --concurrency bounds the requests in flight to
// the source: one at a time with 1; with 3, the comments of a project's
// tasks are read several at once.
func TestImportConcurrency(t *testing.T) {
	src := testsite.New(t)
	pid := src.APIID("action=post_project&title=Launch")
	for _, name := range []string{"One", "Two", "Three", "Four", "Five", "Six"} {
		src.APIID("action=post_task&id_project=" + pid + "&title=" + name)
	}
	path := strings.TrimPrefix(src.AccountURL(), src.Base)
	for _, tc := range []struct {
		concurrency   string
		least, atMost int
	}{
		{"1", 1, 1},
		{"3", 2, 3},
	} {
		f := &inFlight{second: make(chan struct{})}
		proxy := f.serve(t, src.Base)
		st := storage{data: filepath.Join(t.TempDir(), "data")}
		_, errOut, err := importCLI(st, src.Key, "--from", proxy.URL+path, "--account", "moved", "--owner-email", "new.owner@example.com",
			"--concurrency", tc.concurrency)
		if err != nil {
			t.Fatalf("--concurrency %s: %v\n%s", tc.concurrency, err, errOut)
		}
		if f.most < tc.least || f.most > tc.atMost {
			t.Errorf("--concurrency %s: %d requests in flight at most, want %d to %d", tc.concurrency, f.most, tc.least, tc.atMost)
		}
	}
}
