package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskd/taskd/importer"
)

// boundSource answers as a Worksection account with one member, one
// project, one task, and that task's comments: 24 of 90,000 bytes each, an
// answer of about 2 MiB.
func boundSource(t *testing.T) *httptest.Server {
	const olga = `{"id":"1","email":"olga@source.example","name":"Olga Owner"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		data := "[]"
		switch q.Get("action") {
		case "get_users":
			data = `[{"id":"1","first_name":"Olga","email":"olga@source.example","role":"owner"}]`
		case "get_projects":
			if q.Get("filter") == "" {
				data = `[{"id":"26","name":"Launch","status":"active","user_from":` + olga + `,"users":[` + olga + `]}]`
			}
		case "get_tasks":
			data = `[{"id":"101","name":"Write","status":"active","priority":"1","user_from":` + olga + `,"date_added":"2024-01-16 10:00"}]`
		case "get_comments":
			var list []string
			for i := range 24 {
				list = append(list, fmt.Sprintf(`{"id":"%d","text":"%s","date_added":"2024-01-16 10:05","user_from":%s}`, i+1, strings.Repeat("w", 90000), olga))
			}
			data = "[" + strings.Join(list, ",") + "]"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"ok","data":%s}`, data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestImportMaxAnswer (issue 46): an answer over --max-answer stops the
// import with an error that names the action, the answer, the bound and
// the flag that raises it; the run again with the default bound brings
// the comments, each once; a bound outside 1 to 4096 MiB is refused.
func TestImportMaxAnswer(t *testing.T) {
	src := boundSource(t)
	st := storage{data: filepath.Join(t.TempDir(), "data")}
	to := []string{"--from", src.URL, "--account", "moved", "--owner-email", "new.owner@example.com", "--concurrency", "8"}
	_, errOut, err := importCLI(st, "7776461cd931e7b1c8e9632ff8e979ce", append(to, "--max-answer", "1")...)
	// The comments are kept nearly whole: what they hold once decoded is
	// over the bound before their bytes are.
	for _, want := range []string{"source: get_comments: the answer for id_task=101 holds more than 1 MiB once decoded",
		"the bound of one answer (give --max-answer MiB to raise the bound, now 1 MiB"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("--max-answer 1: %v, want %q\n%s", err, want, errOut)
		}
	}
	out, errOut, err := importCLI(st, "7776461cd931e7b1c8e9632ff8e979ce", append(to, "--json")...)
	if err != nil {
		t.Fatalf("the run again: %v\n%s", err, errOut)
	}
	var sum importer.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	for _, c := range sum.Families {
		if c.Family == importer.FamilyComments && (c.Created != 24 || c.Read != 24) {
			t.Errorf("the run again: comments %+v", c)
		}
	}
	for _, bad := range []string{"0", "-1", "4097"} {
		if _, _, err := importCLI(st, "7776461cd931e7b1c8e9632ff8e979ce", append(to, "--max-answer", bad)...); err == nil || !strings.Contains(err.Error(), "--max-answer must be 1 to 4096") {
			t.Errorf("--max-answer %s: %v", bad, err)
		}
	}
}
