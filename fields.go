package taskd

import (
	"context"
	"slices"
	"strconv"
	"strings"
)

// The types of custom fields: what a field's values are.
const (
	CustomText   = "text"   // one line of text
	CustomNumber = "number" // a decimal number
	CustomDate   = "date"   // a day, DateLayout
	CustomList   = "list"   // one of the field's options
)

// CustomTypes are the types of custom fields, in the order forms offer
// them.
var CustomTypes = []string{CustomText, CustomNumber, CustomDate, CustomList}

// Bounds of custom fields: a field's description, a list's options, a
// text value, and the digits of a number.
const (
	MaxFieldDescrLen  = 1000
	MaxFieldOptions   = 100
	MaxFieldTextLen   = MaxNameLen
	MaxNumberDigits   = 15
	MaxNumberDecimals = 6
)

// CustomField is a field an account adds to its tasks or to its projects
// (spec/account-api.md §14): its values are of one type, and a list's are
// one of its options.
type CustomField struct {
	ID int64
	// Of says whose field it is: ObjectTask or ObjectProject.
	Of    string
	Name  string
	Type  string // CustomText, CustomNumber, CustomDate or CustomList
	Descr string
	// Options are a list field's choices, in order; nil for the others.
	Options []string
}

// FieldValue is the value of a custom field on a task or a project, in
// its stored form (CheckFieldValue): the text, the number written
// canonically, the day as DateLayout, or the option.
type FieldValue struct {
	Field CustomField
	Value string
}

// CustomFieldStore keeps an account's custom fields and reads their
// values. Values are set with the object's other fields
// (TaskInput.Fields, ProjectInput.Fields), in the same transaction and
// event.
type CustomFieldStore interface {
	// CustomFields lists the account's fields of tasks or of projects
	// (of: ObjectTask or ObjectProject), in the order they were made.
	CustomFields(ctx context.Context, accountID int64, of string) ([]CustomField, error)
	// AddCustomField makes a field (CheckCustomField) if by may define
	// fields (PermSettings; forbidden otherwise). A name the account's
	// fields of that kind already have is a conflict ("name").
	AddCustomField(ctx context.Context, by Actor, f CustomField) (CustomField, error)
	// UpdateCustomField renames the field f.ID and changes its
	// description and, for a list, its options; its kind and type stay.
	// Taking away an option that a task or project has is a conflict
	// ("options", the option as value); not found ("custom field") for
	// an id of no field of the account.
	UpdateCustomField(ctx context.Context, by Actor, f CustomField) (CustomField, error)
	// DeleteCustomField deletes a field and every value of it.
	DeleteCustomField(ctx context.Context, by Actor, id int64) error
	// FieldValues returns the values of the tasks or projects with the ids
	// that the viewer sees, by object, each in the order of the fields;
	// objects the viewer does not see have none (Viewer).
	FieldValues(ctx context.Context, v Viewer, of string, ids []int64) (map[int64][]FieldValue, error)
}

// CheckCustomField checks a field to make or change and returns it
// cleaned: whose it is (tasks or projects), its name (one line of at most
// MaxTitleLen bytes), its type, a description of at most
// MaxFieldDescrLen bytes, and, for a list only, one to MaxFieldOptions
// options, each one line of at most MaxTitleLen bytes, without repeats.
func CheckCustomField(f CustomField) (CustomField, error) {
	if f.Of != ObjectTask && f.Of != ObjectProject {
		return f, Invalid("of", "A field is of tasks or of projects")
	}
	name, err := TagTitle(f.Name)
	if err != nil {
		if AsError(err).Reason == ReasonRequired {
			return f, Required("name")
		}
		return f, Invalid("name", "A field's name is one line of at most %d bytes", MaxTitleLen)
	}
	f.Name = name
	if !slices.Contains(CustomTypes, f.Type) {
		return f, Invalid("type", "A field's type is %s", strings.Join(CustomTypes, ", "))
	}
	f.Descr = strings.TrimSpace(f.Descr)
	if len(f.Descr) > MaxFieldDescrLen {
		return f, Invalid("descr", "A description is at most %d bytes", MaxFieldDescrLen)
	}
	if f.Type != CustomList {
		if len(f.Options) > 0 && slices.ContainsFunc(f.Options, func(o string) bool { return strings.TrimSpace(o) != "" }) {
			return f, Invalid("options", "Only a list field has options")
		}
		f.Options = nil
		return f, nil
	}
	var options []string
	for _, o := range f.Options {
		o = strings.TrimSpace(o)
		switch {
		case o == "":
			continue
		case len(o) > MaxTitleLen || strings.ContainsAny(o, "\r\n"):
			return f, &Error{Kind: KindInvalid, Field: "options", Value: o, Message: "An option is one line of at most 200 bytes"}
		case slices.Contains(options, o):
			return f, &Error{Kind: KindInvalid, Field: "options", Value: o, Message: "An option is listed twice"}
		}
		options = append(options, o)
	}
	switch {
	case len(options) == 0:
		return f, Invalid("options", "A list field has at least one option")
	case len(options) > MaxFieldOptions:
		return f, Invalid("options", "A list field has at most %d options", MaxFieldOptions)
	}
	f.Options = options
	return f, nil
}

// FieldParam is the parameter, and form field, that carries the value of
// the custom field id: custom_fields[id].
func FieldParam(id int64) string { return "custom_fields[" + strconv.FormatInt(id, 10) + "]" }

// CheckFieldValue checks a value of the field in its stored form; "" is
// no value. A text is one line of at most MaxFieldTextLen bytes; a number
// is written canonically (an optional minus, digits without leading zeros,
// a point and at most MaxNumberDecimals decimals without trailing zeros,
// MaxNumberDigits digits in all, so that a double holds it exactly); a day
// is DateLayout; a list's value is one of its options. Errors are invalid,
// naming the field's parameter (FieldParam).
func CheckFieldValue(f CustomField, v string) error {
	if v == "" {
		return nil
	}
	param := FieldParam(f.ID)
	switch f.Type {
	case CustomText:
		if len(v) > MaxFieldTextLen || strings.ContainsAny(v, "\r\n") {
			return Invalid(param, "%s is one line of at most %d bytes", f.Name, MaxFieldTextLen)
		}
	case CustomNumber:
		if !canonicalNumber(v) {
			return Invalid(param, "%s is a number of at most %d digits, %d of them after the point", f.Name, MaxNumberDigits, MaxNumberDecimals)
		}
	case CustomDate:
		if CheckDate(param, v) != nil {
			return Invalid(param, "%s is a date", f.Name)
		}
	case CustomList:
		if !slices.Contains(f.Options, v) {
			return &Error{Kind: KindInvalid, Field: param, Value: v, Message: f.Name + " is one of: " + strings.Join(f.Options, ", ")}
		}
	default:
		return Invalid(param, "%s has an unknown type", f.Name)
	}
	return nil
}

// canonicalNumber reports whether s is a number in CheckFieldValue's
// canonical form.
func canonicalNumber(s string) bool {
	neg := strings.HasPrefix(s, "-")
	whole, frac, hasPoint := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	digits := func(p string) bool { return p != "" && strings.Trim(p, "0123456789") == "" }
	switch {
	case !digits(whole), len(whole) > 1 && whole[0] == '0':
		return false
	case hasPoint && (!digits(frac) || strings.HasSuffix(frac, "0") || len(frac) > MaxNumberDecimals):
		return false
	case neg && whole == "0" && frac == "": // -0 is written 0
		return false
	}
	return len(whole)+len(frac) <= MaxNumberDigits
}
