package storetest

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/filter"
)

// testCustomFields: owners and admins define fields of tasks and of
// projects (one name per kind), rename them and change a list's options
// but never take away an option in use, and delete them with their
// values; users and readers may not, and another account's fields are
// not found.
func testCustomFields(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, owner := f.Store, f.Owner
	admin := member(t, f, "ada", taskd.RoleAdmin)
	uma := member(t, f, "uma", taskd.RoleUser)
	rita := member(t, f, "rita", taskd.RoleReader)

	stage := must(s.AddCustomField(ctx, owner, taskd.CustomField{Of: taskd.ObjectTask, Name: " Stage ", Type: taskd.CustomList,
		Options: []string{"Draft", "Review", "Final"}}))(t)
	if stage.ID == 0 || stage.Name != "Stage" || !slices.Equal(stage.Options, []string{"Draft", "Review", "Final"}) {
		t.Fatalf("added %+v", stage)
	}
	hours := must(s.AddCustomField(ctx, admin, taskd.CustomField{Of: taskd.ObjectTask, Name: "Hours", Type: taskd.CustomNumber, Descr: "Estimate"}))(t)
	// The same name on projects is another field.
	pstage := must(s.AddCustomField(ctx, owner, taskd.CustomField{Of: taskd.ObjectProject, Name: "Stage", Type: taskd.CustomText}))(t)
	_, err := s.AddCustomField(ctx, owner, taskd.CustomField{Of: taskd.ObjectTask, Name: "Stage", Type: taskd.CustomText})
	want(t, err, taskd.KindConflict, "name")
	_, err = s.AddCustomField(ctx, owner, taskd.CustomField{Of: taskd.ObjectTask, Name: "X", Type: "colour"})
	want(t, err, taskd.KindInvalid, "type")
	for _, by := range []taskd.Actor{uma, rita} {
		_, err = s.AddCustomField(ctx, by, taskd.CustomField{Of: taskd.ObjectTask, Name: "Mine", Type: taskd.CustomText})
		want(t, err, taskd.KindForbidden, "")
		_, err = s.UpdateCustomField(ctx, by, taskd.CustomField{ID: hours.ID, Name: "Mine"})
		want(t, err, taskd.KindForbidden, "")
		want(t, s.DeleteCustomField(ctx, by, hours.ID), taskd.KindForbidden, "")
	}
	if got := must(s.CustomFields(ctx, f.Account.ID, taskd.ObjectTask))(t); len(got) != 2 || got[0].ID != stage.ID || got[1].Descr != "Estimate" {
		t.Fatalf("fields of tasks: %+v", got)
	}
	if got := must(s.CustomFields(ctx, f.Account.ID, taskd.ObjectProject))(t); len(got) != 1 || got[0].ID != pstage.ID || got[0].Options != nil {
		t.Fatalf("fields of projects: %+v", got)
	}

	// Renaming keeps the type; an option that a task has stays.
	p := newProject(t, f)
	task := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("T"), Fields: map[int64]string{stage.ID: "Review"}}))(t)
	renamed := must(s.UpdateCustomField(ctx, owner, taskd.CustomField{ID: stage.ID, Name: "Phase", Type: taskd.CustomText,
		Options: []string{"Draft", "Review", "Done"}}))(t)
	if renamed.Name != "Phase" || renamed.Type != taskd.CustomList || renamed.Of != taskd.ObjectTask || !slices.Equal(renamed.Options, []string{"Draft", "Review", "Done"}) {
		t.Fatalf("renamed %+v", renamed)
	}
	_, err = s.UpdateCustomField(ctx, owner, taskd.CustomField{ID: stage.ID, Name: "Phase", Options: []string{"Draft", "Done"}})
	if e := taskd.AsError(err); e.Kind != taskd.KindConflict || e.Field != "options" || e.Value != "Review" || !strings.Contains(e.Message, "1 task") {
		t.Fatalf("taking away an option in use: %v", err)
	}
	_, err = s.UpdateCustomField(ctx, owner, taskd.CustomField{ID: stage.ID, Name: "Hours", Options: []string{"Review"}})
	want(t, err, taskd.KindConflict, "name")
	if got := must(s.CustomFields(ctx, f.Account.ID, taskd.ObjectTask))(t); got[0].Name != "Phase" || len(got[0].Options) != 3 {
		t.Fatalf("a refused change changed the field: %+v", got[0])
	}

	// Another account's owner finds none of them.
	_, intruder := NewAccount(t, s, "intruder")
	_, err = s.UpdateCustomField(ctx, intruder, taskd.CustomField{ID: stage.ID, Name: "Mine", Options: []string{"x"}})
	want(t, err, taskd.KindNotFound, "custom field")
	want(t, s.DeleteCustomField(ctx, intruder, stage.ID), taskd.KindNotFound, "custom field")
	if got := must(s.CustomFields(ctx, intruder.AccountID, taskd.ObjectTask))(t); len(got) != 0 {
		t.Fatalf("another account lists %+v", got)
	}

	// Deleting a field deletes its values.
	noErr(t, s.DeleteCustomField(ctx, admin, stage.ID))
	if got := must(s.FieldValues(ctx, taskd.AccountViewer(f.Account.ID), taskd.ObjectTask, []int64{task.ID}))(t); len(got[task.ID]) != 0 {
		t.Fatalf("values of a deleted field: %+v", got)
	}
	want(t, s.DeleteCustomField(ctx, admin, stage.ID), taskd.KindNotFound, "custom field")
}

