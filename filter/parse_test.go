package filter_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/filter"
)

// TestQueryLanguage: the examples of spec/account-api.md §4, each
// operator and field, braced and bare operators, and malformed filters
// named by their offending part.
func TestQueryLanguage(t *testing.T) {
	cond := func(f taskd.QueryField, op string, v any) taskd.QueryCond {
		c := taskd.QueryCond{Field: f, Op: op}
		switch v := v.(type) {
		case []int64:
			c.Ints = v
		case string:
			if f == taskd.FieldName {
				c.Text = v
			} else {
				c.Date = v
			}
		}
		return c
	}
	for in, want := range map[string]taskd.Query{
		"project{=}2456":               cond(taskd.FieldProject, "=", []int64{2456}),
		"project=2456":                 cond(taskd.FieldProject, "=", []int64{2456}),
		"id {in} (1234, 1240)":         cond(taskd.FieldID, "in", []int64{1234, 1240}),
		"id in (7)":                    cond(taskd.FieldID, "in", []int64{7}),
		"name{=}'Task Report'":         cond(taskd.FieldName, "=", "Task Report"),
		"name {has} 'Report'":          cond(taskd.FieldName, "has", "Report"),
		`name has "it's"`:              cond(taskd.FieldName, "has", "it's"),
		`name has 'it\'s'`:             cond(taskd.FieldName, "has", "it's"),
		"dateend>'25.05.2021'":         cond(taskd.FieldDateEnd, ">", "2021-05-25"),
		"date_added >= '2021-05-25'":   cond(taskd.FieldDateAdded, ">=", "2021-05-25"),
		"dateclose{!=}01.02.2020":      cond(taskd.FieldDateClosed, "!=", "2020-02-01"),
		"datestart <= '01.01.2026'":    cond(taskd.FieldDateStart, "<=", "2026-01-01"),
		"parent = 0":                   cond(taskd.FieldParent, "=", []int64{0}),
		"PROJECT = 1 AND name has 'x'": taskd.QueryAnd{Parts: []taskd.Query{cond(taskd.FieldProject, "=", []int64{1}), cond(taskd.FieldName, "has", "x")}},
		"(name has 'Report' or name has 'Approval') and (dateend>'25.05.2021' and dateend<'31.05.2021')": taskd.QueryAnd{Parts: []taskd.Query{
			taskd.QueryOr{Parts: []taskd.Query{cond(taskd.FieldName, "has", "Report"), cond(taskd.FieldName, "has", "Approval")}},
			taskd.QueryAnd{Parts: []taskd.Query{cond(taskd.FieldDateEnd, ">", "2021-05-25"), cond(taskd.FieldDateEnd, "<", "2021-05-31")}},
		}},
		"id=1 or id=2 and id=3": taskd.QueryOr{Parts: []taskd.Query{cond(taskd.FieldID, "=", []int64{1}),
			taskd.QueryAnd{Parts: []taskd.Query{cond(taskd.FieldID, "=", []int64{2}), cond(taskd.FieldID, "=", []int64{3})}}}},
	} {
		got, err := filter.ParseTasks(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseTasks(%q) = %#v, %v\nwant %#v", in, got, err, want)
			continue
		}
		if again, err := filter.ParseTasks(filter.Format(got)); err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("%q does not round-trip through %q: %v", in, filter.Format(got), err)
		}
	}
	for in, part := range map[string]string{
		"":                          "",
		"report":                    "report",
		"title = 'x'":               "title",
		"project":                   "",
		"project ~ 1":               "~",
		"project {= 1":              "1",
		"project = 'abc'":           "abc",
		"project = -1":              "-1",
		"project has 1":             "project has",
		"name > 'x'":                "name >",
		"name in (1)":               "name in",
		"dateend = 'tomorrow'":      "tomorrow",
		"dateend = '31.02.2026'":    "31.02.2026",
		"id in 1, 2":                "1",
		"id in (1 2)":               "2",
		"name has 'open":            "'open",
		"(project = 1":              "",
		"project = 1)":              ")",
		"project = 1 project = 2":   "project",
		"project = 1 and":           "",
		"id ! 1":                    "!",
		"name has 'x' ; drop table": ";",
	} {
		_, err := filter.ParseTasks(in)
		e := taskd.AsError(err)
		if err == nil || e.Kind != taskd.KindInvalid || e.Field != "filter" || e.Value != part {
			t.Errorf("ParseTasks(%q) = %v (part %q), want an invalid filter naming %q", in, err, e.Value, part)
		}
	}
	deep := strings.Repeat("(", 40) + "id=1" + strings.Repeat(")", 40)
	if _, err := filter.ParseTasks(deep); err == nil {
		t.Error("40 nested parentheses were accepted")
	}
	if _, err := filter.ParseTasks(strings.Repeat("id=1 or ", 300) + "id=1"); err == nil {
		t.Error("301 conditions were accepted")
	}
}

