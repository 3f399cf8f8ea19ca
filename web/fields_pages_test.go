package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestCustomFieldsInPages: owners define custom fields on a settings page
// linked from Settings; values are set on a task's and a project's edit
// forms, shown on their pages and as labels in the project's task list,
// and read by the API; bad input is refused beside its form; users set
// values but may not define fields.
func TestCustomFieldsInPages(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	acct := "/a/" + s.Slug
	fieldsURL := s.Base + acct + "/settings/fields"
	b := s.SignedIn(testsite.OwnerEmail)
	ids := map[string]string{}
	var pid, tid string
	apiValues := func(t *testing.T, q string) string {
		t.Helper()
		_, r := testsite.APICall(t, s.AccountURL(), s.Key, q+"&extra=custom_fields")
		var out []string
		for _, x := range r["data"].(map[string]any)["custom_fields"].([]any) {
			v := x.(map[string]any)
			out = append(out, v["name"].(string)+"="+v["value"].(string))
		}
		return strings.Join(out, " ")
	}

	if !t.Run("the settings page links to the fields page, which defines fields", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		if p := b.Get(s.Base + acct + "/settings"); !strings.Contains(p.Body, `href="`+acct+`/settings/fields"`) {
			t.Fatalf("settings page:\n%s", p.Body)
		}
		if p := b.Get(fieldsURL); p.Status != 200 || !strings.Contains(p.Body, "No fields of tasks yet") {
			t.Fatalf("fields page: %d\n%s", p.Status, p.Body)
		}
		add := func(of, name, typ, options string) testsite.Page {
			return b.Submit(s.Base, b.Get(fieldsURL), acct+"/settings/fields", url.Values{"of": {of}, "name": {name}, "type": {typ}, "options": {options}})
		}
		add("task", "Stage", "list", "Draft\r\nReview\r\nFinal\r\n").Location(t)
		add("task", "Hours", "number", "").Location(t)
		add("project", "Code", "text", "").Location(t)
		for _, bad := range []struct{ of, name, typ, options, want string }{
			{"task", " ", "text", "", "name is required"},
			{"task", "Kind", "list", "\n", "A list field has at least one option"},
			{"task", "Stage", "text", "", "A field of tasks already has this name: Stage"},
			{"task", "Size", "colour", "", "A field&#39;s type is text, number, date, list"},
			{"comment", "X", "text", "", "A field is of tasks or of projects"},
		} {
			if p := add(bad.of, bad.name, bad.typ, bad.options); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, bad.want) {
				t.Errorf("field %+v: %d, want 422 with %q\n%s", bad, p.Status, bad.want, p.Body)
			}
		}
		_, r := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task_custom_fields")
		for _, x := range r["data"].([]any) {
			ids[x.(map[string]any)["name"].(string)] = x.(map[string]any)["id"].(string)
		}
		_, r = testsite.APICall(t, s.AccountURL(), s.Key, "action=get_project_custom_fields")
		ids["Code"] = r["data"].([]any)[0].(map[string]any)["id"].(string)
		if len(ids) != 3 {
			t.Fatalf("fields through the API: %v", ids)
		}
	}) {
		return
	}

	param := func(name string) string { return "custom_fields[" + ids[name] + "]" }

	if !t.Run("the task's edit form sets its values, shown on its page and in the project's list", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		pid = s.APIID("action=post_project&title=Site")
		tid = s.APIID("action=post_task&id_project=" + pid + "&title=Logo")
		taskURL := s.Base + acct + "/project/" + pid + "/" + tid + "/"
		page := b.Get(taskURL)
		for _, want := range []string{
			`<select id="edit-field` + ids["Stage"] + `" name="` + param("Stage") + `"><option value="">—</option><option value="Draft">Draft</option>`,
			`<input id="edit-field` + ids["Hours"] + `" class="short" type="text" inputmode="decimal" name="` + param("Hours") + `" value="">`,
		} {
			if !strings.Contains(page.Body, want) {
				t.Fatalf("the edit form lacks %s:\n%s", want, page.Body)
			}
		}
		b.Submit(s.Base, page, acct+"/tasks/"+tid+"/update", url.Values{"title": {"Logo"}, param("Stage"): {"Review"}, param("Hours"): {"2,50"}}).Location(t)
		if got := apiValues(t, "action=get_task&id_task="+tid); got != "Stage=Review Hours=2.5" {
			t.Fatalf("values after the form: %s", got)
		}
		page = b.Get(taskURL)
		if !strings.Contains(page.Body, "<dt>Stage</dt><dd>Review</dd>") || !strings.Contains(page.Body, `<option value="Review" selected>Review</option>`) ||
			!strings.Contains(page.Body, `value="2.5"`) {
			t.Fatalf("the task page does not show its values:\n%s", page.Body)
		}
		list := b.Get(s.Base + acct + "/project/" + pid + "/")
		if !regexp.MustCompile(`<span class="field" title="Stage"><span class="field-name">Stage</span> Review</span>`).MatchString(list.Body) {
			t.Fatalf("the project's task list shows no label:\n%s", list.Body)
		}
		// A value that does not fit is refused beside the form, which
		// shows what was sent, and nothing changes.
		bad := b.Submit(s.Base, page, acct+"/tasks/"+tid+"/update", url.Values{"title": {"Renamed"}, param("Stage"): {"Review"}, param("Hours"): {"lots"}})
		if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "Hours is a number") || !strings.Contains(bad.Body, `value="lots"`) {
			t.Fatalf("a bad number: %d\n%s", bad.Status, bad.Body)
		}
		if got := apiValues(t, "action=get_task&id_task="+tid); got != "Stage=Review Hours=2.5" {
			t.Fatalf("a refused form changed the values: %s", got)
		}
		b.Submit(s.Base, page, acct+"/tasks/"+tid+"/update", url.Values{"title": {"Logo"}, param("Stage"): {"Review"}, param("Hours"): {""}}).Location(t)
		if got := apiValues(t, "action=get_task&id_task="+tid); got != "Stage=Review" {
			t.Fatalf("clearing a value left %s", got)
		}
	}) {
		return
	}

	if !t.Run("the project's edit form sets its values", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		projURL := s.Base + acct + "/project/" + pid + "/"
		b.Submit(s.Base, b.Get(projURL), acct+"/project/"+pid+"/update", url.Values{"title": {"Site"}, param("Code"): {" ACME-7 "}}).Location(t)
		if got := apiValues(t, "action=get_project&id_project="+pid); got != "Code=ACME-7" {
			t.Fatalf("project values: %s", got)
		}
		if p := b.Get(projURL); !strings.Contains(p.Body, "<dt>Code</dt><dd>ACME-7</dd>") || !strings.Contains(p.Body, `name="`+param("Code")+`" value="ACME-7"`) {
			t.Fatalf("the project page does not show its value:\n%s", p.Body)
		}
	}) {
		return
	}

	if !t.Run("fields are renamed, keep the options in use, and go with their values", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		page := b.Get(fieldsURL)
		update := acct + "/settings/fields/" + ids["Stage"] + "/update"
		bad := b.Submit(s.Base, page, update, url.Values{"name": {"Phase"}, "options": {"Draft\nFinal"}})
		if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "“Review” is the value of 1 task") {
			t.Fatalf("taking away an option in use: %d\n%s", bad.Status, bad.Body)
		}
		b.Submit(s.Base, page, update, url.Values{"name": {"Phase"}, "descr": {"Where it is"}, "options": {"Draft\nReview\nDone"}}).Location(t)
		if got := apiValues(t, "action=get_task&id_task="+tid); got != "Phase=Review" {
			t.Fatalf("after the rename: %s", got)
		}
		if p := b.Get(fieldsURL); !strings.Contains(p.Body, "Where it is") || !strings.Contains(p.Body, `<span class="tag">Done</span>`) {
			t.Fatalf("the fields page after the change:\n%s", p.Body)
		}
		b.Submit(s.Base, b.Get(fieldsURL), acct+"/settings/fields/"+ids["Stage"]+"/delete", nil).Location(t)
		if got := apiValues(t, "action=get_task&id_task="+tid); got != "" {
			t.Fatalf("a deleted field's value: %s", got)
		}
		if p := b.Post(s.Base+acct+"/settings/fields/"+ids["Stage"]+"/delete", url.Values{"csrf": page.Form(t, "", "")["csrf"]}); p.Status != http.StatusNotFound ||
			!strings.Contains(p.Body, "There is no such custom field in this account") {
			t.Fatalf("deleting it again: %d\n%s", p.Status, p.Body)
		}
	}) {
		return
	}

	t.Run("users set values but may not define fields", func(t *testing.T) {
		s := s.In(t)
		s.AddMember(s.Slug, "uma-fields@acme.example", "Uma", "User", taskd.RoleUser)
		u := s.SignedIn("uma-fields@acme.example")
		if p := u.Get(fieldsURL); p.Status != http.StatusForbidden {
			t.Fatalf("a user's fields page: %d", p.Status)
		}
		taskURL := s.Base + acct + "/project/" + pid + "/" + tid + "/"
		page := u.Get(taskURL)
		if p := u.Post(fieldsURL, url.Values{"csrf": page.Form(t, "", "")["csrf"], "of": {"task"}, "name": {"Mine"}, "type": {"text"}}); p.Status != http.StatusForbidden {
			t.Fatalf("a user's new field: %d", p.Status)
		}
		u.Submit(s.Base, page, acct+"/tasks/"+tid+"/update", url.Values{"title": {"Logo"}, param("Hours"): {"3"}}).Location(t)
		if got := apiValues(t, "action=get_task&id_task="+tid); got != "Hours=3" {
			t.Fatalf("the user's value: %s", got)
		}
	})
}
