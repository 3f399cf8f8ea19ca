package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/wire"
)

// TestBadRequests checks that each malformed or refused request gets its
// documented code and HTTP status, in the error envelope.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "P")
		tid := a.id("action", "post_task", "id_project", pid, "title", "T")
		long := strings.Repeat("x", taskd.MaxNameLen+1)

		for _, tc := range []struct {
			name    string
			pairs   []string
			code    api.Code
			details string
		}{
			{"no action", []string{"id_project", pid}, api.CodeActionRequired, "action"},
			{"unknown action", []string{"action", "drop_tables"}, api.CodeActionInvalid, "drop_tables"},
			{"unknown parameter", []string{"action", "get_tasks", "id_project", pid, "id_projekt", "1"}, api.CodeUnknownParam, "id_projekt"},
			{"missing id", []string{"action", "get_tasks"}, api.CodeFieldRequired, "id_project"},
			{"negative id", []string{"action", "get_tasks", "id_project", "-1"}, api.CodeProjectInvalid, "id_project"},
			{"zero id", []string{"action", "get_task", "id_task", "0"}, api.CodeTaskInvalid, "id_task"},
			{"leading zero id", []string{"action", "get_task", "id_task", "0" + tid}, api.CodeTaskInvalid, "id_task"},
			{"overlong id", []string{"action", "get_task", "id_task", "99999999999999999999999999"}, api.CodeTaskInvalid, "id_task"},
			{"id with sign", []string{"action", "get_task", "id_task", "+" + tid}, api.CodeTaskInvalid, "id_task"},
			{"id with space", []string{"action", "get_task", "id_task", tid + " "}, api.CodeTaskInvalid, "id_task"},
			{"unknown project", []string{"action", "get_tasks", "id_project", "987654321"}, api.CodeProjectInvalid, "id_project"},
			{"unknown task", []string{"action", "update_task", "id_task", "987654321", "title", "x"}, api.CodeTaskInvalid, "id_task"},
			{"unknown parent", []string{"action", "post_task", "id_project", pid, "id_parent", "987654321", "title", "x"}, api.CodeTaskInvalid, "id_parent"},
			{"unknown comment", []string{"action", "update_comment", "id_comment", "987654321", "text", "x"}, api.CodeCommentInvalid, "id_comment"},
			{"missing title", []string{"action", "post_task", "id_project", pid}, api.CodeFieldRequired, "title"},
			{"blank title", []string{"action", "post_task", "id_project", pid, "title", "   "}, api.CodeFieldRequired, "title"},
			{"blank title on update", []string{"action", "update_task", "id_task", tid, "title", ""}, api.CodeFieldRequired, "title"},
			{"overlong title", []string{"action", "post_task", "id_project", pid, "title", long}, api.CodeInvalidValue, "title"},
			{"blank comment", []string{"action", "post_comment", "id_task", tid, "text", " "}, api.CodeFieldRequired, "text"},
			{"priority too high", []string{"action", "post_task", "id_project", pid, "title", "x", "priority", "11"}, api.CodeInvalidValue, "priority"},
			{"priority negative", []string{"action", "update_task", "id_task", tid, "priority", "-1"}, api.CodeInvalidValue, "priority"},
			{"priority not a number", []string{"action", "update_task", "id_task", tid, "priority", "high"}, api.CodeInvalidValue, "priority"},
			{"impossible date", []string{"action", "post_task", "id_project", pid, "title", "x", "datestart", "31.02.2026"}, api.CodeInvalidValue, "datestart"},
			{"date in another form", []string{"action", "post_task", "id_project", pid, "title", "x", "dateend", "2026/01/01"}, api.CodeInvalidValue, "dateend"},
			{"end before start", []string{"action", "update_task", "id_task", tid, "datestart", "10.01.2026", "dateend", "09.01.2026"}, api.CodeInvalidValue, "dateend"},
			{"assignee not a member", []string{"action", "update_task", "id_task", tid, "email_user_to", "stranger@example.com"}, api.CodeUserInvalid, "stranger@example.com"},
			{"author not a member", []string{"action", "post_task", "id_project", pid, "title", "x", "email_user_from", "stranger@example.com"}, api.CodeUserInvalid, ""},
			{"bad filter", []string{"action", "get_tasks", "id_project", pid, "filter", "all"}, api.CodeInvalidValue, "filter"},
			{"missing period", []string{"action", "get_events"}, api.CodeFieldRequired, "period"},
			{"period zero", []string{"action", "get_events", "period", "0m"}, api.CodeInvalidValue, "period"},
			{"period minutes too long", []string{"action", "get_events", "period", "361m"}, api.CodeInvalidValue, "period"},
			{"period hours too long", []string{"action", "get_events", "period", "73h"}, api.CodeInvalidValue, "period"},
			{"period days too long", []string{"action", "get_events", "period", "31d"}, api.CodeInvalidValue, "period"},
			{"period unit", []string{"action", "get_events", "period", "1w"}, api.CodeInvalidValue, "period"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := a.fails(tc.code, tc.pairs...)
				if r.HTTP != 200 {
					t.Fatalf("action errors answer HTTP 200, got %v", r)
				}
				if tc.details != "" && r.Body["message_details"] != tc.details {
					t.Fatalf("message_details = %v, want %q", r.Body["message_details"], tc.details)
				}
				if m, _ := r.Body["message"].(string); m == "" || r.Body["status"] != "error" {
					t.Fatalf("envelope: %v", r)
				}
			})
		}
		if got := a.ok("action", "get_task", "id_task", tid).data(); got["name"] != "T" || got["priority"] != "1" {
			t.Fatalf("refused requests changed the task: %v", got)
		}
	})
}

