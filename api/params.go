package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/upload"
)

// MaxBody is the largest request body the API reads.
const MaxBody = 1 << 20

// source is one place a request's parameters came from: the query string, a
// form body or a JSON body.
type source struct {
	name   string
	params map[string]string
	// form is the form-encoded text the parameters were parsed from; empty
	// for JSON. A hash parameter signs exactly this text.
	form string
}

func (s *source) has(name string) bool {
	_, ok := s.params[name]
	return ok
}

// request is a parsed API request: its parameters by source, before the
// caller's authentication decides which of them count.
type request struct {
	query source
	body  source // params nil when there is no body
	// parts are a multipart body's files, streamed after authentication.
	parts *fileParts
}

// parseRequest reads the query string and a form or JSON body, each on its
// own. Codes: 17 malformed or a parameter given twice in one source, 18 too
// large, 19 method.
func parseRequest(w http.ResponseWriter, r *http.Request, uploads *upload.Gate) (*request, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		return nil, failf(CodeMethod, r.Method, "Method is not allowed; use GET or POST")
	}
	req := &request{query: source{name: "query string", form: r.URL.RawQuery}}
	var err error
	if req.query.params, err = parseForm(r.URL.RawQuery, "query string"); err != nil {
		return nil, err
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" && r.Method == http.MethodPost {
		if err := parseMultipart(w, r, req, uploads); err != nil {
			return nil, err
		}
		return req, nil
	}
	if r.Body == nil || r.Body == http.NoBody { // nothing to read (most GETs)
		return req, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, failf(CodeTooLarge, "", "Request body is larger than %d bytes", MaxBody)
	}
	if err != nil {
		return nil, failf(CodeMalformed, "body", "Request body could not be read")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return req, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-www-form-urlencoded":
		req.body = source{name: "form body", form: string(body)}
		req.body.params, err = parseForm(string(body), "body")
	case "application/json":
		req.body = source{name: "JSON body"}
		req.body.params, err = parseJSON(body)
	default:
		return nil, failf(CodeMalformed, "Content-Type",
			"Body must be application/x-www-form-urlencoded or application/json")
	}
	if err != nil {
		return nil, err
	}
	return req, nil
}

// merged returns the parameters of every source, for credentials that do
// not sign parameters (the Admin header, an access token). A parameter
// given in two sources is refused (17): no value silently wins.
func (req *request) merged() (map[string]string, error) {
	if len(req.body.params) == 0 {
		return req.query.params, nil
	}
	out := make(map[string]string, len(req.query.params)+len(req.body.params))
	for k, v := range req.query.params {
		out[k] = v
	}
	for k, v := range req.body.params {
		if _, dup := out[k]; dup {
			return nil, failf(CodeMalformed, k, "Parameter is given both in the query string and in the body")
		}
		out[k] = v
	}
	return out, nil
}

// signed returns the one source that carries the hash parameter. A signed
// request must bring every parameter in that source: anything in another
// source would run unsigned (a leaked URL for a harmless read must not
// carry a write), so it is refused with code 2, as is a hash in a JSON body
// (the hash signs form-encoded text) or in two sources.
func (req *request) signed() (*source, error) {
	q, b := req.query.has("hash"), req.body.has("hash")
	switch {
	case q && !b && len(req.body.params) == 0:
		return &req.query, nil
	case b && !q && req.body.form != "" && len(req.query.params) == 0:
		return &req.body, nil
	case !q && !b:
		return nil, fail(CodeAuth, "")
	case b && req.body.form == "":
		return nil, failf(CodeAuth, "hash", "The hash signs a form-encoded query string or body; sign JSON bodies with the Admin header")
	}
	return nil, failf(CodeAuth, "hash", "A signed request carries every parameter in the part the hash signs")
}

// parseForm parses form-encoded text. A parameter given twice is refused
// rather than guessed at.
func parseForm(raw, where string) (map[string]string, error) {
	values, err := url.ParseQuery(raw)
	if err != nil {
		return nil, failf(CodeMalformed, where, "The %s is not valid form encoding", where)
	}
	out := make(map[string]string, len(values))
	for k, vs := range values {
		if len(vs) > 1 {
			return nil, failf(CodeMalformed, k, "Parameter is given more than once")
		}
		if err := checkText(k, vs[0]); err != nil {
			return nil, err
		}
		out[k] = vs[0]
	}
	return out, nil
}

// parseJSON parses a JSON object of scalar values. A key given twice is
// refused (encoding/json would keep the last one silently), and so are
// nested values but lists (jsonList) and nestedParam's object. A null
// value counts as absent.
func parseJSON(body []byte) (map[string]string, error) {
	// encoding/json would quietly replace invalid bytes with U+FFFD.
	if !utf8.Valid(body) {
		return nil, failf(CodeMalformed, "body", "Body is not valid UTF-8")
	}
	notObject := failf(CodeMalformed, "body", "Body is not a JSON object")
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, notObject
	}
	out := make(map[string]string)
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notObject
		}
		k := tok.(string) // object keys are always strings
		if seen[k] {
			return nil, failf(CodeMalformed, k, "Parameter is given more than once")
		}
		seen[k] = true
		if k == nestedParam {
			s, null, err := nested(dec)
			if err != nil {
				return nil, err
			}
			if !null {
				out[k] = s
			}
			continue
		}
		if tok, err = dec.Token(); err != nil {
			return nil, notObject
		}
		var s string
		switch v := tok.(type) {
		case string:
			s = v
		case json.Number:
			s = v.String()
		case bool:
			s = "false"
			if v {
				s = "true"
			}
		case nil:
			continue
		case json.Delim:
			if v == '{' && k == "custom_fields" { // {"custom_fields": {"ID": value}}
				if err := jsonFields(dec, out, seen); err != nil {
					return nil, err
				}
				continue
			}
			if v != '[' {
				return nil, failf(CodeMalformed, k, "Parameter must be a string, number, boolean or list of them")
			}
			if s, err = jsonList(dec, k); err != nil {
				return nil, err
			}
		}
		if err := checkText(k, s); err != nil {
			return nil, err
		}
		out[k] = s
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, notObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, failf(CodeMalformed, "body", "Body has data after the JSON object")
	}
	return out, nil
}

