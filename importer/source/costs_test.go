package source

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/taskd/taskd/importer/source/sourcetest"
)

// TestProjectCostsPerTask: a source that refuses a project's lines at once
// (code 11) is asked per top-level task; without the tasks given, they are
// read then (get_tasks), so a caller need not keep them.
func TestProjectCostsPerTask(t *testing.T) {
	rec := &sourcetest.Recorded{Dir: filepath.Join("testdata", "worksection")}
	var mu sync.Mutex
	var asked []string // the tasks whose lines were asked for
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("action") != "get_costs" {
			rec.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		mu.Lock()
		asked = append(asked, q.Get("id_task"))
		mu.Unlock()
		switch q.Get("id_task") {
		case "":
			w.Write([]byte(`{"status":"error","status_code":11,"message":"Too many cost lines"}`))
		case "101":
			w.Write([]byte(`{"status":"ok","data":[{"id":"801","time":"0:30","money":"0","date":"2024-01-16",` +
				`"user_from":{"email":"bob@acme.example"},"task":{"id":"101"}}]}`))
		default:
			w.Write([]byte(`{"status":"ok","data":[]}`))
		}
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, sourcetest.Key, Options{})
	if err != nil {
		t.Fatal(err)
	}
	costs := must[[]Cost](t)(c.ProjectCosts(context.Background(), "26", nil))
	if len(costs) != 1 || costs[0].ID != "801" || costs[0].TaskID != "101" || costs[0].ProjectID != "26" || costs[0].Minutes != 30 {
		t.Errorf("costs %+v", costs)
	}
	// The recording's project 26 has two top-level tasks, 101 and 102.
	eq(t, "queries", rec.Queries(), []string{"action=get_tasks&id_project=26&extra=text%2Cfiles%2Csubscribers%2Crelations%2Csubtasks%2Chidden"})
	mu.Lock()
	defer mu.Unlock()
	eq(t, "lines asked for", asked, []string{"", "101", "102"})
}
