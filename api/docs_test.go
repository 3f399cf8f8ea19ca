package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/wire"
)

// docsPath is the API's reference. The tests of this file hold it to the
// server: every action of the action table is in one of its tables with
// its scope and every parameter it accepts, a parameter it marks required
// is required, and its examples are the server's answers.
const docsPath = "../docs/api.md"

// actionHeader heads every action table of docs/api.md.
const actionHeader = "| action | scope | parameters (* required) | answer | errors |"

// docRow is a row of an action table: the actions it documents (one, or
// several that take the same parameters) and its cells.
type docRow struct {
	line                          int
	actions                       []string
	scope, params, answer, errors string
}

// fileParts are the parts of a multipart body an action requires that are
// not parameters, by action.
var fileParts = map[string]string{"upload_files": "files[]"}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	starred    = regexp.MustCompile(`([a-z0-9_]+(?:\[\])?)\*`)
	number     = regexp.MustCompile(`\d+`)
	codeRow    = regexp.MustCompile(`^\| (\d+) \| \d{3} \|`)
)

func readDocs(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// actionRows reads the rows of the tables headed by actionHeader. A row
// must have its five cells, so a "|" inside a cell fails here rather than
// shift the cells silently.
func actionRows(t *testing.T, doc string) []docRow {
	t.Helper()
	var rows []docRow
	inTable := false
	for i, l := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(l, "| action |"):
			if l != actionHeader {
				t.Fatalf("%s:%d: an action table is headed %q, want %q", docsPath, i+1, l, actionHeader)
			}
			inTable = true
			continue
		case !strings.HasPrefix(l, "|"):
			inTable = false
			continue
		case !inTable || strings.HasPrefix(l, "|---"):
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(l), "|"), "|"), "|")
		if len(cells) != 5 {
			t.Fatalf("%s:%d: an action row has 5 cells, this one %d (a | in a cell?)", docsPath, i+1, len(cells))
		}
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		row := docRow{line: i + 1, scope: cells[1], params: cells[2], answer: cells[3], errors: cells[4]}
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			row.actions = append(row.actions, m[1])
		}
		if len(row.actions) == 0 {
			t.Fatalf("%s:%d: a row names no action (write each in backticks)", docsPath, i+1)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		t.Fatalf("%s has no action table headed %q", docsPath, actionHeader)
	}
	return rows
}

// required lists the parameters a row marks with *.
func (r docRow) required() []string {
	var out []string
	for _, m := range starred.FindAllStringSubmatch(r.params, -1) {
		out = append(out, m[1])
	}
	return out
}

