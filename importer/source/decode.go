package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/taskd/taskd"
)

// Bounds of what is read, taskd's own (the importer writes through the same
// rules): a name is one line of taskd.MaxNameLen bytes, a text
// taskd.MaxTextLen, titles and people's fields one line of
// taskd.MaxTitleLen, a cost comment taskd.MaxCostComment. Longer values are
// cut at a character's boundary and noted.
const (
	maxIDLen    = 64
	maxEmailLen = 254
	maxNotes    = 20
	// maxItems bounds a list inside an object (a task's files, people,
	// tags or relations, a project's team): more is refused. Its values
	// are weighed and kept with the object's, once the object is read, so
	// the list is bounded before: a real one holds tens, a team hundreds.
	maxItems = 10000
)

// flexString is a JSON string, number or boolean read as text; null is "".
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0:
		return errors.New("empty value")
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	case b[0] == '{' || b[0] == '[':
		return errors.New("an object or list where a value was expected")
	case string(b) == "null":
		*f = ""
	default:
		*f = flexString(b) // a number or true/false, as written
	}
	return nil
}

// errTooDeep is JSON nested deeper than MaxDepth.
var errTooDeep = fmt.Errorf("the answer nests deeper than %d levels", MaxDepth)

// MaxString bounds a JSON string of an answer, in the bytes it is
// written with: the rest of a longer one is dropped as it is read, before
// it takes memory. A text is kept to taskd.MaxTextLen (100,000) bytes,
// which a MiB holds even written all in \u escapes (six bytes for one or
// two); the longest other strings are a lists of e-mails, maxItems at
// most.
const MaxString = 1 << 20

// jsonScan follows JSON as its bytes pass: it refuses nesting deeper
// than MaxDepth and drops the bytes of a string past its first max
// (MaxString), at the start of a character, so that what passes is JSON
// still (the string cut, closed by its own quote).
type jsonScan struct {
	max        int64 // MaxString when 0
	depth      int
	inStr, esc bool
	hex        int   // hex digits left of a \u escape
	strLen     int64 // bytes of the string passed
	dropping   bool  // the rest of the string is dropped
	cut        int   // strings cut
}

// filter reads b, keeping in place what passes; it returns how many
// bytes of b passed.
func (s *jsonScan) filter(b []byte) (int, error) {
	depth, inStr, esc := s.depth, s.inStr, s.esc
	defer func() { s.depth, s.inStr, s.esc = depth, inStr, esc }()
	limit := s.max
	if limit <= 0 {
		limit = MaxString
	}
	w := 0
	for _, c := range b {
		switch {
		case s.dropping:
			// Dropped to the string's closing quote, escapes followed.
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				s.dropping, inStr = false, false
				b[w] = c
				w++
			}
			continue
		case inStr:
			start := !esc && s.hex == 0 && c != '"' && c&0xC0 != 0x80 // a character begins
			if start && s.strLen >= limit {
				s.dropping, s.cut = true, s.cut+1
				esc = c == '\\'
				continue
			}
			switch {
			case esc:
				esc = false
				if c == 'u' {
					s.hex = 4
				}
			case s.hex > 0:
				s.hex--
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			if inStr {
				s.strLen++
			}
		case c == '"':
			inStr, s.strLen = true, 0
		case c == '{' || c == '[':
			depth++
			if depth > MaxDepth {
				return w, errTooDeep
			}
		case c == '}' || c == ']':
			depth--
		}
		b[w] = c
		w++
	}
	return w, nil
}

// countItems is how many elements a JSON list, or members an object, has
// at its top level (0 for another value), counted without decoding.
func countItems(raw []byte) int {
	n, depth, inStr, esc, empty := 0, 0, false, false, true
	for _, c := range raw {
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
			continue
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
			if depth == 1 {
				continue
			}
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 1:
			n++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		if depth >= 1 {
			empty = false
		}
	}
	if empty {
		return 0
	}
	return n + 1
}

// bounded refuses a list inside an object of more than maxItems.
func bounded(field string, raw []byte) error {
	if countItems(raw) > maxItems {
		return fmt.Errorf("%s: more than %d items", field, maxItems)
	}
	return nil
}

// notes collects what cleaning changed, for an object's Notes.
type notes []string

