package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/taskd/taskd"
)

// MaxBody is the largest request body the API reads.
const MaxBody = 1 << 20

// request is a parsed API request: merged parameters plus what the hash
// signature covers.
type request struct {
	params map[string]string
	// signed is the raw form-encoded string that carried the hash parameter
	// (the query string or a form body), for hash verification.
	signed string
}

// parseRequest reads parameters from the query string, a form body or a JSON
// body; body values win. Codes: 17 malformed, 18 too large, 19 method.
func parseRequest(w http.ResponseWriter, r *http.Request) (*request, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		return nil, taskd.Errorf(taskd.CodeMethod, r.Method, "Method is not allowed; use GET or POST")
	}
	req := &request{params: make(map[string]string, 8)}
	if err := addForm(req.params, r.URL.RawQuery, "query string"); err != nil {
		return nil, err
	}
	if _, ok := req.params["hash"]; ok {
		req.signed = r.URL.RawQuery
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, taskd.Errorf(taskd.CodeTooLarge, "", "Request body is larger than %d bytes", MaxBody)
	}
	if err != nil {
		return nil, taskd.Errorf(taskd.CodeMalformed, "body", "Request body could not be read")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return req, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-www-form-urlencoded":
		bodyParams := make(map[string]string)
		if err := addForm(bodyParams, string(body), "body"); err != nil {
			return nil, err
		}
		if _, ok := bodyParams["hash"]; ok {
			req.signed = string(body)
		}
		for k, v := range bodyParams {
			req.params[k] = v
		}
	case "application/json":
		if err := addJSON(req.params, body); err != nil {
			return nil, err
		}
	default:
		return nil, taskd.Errorf(taskd.CodeMalformed, "Content-Type",
			"Body must be application/x-www-form-urlencoded or application/json")
	}
	return req, nil
}

// addForm parses a form-encoded string into dst. A parameter given twice in
// one source is refused rather than guessed at.
func addForm(dst map[string]string, raw, where string) error {
	values, err := url.ParseQuery(raw)
	if err != nil {
		return taskd.Errorf(taskd.CodeMalformed, where, "The %s is not valid form encoding", where)
	}
	for k, vs := range values {
		if len(vs) > 1 {
			return taskd.Errorf(taskd.CodeMalformed, k, "Parameter is given more than once")
		}
		if err := checkText(k, vs[0]); err != nil {
			return err
		}
		dst[k] = vs[0]
	}
	return nil
}

// addJSON parses a JSON object of scalar values into dst.
func addJSON(dst map[string]string, body []byte) error {
	// encoding/json would quietly replace invalid bytes with U+FFFD.
	if !utf8.Valid(body) {
		return taskd.Errorf(taskd.CodeMalformed, "body", "Body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return taskd.Errorf(taskd.CodeMalformed, "body", "Body is not a JSON object")
	}
	if dec.More() {
		return taskd.Errorf(taskd.CodeMalformed, "body", "Body has data after the JSON object")
	}
	for k, v := range obj {
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case json.Number:
			s = v.String()
		case bool:
			s = strconv.FormatBool(v)
		case nil:
			continue
		default:
			return taskd.Errorf(taskd.CodeMalformed, k, "Parameter must be a string, number or boolean")
		}
		if err := checkText(k, s); err != nil {
			return err
		}
		dst[k] = s
	}
	return nil
}

// checkText refuses invalid UTF-8 and NUL bytes in names and values.
func checkText(k, v string) error {
	if !utf8.ValidString(k) || !utf8.ValidString(v) || strings.ContainsRune(k, 0) || strings.ContainsRune(v, 0) {
		name := k
		if !utf8.ValidString(name) {
			name = strings.ToValidUTF8(name, "\uFFFD")
		}
		return taskd.Errorf(taskd.CodeMalformed, name, "Parameter is not valid UTF-8 text")
	}
	return nil
}
