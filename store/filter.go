package store

import (
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// filterColumns are the columns a filter's fields compile to.
type filterColumns struct {
	ints  map[taskd.QueryField]string // integer fields
	texts map[taskd.QueryField]string // text fields (= and has)
	// searched are the text fields tasks_search indexes (store/search.go).
	searched map[taskd.QueryField]bool
	// textDates are the date fields kept as YYYY-MM-DD text ("" when
	// unset); timeDates those kept as Unix milliseconds (0 when unset).
	textDates, timeDates map[taskd.QueryField]string
	// object is the column of the object's id that custom fields'
	// values (values, of the custom fields of kind) are joined to; ""
	// where there are none.
	object, values, kind string
}

// taskFilter are the columns of tasks t (filter.ParseTasks).
var taskFilter = filterColumns{
	ints:      map[taskd.QueryField]string{taskd.FieldID: "t.id", taskd.FieldProject: "t.project_id", taskd.FieldParent: "t.parent_id"},
	texts:     map[taskd.QueryField]string{taskd.FieldName: "t.name"},
	searched:  map[taskd.QueryField]bool{taskd.FieldName: true},
	textDates: map[taskd.QueryField]string{taskd.FieldDateStart: "t.date_start", taskd.FieldDateEnd: "t.date_end"},
	timeDates: map[taskd.QueryField]string{taskd.FieldDateAdded: "t.created_at", taskd.FieldDateClosed: "t.closed_at"},
	object:    "t.id", values: "task_field_values", kind: taskd.ObjectTask,
}

// costFilter are the columns of cost lines c (filter.ParseCosts).
var costFilter = filterColumns{
	ints:      map[taskd.QueryField]string{taskd.FieldTask: "c.task_id", taskd.FieldProject: "c.project_id"},
	texts:     map[taskd.QueryField]string{taskd.FieldComment: "c.comment"},
	textDates: map[taskd.QueryField]string{taskd.FieldDate: "c.day"},
}

// filterSQL compiles a filter of the query language (filter.ParseTasks)
// into a condition on the columns with its arguments: every value is a
// parameter, never text of the query.
func (db *DB) filterSQL(q taskd.Query, cols filterColumns) (string, []any) {
	switch q := q.(type) {
	case taskd.QueryAnd:
		return db.joinSQL(q.Parts, " AND ", cols)
	case taskd.QueryOr:
		return db.joinSQL(q.Parts, " OR ", cols)
	case taskd.QueryCond:
		return db.condSQL(q, cols)
	}
	return "1 = 0", nil
}

func (db *DB) joinSQL(parts []taskd.Query, sep string, cols filterColumns) (string, []any) {
	conds := make([]string, len(parts))
	var args []any
	for i, p := range parts {
		c, a := db.filterSQL(p, cols)
		conds[i] = c
		args = append(args, a...)
	}
	return "(" + strings.Join(conds, sep) + ")", args
}

func (db *DB) condSQL(c taskd.QueryCond, cols filterColumns) (string, []any) {
	if c.Field == taskd.FieldCustom {
		return db.customSQL(c, cols)
	}
	if col, ok := cols.ints[c.Field]; ok {
		var args []any
		top := false // parent 0: a top-level task
		for _, n := range c.Ints {
			if c.Field == taskd.FieldParent && n == 0 {
				top = true
				continue
			}
			args = append(args, n)
		}
		var conds []string
		if len(args) > 0 {
			conds = append(conds, col+" IN (?"+strings.Repeat(", ?", len(args)-1)+")")
		}
		if top {
			conds = append(conds, col+" IS NULL")
		}
		return "(" + strings.Join(conds, " OR ") + ")", args
	}
	if col, ok := cols.texts[c.Field]; ok {
		if c.Op == "has" {
			like, args := col+` `+db.d.ilike+` ? ESCAPE '\'`, []any{"%" + escapeLike(c.Text) + "%"}
			if cols.searched[c.Field] {
				if pre, pargs := db.trigramCandidates(c.Text, searchName); pre != "" {
					return "(" + pre + like + ")", append(pargs, args...)
				}
			}
			return like, args
		}
		return col + ` = ?`, []any{c.Text}
	}
	if col, ok := cols.textDates[c.Field]; ok {
		return "(" + col + " <> '' AND " + col + " " + c.Op + " ?)", []any{c.Date}
	}
	col, ok := cols.timeDates[c.Field]
	if !ok {
		return "1 = 0", nil // a field of another language: the parser names its own only
	}
	// A day of a timestamp: [start, next) in UTC, the zone of the API.
	day, _ := time.Parse(taskd.DateLayout, c.Date)
	start, next := ms(day), ms(day.AddDate(0, 0, 1))
	set := col + " > 0 AND "
	switch c.Op {
	case "=":
		return "(" + set + col + " >= ? AND " + col + " < ?)", []any{start, next}
	case "!=":
		return "(" + set + "(" + col + " < ? OR " + col + " >= ?))", []any{start, next}
	case ">":
		return "(" + set + col + " >= ?)", []any{next}
	case ">=":
		return "(" + set + col + " >= ?)", []any{start}
	case "<":
		return "(" + set + col + " < ?)", []any{start}
	}
	return "(" + set + col + " < ?)", []any{next} // <=
}

// customSQL compiles a condition on a custom field, bound by filter.Bind
// (its ID, its Type, and Text in the stored form): the objects with a
// value that meets it, or, for = and != with no value (""), those without
// a value and those with one. An unbound condition, or one where the
// objects have no custom fields, meets none.
func (db *DB) customSQL(c taskd.QueryCond, cols filterColumns) (string, []any) {
	if cols.object == "" || c.Custom.ID == 0 || c.Custom.Type == "" {
		return "1 = 0", nil
	}
	_, col := fieldValueTable(cols.kind)
	in := func(cond string, args ...any) (string, []any) {
		return cols.object + ` IN (SELECT ` + col + ` FROM ` + cols.values + ` WHERE field_id = ?` + cond + `)`, append([]any{c.Custom.ID}, args...)
	}
	op, known := map[string]string{"=": "=", "!=": "<>", ">": ">", "<": "<", ">=": ">=", "<=": "<=", "has": ""}[c.Op]
	switch {
	case !known:
		return "1 = 0", nil // the parser writes no other operator
	case c.Text == "" && c.Op == "=":
		cond, args := in("")
		return "NOT " + cond, args
	case c.Text == "" && c.Op == "!=":
		return in("")
	case c.Op == "has":
		return in(` AND value `+db.d.ilike+` ? ESCAPE '\'`, "%"+escapeLike(c.Text)+"%")
	case c.Custom.Type == taskd.CustomNumber:
		n, err := strconv.ParseFloat(c.Text, 64)
		if err != nil {
			return "1 = 0", nil // bound values are canonical numbers
		}
		return in(` AND number `+op+` ?`, n)
	}
	return in(` AND value `+op+` ?`, c.Text)
}
