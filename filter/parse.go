// Package filter reads and writes the query language of the account API:
// the filter parameter of search_tasks (spec/account-api.md §4) and of
// get_costs (§8), such as
//
//	(name has 'Report' or name has 'Approval') and dateend>'25.05.2021'
//
// ParseTasks and ParseCosts turn a filter into a taskd.Query, the tree the
// store compiles to SQL (store/filter.go); Format writes a tree back.
// Malformed filters are invalid errors on field "filter" whose Value is the
// offending part.
package filter

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// language is the set of fields a filter may name: every spelling
// of a field mapped to its canonical name, and the list errors offer.
type language struct {
	fields map[string]taskd.QueryField
	names  string
	// custom says whether custom fields may be named: custom_fields[ID]
	// or custom_fields['Name'].
	custom bool
}

// taskFields are search_tasks' fields (spec §4).
var taskFields = language{map[string]taskd.QueryField{
	"id": taskd.FieldID, "project": taskd.FieldProject, "parent": taskd.FieldParent, "name": taskd.FieldName,
	"dateadd": taskd.FieldDateAdded, "date_added": taskd.FieldDateAdded, "datestart": taskd.FieldDateStart, "date_start": taskd.FieldDateStart,
	"dateend": taskd.FieldDateEnd, "date_end": taskd.FieldDateEnd, "dateclose": taskd.FieldDateClosed, "date_closed": taskd.FieldDateClosed,
}, "id, project, parent, name, dateadd, datestart, dateend, dateclose or custom_fields[ID]", true}

// costFields are get_costs' fields (spec §8): the task as id (the docs)
// or task (the PHP SDK, C9), the project, the comment, and the line's
// date as dateadd.
var costFields = language{map[string]taskd.QueryField{
	"id": taskd.FieldTask, "task": taskd.FieldTask, "project": taskd.FieldProject, "comment": taskd.FieldComment,
	"dateadd": taskd.FieldDate, "date": taskd.FieldDate,
}, "task (or id), project, comment or dateadd", false}

// The operators each kind of field takes.
var (
	intOps  = []string{"=", "in"}
	nameOps = []string{"=", "has"}
	dateOps = []string{"=", "!=", ">", "<", ">=", "<="}
	// customOps are those a custom field may take; which it takes
	// depends on its type (Bind).
	customOps = []string{"=", "!=", ">", "<", ">=", "<=", "has"}
)

// Limits of a filter, so that no query is costly to parse or to run.
const (
	MaxLen        = 4000 // bytes
	maxQueryDepth = 32
	maxQueryConds = 200
	maxQueryList  = 1000
)

// ParseTasks reads a filter of the query language: conditions such as
// `project{=}2456`, `id {in} (1234, 1240)`, `name has 'Report'`,
// `dateend>'25.05.2021'` or `custom_fields[3] = 'Acme'`, joined by
// and/or, with parentheses. Operators may be braced or bare. A malformed
// filter is an invalid error on field "filter" whose Value is the
// offending part. Conditions on custom fields are read as written, by id
// or by name; Bind checks them against the account's fields.
func ParseTasks(s string) (taskd.Query, error) { return parse(s, taskFields) }

// ParseCosts reads a filter of cost lines: the language of ParseTasks
// over the fields task (or id), project, comment (= or has) and dateadd,
// the line's date.
func ParseCosts(s string) (taskd.Query, error) { return parse(s, costFields) }

func parse(s string, lang language) (taskd.Query, error) {
	if len(s) > MaxLen {
		return nil, queryError(s[:40]+"…", "The filter is longer than %d bytes", MaxLen)
	}
	if !utf8.ValidString(s) {
		return nil, queryError("", "The filter is not valid UTF-8")
	}
	items, err := lexQuery(s)
	if err != nil {
		return nil, err
	}
	p := &queryParser{items: items, lang: lang}
	q, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != itemEnd {
		return nil, queryError(t.text, "Unexpected %q: join conditions with and/or", t.text)
	}
	return q, nil
}

func queryError(part, format string, args ...any) error {
	return &taskd.Error{Kind: taskd.KindInvalid, Field: "filter", Value: part, Message: fmt.Sprintf(format, args...)}
}

type itemKind int

const (
	itemEnd itemKind = iota
	itemWord
	itemString
	itemOp // = != > < >= <=
	itemPunct
)

type item struct {
	kind itemKind
	text string // as written; for strings, the unquoted value
}

// lexQuery splits a filter into words (field names, keywords, numbers,
// bare dates), quoted strings, operators and punctuation.
func lexQuery(s string) ([]item, error) {
	var items []item
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case strings.ContainsRune("(),{}[]", r):
			items = append(items, item{itemPunct, string(r)})
			i++
		case strings.ContainsRune("=!<>", r):
			op := string(r)
			if i+1 < len(s) && s[i+1] == '=' && r != '=' {
				op += "="
			}
			if op == "!" {
				return nil, queryError("!", "Unknown operator %q", "!")
			}
			items = append(items, item{itemOp, op})
			i += len(op)
		case r == '\'' || r == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && rune(s[j]) != r; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, queryError(s[i:], "A quoted value is not closed")
			}
			items = append(items, item{itemString, b.String()})
			i = j + 1
		case r == '_' || r == '.' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r):
			j := i
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if r != '_' && r != '.' && r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				j += size
			}
			items = append(items, item{itemWord, s[i:j]})
			i = j
		default:
			return nil, queryError(string(r), "Unexpected %q", string(r))
		}
	}
	return items, nil
}

