package api_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/wire"
)

// BenchmarkGetTasksRelations measures get_tasks of 175 tasks with
// extra=relations (a chain of 99 relations through the top-level tasks)
// beside the same call with extra=custom_fields, the baseline: both are
// answered uncached, with one more query on the tasks' ids (issue 35).
func BenchmarkGetTasksRelations(b *testing.B) {
	benchBackends(b, func(b *testing.B, d testdb.DB) {
		s := newServer(b, d)
		a := s.newAccount(b)
		pid := seedProject(b, a)
		var tops []string
		for _, t := range a.ok("action", "get_tasks", "id_project", pid).list() {
			tops = append(tops, t.(map[string]any)["id"].(string))
		}
		for i := 1; i < len(tops); i++ {
			a.ok("action", "add_task_relation", "id_task_from", tops[i-1], "id_task_to", tops[i])
		}
		h := adminMux(s)
		for _, extra := range []string{"custom_fields", "relations"} {
			b.Run(extra, func(b *testing.B) {
				q := "action=get_tasks&extra=" + extra + "&id_project=" + pid
				target := "/a/" + a.Slug + "/api/admin/v2/?" + q + "&hash=" + wire.Hash(q, a.Key)
				b.ReportAllocs()
				for b.Loop() {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
					if rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), `{"status":"ok"`) {
						b.Fatalf("get_tasks: %d %s", rec.Code, rec.Body)
					}
				}
			})
		}
	})
}
