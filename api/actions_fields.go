package api

import (
	"maps"
	"slices"
	"strconv"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// fieldsParam stands, in an action's parameters, for every
// custom_fields[ID]: the values of custom fields that post_task,
// update_task, post_project and update_project set (a taskd extension:
// the spec shows no way to write them).
const fieldsParam = "custom_fields[ID]"

// customFieldOut is a custom field's definition (spec §14).
type customFieldOut struct {
	ID      string   `json:"id"`
	Type    string   `json:"type"`
	Name    string   `json:"name"`
	Descr   string   `json:"descr"`
	Options []string `json:"options"`
}

// customValueOut is a custom field's value on a task or project
// (spec §14): {id, type, name, value}, the value a string.
type customValueOut struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

func renderCustomField(f taskd.CustomField) customFieldOut {
	options := f.Options
	if options == nil {
		options = []string{}
	}
	return customFieldOut{ID: strconv.FormatInt(f.ID, 10), Type: f.Type, Name: f.Name, Descr: f.Descr, Options: options}
}

// renderValues is an object's custom_fields: every value it has, in the
// order of the fields; [] for none.
func renderValues(values []taskd.FieldValue) []customValueOut {
	out := make([]customValueOut, len(values))
	for i, v := range values {
		out[i] = customValueOut{ID: strconv.FormatInt(v.Field.ID, 10), Type: v.Field.Type, Name: v.Field.Name, Value: v.Value}
	}
	return out
}

// getCustomFields is get_task_custom_fields and get_project_custom_fields.
func getCustomFields(of string) func(*call) (any, error) {
	return func(c *call) (any, error) {
		list, err := c.store.CustomFields(c.ctx, c.accountID(), of)
		if err != nil {
			return nil, err
		}
		return ok(renderEach(list, renderCustomField)), nil
	}
}

// fieldValues reads the call's custom_fields[ID] parameters.
func (c *call) fieldValues() (map[int64]string, error) {
	return wire.ParseFieldValues(slices.Collect(maps.Keys(c.p)), c.opt)
}

// withValues reads the custom field values of the objects, their
// subtasks' with them, when the answer shows them: with
// extra=custom_fields, or when the call set some (always true).
func (c *call) withValues(of string, ids []int64, always bool) (map[int64][]taskd.FieldValue, error) {
	if !always && !c.extra("custom_fields") {
		return nil, nil
	}
	return c.store.FieldValues(c.ctx, c.viewer(), of, ids)
}