// testFieldValues: values are set with a task's or project's other
// fields, read with their field's type and kept in their stored form, in
// the change's transaction and event; "" clears one, and a field of the
// other kind, of another account or a value its type refuses fails the
// whole change. A reader sets none. Values are seen as their object is:
// not those of a task hidden from the viewer, nor of a project off a
// guest's teams; they go with their task.
func testFieldValues(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, owner := f.Store, f.Owner
	acct := taskd.AccountViewer(f.Account.ID)
	uma := member(t, f, "uma", taskd.RoleUser)
	ann := member(t, f, "ann", taskd.RoleUser)
	gus := member(t, f, "gus", taskd.RoleGuest)
	rita := member(t, f, "rita", taskd.RoleReader)
	add := func(of, name, typ string, options ...string) taskd.CustomField {
		return must(s.AddCustomField(ctx, owner, taskd.CustomField{Of: of, Name: name, Type: typ, Options: options}))(t)
	}
	client := add(taskd.ObjectTask, "Client", taskd.CustomText)
	hours := add(taskd.ObjectTask, "Hours", taskd.CustomNumber)
	due := add(taskd.ObjectTask, "Due by", taskd.CustomDate)
	stage := add(taskd.ObjectTask, "Stage", taskd.CustomList, "Draft", "Final")
	code := add(taskd.ObjectProject, "Code", taskd.CustomText)
	values := func(of string, v taskd.Viewer, id int64) string {
		t.Helper()
		var out []string
		for _, fv := range must(s.FieldValues(ctx, v, of, []int64{id}))(t)[id] {
			out = append(out, fv.Field.Name+"="+fv.Value)
		}
		return strings.Join(out, " ")
	}

	start := f.Clock.Now()
	p := must(s.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("P"), Fields: map[int64]string{code.ID: " ACME-1 "}}))(t)
	task := must(s.CreateTask(ctx, uma, p.ID, 0, taskd.TaskInput{Name: new("T"), Fields: map[int64]string{
		client.ID: "Acme", hours.ID: "1,50", due.ID: "31.03.2026", stage.ID: "Draft"}}))(t)
	if got := values(taskd.ObjectTask, acct, task.ID); got != "Client=Acme Hours=1.5 Due by=2026-03-31 Stage=Draft" {
		t.Fatalf("values of the new task: %s", got)
	}
	if got := values(taskd.ObjectProject, acct, p.ID); got != "Code=ACME-1" {
		t.Fatalf("values of the new project: %s", got)
	}
	must(s.UpdateTask(ctx, uma, task.ID, taskd.TaskInput{Fields: map[int64]string{hours.ID: "2", stage.ID: "", client.ID: "Acme"}}))(t)
	if got := values(taskd.ObjectTask, acct, task.ID); got != "Client=Acme Hours=2 Due by=2026-03-31" {
		t.Fatalf("values after the update: %s", got)
	}
	must(s.UpdateTask(ctx, uma, task.ID, taskd.TaskInput{Fields: map[int64]string{hours.ID: "2.0"}}))(t) // the same value: no event
	must(s.UpdateProject(ctx, owner, p.ID, taskd.ProjectInput{Fields: map[int64]string{code.ID: "ACME-2"}}))(t)

	evs := must(s.Events(ctx, acct, start, 0))(t)
	var names []string
	for _, e := range evs {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); got != "post_project post_task update_task update_project" {
		t.Fatalf("events: %s", got)
	}
	for i, part := range map[int]string{
		0: `"custom_fields":{"` + itoa(code.ID) + `":"ACME-1"}`,
		1: `"custom_fields":{"` + itoa(client.ID) + `":"Acme","` + itoa(hours.ID) + `":"1.5","` + itoa(due.ID) + `":"2026-03-31","` + itoa(stage.ID) + `":"Draft"}`,
		2: `"new":{"custom_fields":{"` + itoa(client.ID) + `":"Acme","` + itoa(hours.ID) + `":"2","` + itoa(due.ID) + `":"2026-03-31"}}`,
		3: `"old":{"custom_fields":{"` + itoa(code.ID) + `":"ACME-1"}}`,
	} {
		if body := string(evs[i].JSON()); !strings.Contains(body, part) {
			t.Errorf("%s lacks %s:\n%s", evs[i].Name, part, body)
		}
	}

	// What fails leaves everything as it was.
	for name, c := range map[string]struct {
		fields map[int64]string
		field  string
	}{
		"a field of projects":   {map[int64]string{code.ID: "x"}, "custom_fields[" + itoa(code.ID) + "]"},
		"no field":              {map[int64]string{999999: "x"}, "custom_fields[999999]"},
		"not a number":          {map[int64]string{client.ID: "Other", hours.ID: "two"}, "custom_fields[" + itoa(hours.ID) + "]"},
		"no such day":           {map[int64]string{due.ID: "30.02.2026"}, "custom_fields[" + itoa(due.ID) + "]"},
		"not an option":         {map[int64]string{stage.ID: "final"}, "custom_fields[" + itoa(stage.ID) + "]"},
		"a text of two lines":   {map[int64]string{client.ID: "a\nb"}, "custom_fields[" + itoa(client.ID) + "]"},
		"the first bad of many": {map[int64]string{stage.ID: "x", hours.ID: "x"}, "custom_fields[" + itoa(min(stage.ID, hours.ID)) + "]"},
	} {
		_, err := s.UpdateTask(ctx, owner, task.ID, taskd.TaskInput{Name: new("Renamed"), Fields: c.fields})
		if e := taskd.AsError(err); e.Kind != taskd.KindInvalid || e.Field != c.field {
			t.Errorf("%s: %v, want invalid %s", name, err, c.field)
		}
	}
	_, err := s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Bad"), Fields: map[int64]string{hours.ID: "x"}})
	want(t, err, taskd.KindInvalid, "custom_fields["+itoa(hours.ID)+"]")
	_, err = s.UpdateTask(ctx, rita, task.ID, taskd.TaskInput{Fields: map[int64]string{client.ID: "Mine"}})
	want(t, err, taskd.KindForbidden, "")
	if got := must(s.Task(ctx, acct, task.ID))(t); got.Name != "T" || values(taskd.ObjectTask, acct, task.ID) != "Client=Acme Hours=2 Due by=2026-03-31" {
		t.Fatalf("a failed change left %q, %s", got.Name, values(taskd.ObjectTask, acct, task.ID))
	}
	if n := len(must(s.Tasks(ctx, taskd.TaskQuery{Viewer: acct, ProjectID: p.ID}))(t)); n != 1 {
		t.Fatalf("%d tasks after a refused creation", n)
	}

	// Seen as their object is.
	hush := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Secret"), Hidden: []string{ann.Person.Email},
		Fields: map[int64]string{client.ID: "Hush"}}))(t)
	sub := must(s.CreateTask(ctx, owner, p.ID, hush.ID, taskd.TaskInput{Name: new("Sub"), Fields: map[int64]string{client.ID: "Hush too"}}))(t)
	for who, want := range map[string]struct {
		v      taskd.Viewer
		hidden string
		sub    string
		code   string
	}{
		"the key":              {acct, "Client=Hush", "Client=Hush too", "Code=ACME-2"},
		"a listed user":        {viewerOf(t, f, ann.Person.ID), "Client=Hush", "Client=Hush too", "Code=ACME-2"},
		"a user not listed":    {viewerOf(t, f, uma.Person.ID), "", "", "Code=ACME-2"},
		"a guest off the team": {viewerOf(t, f, gus.Person.ID), "", "", ""},
	} {
		if got := values(taskd.ObjectTask, want.v, hush.ID); got != want.hidden {
			t.Errorf("%s sees the hidden task's values %q, want %q", who, got, want.hidden)
		}
		if got := values(taskd.ObjectTask, want.v, sub.ID); got != want.sub {
			t.Errorf("%s sees its subtask's values %q, want %q", who, got, want.sub)
		}
		if got := values(taskd.ObjectProject, want.v, p.ID); got != want.code {
			t.Errorf("%s sees the project's values %q, want %q", who, got, want.code)
		}
	}
	noErr(t, s.DeleteTask(ctx, owner, hush.ID))
	if got := must(s.FieldValues(ctx, acct, taskd.ObjectTask, []int64{hush.ID, sub.ID}))(t); len(got) != 0 {
		t.Fatalf("values of deleted tasks: %+v", got)
	}
}