// TestTransportErrors covers authentication, methods, encodings and sizes.
func TestTransportErrors(t *testing.T) {
	t.Parallel()
	a := newServer(t, testdb.New(t, "sqlite")).newAccount(t)
	ep := a.endpoint()
	signed := func(q string) string { return ep + "?" + q + "&hash=" + wire.Hash(q, a.Key) }
	form := "application/x-www-form-urlencoded"
	for _, tc := range []badRequest{
		{"no credentials", "GET", ep + "?action=get_projects", "", "", nil, 401, api.CodeAuth},
		{"wrong hash", "GET", ep + "?action=get_projects&hash=0123456789abcdef0123456789abcdef", "", "", nil, 401, api.CodeAuth},
		{"hash of other params", "GET", ep + "?action=get_users&hash=" + wire.Hash("action=get_projects", a.Key), "", "", nil, 401, api.CodeAuth},
		{"unknown account", "GET", a.URL + "/a/nobody-here/api/admin/v2?action=get_projects&hash=" + wire.Hash("action=get_projects", a.Key), "", "", nil, 401, api.CodeAuth},
		{"stale admin header", "POST", ep, form, "action=get_projects", http.Header{"Authorization": {wire.AdminHeader(a.Key, "get_projects", time.Now().Add(-time.Hour))}}, 401, api.CodeAuth},
		{"admin header for another action", "POST", ep, form, "action=get_users", http.Header{"Authorization": {wire.AdminHeader(a.Key, "get_projects", time.Now())}}, 401, api.CodeAuth},
		{"PUT", "PUT", signed("action=get_projects"), "", "", nil, 405, api.CodeMethod},
		{"DELETE", "DELETE", signed("action=get_projects"), "", "", nil, 405, api.CodeMethod},
		{"invalid UTF-8", "GET", signed("action=post_project&title=%ff%fe"), "", "", nil, 400, api.CodeMalformed},
		{"NUL byte", "GET", signed("action=post_project&title=a%00b"), "", "", nil, 400, api.CodeMalformed},
		{"repeated parameter", "GET", signed("action=get_tasks&id_project=1&id_project=2"), "", "", nil, 400, api.CodeMalformed},
		{"bad escape", "GET", ep + "?action=get_projects&title=%zz&hash=x", "", "", nil, 400, api.CodeMalformed},
		{"body too large", "POST", signed("action=get_projects"), form, "title=" + strings.Repeat("a", api.MaxBody), nil, 413, api.CodeTooLarge},
		{"unsupported body type", "POST", signed("action=get_projects"), "text/plain", "hello", nil, 400, api.CodeMalformed},
		{"JSON not an object", "POST", signed("action=get_projects"), "application/json", `[1,2]`, nil, 400, api.CodeMalformed},
		{"JSON nested value", "POST", signed("action=get_projects"), "application/json", `{"filter":{"a":1}}`, nil, 400, api.CodeMalformed},
		{"JSON trailing data", "POST", signed("action=get_projects"), "application/json", `{} {}`, nil, 400, api.CodeMalformed},
		{"JSON invalid UTF-8", "POST", signed("action=get_projects"), "application/json", "{\"filter\":\"\xff\"}", nil, 400, api.CodeMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do(tc.method, tc.url, tc.ctype, tc.body, tc.header)
			if r.HTTP != tc.http || r.code() != int(tc.code) {
				t.Fatalf("want HTTP %d code %d, got %v", tc.http, tc.code, r)
			}
		})
	}
}

