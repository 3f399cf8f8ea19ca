package store

import (
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// filterSQL compiles a filter of the query language (taskd.ParseQuery)
// into a condition on tasks t with its arguments: every value is a
// parameter, never text of the query.
func (db *DB) filterSQL(q taskd.Query) (string, []any) {
	switch q := q.(type) {
	case taskd.QueryAnd:
		return db.joinSQL(q.Parts, " AND ")
	case taskd.QueryOr:
		return db.joinSQL(q.Parts, " OR ")
	case taskd.QueryCond:
		return db.condSQL(q)
	}
	return "1 = 0", nil
}

func (db *DB) joinSQL(parts []taskd.Query, sep string) (string, []any) {
	conds := make([]string, len(parts))
	var args []any
	for i, p := range parts {
		c, a := db.filterSQL(p)
		conds[i] = c
		args = append(args, a...)
	}
	return "(" + strings.Join(conds, sep) + ")", args
}

// intColumns are the integer fields' columns.
var intColumns = map[taskd.QueryField]string{taskd.FieldID: "t.id", taskd.FieldProject: "t.project_id", taskd.FieldParent: "t.parent_id"}

// textDates are the date fields kept as YYYY-MM-DD text ("" when unset);
// timeDates those kept as Unix milliseconds (0 when unset).
var (
	textDates = map[taskd.QueryField]string{taskd.FieldDateStart: "t.date_start", taskd.FieldDateEnd: "t.date_end"}
	timeDates = map[taskd.QueryField]string{taskd.FieldDateAdded: "t.created_at", taskd.FieldDateClosed: "t.closed_at"}
)

func (db *DB) condSQL(c taskd.QueryCond) (string, []any) {
	if col, ok := intColumns[c.Field]; ok {
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
	if c.Field == taskd.FieldName {
		if c.Op == "has" {
			return `t.name ` + db.d.ilike + ` ? ESCAPE '\'`, []any{"%" + escapeLike(c.Text) + "%"}
		}
		return `t.name = ?`, []any{c.Text}
	}
	if col, ok := textDates[c.Field]; ok {
		return "(" + col + " <> '' AND " + col + " " + c.Op + " ?)", []any{c.Date}
	}
	// A day of a timestamp: [start, next) in UTC, the zone of the API.
	col := timeDates[c.Field]
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
