package wire

import (
	"sort"
	"strings"

	"github.com/taskd/taskd"
)

// fieldPrefix starts the parameters that carry custom fields' values:
// custom_fields[ID] (taskd.FieldParam).
const fieldPrefix = "custom_fields["

// IsFieldParam reports whether a parameter's name has the form of a
// custom field's value, custom_fields[…], whatever is in the brackets.
func IsFieldParam(name string) bool {
	return strings.HasPrefix(name, fieldPrefix) && strings.HasSuffix(name, "]")
}

// ParseFieldValues reads the values of custom fields among the parameters
// with the names: custom_fields[ID]=value, by field id (taskd.TaskInput.
// Fields). Each value is kept as sent, for the store to read with its
// field's type (ParseFieldValue). A name whose brackets hold no id is
// invalid, naming it. Nil when there are none.
func ParseFieldValues(names []string, p Params) (map[int64]string, error) {
	sort.Strings(names) // the first bad one named is always the same
	var out map[int64]string
	for _, name := range names {
		if !IsFieldParam(name) {
			continue
		}
		id, err := taskd.ParseID(name[len(fieldPrefix):len(name)-1], name)
		if err != nil {
			return nil, taskd.Invalid(name, "A custom field's value is sent as custom_fields[ID], ID the field's id")
		}
		v, _ := p(name)
		if out == nil {
			out = map[int64]string{}
		}
		out[id] = v
	}
	return out, nil
}

// ParseFieldValue reads a value of the custom field f as sent into its
// stored form and checks it (taskd.CheckFieldValue): a number with . or ,
// as its decimal point (12, -3.5, 0,25), written canonically; a date
// DD.MM.YYYY or YYYY-MM-DD, as YYYY-MM-DD; a text or an option as it is.
// Values are trimmed; "" or blanks are no value. Errors are invalid,
// naming the field's parameter.
func ParseFieldValue(f taskd.CustomField, raw string) (string, error) {
	v := strings.TrimSpace(raw)
	if v == "" {
		return "", nil
	}
	param := taskd.FieldParam(f.ID)
	switch f.Type {
	case taskd.CustomNumber:
		n, ok := canonicalNumber(v)
		if !ok {
			return "", taskd.Invalid(param, "%s is a number, such as 12, -3.5 or 0,25", f.Name)
		}
		v = n
	case taskd.CustomDate:
		d, err := ParseDate(param, v)
		if err != nil {
			return "", err
		}
		v = d
	}
	return v, taskd.CheckFieldValue(f, v)
}

// canonicalNumber writes a decimal number (an optional sign, digits, and
// optionally . or , and more digits) without a plus, leading zeros,
// trailing decimal zeros or a point with nothing after it; -0 is 0.
func canonicalNumber(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	whole, frac, _ := strings.Cut(strings.Replace(s, ",", ".", 1), ".")
	digits := func(p string) bool { return strings.Trim(p, "0123456789") == "" }
	if whole == "" || !digits(whole) || !digits(frac) || len(s) > 64 {
		return "", false
	}
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	if whole == "" {
		whole = "0"
	}
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out, true
}
