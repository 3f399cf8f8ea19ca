package webhook_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/webhook"
)

// TestExplainSaysWhyOnce: each way a real destination fails is stored as
// a short reason (unchanged: the API returns it as last_error) and
// explained for people in one plain sentence that says it once.
func TestExplainSaysWhyOnce(t *testing.T) {
	answer := func(status int, contentType, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if status == http.StatusFound {
				w.Header().Set("Location", "/elsewhere")
			}
			if contentType != "" {
				w.Header().Set("Content-Type", contentType)
			}
			w.WriteHeader(status)
			w.Write([]byte(body))
		}
	}
	serve := func(h http.Handler) string {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		name         string
		url          string
		allowPrivate bool
		stored, said string
	}{
		{"unauthorized", serve(answer(401, "text/plain", "who are you")), true,
			"HTTP 401, want 200", "The receiver answered 401 Unauthorized"},
		{"server error", serve(answer(503, "", "")), true,
			"HTTP 503, want 200", "The receiver answered 503 Service Unavailable"},
		{"unknown status", serve(answer(299, "", "")), true,
			"HTTP 299, want 200", "The receiver answered 299"},
		{"redirect", serve(answer(http.StatusFound, "", "")), true,
			"HTTP 302 redirect (redirects are not followed)", "The receiver answered 302 Found, a redirect; redirects are not followed"},
		{"not JSON", serve(answer(200, "text/html", "<p>OK</p>")), true,
			`content type "text/html" is not JSON`, `The receiver's answer has the content type "text/html", not JSON`},
		{"no content type", serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil
			w.Write([]byte(`{"status":"OK"}`))
		})), true, `content type "" is not JSON`, "The receiver's answer has no content type; it must be JSON"},
		{"status not OK", serve(answer(200, "application/json", `{"status":"fine"}`)), true,
			`body is not a JSON object with "status": "OK"`, `The receiver's answer is not a JSON object with "status": "OK"`},
		{"too long", serve(answer(200, "application/json", strings.Repeat(" ", 64<<10+1))), true,
			"answer longer than 65536 bytes", "The receiver's answer is longer than 65536 bytes"},
		{"refused", refused, true, "connection refused", "The receiver's host refused the connection"},
		{"private", serve(answer(200, "application/json", `{"status":"OK"}`)), false,
			"the destination resolves to a non-public (private, loopback, link-local, multicast, reserved or special-purpose) address",
			"The receiver's address is not a public one (it is private, loopback, link-local, multicast, reserved or special-purpose), and webhooks are sent only to public addresses"},
		{"no such host", "http://no-such-host.invalid/", true, "host not found", "The receiver's host name was not found (DNS)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := webhook.Post(context.Background(), webhook.NewHTTPClient(tc.allowPrivate),
				webhook.Request{URL: tc.url, Secret: "whsec_" + strings.Repeat("A", 32), ID: "evt_1", Body: []byte("[]")}, time.Now())
			if res.OK || res.Error != tc.stored {
				t.Fatalf("stored reason %q (ok %t), want %q", res.Error, res.OK, tc.stored)
			}
			if got := webhook.Explain(res.Error); got != tc.said {
				t.Fatalf("Explain(%q) = %q, want %q", res.Error, got, tc.said)
			}
		})
	}
}

// TestExplainInLongerTexts: a reason at the end of a longer text (why a
// webhook was disabled) is explained in place; other texts are left alone.
func TestExplainInLongerTexts(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"The URL check failed when enabling: HTTP 503, want 200",
			"The URL check failed when enabling: the receiver answered 503 Service Unavailable"},
		{"Disabled automatically after 10 consecutive failed attempts; the last: no answer within 5s",
			"Disabled automatically after 10 consecutive failed attempts; the last: the receiver did not answer within 5 seconds"},
		{"connection failed: network is unreachable", "The connection to the receiver failed (network is unreachable)"},
		{"Disabled by hand", "Disabled by hand"},
		{"HTTP 503", "HTTP 503"},
		{"", ""},
	} {
		if got := webhook.Explain(tc.text); got != tc.want {
			t.Errorf("Explain(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
