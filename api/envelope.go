package api

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// httpStatus maps an error code to the HTTP status of its response.
// Action-level errors answer 200 (compat: clients branch on "status").
func httpStatus(code Code) int {
	switch code {
	case CodeAuth:
		return http.StatusUnauthorized
	case CodeMalformed:
		return http.StatusBadRequest
	case CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeMethod:
		return http.StatusMethodNotAllowed
	case CodeForbidden:
		return http.StatusForbidden
	case CodeRateLimited:
		return http.StatusTooManyRequests
	case CodeInternal:
		return http.StatusInternalServerError
	}
	return http.StatusOK
}

// errorBody is the error envelope.
type errorBody struct {
	Status         string `json:"status"`
	StatusCode     int    `json:"status_code"`
	Message        string `json:"message"`
	MessageDetails string `json:"message_details,omitempty"`
}

// writeError writes err in the error envelope. It is the one place where an
// error becomes an API response; internal causes are logged, never sent.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	e := asError(err)
	status := httpStatus(e.Code)
	if e.Code == CodeInternal {
		log.ErrorContext(r.Context(), "internal error", "path", r.URL.Path, "err", e.cause)
	}
	switch status {
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", "GET, POST")
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", strconv.Itoa(int(max(e.RetryAfter, time.Second)/time.Second)))
	}
	writeJSON(w, status, errorBody{Status: "error", StatusCode: int(e.Code), Message: e.Message, MessageDetails: e.Details})
}

// okBody is the success envelope; Data is left out when nil.
type okBody struct {
	Status string `json:"status"`
	ID     any    `json:"id,omitempty"`
	Data   any    `json:"data,omitempty"`
}

// writeJSON writes v, or the rendered body v, as the response, in one Write.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var body []byte
	if raw, ok := v.(rawJSON); ok {
		body = raw
	} else {
		var err error
		if body, err = json.Marshal(v); err != nil {
			status, body = http.StatusInternalServerError, []byte(`{"status":"error","status_code":99,"message":"Internal error"}`)
		}
		body = append(body, '\n')
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	// With its length, a body goes out in one piece rather than in
	// chunks, with no chunk header or final empty chunk to write.
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