// FuzzParse: any filter parses or is refused as an invalid filter,
// never a panic, in the language of tasks and in that of cost lines; what
// parses formats back to the same query.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"project{=}2456", "id {in} (1234, 1240)", "name {has} 'Report'",
		"(name has 'Report' or name has 'Approval') and (dateend>'25.05.2021' and dateend<'31.05.2021')", `name = 'a\'b'`, "((id=1))",
		"task=5 and comment has 'taxi'", "dateadd>='01.03.2026' or id in (1,2)",
		"custom_fields[3] {=} 'Acme' or custom_fields['Due by'] >= 31.03.2026 and custom_fields[4] != ''"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, parse := range map[string]func(string) (taskd.Query, error){"ParseTasks": filter.ParseTasks, "ParseCosts": filter.ParseCosts} {
			q, err := parse(s)
			if err != nil {
				if e := taskd.AsError(err); e.Kind != taskd.KindInvalid || e.Field != "filter" {
					t.Fatalf("%s(%q): %v", name, s, err)
				}
				continue
			}
			again, err := parse(filter.Format(q))
			if err != nil || !reflect.DeepEqual(again, q) {
				t.Fatalf("%s(%q) = %#v does not round-trip through %q: %v", name, s, q, filter.Format(q), err)
			}
		}
	})
}

// TestParseCosts: get_costs' fields — the task as id (the docs) or
// task (the PHP SDK, C9), project, comment and dateadd, the line's date —
// and none of the tasks' others.
func TestParseCosts(t *testing.T) {
	for in, want := range map[string]taskd.Query{
		"id=5":                 taskd.QueryCond{Field: taskd.FieldTask, Op: "=", Ints: []int64{5}},
		"task {in} (5, 6)":     taskd.QueryCond{Field: taskd.FieldTask, Op: "in", Ints: []int64{5, 6}},
		"project=7":            taskd.QueryCond{Field: taskd.FieldProject, Op: "=", Ints: []int64{7}},
		"comment has 'Taxi'":   taskd.QueryCond{Field: taskd.FieldComment, Op: "has", Text: "Taxi"},
		"dateadd<'02.03.2026'": taskd.QueryCond{Field: taskd.FieldDate, Op: "<", Date: "2026-03-02"},
	} {
		got, err := filter.ParseCosts(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseCosts(%q) = %#v, %v; want %#v", in, got, err, want)
		}
	}
	for _, bad := range []string{"name has 'x'", "parent=1", "dateend>'01.01.2026'", "comment > 'a'", "task has 'x'"} {
		if _, err := filter.ParseCosts(bad); err == nil || taskd.AsError(err).Field != "filter" {
			t.Errorf("ParseCosts(%q) = %v, want an invalid filter", bad, err)
		}
	}
	if _, err := filter.ParseTasks("comment has 'x'"); err == nil {
		t.Error("search_tasks took a cost field")
	}
}

// TestCustomFieldConditions: custom_fields[ID] and custom_fields['Name']
// with the operators a custom field may take and a value, quoted or bare,
// kept as written until Bind; malformed ones are named by their part,
// and cost lines have no custom fields.
func TestCustomFieldConditions(t *testing.T) {
	custom := func(id int64, name, op, text string) taskd.QueryCond {
		return taskd.QueryCond{Field: taskd.FieldCustom, Op: op, Text: text, Custom: taskd.CustomRef{ID: id, Name: name}}
	}
	for in, want := range map[string]taskd.Query{
		"custom_fields[3] = 'Acme'":             custom(3, "", "=", "Acme"),
		"CUSTOM_FIELDS[3]{!=}''":                custom(3, "", "!=", ""),
		"custom_fields['Due by'] >= 31.03.2026": custom(0, "Due by", ">=", "31.03.2026"),
		`custom_fields["it's"] has 'x'`:         custom(0, "it's", "has", "x"),
		"custom_fields[12] < '-3,5'":            custom(12, "", "<", "-3,5"),
		"name has 'a' and custom_fields[1] = 2": taskd.QueryAnd{Parts: []taskd.Query{
			taskd.QueryCond{Field: taskd.FieldName, Op: "has", Text: "a"}, custom(1, "", "=", "2")}},
	} {
		got, err := filter.ParseTasks(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseTasks(%q) = %#v, %v\nwant %#v", in, got, err, want)
			continue
		}
		if again, err := filter.ParseTasks(filter.Format(got)); err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("%q does not round-trip through %q: %v", in, filter.Format(got), err)
		}
	}
	for in, part := range map[string]string{
		"custom_fields = 'x'":        "=",
		"custom_fields[x] = 'y'":     "x",
		"custom_fields[0] = 'y'":     "0",
		"custom_fields[''] = 'y'":    "custom_fields['']",
		"custom_fields[3 = 'y'":      "=",
		"custom_fields[3] in (1, 2)": "custom_fields in",
		"custom_fields[3] =":         "",
		"custom_fields[3] = (":       "(",
		"custom_field_3 = 'x'":       "custom_field_3",
	} {
		_, err := filter.ParseTasks(in)
		if e := taskd.AsError(err); err == nil || e.Kind != taskd.KindInvalid || e.Field != "filter" || e.Value != part {
			t.Errorf("ParseTasks(%q) = %v (part %q), want an invalid filter naming %q", in, err, e.Value, part)
		}
	}
	if _, err := filter.ParseCosts("custom_fields[3] = 'x'"); err == nil {
		t.Error("a cost filter took a custom field")
	}
}

