package wire_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// TestParseFieldValue: a value as sent becomes its stored form — numbers
// with . or , written canonically, dates in either input form as
// YYYY-MM-DD, texts and options trimmed — or is refused, naming the
// field's parameter.
func TestParseFieldValue(t *testing.T) {
	field := func(typ string) taskd.CustomField {
		return taskd.CustomField{ID: 3, Name: "F", Type: typ, Options: []string{"Draft", "Final"}}
	}
	for _, c := range []struct{ typ, in, want string }{
		{taskd.CustomNumber, "12", "12"},
		{taskd.CustomNumber, " 0,250 ", "0.25"},
		{taskd.CustomNumber, "+007.50", "7.5"},
		{taskd.CustomNumber, "-0.0", "0"},
		{taskd.CustomNumber, "-3.", "-3"},
		{taskd.CustomNumber, "", ""},
		{taskd.CustomDate, "31.03.2026", "2026-03-31"},
		{taskd.CustomDate, "2026-03-31", "2026-03-31"},
		{taskd.CustomText, "  Acme  ", "Acme"},
		{taskd.CustomText, "   ", ""},
		{taskd.CustomList, " Final", "Final"},
	} {
		if got, err := wire.ParseFieldValue(field(c.typ), c.in); err != nil || got != c.want {
			t.Errorf("%s %q = %q, %v; want %q", c.typ, c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ typ, in string }{
		{taskd.CustomNumber, "1,5,0"}, {taskd.CustomNumber, ".5"}, {taskd.CustomNumber, "1e3"}, {taskd.CustomNumber, "--1"},
		{taskd.CustomNumber, "+-1"}, {taskd.CustomNumber, "1 000"}, {taskd.CustomNumber, "1234567890123456"}, {taskd.CustomNumber, "0.1234567"},
		{taskd.CustomDate, "31.02.2026"}, {taskd.CustomDate, "tomorrow"},
		{taskd.CustomText, "a\nb"}, {taskd.CustomList, "draft"},
	} {
		_, err := wire.ParseFieldValue(field(c.typ), c.in)
		if e := taskd.AsError(err); err == nil || e.Kind != taskd.KindInvalid || e.Field != "custom_fields[3]" {
			t.Errorf("%s %q: %v, want invalid custom_fields[3]", c.typ, c.in, err)
		}
	}
}

// TestParseFieldValues: the custom_fields[ID] parameters among others, by
// id; brackets without an id are refused, naming the parameter.
func TestParseFieldValues(t *testing.T) {
	params := map[string]string{"title": "x", "custom_fields[12]": "a", "custom_fields[3]": ""}
	p := func(name string) (string, bool) { v, ok := params[name]; return v, ok }
	names := []string{"title", "custom_fields[12]", "custom_fields[3]"}
	got, err := wire.ParseFieldValues(names, p)
	if err != nil || !reflect.DeepEqual(got, map[int64]string{12: "a", 3: ""}) {
		t.Fatalf("ParseFieldValues = %v, %v", got, err)
	}
	if got, err := wire.ParseFieldValues([]string{"title"}, p); err != nil || got != nil {
		t.Fatalf("without fields: %v, %v", got, err)
	}
	for _, bad := range []string{"custom_fields[]", "custom_fields[x]", "custom_fields[0]", "custom_fields[-1]", "custom_fields[" + strings.Repeat("9", 19) + "]"} {
		if _, err := wire.ParseFieldValues([]string{"title", bad}, p); err == nil || taskd.AsError(err).Field != bad {
			t.Errorf("%s: %v, want invalid naming it", bad, err)
		}
	}
}

// FuzzParseFieldValue: whatever is sent, a value is refused or stored in
// a form that reads back as itself and that the domain accepts.
func FuzzParseFieldValue(f *testing.F) {
	for _, s := range []string{"12", "0,25", "-3.50", "31.03.2026", "2026-03-31", "Final", " x "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range taskd.CustomTypes {
			fd := taskd.CustomField{ID: 1, Name: "F", Type: typ, Options: []string{"Final", "x"}}
			v, err := wire.ParseFieldValue(fd, s)
			if err != nil {
				continue
			}
			if again, err := wire.ParseFieldValue(fd, v); err != nil || again != v {
				t.Fatalf("%s %q = %q reads back as %q, %v", typ, s, v, again, err)
			}
			if err := taskd.CheckFieldValue(fd, v); err != nil {
				t.Fatalf("%s %q = %q, which the domain refuses: %v", typ, s, v, err)
			}
		}
	})
}