func (n *notes) add(format string, args ...any) {
	if len(*n) < maxNotes {
		*n = append(*n, fmt.Sprintf(format, args...))
	}
}

// cut shortens s to at most max bytes at a character's boundary. A
// string cut is a copy: a part would keep the whole in memory.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return strings.Clone(s)
}

// own is part, a part of whole, as a string of its own when it is
// shorter: a part would keep the whole in memory.
func own(part, whole string) string {
	if len(part) < len(whole) {
		return strings.Clone(part)
	}
	return part
}

// oneLine is s as valid UTF-8 on one line (control characters as spaces),
// trimmed and cut to max bytes.
func oneLine(s string, max int) string {
	in := s
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return own(strings.TrimSpace(cut(strings.TrimSpace(s), max)), in)
}

// line cleans a one-line field and notes a cut.
func (n *notes) line(field string, v flexString, max int) string {
	s := oneLine(string(v), math.MaxInt)
	if len(s) > max {
		n.add("%s cut to %d bytes (was %d)", field, max, len(s))
		s = strings.TrimSpace(cut(s, max))
	}
	return s
}

// text cleans a multi-line text: valid UTF-8, \r\n as \n, no control
// characters but newline and tab, cut to max bytes.
func (n *notes) text(field string, v flexString, max int) string {
	s := strings.ToValidUTF8(string(v), "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s)
	if len(s) > max {
		n.add("%s cut to %d bytes (was %d)", field, max, len(s))
		s = cut(s, max)
	}
	return s
}

// id checks an id: 1..64 letters, digits, "-" or "_".
func id(field string, v flexString) (string, error) {
	s := strings.TrimSpace(string(v))
	if s == "" || len(s) > maxIDLen {
		return "", fmt.Errorf("%s: missing or too long an id", field)
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_') {
			return "", fmt.Errorf("%s: %q is not an id", field, cut(s, 20))
		}
	}
	return own(s, string(v)), nil
}

// optID is an id or "" when absent ("0" counts as absent).
func optID(field string, v flexString) (string, error) {
	if s := strings.TrimSpace(string(v)); s == "" || s == "0" {
		return "", nil
	}
	return id(field, v)
}

// dateTimeLayouts are the source's date-times: YYYY-MM-DD HH:MM (the docs'
// output), with seconds, RFC 3339, a date alone, and the input form
// DD.MM.YYYY with or without a time.
var dateTimeLayouts = []string{"2006-01-02 15:04", "2006-01-02 15:04:05", time.RFC3339, "2006-01-02T15:04:05", "2006-01-02", "02.01.2006 15:04", "02.01.2006"}

// dateTime reads a date-time in UTC; "" (and Worksection's zero dates) are
// the zero time.
func dateTime(field string, v flexString) (time.Time, error) {
	s := strings.TrimSpace(string(v))
	if s == "" || strings.HasPrefix(s, "0000-00-00") || s == "00.00.0000" {
		return time.Time{}, nil
	}
	for _, l := range dateTimeLayouts {
		if t, err := time.ParseInLocation(l, s, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%s: %q is not a date", field, cut(s, 40))
}

// date reads a calendar date as YYYY-MM-DD; a date-time gives its day.
func date(field string, v flexString) (string, error) {
	t, err := dateTime(field, v)
	if err != nil || t.IsZero() {
		return "", err
	}
	return t.Format("2006-01-02"), nil
}

// hhmm reads a time of day HH:MM.
func hhmm(field string, v flexString) (string, error) {
	s := strings.TrimSpace(string(v))
	if s == "" {
		return "", nil
	}
	t, err := time.Parse("15:04", s)
	if err != nil {
		if t, err = time.Parse("15:04:05", s); err != nil {
			return "", fmt.Errorf("%s: %q is not a time of day", field, cut(s, 20))
		}
	}
	return t.Format("15:04"), nil
}

// decimal reads a non-negative decimal with "." or "," into units of
// 1/scale (cents: scale 100), rounding half up; "" is 0.
func decimal(field string, v flexString, scale int64, limit int64) (int64, error) {
	s := strings.ReplaceAll(strings.TrimSpace(string(v)), ",", ".")
	if s == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) || f*float64(scale) > float64(limit) {
		return 0, fmt.Errorf("%s: %q is not an amount", field, cut(s, 30))
	}
	return int64(math.Round(f * float64(scale))), nil
}

// hours reads time as H:MM or decimal hours, into minutes.
func hours(field string, v flexString, limit int64) (int64, error) {
	s := strings.TrimSpace(string(v))
	if h, m, ok := strings.Cut(s, ":"); ok {
		hh, err1 := strconv.ParseInt(h, 10, 64)
		mm, err2 := strconv.ParseInt(m, 10, 64)
		if err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 || hh > limit/60 {
			return 0, fmt.Errorf("%s: %q is not a time", field, cut(s, 30))
		}
		return hh*60 + mm, nil
	}
	return decimal(field, v, 60, limit)
}

// flag reads 0/1, "0"/"1", true/false; "" is false.
func flag(field string, v flexString) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(string(v))) {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, fmt.Errorf("%s: %q is not 0 or 1", field, cut(string(v), 20))
}