// TestBind: Bind finds each condition's field by id or exact name, keeps
// the operators its type takes, and reads the value with the field's
// type (a number, a day, an option); ” is no value with = and !=, and
// has takes any text. What does not fit is an invalid filter naming the
// part.
func TestBind(t *testing.T) {
	fields := []taskd.CustomField{
		{ID: 1, Of: taskd.ObjectTask, Name: "Client", Type: taskd.CustomText},
		{ID: 2, Of: taskd.ObjectTask, Name: "Hours", Type: taskd.CustomNumber},
		{ID: 3, Of: taskd.ObjectTask, Name: "Due by", Type: taskd.CustomDate},
		{ID: 4, Of: taskd.ObjectTask, Name: "Stage", Type: taskd.CustomList, Options: []string{"Draft", "Final"}},
	}
	bound := func(id int64, name, typ, op, text string) taskd.QueryCond {
		return taskd.QueryCond{Field: taskd.FieldCustom, Op: op, Text: text, Custom: taskd.CustomRef{ID: id, Name: name, Type: typ}}
	}
	for in, want := range map[string]taskd.Query{
		"custom_fields['Client'] has ' Ac'":    bound(1, "Client", taskd.CustomText, "has", " Ac"),
		"custom_fields[1] = '  Acme '":         bound(1, "Client", taskd.CustomText, "=", "Acme"),
		"custom_fields[2] >= '0,50'":           bound(2, "Hours", taskd.CustomNumber, ">=", "0.5"),
		"custom_fields['Due by'] < 01.04.2026": bound(3, "Due by", taskd.CustomDate, "<", "2026-04-01"),
		"custom_fields[4] != 'Final'":          bound(4, "Stage", taskd.CustomList, "!=", "Final"),
		"custom_fields[4] = ' '":               bound(4, "Stage", taskd.CustomList, "=", ""),
		"id = 5 or custom_fields[2] != ''": taskd.QueryOr{Parts: []taskd.Query{
			taskd.QueryCond{Field: taskd.FieldID, Op: "=", Ints: []int64{5}}, bound(2, "Hours", taskd.CustomNumber, "!=", "")}},
	} {
		q, err := filter.ParseTasks(in)
		if err != nil || !filter.HasCustom(q) {
			t.Fatalf("ParseTasks(%q) = %v, %v", in, q, err)
		}
		got, err := filter.Bind(q, fields)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Bind(%q) = %#v, %v\nwant %#v", in, got, err, want)
		}
	}
	for in, part := range map[string]string{
		"custom_fields[9] = 'x'":              "custom_fields[9]",
		"custom_fields['client'] = 'x'":       "custom_fields['client']",
		"custom_fields[1] > 'x'":              "custom_fields[1] >",
		"custom_fields[4] has 'Dr'":           "custom_fields[4] has",
		"custom_fields[2] has '1'":            "custom_fields[2] has",
		"custom_fields[2] = 'ten'":            "ten",
		"custom_fields[3] = '31.02.2026'":     "31.02.2026",
		"custom_fields[4] = 'draft'":          "draft",
		"custom_fields[2] > ''":               "custom_fields[2] >",
		"(id = 1) and (custom_fields[9] = 1)": "custom_fields[9]",
	} {
		q, err := filter.ParseTasks(in)
		if err != nil {
			t.Fatalf("ParseTasks(%q): %v", in, err)
		}
		_, err = filter.Bind(q, fields)
		if e := taskd.AsError(err); err == nil || e.Kind != taskd.KindInvalid || e.Field != "filter" || e.Value != part {
			t.Errorf("Bind(%q) = %v (part %q), want an invalid filter naming %q", in, err, e.Value, part)
		}
	}
	if q, _ := filter.ParseTasks("name has 'x' and (id = 1 or parent = 0)"); filter.HasCustom(q) {
		t.Error("HasCustom found a custom field in a filter without one")
	}
}