type queryParser struct {
	lang  language
	items []item
	pos   int
	conds int
}

func (p *queryParser) peek() item {
	if p.pos < len(p.items) {
		return p.items[p.pos]
	}
	return item{kind: itemEnd}
}

func (p *queryParser) next() item {
	t := p.peek()
	if p.pos < len(p.items) {
		p.pos++
	}
	return t
}

func (p *queryParser) keyword(word string) bool {
	if t := p.peek(); t.kind == itemWord && strings.EqualFold(t.text, word) {
		p.pos++
		return true
	}
	return false
}

func (p *queryParser) or(depth int) (taskd.Query, error) {
	return p.joined(depth, "or", p.and, func(parts []taskd.Query) taskd.Query { return taskd.QueryOr{Parts: parts} })
}

func (p *queryParser) and(depth int) (taskd.Query, error) {
	return p.joined(depth, "and", p.factor, func(parts []taskd.Query) taskd.Query { return taskd.QueryAnd{Parts: parts} })
}

// joined reads parts separated by the keyword.
func (p *queryParser) joined(depth int, word string, part func(int) (taskd.Query, error), join func([]taskd.Query) taskd.Query) (taskd.Query, error) {
	first, err := part(depth)
	if err != nil {
		return nil, err
	}
	parts := []taskd.Query{first}
	for p.keyword(word) {
		q, err := part(depth)
		if err != nil {
			return nil, err
		}
		parts = append(parts, q)
	}
	if len(parts) == 1 {
		return first, nil
	}
	return join(parts), nil
}

func (p *queryParser) factor(depth int) (taskd.Query, error) {
	if depth > maxQueryDepth {
		return nil, queryError("(", "Parentheses nest deeper than %d", maxQueryDepth)
	}
	if t := p.peek(); t.kind == itemPunct && t.text == "(" {
		p.next()
		q, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != itemPunct || t.text != ")" {
			return nil, queryError(t.text, "A parenthesis is not closed")
		}
		return q, nil
	}
	return p.cond()
}

func (p *queryParser) cond() (taskd.Query, error) {
	if p.conds++; p.conds > maxQueryConds {
		return nil, queryError("", "A filter has at most %d conditions", maxQueryConds)
	}
	t := p.next()
	if t.kind == itemEnd {
		return nil, queryError("", "The filter ends where a condition should start")
	}
	if t.kind == itemWord && p.lang.custom && strings.EqualFold(t.text, string(taskd.FieldCustom)) {
		return p.custom()
	}
	field, ok := p.lang.fields[strings.ToLower(t.text)]
	if t.kind != itemWord || !ok {
		return nil, queryError(t.text, "Unknown field %q: use %s", t.text, p.lang.names)
	}
	op, err := p.op()
	if err != nil {
		return nil, err
	}
	c := taskd.QueryCond{Field: field, Op: op}
	switch field {
	case taskd.FieldID, taskd.FieldProject, taskd.FieldParent, taskd.FieldTask:
		err = p.intValue(&c, t.text)
	case taskd.FieldName, taskd.FieldComment:
		err = p.textValue(&c, t.text)
	default:
		err = p.dateValue(&c, t.text)
	}
	return c, err
}

// custom reads the rest of a condition on a custom field: [ID] or
// ['Name'], an operator and a value, bare or quoted, kept as written.
func (p *queryParser) custom() (taskd.Query, error) {
	c := taskd.QueryCond{Field: taskd.FieldCustom}
	if t := p.next(); t.kind != itemPunct || t.text != "[" {
		return nil, queryError(t.text, "custom_fields takes a field's id or quoted name in brackets: custom_fields[3], custom_fields['Client']")
	}
	switch t := p.next(); t.kind {
	case itemWord:
		id, err := taskd.ParseID(t.text, "filter")
		if err != nil {
			return nil, queryError(t.text, "A custom field is named by its id or its quoted name, not %q", t.text)
		}
		c.Custom.ID = id
	case itemString:
		if t.text == "" {
			return nil, queryError("custom_fields['']", "A custom field's name is not empty")
		}
		c.Custom.Name = t.text
	default:
		return nil, queryError(t.text, "A custom field is named by its id or its quoted name, not %q", t.text)
	}
	if t := p.next(); t.kind != itemPunct || t.text != "]" {
		return nil, queryError(t.text, "A custom field's brackets are not closed")
	}
	op, err := p.op()
	if err != nil {
		return nil, err
	}
	c.Op = op
	if err := p.checkOp(c, "custom_fields", customOps); err != nil {
		return nil, err
	}
	t := p.next()
	if t.kind != itemString && t.kind != itemWord {
		return nil, queryError(t.text, "A custom field takes a value, quoted or bare: custom_fields[3] = 'Acme'")
	}
	c.Text = t.text
	return c, nil
}

