package taskd_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

// TestCheckCustomField: a field is of tasks or projects, has a one-line
// name and a type of the four; a list has options, trimmed, one a line,
// without repeats, and the other types none.
func TestCheckCustomField(t *testing.T) {
	t.Parallel()
	got, err := taskd.CheckCustomField(taskd.CustomField{Of: taskd.ObjectTask, Name: "  Stage ", Type: taskd.CustomList,
		Descr: " Where it is ", Options: []string{" Draft", "", "Final "}})
	want := taskd.CustomField{Of: taskd.ObjectTask, Name: "Stage", Type: taskd.CustomList, Descr: "Where it is", Options: []string{"Draft", "Final"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("CheckCustomField = %+v, %v; want %+v", got, err, want)
	}
	if got, err := taskd.CheckCustomField(taskd.CustomField{Of: taskd.ObjectProject, Name: "Budget code", Type: taskd.CustomText, Options: []string{"", " "}}); err != nil || got.Options != nil {
		t.Fatalf("a text field with blank options: %+v, %v", got, err)
	}
	for name, c := range map[string]struct {
		f     taskd.CustomField
		field string
	}{
		"no kind":          {taskd.CustomField{Name: "X", Type: taskd.CustomText}, "of"},
		"a comment's":      {taskd.CustomField{Of: "comment", Name: "X", Type: taskd.CustomText}, "of"},
		"blank name":       {taskd.CustomField{Of: taskd.ObjectTask, Name: " ", Type: taskd.CustomText}, "name"},
		"two-line name":    {taskd.CustomField{Of: taskd.ObjectTask, Name: "a\nb", Type: taskd.CustomText}, "name"},
		"long name":        {taskd.CustomField{Of: taskd.ObjectTask, Name: strings.Repeat("n", 201), Type: taskd.CustomText}, "name"},
		"unknown type":     {taskd.CustomField{Of: taskd.ObjectTask, Name: "X", Type: "colour"}, "type"},
		"long description": {taskd.CustomField{Of: taskd.ObjectTask, Name: "X", Type: taskd.CustomText, Descr: strings.Repeat("d", 1001)}, "descr"},
		"empty list":       {taskd.CustomField{Of: taskd.ObjectTask, Name: "X", Type: taskd.CustomList, Options: []string{" "}}, "options"},
		"repeated option":  {taskd.CustomField{Of: taskd.ObjectTask, Name: "X", Type: taskd.CustomList, Options: []string{"a", "b", " a"}}, "options"},
		"options of text":  {taskd.CustomField{Of: taskd.ObjectTask, Name: "X", Type: taskd.CustomNumber, Options: []string{"1"}}, "options"},
		"too many options": {taskd.CustomField{Of: taskd.ObjectTask, Name: "X", Type: taskd.CustomList, Options: numbered(101)}, "options"},
	} {
		if _, err := taskd.CheckCustomField(c.f); err == nil || taskd.AsError(err).Kind != taskd.KindInvalid || taskd.AsError(err).Field != c.field {
			t.Errorf("%s: %v, want invalid %q", name, err, c.field)
		}
	}
}

func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Repeat("o", i+1)
	}
	return out
}

// TestCheckFieldValue: each type's stored form, and what each refuses,
// named by the field's parameter; "" is no value of any type.
func TestCheckFieldValue(t *testing.T) {
	t.Parallel()
	field := func(typ string) taskd.CustomField {
		return taskd.CustomField{ID: 7, Name: "F", Type: typ, Options: []string{"Draft", "Final"}}
	}
	for _, c := range []struct {
		typ, value string
		ok         bool
	}{
		{taskd.CustomText, "", true},
		{taskd.CustomText, "Acme Ltd", true},
		{taskd.CustomText, "two\nlines", false},
		{taskd.CustomText, strings.Repeat("x", 501), false},
		{taskd.CustomNumber, "0", true},
		{taskd.CustomNumber, "-12.5", true},
		{taskd.CustomNumber, "123456789012345", true},
		{taskd.CustomNumber, "1234567890123456", false},
		{taskd.CustomNumber, "0.123456", true},
		{taskd.CustomNumber, "0.1234567", false},
		{taskd.CustomNumber, "1.50", false},
		{taskd.CustomNumber, "01", false},
		{taskd.CustomNumber, "-0", false},
		{taskd.CustomNumber, "1,5", false},
		{taskd.CustomNumber, "1.", false},
		{taskd.CustomNumber, "+1", false},
		{taskd.CustomNumber, "ten", false},
		{taskd.CustomDate, "2026-03-31", true},
		{taskd.CustomDate, "31.03.2026", false},
		{taskd.CustomDate, "2026-02-30", false},
		{taskd.CustomDate, "1850-01-01", false},
		{taskd.CustomList, "Final", true},
		{taskd.CustomList, "final", false},
		{"colour", "red", false},
	} {
		err := taskd.CheckFieldValue(field(c.typ), c.value)
		if c.ok != (err == nil) {
			t.Errorf("%s %q: %v, want ok %v", c.typ, c.value, err, c.ok)
		}
		if err != nil && taskd.AsError(err).Field != "custom_fields[7]" {
			t.Errorf("%s %q: the error names %q", c.typ, c.value, taskd.AsError(err).Field)
		}
	}
}
