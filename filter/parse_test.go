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
		"task=5 and comment has 'taxi'", "dateadd>='01.03.2026' or id in (1,2)"} {
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