// email is a cleaned address (not checked further: the importer does).
func (n *notes) email(field string, v flexString) string {
	return n.line(field, v, maxEmailLen)
}

// wirePerson is a person object or, on the OAuth path, a display name.
type wirePerson struct {
	ID    flexString `json:"id"`
	Email flexString `json:"email"`
	Name  flexString `json:"name"`
}

func (p *wirePerson) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		type plain wirePerson
		return json.Unmarshal(b, (*plain)(p))
	}
	var s flexString
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*p = wirePerson{Name: s}
	return nil
}

func (n *notes) person(field string, w wirePerson) (Person, error) {
	p := Person{Email: n.email(field+".email", w.Email), Name: n.line(field+".name", w.Name, taskd.MaxTitleLen)}
	var err error
	if p.ID, err = optID(field+".id", w.ID); err != nil {
		return Person{}, err
	}
	return p, nil
}

// people reads a list of persons, or a comma list of e-mails.
func (n *notes) people(field string, raw json.RawMessage) ([]Person, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, nil
	}
	if err := bounded(field, raw); err != nil {
		return nil, false, err
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false, err
		}
		if strings.Count(s, ",") >= maxItems {
			return nil, false, fmt.Errorf("%s: more than %d items", field, maxItems)
		}
		var out []Person
		for _, e := range strings.Split(s, ",") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, Person{Email: n.email(field, flexString(e))})
			}
		}
		return out, true, nil
	}
	var ws []wirePerson
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, false, fmt.Errorf("%s: not a list of people", field)
	}
	out := make([]Person, 0, len(ws))
	for _, w := range ws {
		p, err := n.person(field, w)
		if err != nil {
			return nil, false, err
		}
		out = append(out, p)
	}
	return out, true, nil
}