// TestAuthenticationForms checks the accepted ways to authenticate and send parameters.
func TestAuthenticationForms(t *testing.T) {
	t.Parallel()
	a := newServer(t, testdb.New(t, "sqlite")).newAccount(t)
	ep := a.endpoint()
	noSlash := strings.TrimSuffix(ep, "/")
	form := "application/x-www-form-urlencoded"
	q := "action=post_project&title=" + "Big%20plan~1"
	for _, tc := range []struct {
		name             string
		method, url      string
		ctype, body      string
		header           http.Header
		wantProjectTitle string
	}{
		{"hash over the raw query", "GET", ep + "?" + q + "&hash=" + wire.Hash(q, a.Key), "", "", nil, "Big plan~1"},
		{"hash over the decoded query", "GET", noSlash + "?" + q + "&hash=" + wire.Hash("action=post_project&title=Big plan~1", a.Key), "", "", nil, "Big plan~1"},
		{"hash over PHP encoding", "GET", ep + "?" + q + "&hash=" + wire.Hash("action=post_project&title=Big+plan%7E1", a.Key), "", "", nil, "Big plan~1"},
		{"hash in a form body", "POST", ep, form, "action=post_project&title=Form&hash=" + wire.Hash("action=post_project&title=Form", a.Key), nil, "Form"},
		{"Admin header with a form body", "POST", ep, form, "action=post_project&title=Header", http.Header{"Authorization": {wire.AdminHeader(a.Key, "post_project", time.Now())}}, "Header"},
		{"Admin header with a JSON body", "POST", noSlash, "application/json", `{"action":"post_project","title":"JSON","text":null}`, http.Header{"Authorization": {wire.AdminHeader(a.Key, "post_project", time.Now())}}, "JSON"},
		{"PHP SDK: every parameter in the query", "GET", ep + "?action=post_project&title=PHP+SDK%7E&hash=" + wire.Hash("action=post_project&title=PHP+SDK%7E", a.Key), "", "", nil, "PHP SDK~"},
		{"Python SDK: action in the query, Admin header, JSON body", "POST", noSlash + "?action=post_project", "application/json; charset=utf-8", `{"title":"Python SDK"}`, http.Header{"Authorization": {wire.AdminHeader(a.Key, "post_project", time.Now())}}, "Python SDK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do(tc.method, tc.url, tc.ctype, tc.body, tc.header)
			if r.HTTP != 200 || r.data()["name"] != tc.wantProjectTitle {
				t.Fatalf("want project %q, got %v", tc.wantProjectTitle, r)
			}
		})
	}
}

// TestSignedRequestsAuthenticateEveryParameter: a hash vouches for the
// parameters of the one source it signs, and for no other parameter set.
// A leaked signed URL for a harmless read cannot be turned into a write by
// adding parameters elsewhere, nor by re-encoding what it signs.
func TestSignedRequestsAuthenticateEveryParameter(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "Keep")
		tid := a.id("action", "post_task", "id_project", pid, "title", "Keep me")
		ep := a.endpoint()
		sign := func(q string) string { return q + "&hash=" + wire.Hash(q, a.Key) }
		read := sign("action=get_projects") // the leaked URL
		form, js := "application/x-www-form-urlencoded", "application/json"
		admin := func(action string) http.Header {
			return http.Header{"Authorization": {wire.AdminHeader(a.Key, action, time.Now())}}
		}
		for _, tc := range []badRequest{
			{"signed query, form body with another action", "POST", ep + "?" + read, form, "action=delete_task&id_task=" + tid, nil, 401, api.CodeAuth},
			{"signed query, form body with an extra parameter", "POST", ep + "?" + read, form, "filter=archive", nil, 401, api.CodeAuth},
			{"signed query, JSON body", "POST", ep + "?" + read, js, `{"action":"delete_task","id_task":"` + tid + `"}`, nil, 401, api.CodeAuth},
			{"signed form body, query parameters", "POST", ep + "?id_task=" + tid, form, sign("action=delete_task"), nil, 401, api.CodeAuth},
			{"signed form body, action in the query", "POST", ep + "?action=delete_task", form, sign("id_task=" + tid), nil, 401, api.CodeAuth},
			{"hash in the query and in the body", "POST", ep + "?" + read, form, read, nil, 401, api.CodeAuth},
			{"hash in a JSON body", "POST", ep, js, `{"action":"get_projects","hash":"` + wire.Hash("action=get_projects", a.Key) + `"}`, nil, 401, api.CodeAuth},
			// a%26b%3Dc must not pass for a&b=c, nor the reverse.
			{"decoding merges two signed parameters into one", "GET",
				ep + "?action=update_task&id_task=" + tid + "&title=x%26text%3Dy&hash=" + wire.Hash("action=update_task&id_task="+tid+"&title=x&text=y", a.Key), "", "", nil, 401, api.CodeAuth},
			{"decoding splits one signed parameter into two", "GET",
				ep + "?action=update_task&id_task=" + tid + "&title=x&text=y&hash=" + wire.Hash("action=update_task&id_task="+tid+"&title=x%26text%3Dy", a.Key), "", "", nil, 401, api.CodeAuth},
			{"a signed space sent as a literal plus", "GET",
				ep + "?action=update_task&id_task=" + tid + "&title=a%2Bb&hash=" + wire.Hash("action=update_task&id_task="+tid+"&title=a+b", a.Key), "", "", nil, 401, api.CodeAuth},
			{"an action hidden in a signed value", "GET",
				ep + "?action=get_projects%26action%3Ddelete_task&hash=" + wire.Hash("action=get_projects&action=delete_task", a.Key), "", "", nil, 401, api.CodeAuth},
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

// badRequest is a request an API must refuse, and the HTTP status and
// code it must answer.
type badRequest struct {
	name        string
	method, url string
	ctype, body string
	header      http.Header
	http        int
	code        api.Code
}
