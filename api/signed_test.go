package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/taskd/taskd/api"
)

// TestSignedRequestsAuthenticateEveryParameter: a hash vouches for the
// parameters of the one source it signs, and for no other parameter set.
// A leaked signed URL for a harmless read cannot be turned into a write by
// adding parameters elsewhere, nor by re-encoding what it signs.
func TestSignedRequestsAuthenticateEveryParameter(t *testing.T) {
	eachAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "Keep")
		tid := a.id("action", "post_task", "id_project", pid, "title", "Keep me")
		ep := a.endpoint()
		sign := func(q string) string { return q + "&hash=" + api.Hash(q, a.Key) }
		read := sign("action=get_projects") // the leaked URL
		form, js := "application/x-www-form-urlencoded", "application/json"
		admin := func(action string) http.Header {
			return http.Header{"Authorization": {api.AdminHeader(a.Key, action, time.Now())}}
		}
		for _, tc := range []struct {
			name        string
			method, url string
			ctype, body string
			header      http.Header
			http        int
			code        api.Code
		}{
			{"signed query, form body with another action", "POST", ep + "?" + read, form, "action=delete_task&id_task=" + tid, nil, 401, api.CodeAuth},
			{"signed query, form body with an extra parameter", "POST", ep + "?" + read, form, "filter=archive", nil, 401, api.CodeAuth},
			{"signed query, JSON body", "POST", ep + "?" + read, js, `{"action":"delete_task","id_task":"` + tid + `"}`, nil, 401, api.CodeAuth},
			{"signed form body, query parameters", "POST", ep + "?id_task=" + tid, form, sign("action=delete_task"), nil, 401, api.CodeAuth},
			{"signed form body, action in the query", "POST", ep + "?action=delete_task", form, sign("id_task=" + tid), nil, 401, api.CodeAuth},
			{"hash in the query and in the body", "POST", ep + "?" + read, form, read, nil, 401, api.CodeAuth},
			{"hash in a JSON body", "POST", ep, js, `{"action":"get_projects","hash":"` + api.Hash("action=get_projects", a.Key) + `"}`, nil, 401, api.CodeAuth},
			// a%26b%3Dc must not pass for a&b=c, nor the reverse.
			{"decoding merges two signed parameters into one", "GET",
				ep + "?action=update_task&id_task=" + tid + "&title=x%26text%3Dy&hash=" + api.Hash("action=update_task&id_task="+tid+"&title=x&text=y", a.Key), "", "", nil, 401, api.CodeAuth},
			{"decoding splits one signed parameter into two", "GET",
				ep + "?action=update_task&id_task=" + tid + "&title=x&text=y&hash=" + api.Hash("action=update_task&id_task="+tid+"&title=x%26text%3Dy", a.Key), "", "", nil, 401, api.CodeAuth},
			{"a signed space sent as a literal plus", "GET",
				ep + "?action=update_task&id_task=" + tid + "&title=a%2Bb&hash=" + api.Hash("action=update_task&id_task="+tid+"&title=a+b", a.Key), "", "", nil, 401, api.CodeAuth},
			{"an action hidden in a signed value", "GET",
				ep + "?action=get_projects%26action%3Ddelete_task&hash=" + api.Hash("action=get_projects&action=delete_task", a.Key), "", "", nil, 401, api.CodeAuth},
			{"JSON duplicate key", "POST", ep, js, `{"action":"update_task","id_task":"` + tid + `","title":"a","title":"b"}`, admin("update_task"), 400, api.CodeMalformed},
			{"JSON duplicate key, second null", "POST", ep, js, `{"action":"update_task","id_task":"` + tid + `","title":"a","title":null}`, admin("update_task"), 400, api.CodeMalformed},
			{"form body duplicate key", "POST", ep, form, "action=update_task&id_task=" + tid + "&title=a&title=b", admin("update_task"), 400, api.CodeMalformed},
			{"parameter in the query and the body", "POST", ep + "?action=update_task&title=a", js, `{"id_task":"` + tid + `","title":"b"}`, admin("update_task"), 400, api.CodeMalformed},
			{"action in the query and the body", "POST", ep + "?action=get_projects", js, `{"action":"delete_task","id_task":"` + tid + `"}`, admin("get_projects"), 400, api.CodeMalformed},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := a.do(tc.method, tc.url, tc.ctype, tc.body, tc.header)
				if r.HTTP != tc.http || r.code() != int(tc.code) {
					t.Fatalf("want HTTP %d code %d, got %v", tc.http, tc.code, r)
				}
			})
		}
		got := a.ok("action", "get_task", "id_task", tid).data()
		if got["name"] != "Keep me" || got["text"] != "" {
			t.Fatalf("a refused request changed the task: %v", got)
		}
		if n := len(a.ok("action", "get_projects").list()); n != 1 {
			t.Fatalf("%d projects, want 1", n)
		}

		// What the hash does sign runs, as it parses: the title holds "&" and "=".
		sent := "action=update_task&id_task=" + tid + "&title=x%26text%3Dy"
		if r := a.do("GET", ep+"?"+sign(sent), "", "", nil); r.code() != -1 || r.data()["name"] != "x&text=y" || r.data()["text"] != "" {
			t.Fatalf("signed %q: %v", sent, r)
		}
	})
}
