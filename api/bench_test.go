package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/wire"
)

// benchBackends runs fn on SQLite and, with TASKD_TEST_POSTGRES, PostgreSQL,
// each on a fresh database.
func benchBackends(b *testing.B, fn func(b *testing.B, d testdb.DB)) {
	for _, backend := range testdb.Backends() {
		b.Run(backend, func(b *testing.B) { fn(b, testdb.New(b, backend)) })
	}
}

// seedProject makes a project of 100 tasks where every 4th has 3 subtasks.
func seedProject(b *testing.B, a *account) string {
	pid := a.id("action", "post_project", "title", "Bench")
	for i := 0; i < 100; i++ {
		tid := a.ok("action", "post_task", "id_project", pid, "title", fmt.Sprintf("Task %d with a realistic title", i),
			"priority", strconv.Itoa(i%11), "email_user_to", a.Owner.Email, "dateend", "31.12.2026").data()["id"].(string)
		if i%4 == 0 {
			for j := 0; j < 3; j++ {
				a.ok("action", "post_task", "id_project", pid, "id_parent", tid, "title", fmt.Sprintf("Subtask %d.%d", i, j))
			}
		}
	}
	return pid
}

func adminMux(s *server) http.Handler {
	mux := http.NewServeMux()
	api.New(s.config(taskd.FileLimits{})).Mount(mux)
	return mux
}

// BenchmarkGetTasks measures one get_tasks call (175 tasks) through the
// handler: parsing, authentication, the query and the JSON rendering.
func BenchmarkGetTasks(b *testing.B) {
	benchBackends(b, func(b *testing.B, d testdb.DB) {
		s := newServer(b, d)
		a := s.newAccount(b)
		pid := seedProject(b, a)
		h := adminMux(s)
		q := "action=get_tasks&id_project=" + pid
		target := "/a/" + a.Slug + "/api/admin/v2/?" + q + "&hash=" + wire.Hash(q, a.Key)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
				if rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), `{"status":"ok"`) {
					b.Fatalf("get_tasks: %d %s", rec.Code, rec.Body)
				}
			}
		})
	})
}

// BenchmarkPostTask measures creating a task (and its event) through the handler.
func BenchmarkPostTask(b *testing.B) {
	benchBackends(b, func(b *testing.B, d testdb.DB) {
		s := newServer(b, d)
		a := s.newAccount(b)
		pid := a.id("action", "post_project", "title", "Bench")
		h := adminMux(s)
		var n atomic.Int64
		b.ReportAllocs()
		b.SetParallelism(8) // 16 clients on 2 cores, as bench/run.sh: changes meet in batches (group commit)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				body := "action=post_task&id_project=" + pid + "&title=" + url.QueryEscape(fmt.Sprintf("Task %d", n.Add(1)))
				req := httptest.NewRequest("POST", "/a/"+a.Slug+"/api/admin/v2/", strings.NewReader(body+"&hash="+wire.Hash(body, a.Key)))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), `{"status":"ok"`) {
					b.Fatalf("post_task: %d %s", rec.Code, rec.Body)
				}
			}
		})
	})
}

// BenchmarkAuth compares one warm get_tasks call authenticated by the
// administrative hash with the same call authenticated by an access token
// (signature check plus the grant lookup), in the same run.
func BenchmarkAuth(b *testing.B) {
	benchBackends(b, func(b *testing.B, d testdb.DB) {
		s := newServer(b, d)
		a := s.newAccount(b)
		pid := seedProject(b, a)
		token := accessToken(b, s, a, "tasks_read")
		mux := http.NewServeMux()
		cfg := s.config(taskd.FileLimits{})
		cfg.Tokens = s.oauth(b)
		api.New(cfg).Mount(mux)
		q := "action=get_tasks&id_project=" + pid
		run := func(b *testing.B, target string, header http.Header) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rec := httptest.NewRecorder()
					req := httptest.NewRequest("GET", target, nil)
					req.Header = header
					mux.ServeHTTP(rec, req)
					if rec.Code != 200 {
						b.Fatalf("get_tasks: %d %s", rec.Code, rec.Body)
					}
				}
			})
		}
		b.Run("hash", func(b *testing.B) {
			run(b, "/a/"+a.Slug+"/api/admin/v2/?"+q+"&hash="+wire.Hash(q, a.Key), http.Header{})
		})
		b.Run("token", func(b *testing.B) {
			run(b, "/a/"+a.Slug+"/api/oauth2?"+q, http.Header{"Authorization": {"Bearer " + token}})
		})
	})
}
