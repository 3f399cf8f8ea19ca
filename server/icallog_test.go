package server_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskd/taskd/server"
)

// TestFeedSecretsAreNotLogged: the access log and the panic log write a
// calendar feed's path without its secret (issue 35).
func TestFeedSecretsAreNotLogged(t *testing.T) {
	const secret = "s3cr3tS3CR3Ts3cr3tS3CR3Ts3cr3tS3CR3Ts3cr3tX"
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	page := func(w http.ResponseWriter, r *http.Request, status int) { w.WriteHeader(status) }
	for _, next := range []http.HandlerFunc{
		func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("BEGIN:VCALENDAR")) },
		func(http.ResponseWriter, *http.Request) { panic("boom") },
	} {
		h := server.WithRecover(log, page, server.WithAccessLog(log, next))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/ical/"+secret+".ics", nil))
	}
	if got := buf.String(); strings.Contains(got, secret) || !strings.Contains(got, "/ical/…") || !strings.Contains(got, "panic") {
		t.Errorf("the logs:\n%s", got)
	}
}
