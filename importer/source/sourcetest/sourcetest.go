// Package sourcetest serves recorded answers of a Worksection account for
// the tests of importer/source and importer: the answers are JSON files
// named after their action and argument (get_tasks_26.json), in the
// shapes of the spec (account-api.md), served as Worksection serves them.
package sourcetest

import (
	"crypto/subtle"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/taskd/taskd/wire"
)

// Key is the administrative key the recorded account takes.
const Key = "7776461cd931e7b1c8e9632ff8e979ce"

// Recorded serves the answers in Dir as a Worksection account would: it
// checks every request's hash (md5 of the query before it, plus Key),
// picks the file by action and argument (an answer it has no file for is
// an empty list), and serves downloads from Files, by id, with
// Content-Disposition.
type Recorded struct {
	Dir   string
	Files map[string]string // download contents by file id

	mu      sync.Mutex
	queries []string
}

// Start serves the answers in dir on loopback until the test ends, with
// the files 500, 501 and 502 of the recordings; it returns the account's
// address.
func Start(t testing.TB, dir string) (*Recorded, string) {
	t.Helper()
	rec := &Recorded{Dir: dir, Files: map[string]string{"500": "%PDF-1.", "501": "hello world", "502": "12345"}}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return rec, srv.URL + "/"
}

// Queries are the signed queries served so far, hash aside, in order.
func (r *Recorded) Queries() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.queries)
}

// ServeHTTP answers one call of the administrative API.
func (r *Recorded) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	raw := req.URL.RawQuery
	signed, hash, ok := strings.Cut(raw, "&hash=")
	if req.URL.Path != "/api/admin/v2" || !ok || subtle.ConstantTimeCompare([]byte(wire.Hash(signed, Key)), []byte(hash)) != 1 || req.Method != http.MethodGet {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"status":"error","status_code":2,"message":"Action hash is missed or invalid"}`))
		return
	}
	r.mu.Lock()
	r.queries = append(r.queries, signed)
	r.mu.Unlock()
	q := req.URL.Query()
	action := q.Get("action")
	if action == "download" {
		content, ok := r.Files[q.Get("id_file")]
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"status":"error","status_code":25,"message":"File is not found","message_details":"id_file"}`))
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="f"`)
		w.Write([]byte(content))
		return
	}
	name := action
	switch action {
	case "get_projects":
		if q.Get("filter") != "" {
			name += "_" + q.Get("filter")
		}
	case "get_tasks", "get_costs", "get_files":
		name += "_" + q.Get("id_project")
	case "get_comments":
		name += "_" + q.Get("id_task")
	}
	b, err := os.ReadFile(filepath.Join(r.Dir, filepath.Base(name)+".json"))
	if err != nil {
		b = []byte(`{"status":"ok","data":[]}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(b)
}
