package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

var _ taskd.CustomFieldStore = (*DB)(nil)

const customFieldColumns = `f.id, f.kind, f.name, f.type, f.descr, f.options`

func scanCustomField(s scanner) (taskd.CustomField, error) {
	var f taskd.CustomField
	var options string
	if err := s.Scan(&f.ID, &f.Of, &f.Name, &f.Type, &f.Descr, &options); err != nil {
		return f, err
	}
	var err error
	f.Options, err = readOptions(options)
	return f, err
}

// readOptions reads the options column: nil for a field without options.
func readOptions(s string) ([]string, error) {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil || len(out) == 0 {
		return nil, err
	}
	return out, nil
}

// optionsJSON is a list's options as the options column keeps them.
func optionsJSON(options []string) string {
	if options == nil {
		options = []string{}
	}
	b, _ := json.Marshal(options) // a list of strings always encodes
	return string(b)
}

// fieldValueTable names the table of values of a kind's fields and its
// object column.
func fieldValueTable(of string) (string, string) {
	if of == taskd.ObjectProject {
		return "project_field_values", "project_id"
	}
	return "task_field_values", "task_id"
}

// CustomFields lists the account's fields of a kind, oldest first.
func (db *DB) CustomFields(ctx context.Context, accountID int64, of string) ([]taskd.CustomField, error) {
	return all(ctx, db.reader, "custom fields", db.d.q(`SELECT `+customFieldColumns+` FROM custom_fields f
		WHERE f.account_id = ? AND f.kind = ? ORDER BY f.id`), scanCustomField, accountID, of)
}

// customFields is CustomFields in a transaction, by id.
func (db *DB) customFields(ctx context.Context, q querier, accountID int64, of string) (map[int64]taskd.CustomField, error) {
	list, err := allOnce(ctx, q, db.d.q(`SELECT `+customFieldColumns+` FROM custom_fields f
		WHERE f.account_id = ? AND f.kind = ?`), scanCustomField, accountID, of)
	out := make(map[int64]taskd.CustomField, len(list))
	for _, f := range list {
		out[f.ID] = f
	}
	return out, err
}

// AddCustomField makes a field, if by may define them.
func (db *DB) AddCustomField(ctx context.Context, by taskd.Actor, f taskd.CustomField) (taskd.CustomField, error) {
	if err := taskd.Authorize(by, taskd.PermSettings); err != nil {
		return f, err
	}
	f, err := taskd.CheckCustomField(f)
	if err != nil {
		return f, err
	}
	err = db.tx(ctx, "add custom field", func(tx querier) error {
		err := tx.QueryRowContext(ctx, db.d.q(`INSERT INTO custom_fields (account_id, kind, name, type, descr, options, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`), by.AccountID, f.Of, f.Name, f.Type, f.Descr, optionsJSON(f.Options), ms(db.now())).Scan(&f.ID)
		if isUnique(err) {
			return nameTaken(f)
		}
		return err
	})
	return f, err
}

func nameTaken(f taskd.CustomField) error {
	return &taskd.Error{Kind: taskd.KindConflict, Field: "name", Value: f.Name, Message: "A field of " + f.Of + "s already has this name"}
}

// field finds a field of the account, locked on PostgreSQL; not found
// ("custom field") otherwise.
func (db *DB) field(ctx context.Context, tx querier, accountID, id int64) (taskd.CustomField, error) {
	query := `SELECT ` + customFieldColumns + ` FROM custom_fields f WHERE f.account_id = ? AND f.id = ?`
	if db.d.forUpdate != "" {
		query += db.d.forUpdate + ` OF f`
	}
	f, err := scanCustomField(tx.QueryRowContext(ctx, db.d.q(query), accountID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return f, taskd.NotFound("custom field")
	}
	return f, err
}

// UpdateCustomField renames a field and changes its description and
// options. An option taken away must be no object's value.
func (db *DB) UpdateCustomField(ctx context.Context, by taskd.Actor, f taskd.CustomField) (taskd.CustomField, error) {
	if err := taskd.Authorize(by, taskd.PermSettings); err != nil {
		return f, err
	}
	var out taskd.CustomField
	err := db.tx(ctx, "update custom field", func(tx querier) error {
		old, err := db.field(ctx, tx, by.AccountID, f.ID)
		if err != nil {
			return err
		}
		f.Of, f.Type = old.Of, old.Type
		if f, err = taskd.CheckCustomField(f); err != nil {
			return err
		}
		table, _ := fieldValueTable(f.Of)
		for _, o := range old.Options {
			if slices.Contains(f.Options, o) {
				continue
			}
			var n int
			if err := tx.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM `+table+` WHERE field_id = ? AND value = ?`), f.ID, o).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return &taskd.Error{Kind: taskd.KindConflict, Field: "options", Value: o,
					Message: "“" + o + "” is the value of " + strconv.Itoa(n) + " " + plural(n, f.Of) + ": change " + pronoun(n) + " first"}
			}
		}
		_, err = tx.ExecContext(ctx, db.d.q(`UPDATE custom_fields SET name = ?, descr = ?, options = ? WHERE id = ? AND account_id = ?`),
			f.Name, f.Descr, optionsJSON(f.Options), f.ID, by.AccountID)
		if isUnique(err) {
			return nameTaken(f)
		}
		out = f
		return err
	})
	return out, err
}

func plural(n int, of string) string {
	if n == 1 {
		return of
	}
	return of + "s"
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// DeleteCustomField deletes a field; its values go with it.
func (db *DB) DeleteCustomField(ctx context.Context, by taskd.Actor, id int64) error {
	if err := taskd.Authorize(by, taskd.PermSettings); err != nil {
		return err
	}
	return db.tx(ctx, "delete custom field", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM custom_fields WHERE id = ? AND account_id = ?`), id, by.AccountID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return taskd.NotFound("custom field")
		}
		return nil
	})
}

