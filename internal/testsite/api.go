package testsite

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd/wire"
)

// JSON is v as compact JSON.
func JSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// OKReceiver is a webhook destination that accepts every delivery.
func OKReceiver(t testing.TB) *httptest.Server {
	t.Helper()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(recv.Close)
	return recv
}

// APIOK calls the site's account API with its key and fails the test
// unless the answer is ok.
func (s *Site) APIOK(query string) map[string]any {
	s.t.Helper()
	status, body := APICall(s.t, s.AccountURL(), s.Key, query)
	if status != 200 || body["status"] != "ok" {
		s.t.Fatalf("%s: %d %v", query, status, body)
	}
	return body
}

// APICall makes a hash-signed GET of the administrative API and returns
// the HTTP status and the decoded answer.
func APICall(t testing.TB, accountURL, key, q string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", accountURL+"/api/admin/v2/?"+q+"&hash="+wire.Hash(q, key), nil)
	status, body, _ := DoJSON(t, req)
	return status, body
}

// DoJSON sends req and decodes the JSON object it answers.
func DoJSON(t testing.TB, req *http.Request) (int, map[string]any, http.Header) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatalf("%s %s: answer is not JSON: %v", req.Method, req.URL.Path, err)
	}
	return res.StatusCode, body, res.Header
}

// DecodeJSON decodes a request's JSON body into v, ignoring errors.
func DecodeJSON(r *http.Request, v any) { json.NewDecoder(r.Body).Decode(v) }

// JSONNumber formats a decoded JSON number as the API wrote it.
func JSONNumber(v any) string { return strconv.FormatFloat(v.(float64), 'f', -1, 64) }

// APIID calls the site's account API with its key, fails the test unless
// the answer is ok, and returns the id of what it made.
func (s *Site) APIID(query string) string {
	s.t.Helper()
	id, ok := s.APIOK(query)["data"].(map[string]any)["id"].(string)
	if !ok {
		s.t.Fatalf("%s: the answer has no id", query)
	}
	return id
}

// Query is a query string of pairs (name, value, name, value, …), each
// escaped, in the order given: an API call's parameters in the order the
// hash signs them.
func Query(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(pairs[i]) + "=" + url.QueryEscape(pairs[i+1]))
	}
	return b.String()
}