// tags reads an object's tags: the docs' map {"id":"title",…} in its order,
// or a list (the Python models', C22) of titles or {id,title} objects.
func (n *notes) tags(raw json.RawMessage) ([]TagRef, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` || string(raw) == "false" {
		return nil, nil
	}
	if err := bounded("tags", raw); err != nil {
		return nil, err
	}
	var out []TagRef
	switch raw[0] {
	case '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			var v flexString
			if err := dec.Decode(&v); err != nil {
				return nil, errors.New("tags: a tag's title is not text")
			}
			tid, err := id("tags", flexString(k.(string)))
			if err != nil {
				return nil, err
			}
			out = append(out, TagRef{ID: tid, Title: n.line("tag title", v, taskd.MaxTitleLen)})
		}
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		for _, it := range items {
			var w struct {
				ID    flexString `json:"id"`
				Title flexString `json:"title"`
				Name  flexString `json:"name"`
			}
			if err := json.Unmarshal(it, &w); err != nil {
				if err := json.Unmarshal(it, &w.Title); err != nil {
					return nil, errors.New("tags: an element is neither a title nor a tag")
				}
			}
			if w.Title == "" {
				w.Title = w.Name
			}
			tid, err := optID("tags", w.ID)
			if err != nil {
				return nil, err
			}
			out = append(out, TagRef{ID: tid, Title: n.line("tag title", w.Title, taskd.MaxTitleLen)})
		}
	default:
		return nil, errors.New("tags: neither an object nor a list")
	}
	return out, nil
}

// options reads project options: an object of 0/1 flags, or a list of the
// names that are on (the Python model, C23).
func options(raw json.RawMessage) (map[string]bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if err := bounded("options", raw); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	if raw[0] == '[' {
		var names []flexString
		if err := json.Unmarshal(raw, &names); err != nil {
			return nil, errors.New("options: not a list of names")
		}
		for _, name := range names {
			out[oneLine(string(name), 64)] = true
		}
		return out, nil
	}
	var m map[string]flexString
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errors.New("options: not an object of flags")
	}
	for k, v := range m {
		on, err := flag("options."+oneLine(k, 64), v)
		if err != nil {
			return nil, err
		}
		out[oneLine(k, 64)] = on
	}
	return out, nil
}

// wireFile is a file in lists and in extra=files.
type wireFile struct {
	ID        flexString `json:"id"`
	Name      flexString `json:"name"`
	Page      flexString `json:"page"`
	Size      flexString `json:"size"`
	DateAdded flexString `json:"date_added"`
	UserFrom  wirePerson `json:"user_from"`
}

func (n *notes) file(w wireFile) (File, error) {
	var f File
	var err error
	if f.ID, err = id("file id", w.ID); err != nil {
		return f, err
	}
	f.Name = strings.Clone(taskd.CleanFileName(string(w.Name)))
	f.Page = oneLine(string(w.Page), 300)
	f.Size = -1
	if s := strings.TrimSpace(string(w.Size)); s != "" && s != "FILE_SIZE" {
		if f.Size, err = strconv.ParseInt(s, 10, 64); err != nil || f.Size < 0 {
			return f, fmt.Errorf("file %s: size %q is not a number of bytes", f.ID, cut(s, 20))
		}
	}
	if f.Added, err = dateTime("file date_added", w.DateAdded); err != nil {
		return f, err
	}
	if f.Author, err = n.person("file user_from", w.UserFrom); err != nil {
		return f, err
	}
	return f, nil
}

func (n *notes) files(raw json.RawMessage) ([]File, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if err := bounded("files", raw); err != nil {
		return nil, err
	}
	var ws []wireFile
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, errors.New("files: not a list of files")
	}
	out := make([]File, 0, len(ws))
	for _, w := range ws {
		f, err := n.file(w)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// each calls fn for each element of the JSON list dec is at (none for
// null), fn decoding it with dec; i counts from 1.
func each(dec *json.Decoder, what string, fn func(i int) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("%s: data is not a list", what)
	}
	for i := 1; dec.More(); i++ {
		if err := fn(i); err != nil {
			return err
		}
	}
	_, err = dec.Token() // ]
	return err
}

// decodeErr is the error of decoding a value of what: as is for the
// syntax or the read (the caller's to name), else short, with what.
func decodeErr(what string, err error) error {
	if isSyntax(err) || errors.As(err, new(netError)) || errors.Is(err, ErrAnswerTooLarge) || errors.Is(err, errTooDeep) {
		return err
	}
	return fmt.Errorf("%s: %v", what, trimJSONError(err))
}

// list decodes the data list as it is read (null is empty), element by
// element, each converted with conv and kept (weighed) before the next is
// read.
func list[W any, T any](r *reading, what string, conv func(W) (T, error)) ([]T, error) {
	var out []T
	err := each(r.dec, what, func(i int) error {
		var w W
		if err := r.dec.Decode(&w); err != nil {
			return decodeErr(what, err)
		}
		v, err := conv(w)
		if err != nil {
			return fmt.Errorf("%s, element %d: %w", what, i, err)
		}
		if err := r.keep(weigh(v)); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// object is a JSON object decoded into W; anything else is refused.
type object[W any] struct{ v W }

var errNotObject = errors.New("data is not an object")

func (o *object[W]) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) == 0 || b[0] != '{' {
		return errNotObject
	}
	return json.Unmarshal(b, &o.v)
}

// one decodes the data object and converts it; the caller keeps it.
func one[W any, T any](r *reading, what string, conv func(W) (T, error)) (T, error) {
	var zero T
	var o object[W]
	if err := r.dec.Decode(&o); err != nil {
		if errors.Is(err, errNotObject) {
			return zero, fmt.Errorf("%s: %w", what, err)
		}
		return zero, decodeErr(what, err)
	}
	return conv(o.v)
}

// trimJSONError keeps a decoding error short (it may quote input).
func trimJSONError(err error) string { return cut(oneLine(err.Error(), 200), 200) }
