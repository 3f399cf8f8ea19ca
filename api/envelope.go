package api

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/taskd/taskd"
)

// httpStatus maps an error code to the HTTP status of its response.
// Action-level errors answer 200 (compat: clients branch on "status").
func httpStatus(code taskd.Code) int {
	switch code {
	case taskd.CodeAuth:
		return http.StatusUnauthorized
	case taskd.CodeMalformed:
		return http.StatusBadRequest
	case taskd.CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case taskd.CodeMethod:
		return http.StatusMethodNotAllowed
	case taskd.CodeForbidden:
		return http.StatusForbidden
	case taskd.CodeRateLimited:
		return http.StatusTooManyRequests
	case taskd.CodeInternal:
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

// WriteError writes err in the error envelope. It is the one place where an
// error becomes an API response; internal causes are logged, never sent.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	e := taskd.AsError(err)
	status := httpStatus(e.Code)
	if e.Code == taskd.CodeInternal {
		log.ErrorContext(r.Context(), "internal error", "path", r.URL.Path, "err", e.Err)
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
	w.WriteHeader(status)
	w.Write(body)
}
