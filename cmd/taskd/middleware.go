package main

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
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
		log.DebugContext(r.Context(), "request", "method", r.Method, "path", r.URL.Path,
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

// withRecover turns a panic into a 500 in the API envelope, logging the stack.
func withRecover(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.ErrorContext(r.Context(), "panic", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte(`{"status":"error","status_code":99,"message":"Internal error"}` + "\n"))
			}
		}()
		next.ServeHTTP(w, r)
	})
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
