package server

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd/metrics"
)

// statusWriter remembers the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// loggedPath is a path as the logs show it: a calendar feed's secret
// (/ical/{secret}.ics, issue 35) is left out.
func loggedPath(path string) string {
	if strings.HasPrefix(path, "/ical/") {
		return "/ical/…"
	}
	return path
}

// withAccessLog logs one line per request at debug level. It logs the path
// only: query strings can carry keys, hashes and tokens.
func withAccessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !log.Enabled(r.Context(), slog.LevelDebug) {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		log.DebugContext(r.Context(), "request", "method", r.Method, "path", loggedPath(r.URL.Path),
			"status", sw.status, "bytes", sw.bytes, "duration_ms", float64(time.Since(start).Microseconds())/1000)
	})
}

// withHSTS tells browsers to reach this host only over HTTPS for a year
// (RFC 6797). It is on when taskd serves TLS or sits behind a proxy that
// serves an https public URL: once a browser has it, a network attacker can
// no longer downgrade a visit to plain HTTP and read the session cookie.
// includeSubDomains is left out: the host's siblings are not taskd's to
// decide for.
func withHSTS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", "max-age=31536000")
		next.ServeHTTP(w, r)
	})
}

// withRecover turns a panic into a 500, logging the stack: in the API's
// JSON envelope where clients read JSON (the account APIs and the OAuth
// endpoints), and as an error page everywhere else.
func withRecover(log *slog.Logger, page func(http.ResponseWriter, *http.Request, int), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			log.ErrorContext(r.Context(), "panic", "path", loggedPath(r.URL.Path), "panic", v, "stack", string(debug.Stack()))
			if !readsJSON(r.URL.Path) {
				page(w, r, http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"status":"error","status_code":99,"message":"Internal error"}` + "\n"))
		}()
		next.ServeHTTP(w, r)
	})
}

// readsJSON reports whether the client of path reads JSON: an account API
// (/a/{slug}/api/…) or an OAuth endpoint other than the authorize page.
func readsJSON(path string) bool {
	if rest, ok := strings.CutPrefix(path, "/a/"); ok {
		_, sub, _ := strings.Cut(rest, "/")
		return sub == "api" || strings.HasPrefix(sub, "api/")
	}
	if strings.HasPrefix(path, "/.well-known/") {
		return true
	}
	return strings.HasPrefix(path, "/oauth2/") && path != "/oauth2/authorize"
}

// withMetrics counts requests by route pattern and status class, and times
// them. The pattern (set by the ServeMux that handled the request) keeps
// the number of series bounded, whatever paths clients send.
func withMetrics(reg *metrics.Registry, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		class := strconv.Itoa(status/100) + "xx"
		reg.Add("taskd_http_requests_total", "HTTP requests by route pattern and status class.", 1, "route", route, "code", class)
		reg.Observe("taskd_http_request_duration_seconds", "Time to answer an HTTP request, by route pattern.", time.Since(start), "route", route)
	})
}