// testFieldFilters: conditions on custom fields, read and bound as
// search_tasks does, compiled into each database's SQL: text equality and
// has (case-insensitive, % and _ as themselves), numbers compared as
// numbers, dates as days, list options, and ” as no value; joined with
// other conditions, and never past the viewer's rule.
func testFieldFilters(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, owner := f.Store, f.Owner
	uma := member(t, f, "uma", taskd.RoleUser)
	add := func(name, typ string, options ...string) taskd.CustomField {
		return must(s.AddCustomField(ctx, owner, taskd.CustomField{Of: taskd.ObjectTask, Name: name, Type: typ, Options: options}))(t)
	}
	client, hours, due, stage := add("Client", taskd.CustomText), add("Hours", taskd.CustomNumber), add("Due by", taskd.CustomDate),
		add("Stage", taskd.CustomList, "Draft", "Final")
	p := newProject(t, f)
	post := func(name string, hidden []string, values map[int64]string) {
		must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new(name), Hidden: hidden, Fields: values}))(t)
	}
	post("a", nil, map[int64]string{client.ID: "Acme Ltd", hours.ID: "9", due.ID: "2026-03-31", stage.ID: "Draft"})
	post("b", nil, map[int64]string{client.ID: "acme 100%", hours.ID: "10.5", due.ID: "2026-04-01", stage.ID: "Final"})
	post("c", nil, map[int64]string{client.ID: "Beta_co", hours.ID: "-2"})
	post("d", nil, nil)
	post("secret", []string{owner.Person.Email}, map[int64]string{client.ID: "Acme secret", hours.ID: "100"})
	fields := must(s.CustomFields(ctx, f.Account.ID, taskd.ObjectTask))(t)
	names := func(v taskd.Viewer, text string) string {
		t.Helper()
		q, err := filter.ParseTasks(text)
		if err == nil {
			q, err = filter.Bind(q, fields)
		}
		noErr(t, err)
		var out []string
		for _, task := range must(s.Tasks(ctx, taskd.TaskQuery{Viewer: v, Filter: q}))(t) {
			out = append(out, task.Name)
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	everyone := taskd.AccountViewer(f.Account.ID)
	for text, want := range map[string]string{
		"custom_fields['Client'] = 'Acme Ltd'":             "a",
		"custom_fields['Client'] = 'acme ltd'":             "",
		"custom_fields['Client'] has 'ACME'":               "a b secret",
		"custom_fields['Client'] has '0%'":                 "b",
		"custom_fields['Client'] has '_'":                  "c",
		"custom_fields['Client'] != 'Acme Ltd'":            "b c secret",
		"custom_fields['Hours'] > 9.5":                     "b secret",
		"custom_fields['Hours'] >= '9'":                    "a b secret",
		"custom_fields['Hours'] < 10":                      "a c",
		"custom_fields['Hours'] = '10,50'":                 "b",
		"custom_fields['Hours'] != 9":                      "b c secret",
		"custom_fields['Due by'] <= '31.03.2026'":          "a",
		"custom_fields['Due by'] > '2026-03-31'":           "b",
		"custom_fields['Stage'] = 'Final'":                 "b",
		"custom_fields['Stage'] != 'Final'":                "a",
		"custom_fields['Stage'] = ''":                      "c d secret",
		"custom_fields['Stage'] != ''":                     "a b",
		"custom_fields['Due by'] = '' and name = 'c'":      "c",
		"custom_fields['Hours'] > 0 or name = 'd'":         "a b d secret",
		"custom_fields[" + itoa(hours.ID) + "] < 0":        "c",
		"(custom_fields['Hours'] > 9) and (parent = 0)":    "b secret",
		"custom_fields['Client'] has 'acme' and id in (0)": "",
	} {
		if got := names(everyone, text); got != want {
			t.Errorf("%s: %q, want %q", text, got, want)
		}
	}
	// The hidden task is left out for whoever may not see it, whatever
	// its values.
	if got := names(viewerOf(t, f, uma.Person.ID), "custom_fields['Client'] has 'acme'"); got != "a b" {
		t.Errorf("a user not listed finds %q", got)
	}
	// A condition that was not bound matches nothing, rather than
	// compiling a field the store does not know.
	unbound := taskd.QueryCond{Field: taskd.FieldCustom, Op: "=", Text: "Acme Ltd", Custom: taskd.CustomRef{Name: "Client"}}
	if got := must(s.Tasks(ctx, taskd.TaskQuery{Viewer: everyone, Filter: unbound}))(t); len(got) != 0 {
		t.Errorf("an unbound condition found %d tasks", len(got))
	}
}
