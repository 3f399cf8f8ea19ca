package filter

import (
	"slices"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// The operators of each type of custom field. Every type also takes
// = ” (no value) and != ” (any value).
var customTypeOps = map[string][]string{
	taskd.CustomText:   {"=", "!=", "has"},
	taskd.CustomList:   {"=", "!="},
	taskd.CustomNumber: dateOps,
	taskd.CustomDate:   dateOps,
}

// HasCustom reports whether a query has a condition on a custom field,
// which Bind must bind before the store can run it.
func HasCustom(q taskd.Query) bool {
	switch q := q.(type) {
	case taskd.QueryAnd:
		return slices.ContainsFunc(q.Parts, HasCustom)
	case taskd.QueryOr:
		return slices.ContainsFunc(q.Parts, HasCustom)
	case taskd.QueryCond:
		return q.Field == taskd.FieldCustom
	}
	return false
}

// Bind finds the field of each condition on a custom field among fields
// (the account's fields of tasks), by id or by exact name, and reads its
// value with the field's type as a value sent for it is read
// (wire.ParseFieldValue): a number compares as a number, a date as a
// day, a list's value is one of its options. A text's has takes any
// text. ” is no value, with = and != only. A field that is none of
// them, an operator its type does not take, or a value it refuses is an
// invalid filter naming the offending part, as ParseTasks reports.
func Bind(q taskd.Query, fields []taskd.CustomField) (taskd.Query, error) {
	switch q := q.(type) {
	case taskd.QueryAnd:
		parts, err := bindAll(q.Parts, fields)
		return taskd.QueryAnd{Parts: parts}, err
	case taskd.QueryOr:
		parts, err := bindAll(q.Parts, fields)
		return taskd.QueryOr{Parts: parts}, err
	case taskd.QueryCond:
		if q.Field != taskd.FieldCustom {
			return q, nil
		}
		return bindCond(q, fields)
	}
	return q, nil
}

func bindAll(parts []taskd.Query, fields []taskd.CustomField) ([]taskd.Query, error) {
	out := make([]taskd.Query, len(parts))
	for i, p := range parts {
		var err error
		if out[i], err = Bind(p, fields); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func bindCond(c taskd.QueryCond, fields []taskd.CustomField) (taskd.Query, error) {
	written := customName(c.Custom)
	i := slices.IndexFunc(fields, func(f taskd.CustomField) bool {
		if c.Custom.ID != 0 {
			return f.ID == c.Custom.ID
		}
		return f.Name == c.Custom.Name
	})
	if i < 0 {
		return nil, queryError(written, "No custom field of tasks is %s", written)
	}
	f := fields[i]
	c.Custom = taskd.CustomRef{ID: f.ID, Name: f.Name, Type: f.Type}
	if !slices.Contains(customTypeOps[f.Type], c.Op) {
		return nil, queryError(written+" "+c.Op, "%s is a %s field: it takes %s", f.Name, f.Type, strings.Join(customTypeOps[f.Type], ", "))
	}
	switch {
	case strings.TrimSpace(c.Text) == "":
		if c.Op != "=" && c.Op != "!=" {
			return nil, queryError(written+" "+c.Op, "'' (no value) takes = or != only")
		}
		c.Text = ""
	case c.Op == "has":
		// any text: has compares with a part of a value
	default:
		v, err := wire.ParseFieldValue(f, c.Text)
		if err != nil {
			return nil, queryError(c.Text, "%s", taskd.AsError(err).Message)
		}
		c.Text = v
	}
	return c, nil
}