// op reads an operator, braced ({=}, { in }) or bare.
func (p *queryParser) op() (string, error) {
	braced := false
	if t := p.peek(); t.kind == itemPunct && t.text == "{" {
		braced = true
		p.next()
	}
	t := p.next()
	op := strings.ToLower(t.text)
	if !(t.kind == itemOp || t.kind == itemWord && (op == "in" || op == "has")) {
		return "", queryError(t.text, "Expected an operator (=, !=, <, >, <=, >=, in, has), not %q", t.text)
	}
	if braced {
		if t := p.next(); t.kind != itemPunct || t.text != "}" {
			return "", queryError(t.text, "A braced operator is not closed")
		}
	}
	return op, nil
}

func (p *queryParser) checkOp(c taskd.QueryCond, field string, ops []string) error {
	for _, o := range ops {
		if o == c.Op {
			return nil
		}
	}
	return queryError(field+" "+c.Op, "%s takes %s", field, strings.Join(ops, ", "))
}

func (p *queryParser) intValue(c *taskd.QueryCond, field string) error {
	if err := p.checkOp(*c, field, intOps); err != nil {
		return err
	}
	if c.Op == "=" {
		n, err := p.int()
		c.Ints = []int64{n}
		return err
	}
	if t := p.next(); t.kind != itemPunct || t.text != "(" {
		return queryError(t.text, "in takes a list in parentheses: (1, 2)")
	}
	for {
		n, err := p.int()
		if err != nil {
			return err
		}
		if c.Ints = append(c.Ints, n); len(c.Ints) > maxQueryList {
			return queryError(field, "A list holds at most %d values", maxQueryList)
		}
		switch t := p.next(); {
		case t.kind == itemPunct && t.text == ")":
			return nil
		case t.kind == itemPunct && t.text == ",":
		default:
			return queryError(t.text, "Expected , or ) in the list, not %q", t.text)
		}
	}
}

// int reads a non-negative integer, bare or quoted.
func (p *queryParser) int() (int64, error) {
	t := p.next()
	n, err := strconv.ParseInt(t.text, 10, 64)
	if (t.kind != itemWord && t.kind != itemString) || err != nil || n < 0 {
		return 0, queryError(t.text, "Expected a number, not %q", t.text)
	}
	return n, nil
}

func (p *queryParser) textValue(c *taskd.QueryCond, field string) error {
	if err := p.checkOp(*c, field, nameOps); err != nil {
		return err
	}
	t := p.next()
	if t.kind != itemString && t.kind != itemWord {
		return queryError(t.text, "%s takes a quoted text: %s has 'Report'", field, field)
	}
	c.Text = t.text
	return nil
}

func (p *queryParser) dateValue(c *taskd.QueryCond, field string) error {
	if err := p.checkOp(*c, field, dateOps); err != nil {
		return err
	}
	t := p.next()
	d, err := wire.ParseDate(field, t.text)
	if (t.kind != itemString && t.kind != itemWord) || err != nil || d == "" {
		return queryError(t.text, "%s takes a date 'DD.MM.YYYY', not %q", field, t.text)
	}
	c.Date = d
	return nil
}

// Format writes a query back in the language, braced operators and
// quoted values, so that ParseTasks (or ParseCosts, for a query of cost
// lines) reads the same query from it.
func Format(q taskd.Query) string {
	switch q := q.(type) {
	case taskd.QueryAnd:
		return joinQueries(q.Parts, " and ")
	case taskd.QueryOr:
		return joinQueries(q.Parts, " or ")
	case taskd.QueryCond:
		var v string
		switch {
		case q.Op == "in":
			s := make([]string, len(q.Ints))
			for i, n := range q.Ints {
				s[i] = strconv.FormatInt(n, 10)
			}
			v = "(" + strings.Join(s, ", ") + ")"
		case len(q.Ints) > 0:
			v = strconv.FormatInt(q.Ints[0], 10)
		case q.Field == taskd.FieldName || q.Field == taskd.FieldComment || q.Field == taskd.FieldCustom:
			v = quote(q.Text)
		default:
			v = "'" + q.Date + "'"
		}
		field := string(q.Field)
		if q.Field == taskd.FieldCustom {
			field = customName(q.Custom)
		}
		return field + " {" + q.Op + "} " + v
	}
	return ""
}

// quote writes a text as a quoted value.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// customName writes a custom field as a filter names it: by its id when
// known, else by its name.
func customName(r taskd.CustomRef) string {
	if r.ID != 0 {
		return "custom_fields[" + strconv.FormatInt(r.ID, 10) + "]"
	}
	return "custom_fields[" + quote(r.Name) + "]"
}

func joinQueries(parts []taskd.Query, sep string) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = "(" + Format(p) + ")"
	}
	return strings.Join(s, sep)
}
