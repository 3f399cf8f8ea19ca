package api_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/webhook"
	"github.com/taskd/taskd/wire"
)

// FuzzAdminRequest sends arbitrary signed queries and bodies through parsing,
// authentication and dispatch on a real SQLite store. Whatever comes in, the
// answer is the JSON envelope and never a 500.
func FuzzAdminRequest(f *testing.F) {
	srv := newServer(f, testdb.New(f, "sqlite"))
	a := srv.newAccount(f)
	pid := a.id("action", "post_project", "title", "Fuzz")
	tid := a.id("action", "post_task", "id_project", pid, "title", "Fuzz")
	seeds := []struct{ method, query, ctype, body string }{
		{"GET", "action=get_tasks&id_project=" + pid, "", ""},
		{"GET", "action=post_task&id_project=" + pid + "&id_parent=" + tid + "&title=x&priority=5&datestart=01.02.2026", "", ""},
		{"POST", "action=update_task", "application/x-www-form-urlencoded", "id_task=" + tid + "&title=%E2%9C%93&dateend=31.12.2026"},
		{"POST", "", "application/json", `{"action":"post_comment","id_task":"` + tid + `","text":"hi"}`},
		{"POST", "action=search_tasks", "application/json", `{"filter":"%_\\","status":"done"}`},
		{"POST", "action=add_project_members", "application/json", `{"id_project":"1","members":["a@b.cd",7,["x"]]}`},
		{"POST", "action=subscribe", "application/json", `{"id_task":"` + tid + `","email_user":["a@b.cd"]}`},
		{"GET", "action=get_events&period=72h&id_project=" + pid, "", ""},
		{"PATCH", "action=x", "text/plain", "\xff"},
		{"GET", "action=complete_task&id_task=" + tid, "", ""},
		{"GET", "action=delete_comment&id_comment=-0", "", ""},
		{"GET", "action=add_webhook&url=http://x.example/&events=post_task,close_task&projects=" + pid, "", ""},
		{"GET", "action=delete_webhook&id=1", "", ""},
		// Multipart bodies: files after parameters, cut short, lying, or odd.
		{"POST", "action=post_task&id_project=" + pid + "&title=F", "multipart/form-data; boundary=B",
			"--B\r\nContent-Disposition: form-data; name=\"attach[0]\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--B--\r\n"},
		{"POST", "action=upload_files", "multipart/form-data; boundary=B",
			"--B\r\nContent-Disposition: form-data; name=\"files[]\"; filename=\"../x.html\"\r\n\r\n<b>\r\n--B\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nv\r\n--B--\r\n"},
		{"POST", "action=post_comment&id_task=" + tid + "&text=x", "multipart/form-data; boundary=B",
			"--B\r\nContent-Disposition: form-data; name=\"attach[0]\"; filename=\"a\"\r\n\r\nno end"},
		{"GET", "action=download&id_file=1", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.query, s.ctype, s.body)
	}
	handler := http.NewServeMux()
	// Webhook URL checks go nowhere: every destination fails at once.
	nowhere := &http.Client{Transport: roundTripper(func(*http.Request) (*http.Response, error) { return nil, errors.New("no network in fuzzing") })}
	cfg := srv.config(taskd.FileLimits{})
	cfg.Hooks = webhook.NewService(srv.DB, srv.Sealer, nowhere, nil, nil)
	api.New(cfg).Mount(handler)
	f.Fuzz(func(t *testing.T, method, query, ctype, body string) {
		if len(method) == 0 || len(method) > 10 || strings.ContainsAny(method, " \t\r\n") {
			method = "GET"
		}
		q := query + "&hash=" + wire.Hash(query, a.Key)
		req := &http.Request{
			Method: method, URL: &url.URL{Path: "/a/" + a.Slug + "/api/admin/v2/", RawQuery: q},
			Header: http.Header{"Content-Type": {ctype}}, Body: io.NopCloser(strings.NewReader(body)),
			ContentLength: int64(len(body)), Host: "example.com", RequestURI: "/",
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q %q %q: HTTP %d %s", method, query, ctype, body, rec.Code, rec.Body)
		}
		if strings.HasPrefix(rec.Header().Get("Content-Disposition"), "attachment;") {
			if rec.Header().Get("X-Content-Type-Options") != "nosniff" || strings.Contains(rec.Header().Get("Content-Type"), "html") {
				t.Fatalf("a download served unsafely: %v", rec.Header())
			}
			return // a file, not the envelope
		}
		var env struct {
			Status     string `json:"status"`
			StatusCode *int   `json:"status_code"`
			Message    string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
			t.Fatalf("not JSON: %s", rec.Body)
		}
		switch env.Status {
		case "ok":
		case "error":
			if env.StatusCode == nil || env.Message == "" {
				t.Fatalf("error without code or message: %s", rec.Body)
			}
		default:
			t.Fatalf("status %q: %s", env.Status, rec.Body)
		}
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