// nestedParam is the one parameter a JSON body may give as an object:
// update_users_schedule's data, keyed by e-mail (C14). It arrives as the
// object's JSON text, as a form or query string carries it.
const nestedParam = "data"

// nested reads nestedParam's value: an object's JSON text, a string's
// content, or null.
func nested(dec *json.Decoder) (s string, null bool, err error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return "", false, failf(CodeMalformed, "body", "Body is not a JSON object")
	}
	switch {
	case string(raw) == "null":
		return "", true, nil
	case raw[0] == '"':
		err = json.Unmarshal(raw, &s)
	default:
		s = string(raw)
	}
	if err == nil {
		err = checkText(nestedParam, s)
	}
	return s, false, err
}

// jsonList reads the rest of a JSON array of strings and numbers (the
// Python SDK sends lists where the API takes comma lists) as the comma
// list. An element with a comma in it, or a nested value, is refused: it
// could not be told apart from two elements.
func jsonList(dec *json.Decoder, k string) (string, error) {
	var items []string
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", failf(CodeMalformed, "body", "Body is not a JSON object")
		}
		switch v := tok.(type) {
		case string:
			if strings.Contains(v, ",") {
				return "", failf(CodeMalformed, k, "A list element may not contain a comma")
			}
			items = append(items, v)
		case json.Number:
			items = append(items, v.String())
		case json.Delim:
			switch {
			case v == ']':
				return strings.Join(items, ","), nil
			case v == '{' && k == "files": // upload_files' objects, by id (C12)
				id, err := uploadedID(dec)
				if err != nil {
					return "", err
				}
				items = append(items, id)
				continue
			}
			return "", failf(CodeMalformed, k, "A list holds strings and numbers only")
		default:
			return "", failf(CodeMalformed, k, "A list holds strings and numbers only")
		}
	}
}

// jsonFields reads the rest of a custom_fields object, {"ID": value}, as
// the parameters custom_fields[ID] (the form a query string sends them
// in). A value is a string or a number; null is absent, as elsewhere. A
// parameter given both ways is refused, as any parameter given twice.
func jsonFields(dec *json.Decoder, out map[string]string, seen map[string]bool) error {
	bad := failf(CodeMalformed, "custom_fields", "custom_fields is an object of field ids and their values (strings or numbers)")
	for {
		tok, err := dec.Token()
		if err != nil {
			return bad
		}
		if tok == json.Delim('}') {
			return nil
		}
		name := "custom_fields[" + tok.(string) + "]" // object keys are always strings
		if seen[name] {
			return failf(CodeMalformed, name, "Parameter is given more than once")
		}
		seen[name] = true
		v, err := dec.Token()
		if err != nil {
			return bad
		}
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case json.Number:
			s = v.String()
		case nil:
			continue
		default:
			return bad
		}
		if err := checkText(name, s); err != nil {
			return err
		}
		out[name] = s
	}
}

// checkText refuses invalid UTF-8 and NUL bytes in names and values.
func checkText(k, v string) error {
	if !utf8.ValidString(k) || !utf8.ValidString(v) || strings.ContainsRune(k, 0) || strings.ContainsRune(v, 0) {
		name := k
		if !utf8.ValidString(name) {
			name = strings.ToValidUTF8(name, "\uFFFD")
		}
		return failf(CodeMalformed, name, "Parameter is not valid UTF-8 text")
	}
	return nil
}

// uploadedID reads the rest of one of upload_files' objects ({id, ext,
// name, icon, error}) in a files list and returns its id.
func uploadedID(dec *json.Decoder) (string, error) {
	bad := failf(CodeMalformed, "files", "files lists the objects upload_files answered, or their ids")
	id := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", bad
		}
		if tok == json.Delim('}') {
			if id == "" {
				return "", bad
			}
			return id, nil
		}
		key, _ := tok.(string)
		v, err := dec.Token()
		if err != nil {
			return "", bad
		}
		switch v := v.(type) {
		case json.Delim:
			return "", bad
		case string:
			if key == "id" {
				id = v
			}
		case json.Number:
			if key == "id" {
				id = v.String()
			}
		}
	}
}

// sent is a parameter as sent, in the query or the body, before
// authentication decides which parameters count.
func (req *request) sent(name string) string {
	if v, ok := req.query.params[name]; ok {
		return v
	}
	return req.body.params[name]
}

// actsAsOwner tells, from the parameters as sent, whether the call is a
// change with no email_user_from: one that acts as the account's owner
// when made with the administrative key. It only chooses what the
// account's query reads along (adminAPI.account); call.actor decides on
// the authenticated parameters.
func (req *request) actsAsOwner() bool {
	action := req.sent("action")
	return action != "" && !strings.HasPrefix(action, "get_") && req.sent("email_user_from") == ""
}

// listProject is the project of a get_tasks call as sent, before
// authentication decides which parameters count; 0 for any other call. It
// only chooses what the account's query reads along (adminAPI.account).
func (req *request) listProject() int64 {
	get := func(name string) string {
		if v, ok := req.query.params[name]; ok {
			return v
		}
		return req.body.params[name]
	}
	if get("action") != "get_tasks" {
		return 0
	}
	id, err := taskd.ParseID(get("id_project"), "id_project")
	if err != nil {
		return 0
	}
	return id
}
