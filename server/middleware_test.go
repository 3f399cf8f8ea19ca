package server_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/server"
)

// TestPanicsAnswerInKind: a panic becomes a 500 in the JSON envelope where
// clients read JSON, and an error page elsewhere; the server goes on.
func TestPanicsAnswerInKind(t *testing.T) {
	page := func(w http.ResponseWriter, r *http.Request, status int) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		w.Write([]byte("<p>error page</p>"))
	}
	h := server.WithRecover(slog.New(slog.DiscardHandler), page, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("boom")
	}))
	for path, json := range map[string]bool{
		"/a/acme/api/admin/v2/": true, "/a/acme/api/oauth2": true, "/a/acme/api": true, "/oauth2/token": true,
		"/.well-known/oauth-authorization-server": true,
		"/a/acme/": false, "/a/acme/apis": false, "/a/api/": false, "/oauth2/authorize": false, "/login": false, "/": false,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		body := rec.Body.String()
		if rec.Code != http.StatusInternalServerError {
			t.Errorf("%s: HTTP %d", path, rec.Code)
		}
		if json && body != `{"status":"error","status_code":99,"message":"Internal error"}`+"\n" {
			t.Errorf("%s: %q, want the JSON envelope", path, body)
		}
		if !json && !strings.Contains(body, "error page") {
			t.Errorf("%s: %q, want the error page", path, body)
		}
	}
}

// TestNotFoundInKind: unknown addresses under an account's API answer in
// the JSON envelope; every other unknown address gets the HTML page.
func TestNotFoundInKind(t *testing.T) {
	s := testsite.New(t)
	for path, wantType := range map[string]string{
		"/a/" + s.Slug + "/api/admin/v3": "application/json", "/a/" + s.Slug + "/api/": "application/json",
		"/nowhere": "text/html", "/oauth2/nowhere": "text/html", "/a/" + s.Slug + "/nowhere": "text/html",
	} {
		res, err := http.Get(s.Base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusNotFound || !strings.HasPrefix(ct, wantType) {
			t.Errorf("GET %s: HTTP %d %s, want 404 %s", path, res.StatusCode, ct, wantType)
		}
	}
}

// TestDocumentsRefuseOtherMethods: the JWKS and the metadata answer 405
// with Allow to anything but GET and HEAD.
func TestDocumentsRefuseOtherMethods(t *testing.T) {
	s := testsite.New(t)
	for _, path := range []string{"/oauth2/jwks", "/.well-known/oauth-authorization-server"} {
		for method, want := range map[string]int{"GET": 200, "HEAD": 200, "POST": 405, "DELETE": 405} {
			req, _ := http.NewRequest(method, s.Base+path, nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != want || (want == 405 && res.Header.Get("Allow") != "GET, HEAD") {
				t.Errorf("%s %s: %d (Allow %q), want %d", method, path, res.StatusCode, res.Header.Get("Allow"), want)
			}
		}
	}
}
