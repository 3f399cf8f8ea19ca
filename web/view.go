package web

import (
	"bytes"
	"html/template"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/taskd/taskd"
)

// view is what every template gets.
type view struct {
	Title  string
	CSRF   string
	Person *taskd.Person
	Nav    *nav // set on an account's pages
	Data   any
}

// Zone is where the page's times are shown: the person's time zone, else
// the account's, else UTC.
func (v *view) Zone() *time.Location { return taskd.Zone(v.personZone(), v.accountZone()) }

func (v *view) personZone() string {
	if v.Person == nil {
		return ""
	}
	return v.Person.TimeZone
}

func (v *view) accountZone() string {
	if v.Nav == nil {
		return ""
	}
	return v.Nav.Account.TimeZone
}

// Date shows a time in the page's zone, with the zone's abbreviation.
func (v *view) Date(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(v.Zone()).Format("2006-01-02 15:04 MST")
}

// Initials are the signed-in person's initials, for the header's avatar.
func (v *view) Initials() string {
	if v.Person == nil {
		return ""
	}
	return initials(v.Person.DisplayName())
}

// render writes a template with status 200.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, v *view) error {
	return s.renderStatus(w, r, http.StatusOK, name, v)
}

func (s *Server) renderStatus(w http.ResponseWriter, r *http.Request, status int, name string, v *view) error {
	var buf bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&buf, name, v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// secretShown is a secret shown once, for the "secret" template.
type secretShown struct{ What, Why, Value string }

// formValue is a submitted form's value, to refill the form after an error.
func formValue(values map[string][]string, name string) string {
	if v := values[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// errorFor returns the error message when it belongs to the named form.
func errorFor(fe *formError, form string) string {
	if fe != nil && fe.Form == form {
		return fe.Message
	}
	return ""
}

// who names an assignee in a sentence.
func who(p taskd.PersonRef) string {
	switch p.ID {
	case taskd.NobodyID:
		return "nobody"
	case taskd.AnyoneID:
		return "anyone"
	}
	return p.Name
}

// assignee names an assignee where it stands alone, as a field's value:
// "Unassigned" rather than who's "nobody".
func assignee(p taskd.PersonRef) string {
	switch p.ID {
	case taskd.NobodyID:
		return "Unassigned"
	case taskd.AnyoneID:
		return "Anyone"
	}
	return p.Name
}

// initials are up to two letters of a name, for an avatar.
func initials(name string) string {
	var out []rune
	for _, w := range strings.Fields(name) {
		for _, r := range w {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				out = append(out, unicode.ToUpper(r))
				break
			}
		}
		if len(out) == 2 {
			break
		}
	}
	return string(out)
}

// viewFuncs are the template functions every page may use: forms refilled
// after an error, people named, secrets shown once.
func viewFuncs() template.FuncMap {
	return template.FuncMap{
		"has":      func(m map[string]bool, k string) bool { return m[k] },
		"page":     func(base, page string) string { return base + page },
		"value":    formValue,
		"errorFor": errorFor,
		"secretShown": func(what, why, value string) secretShown {
			return secretShown{What: what, Why: why, Value: value}
		},
		"initials": initials,
		"who":      who,
		"assignee": assignee,
	}
}
