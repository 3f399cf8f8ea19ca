package api_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
)

// okReceiver answers as a healthy destination would, except on /404.
func okReceiver(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/404" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestWebhookActions covers add/get/enable/disable/delete_webhook on the
// administrative API, with their errors.
func TestWebhookActions(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		s := a.server
		other := s.newAccount(t)
		pid := a.id("action", "post_project", "title", "P")
		url := okReceiver(t)

		a.fails(api.CodeFieldRequired, "action", "add_webhook", "events", "post_task")
		a.fails(api.CodeInvalidValue, "action", "add_webhook", "url", "ftp://x.example/", "events", "post_task")
		a.fails(api.CodeInvalidValue, "action", "add_webhook", "url", url, "events", "reopen_task")
		a.fails(api.CodeProjectInvalid, "action", "add_webhook", "url", url, "events", "post_task", "projects", "999999")
		otherPid := other.id("action", "post_project", "title", "Theirs")
		a.fails(api.CodeProjectInvalid, "action", "add_webhook", "url", url, "events", "post_task", "projects", otherPid)
		r := a.fails(api.CodeInvalidValue, "action", "add_webhook", "url", url+"/404", "events", "post_task")
		if r.Body["message"] != "Url should respond 200 HTTP_CODE and JSON {status:OK}" || r.Body["message_details"] != url+"/404" {
			t.Fatalf("failed URL check: %v", r)
		}
		if n := len(a.ok("action", "get_webhooks").list()); n != 0 {
			t.Fatalf("a failed add stored %d webhooks", n)
		}

		r = a.ok("action", "add_webhook", "url", url, "events", "post_task,close_task", "projects", pid,
			"http_user", "u", "http_pass", "secret-pass")
		id, isNum := r.Body["id"].(float64)
		if !isNum || id <= 0 || !strings.HasPrefix(r.Body["secret"].(string), "whsec_") {
			t.Fatalf("add_webhook answer %v (id must be an integer)", r)
		}
		sid := strconv.Itoa(int(id))
		list := a.ok("action", "get_webhooks").list()
		w := list[0].(map[string]any)
		if len(list) != 1 || w["id"] != sid || w["url"] != url || w["events"] != "post_task,close_task" ||
			w["status"] != "paused" || w["projects"] != pid || w["errors"] != float64(0) {
			t.Fatalf("get_webhooks %v", list)
		}
		if strings.Contains(r.Raw, "secret-pass") || strings.Contains(a.call("action", "get_webhooks").Raw, "secret-pass") {
			t.Fatal("http_pass returned")
		}
		if _, ok := w["http_user"]; ok {
			t.Fatal("http_user returned")
		}
		a.ok("action", "add_webhook", "url", url, "events", "post_project")
		if w := a.ok("action", "get_webhooks").list()[1].(map[string]any); w["projects"] != nil {
			t.Fatalf("projects present on an unlimited webhook: %v", w)
		}

		a.ok("action", "enable_webhook", "id", sid)
		if got := a.ok("action", "get_webhooks").list()[0].(map[string]any)["status"]; got != "active" {
			t.Fatalf("after enable: %v", got)
		}
		a.ok("action", "disable_webhook", "id", sid)
		if got := a.ok("action", "get_webhooks").list()[0].(map[string]any)["status"]; got != "paused" {
			t.Fatalf("after disable: %v", got)
		}
		// Tenants: another account cannot see or touch it.
		other.fails(api.CodeFieldRequired, "action", "delete_webhook", "id", sid)
		other.fails(api.CodeFieldRequired, "action", "enable_webhook", "id", sid)
		if n := len(other.ok("action", "get_webhooks").list()); n != 0 {
			t.Fatalf("other account sees %d webhooks", n)
		}
		a.ok("action", "delete_webhook", "id", sid)
		r = a.fails(api.CodeFieldRequired, "action", "delete_webhook", "id", sid)
		if r.Body["message"] != "WebHook not found" {
			t.Fatalf("second delete: %v", r)
		}
		a.fails(api.CodeFieldRequired, "action", "delete_webhook", "id", "-1")
		a.fails(api.CodeFieldRequired, "action", "delete_webhook")
	})
}

// TestWebhookActionsNeedAdministrative: with a token, the webhook actions
// need the administrative scope.
func TestWebhookActionsNeedAdministrative(t *testing.T) {
	t.Parallel()
	s := newServer(t, testdb.New(t, "sqlite"))
	a := s.newAccount(t)
	get := func(token string) int {
		req, _ := http.NewRequest("GET", s.URL+"/a/"+a.Slug+"/api/oauth2?action=get_webhooks", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := get(accessToken(t, s, a, "tasks_read")); got != http.StatusForbidden {
		t.Fatalf("get_webhooks without administrative: %d", got)
	}
	if got := get(accessToken(t, s, a, "administrative")); got != http.StatusOK {
		t.Fatalf("get_webhooks with administrative: %d", got)
	}
}
