package taskd

// Query is a filter of tasks or cost lines (TaskQuery.Filter,
// CostQuery.Filter): a condition, or conditions joined by and/or. Package
// filter reads it from the query language of search_tasks and get_costs
// (spec/account-api.md §4, §8); the store compiles it to SQL; the pages
// build it directly.
type Query interface{ isQuery() }

// QueryAnd holds when every part holds; QueryOr when any does.
type (
	QueryAnd struct{ Parts []Query }
	QueryOr  struct{ Parts []Query }
)

// QueryCond is one condition: a field, an operator and a value of the
// field's kind.
type QueryCond struct {
	Field QueryField
	Op    string  // =, !=, >, <, >=, <=, in, has
	Ints  []int64 // integer fields: one value, or the list of in
	Text  string  // name, comment; a custom field's value ("": none)
	Date  string  // date fields, YYYY-MM-DD
	// Custom is the field of a FieldCustom condition.
	Custom CustomRef
}

// CustomRef names the custom field of a condition: by ID, or by Name as
// the filter wrote it. filter.Bind finds the field and sets ID and Type,
// and writes Text in the field's stored form (CheckFieldValue); the
// store compiles bound conditions only.
type CustomRef struct {
	ID   int64
	Name string
	Type string // CustomText …; "" until bound
}

func (QueryAnd) isQuery()  {}
func (QueryOr) isQuery()   {}
func (QueryCond) isQuery() {}

// QueryField is a field a filter may name, by its canonical name.
type QueryField string

// The fields of the query language.
const (
	FieldID         QueryField = "id"
	FieldProject    QueryField = "project"
	FieldParent     QueryField = "parent"
	FieldName       QueryField = "name"
	FieldDateAdded  QueryField = "date_added"
	FieldDateStart  QueryField = "date_start"
	FieldDateEnd    QueryField = "date_end"
	FieldDateClosed QueryField = "date_closed"
	// The fields of cost lines (filter.ParseCosts): the task, the comment
	// and the line's date.
	FieldTask    QueryField = "task"
	FieldComment QueryField = "comment"
	FieldDate    QueryField = "date"
	// FieldCustom is a custom field of tasks (QueryCond.Custom), written
	// custom_fields[ID] or custom_fields['Name'].
	FieldCustom QueryField = "custom_fields"
)