// mentions reports whether the parameters cell names the parameter as a
// word of its own.
func (r docRow) mentions(param string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_\[])` + regexp.QuoteMeta(param) + `($|[^A-Za-z0-9_\[])`)
	return re.MatchString(r.params)
}

// docCodes are the codes of the error table of docs/api.md.
func docCodes(doc string) map[string]bool {
	codes := map[string]bool{}
	for _, l := range strings.Split(doc, "\n") {
		if m := codeRow.FindStringSubmatch(l); m != nil {
			codes[m[1]] = true
		}
	}
	return codes
}

// TestDocsListEveryAction: docs/api.md documents every action the server
// answers (the action table, with me) once, and no action it does not
// answer; each row gives the action's scope, names every parameter the
// action accepts, marks as required only parameters the action accepts,
// and names as errors only codes of the error table.
func TestDocsListEveryAction(t *testing.T) {
	t.Parallel()
	doc := readDocs(t)
	scopes := api.ActionScopes()
	codes := docCodes(doc)
	if len(codes) < 20 {
		t.Fatalf("%s: the error table lists %d codes; is it still headed | code | HTTP | meaning |?", docsPath, len(codes))
	}
	seen := map[string]int{}
	for _, row := range actionRows(t, doc) {
		for _, name := range row.actions {
			scope, answered := scopes[name]
			if !answered {
				t.Errorf("%s:%d: %s is documented, but the server answers no such action", docsPath, row.line, name)
				continue
			}
			if line, twice := seen[name]; twice {
				t.Errorf("%s:%d: %s is documented again (first at line %d)", docsPath, row.line, name, line)
			}
			seen[name] = row.line
			if want := "`" + scope + "`"; scope == "*" && row.scope != "any token" || scope != "*" && row.scope != want {
				t.Errorf("%s:%d: %s's scope is given as %q; the action table says %q", docsPath, row.line, name, row.scope, scope)
			}
			for _, p := range api.ActionParams(name) {
				if !row.mentions(p) {
					t.Errorf("%s:%d: %s accepts %s, which its row does not mention", docsPath, row.line, name, p)
				}
			}
			for _, p := range row.required() {
				if !slices.Contains(api.ActionParams(name), p) && fileParts[name] != p {
					t.Errorf("%s:%d: %s* is marked required, but %s does not accept it", docsPath, row.line, p, name)
				}
			}
		}
		if row.errors == "" {
			t.Errorf("%s:%d: the errors cell is empty (write — when there are none)", docsPath, row.line)
		}
		for _, c := range number.FindAllString(row.errors, -1) {
			if !codes[c] {
				t.Errorf("%s:%d: the errors cell names %s, which is no code of the error table", docsPath, row.line, c)
			}
		}
	}
	for name := range scopes {
		if _, ok := seen[name]; !ok {
			t.Errorf("action %s is missing from %s", name, docsPath)
		}
	}
}

// TestDocsRequiredParameters calls every action without each parameter its
// row marks required, the others given, and expects code 10 naming it:
// what the docs call required, the server requires.
func TestDocsRequiredParameters(t *testing.T) {
	t.Parallel()
	rows := actionRows(t, readDocs(t))
	s := newServer(t, testdb.New(t, "sqlite"))
	a := s.newAccount(t)
	token := accessToken(t, s, a, taskd.Scopes...)
	admin := map[string]bool{}
	for _, name := range api.AdminActions() {
		admin[name] = true
	}
	// placeholder is a value of the parameter's kind: the checks of
	// required parameters come before anything is looked up.
	placeholder := func(p string) string {
		switch {
		case strings.HasPrefix(p, "id") || p == "timer":
			return "1"
		case strings.HasPrefix(p, "email") || p == "members":
			return "someone@example.com"
		}
		return "x"
	}
	checked := 0
	for _, row := range rows {
		required := row.required()
		for _, name := range row.actions {
			for _, missing := range required {
				pairs := []string{"action", name}
				for _, p := range required {
					if p != missing && fileParts[name] != p {
						pairs = append(pairs, p, placeholder(p))
					}
				}
				var r response
				if !admin[name] || api.TokenOnly(name) {
					r = a.as(token, pairs...)
				} else {
					r = a.call(pairs...)
				}
				if r.code() != int(api.CodeFieldRequired) || r.Body["message_details"] != missing {
					t.Errorf("%s:%d: %s without %s answers %v; the docs mark it required, so want code 10 naming it",
						docsPath, row.line, name, missing, r)
				}
				checked++
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d required parameters found in %s: are they still marked with *?", checked, docsPath)
	}
}

// docExample is a request of docs/api.md and the answer it shows.
type docExample struct {
	line                 int
	request, path, query string
	answer               string
}

var exampleRequest = regexp.MustCompile(`^GET (/api/admin/v2|/api/oauth2)\?(\S+)$`)

// docExamples reads the fenced blocks of docs/api.md whose first line is a
// GET of the API: the request, a blank line and the answer. It also
// fails on a json block that is not JSON.
func docExamples(t *testing.T, doc string) []docExample {
	t.Helper()
	var out []docExample
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		info, isFence := strings.CutPrefix(lines[i], "```")
		if !isFence || info == "" {
			continue
		}
		start := i + 1
		end := start
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		i = end
		block := lines[start:end]
		if info == "json" && !json.Valid([]byte(strings.Join(block, "\n"))) {
			t.Errorf("%s:%d: the json block opened here is not JSON", docsPath, start)
		}
		if len(block) == 0 {
			continue
		}
		m := exampleRequest.FindStringSubmatch(block[0])
		if m == nil {
			continue
		}
		if len(block) < 3 || block[1] != "" {
			t.Fatalf("%s:%d: an example is its request, a blank line and the answer", docsPath, start+1)
		}
		out = append(out, docExample{line: start + 1, request: block[0], path: m[1], query: m[2], answer: strings.Join(block[2:], "\n")})
	}
	return out
}

// dateTime matches the times an answer carries, which change per run.
var dateTime = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d`)

// TestDocsExamples replays the examples of docs/api.md in order on a new
// account of Olga Owner's with Bob Builder as a user, Bob's token making
// the /api/oauth2 calls, and compares each answer with the one shown, byte
// for byte once the shown JSON is compacted, times aside.
func TestDocsExamples(t *testing.T) {
	t.Parallel()
	doc := readDocs(t)
	examples := docExamples(t, doc)
	if len(examples) < 20 {
		t.Fatalf("%s has %d examples; is each still a block starting GET /api/…?", docsPath, len(examples))
	}
	s := newServer(t, testdb.New(t, "sqlite"))
	g := testaccount.New(t, s.DB, testaccount.Options{Owner: testaccount.Person{Email: "olga@example.com"}, Sealer: s.Sealer})
	a := &account{server: s, Slug: g.Slug, Key: g.Key, Owner: g.Owner, t: t}
	bob, err := s.DB.AddMember(context.Background(), mustAccount(t, s, a).ID,
		taskd.NewPerson{Email: "bob@example.com", PasswordHash: "x", FirstName: "Bob", LastName: "Builder"}, taskd.RoleUser)
	if err != nil {
		t.Fatal(err)
	}
	userScopes := slices.DeleteFunc(slices.Clone(taskd.Scopes), func(s string) bool { return s == taskd.ScopeAdministrative })
	token := tokenFor(t, s, a, bob, taskd.RoleUser, userScopes...)
	for _, ex := range examples {
		var r response
		if ex.path == "/api/oauth2" {
			r = a.do(http.MethodGet, a.URL+"/a/"+a.Slug+"/api/oauth2?"+ex.query, "", "", http.Header{"Authorization": {"Bearer " + token}})
		} else {
			r = a.do(http.MethodGet, a.endpoint()+"?"+ex.query+"&hash="+wire.Hash(ex.query, a.Key), "", "", nil)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(ex.answer)); err != nil {
			t.Fatalf("%s:%d: the answer of %s is not JSON: %v", docsPath, ex.line, ex.request, err)
		}
		w := dateTime.ReplaceAllString(want.String(), "<time>")
		got := dateTime.ReplaceAllString(strings.TrimSpace(r.Raw), "<time>")
		if got != w {
			t.Errorf("%s:%d: %s answers\n%s\nthe docs show\n%s", docsPath, ex.line, ex.request, got, w)
		}
	}
}