// FieldValues reads the values of the objects with the ids that the
// viewer sees; those they do not see have none.
func (db *DB) FieldValues(ctx context.Context, v taskd.Viewer, of string, ids []int64) (map[int64][]taskd.FieldValue, error) {
	out := map[int64][]taskd.FieldValue{}
	if len(ids) == 0 || v.SeesNothing() {
		return out, nil
	}
	table, col := fieldValueTable(of)
	seen := objectRowSeen(v, of == taskd.ObjectTask)
	type row struct {
		object int64
		value  taskd.FieldValue
	}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		args := []any{v.AccountID, of}
		for _, id := range chunk {
			args = append(args, id)
		}
		args = append(args, seen.args...)
		rows, err := all(ctx, db.reader, "field values", db.d.q(`SELECT o.`+col+`, o.value, `+customFieldColumns+`
			FROM `+table+` o JOIN custom_fields f ON f.id = o.field_id
			WHERE f.account_id = ? AND f.kind = ? AND o.`+col+` IN (?`+strings.Repeat(", ?", len(chunk)-1)+`)`+seen.where()+` ORDER BY f.id`),
			func(s scanner) (row, error) {
				var r row
				var options string
				f := &r.value.Field
				if err := s.Scan(&r.object, &r.value.Value, &f.ID, &f.Of, &f.Name, &f.Type, &f.Descr, &options); err != nil {
					return r, err
				}
				var err error
				f.Options, err = readOptions(options)
				return r, err
			}, args...)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.object] = append(out[r.object], r.value)
		}
	}
	return out, nil
}

// fieldMap is an object's values as events show them: {"id": "value"}.
func (db *DB) fieldMap(ctx context.Context, q querier, of string, id int64) (map[string]string, error) {
	table, col := fieldValueTable(of)
	list, err := allOnce(ctx, q, db.d.q(`SELECT field_id, value FROM `+table+` WHERE `+col+` = ?`), func(s scanner) ([2]string, error) {
		var field int64
		var value string
		err := s.Scan(&field, &value)
		return [2]string{strconv.FormatInt(field, 10), value}, err
	}, id)
	out := make(map[string]string, len(list))
	for _, p := range list {
		out[p[0]] = p[1]
	}
	return out, err
}

// setFieldValues writes the values of an object's custom fields in the
// change's transaction, each read with its field's type
// (wire.ParseFieldValue; "" removes a value), and reports the object's
// values before and after ({"id": "value"}). An id of no field of the
// account's kind is invalid, naming its parameter.
func (db *DB) setFieldValues(ctx context.Context, tx querier, accountID int64, of string, id int64, values map[int64]string) (rawObject, rawObject, error) {
	table, col := fieldValueTable(of)
	before, err := db.fieldMap(ctx, tx, of, id)
	if err != nil {
		return "", "", err
	}
	fields, err := db.customFields(ctx, tx, accountID, of)
	if err != nil {
		return "", "", err
	}
	ids := make([]int64, 0, len(values))
	for fid := range values {
		ids = append(ids, fid)
	}
	slices.Sort(ids) // the first bad one named is always the same
	for _, fid := range ids {
		f, ok := fields[fid]
		if !ok {
			return "", "", &taskd.Error{Kind: taskd.KindInvalid, Field: taskd.FieldParam(fid), Message: "No custom field of " + of + "s has this id"}
		}
		v, err := wire.ParseFieldValue(f, values[fid])
		if err != nil {
			return "", "", err
		}
		if v == "" {
			if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM `+table+` WHERE `+col+` = ? AND field_id = ?`), id, fid); err != nil {
				return "", "", err
			}
			continue
		}
		var number any
		if f.Type == taskd.CustomNumber {
			number, _ = strconv.ParseFloat(v, 64) // canonical: always a number
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO `+table+` (`+col+`, field_id, value, number) VALUES (?, ?, ?, ?)
			ON CONFLICT (`+col+`, field_id) DO UPDATE SET value = excluded.value, number = excluded.number`), id, fid, v, number); err != nil {
			return "", "", err
		}
	}
	after, err := db.fieldMap(ctx, tx, of, id)
	return jsonObject(before), jsonObject(after), err
}

// newFieldValues sets a new object's values, if any were given, and
// returns them as its creation event shows them ("" for none).
func (db *DB) newFieldValues(ctx context.Context, tx querier, accountID int64, of string, id int64, values map[int64]string) (rawObject, error) {
	if len(values) == 0 {
		return "", nil
	}
	_, after, err := db.setFieldValues(ctx, tx, accountID, of, id, values)
	if after == "{}" {
		after = ""
	}
	return after, err
}

// withFields adds an object's custom field values to the fields of its
// event, when it has any.
func withFields(f map[string]any, values rawObject) map[string]any {
	if values != "" {
		f["custom_fields"] = values
	}
	return f
}
