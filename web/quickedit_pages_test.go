package web_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testsite"
)

// taskEvents returns the account's events of the kind that concern the
// task, each as its printed form.
func taskEvents(t *testing.T, s *testsite.Site, kind, tid string) []string {
	t.Helper()
	_, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_events&period=1h")
	var out []string
	for _, e := range body["data"].([]any) {
		ev := e.(map[string]any)
		if text := fmt.Sprint(ev); ev["event"] == kind && strings.Contains(text, tid) {
			out = append(out, text)
		}
	}
	return out
}

// apiTask reads a task through the API.
func apiTask(t *testing.T, s *testsite.Site, tid string) map[string]any {
	t.Helper()
	_, r := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task&id_task="+tid+"&extra=tags")
	d, ok := r["data"].(map[string]any)
	if !ok {
		t.Fatalf("get_task %s: %v", tid, r)
	}
	return d
}

// TestQuickAddWithoutScript: the one-line add field on a project's list and
// on My tasks creates the task with the line's assignee, priority, dates
// and tags through the ordinary form post (an ordinary post_task event);
// a line naming nobody, no tag or nothing is refused beside the field, the
// line kept, and creates nothing.
func TestQuickAddWithoutScript(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, s *testsite.Site) { testQuickAddWithoutScript(t, s) })
}

func testQuickAddWithoutScript(t *testing.T, s *testsite.Site) {
	acct := "/a/" + s.Slug
	pid := s.APIID("action=post_project&title=Launch")
	s.APIOK("action=add_task_tag_groups&type=label&access=public&title=Kind")
	s.APIOK("action=add_task_tags&group=Kind&title=Design,Copy+writing")
	b := s.SignedIn(testsite.OwnerEmail)
	projURL := s.Base + acct + "/project/" + pid + "/"
	page := b.Get(projURL)
	for _, want := range []string{`<label for="quickadd-line">Add a task in one line</label>`, `action="` + acct + `/quickadd"`} {
		if !strings.Contains(page.Body, want) {
			t.Fatalf("the project page lacks %s:\n%s", want, page.Body)
		}
	}
	today := time.Now().UTC()
	to := b.Submit(s.Base, page, acct+"/quickadd", url.Values{"line": {"Write copy @uma !high due tomorrow start today #design #copy-writing"}}).Location(t)
	if !strings.HasPrefix(to.Path, acct+"/project/"+pid+"/") || !strings.HasPrefix(to.Fragment, "task") {
		t.Fatalf("after the add: %s", to)
	}
	tid := strings.TrimPrefix(to.Fragment, "task")
	got := apiTask(t, s, tid)
	text := fmt.Sprint(got)
	if got["name"] != "Write copy" || got["priority"] != "8" && fmt.Sprint(got["priority"]) != "8" ||
		!strings.Contains(text, testsite.UserEmail) || !strings.Contains(text, "Design") || !strings.Contains(text, "Copy writing") {
		t.Fatalf("the task added: %v", got)
	}
	for field, day := range map[string]time.Time{"date_end": today.AddDate(0, 0, 1), "date_start": today} {
		if want := day.Format("2006-01-02"); !strings.Contains(fmt.Sprint(got[field]), want) {
			t.Errorf("%s = %v, want %s", field, got[field], want)
		}
	}
	if n := len(taskEvents(t, s, "post_task", tid)); n != 1 {
		t.Errorf("%d post_task events of the quick add, want 1", n)
	}
	if back := b.Get(projURL); !strings.Contains(back.Body, "Added “Write copy” to Launch.") {
		t.Errorf("no notice of the add:\n%s", back.Body)
	}

	before := len(taskEvents(t, s, "post_task", ""))
	for _, c := range []struct{ line, says string }{
		{"Call @zed", "@zed is nobody in this account"},
		{"Call #nonesuch", "#nonesuch is no tag of this account"},
		{"@uma !high", "The task needs a name besides its shortcuts"},
		{"Call @uma @olga", "Only one assignee"},
	} {
		p := b.Submit(s.Base, b.Get(projURL), acct+"/quickadd", url.Values{"line": {c.line}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, c.says) ||
			!strings.Contains(p.Body, `value="`+strings.ReplaceAll(c.line, "@", "&#64;")) && !strings.Contains(p.Body, `value="`+c.line) {
			t.Errorf("%q: HTTP %d, want 422 saying %q with the line kept", c.line, p.Status, c.says)
		}
	}
	if after := len(taskEvents(t, s, "post_task", "")); after != before {
		t.Errorf("refused lines created %d tasks", after-before)
	}

	// My tasks: the project is chosen beside the line; the list comes
	// back with the task, assigned to the person who added it.
	u := s.SignedIn(testsite.UserEmail)
	my := u.Get(s.Base + acct + "/my")
	if !strings.Contains(my.Body, `<select id="quickadd-project" name="project">`) {
		t.Fatalf("My tasks has no project choice:\n%s", my.Body)
	}
	to = u.Submit(s.Base, my, acct+"/quickadd", url.Values{"line": {"Review plan @uma !2"}, "project": {pid}}).Location(t)
	if to.Path != acct+"/my" {
		t.Fatalf("after the add on My tasks: %s", to)
	}
	if back := u.Get(s.Base + acct + "/my"); !strings.Contains(back.Body, "Review plan") || !strings.Contains(back.Body, "Added “Review plan” to Launch.") {
		t.Fatalf("My tasks after the add:\n%s", back.Body)
	}
	if p := u.Submit(s.Base, my, acct+"/quickadd", url.Values{"line": {"Review @nobody"}, "project": {pid}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "@nobody is nobody") {
		t.Errorf("a refused line on My tasks: HTTP %d", p.Status)
	}
	for _, project := range []string{"999999", "", "x", "-1"} {
		if p := u.Submit(s.Base, my, acct+"/quickadd", url.Values{"line": {"Review"}, "project": {project}}); p.Status != http.StatusUnprocessableEntity {
			t.Errorf("a line for project %q on My tasks: HTTP %d", project, p.Status)
		}
		if p := b.Submit(s.Base, b.Get(projURL), acct+"/quickadd", url.Values{"line": {"Review"}, "project": {project}}); p.Status != http.StatusNotFound && p.Status != http.StatusBadRequest && p.Status != http.StatusUnprocessableEntity {
			t.Errorf("a line for project %q from a project's page: HTTP %d", project, p.Status)
		}
	}
}

// TestQuickEditWithoutScript: each row's quick edit, on the project's list,
// My tasks and the board, is a link to the task's quick page, and the task
// page has its own; there a form with named controls saves through the
// task's ordinary update (an update_task event each) and comes back to the
// row's list; the list carries the form once, as a template; the row's
// tick completes and reopens.
func TestQuickEditWithoutScript(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, s *testsite.Site) { testQuickEditWithoutScript(t, s) })
}

func testQuickEditWithoutScript(t *testing.T, s *testsite.Site) {
	acct := "/a/" + s.Slug
	pid := s.APIID("action=post_project&title=Launch")
	tid := s.APIID("action=post_task&id_project=" + pid + "&title=Write+copy")
	s.APIOK("action=add_task_tag_groups&type=status&access=public&title=Stage")
	s.APIOK("action=add_task_tags&group=Stage&title=To+do,Doing")
	b := s.SignedIn(testsite.OwnerEmail)
	update := acct + "/tasks/" + tid + "/update"
	pages := map[string]string{
		"project": s.Base + acct + "/project/" + pid + "/",
		"task":    s.Base + acct + "/project/" + pid + "/" + tid + "/",
		"board":   s.Base + acct + "/project/" + pid + "/board",
	}
	quick := map[string]string{"task": pages["task"]}
	for name, u := range pages {
		p := b.Get(u)
		q := "q" + tid
		if name != "task" {
			link := regexp.MustCompile(`<a class="quick-open" href="(` + acct + `/tasks/` + tid + `/quick[^"]*)"[^>]*>.*?Quick edit Write copy</span></a>`).FindStringSubmatch(p.Body)
			if link == nil {
				t.Fatalf("%s page: no link to the quick page:\n%s", name, p.Body)
			}
			if n := strings.Count(p.Body, `<template id="quick-template">`); n != 1 || strings.Contains(p.Body, `id="`+q+`-assignee"`) {
				t.Errorf("%s page: %d shared quick edit templates, want 1 and no form of the row", name, n)
			}
			quick[name] = s.Base + html.UnescapeString(link[1])
			p = b.Get(quick[name])
			if p.Status != http.StatusOK {
				t.Fatalf("%s page's quick page: HTTP %d", name, p.Status)
			}
		}
		for _, label := range []string{`<span hidden id="` + q + `-of">of Write copy</span>`, "Quick edit Write copy",
			`id="` + q + `-la">Assignee</label>`, `aria-labelledby="` + q + `-la ` + q + `-of"`,
			`id="` + q + `-lp">Priority</label>`, `aria-labelledby="` + q + `-lp ` + q + `-of"`,
			`id="` + q + `-ls">Start</label>`, `aria-labelledby="` + q + `-ls ` + q + `-of"`,
			`id="` + q + `-le">Due date</label>`, `aria-labelledby="` + q + `-le ` + q + `-of"`} {
			if !strings.Contains(p.Body, label) {
				t.Errorf("%s page: no %q", name, label)
			}
		}
	}
	for _, c := range []struct {
		page   string
		set    url.Values
		field  string
		want   string
		landed string
	}{
		{"project", url.Values{"email_user_to": {testsite.UserEmail}}, "user_to", testsite.UserEmail, "/project/" + pid + "/"},
		{"board", url.Values{"priority": {"9"}}, "priority", "9", "/project/" + pid + "/board"},
		{"task", url.Values{"dateend": {"2030-12-31"}}, "date_end", "2030-12-31", "/project/" + pid + "/" + tid + "/"},
		{"project", url.Values{"datestart": {"2030-12-01"}}, "date_start", "2030-12-01", "/project/" + pid + "/"},
	} {
		before := len(taskEvents(t, s, "update_task", tid))
		to := b.Submit(s.Base, b.Get(quick[c.page]), update, c.set).Location(t)
		if !strings.HasPrefix(to.Path, acct+c.landed) {
			t.Errorf("quick edit of %s on the %s page came back to %s", c.field, c.page, to)
		}
		if got := apiTask(t, s, tid); !strings.Contains(fmt.Sprint(got[c.field]), c.want) {
			t.Errorf("quick edit of %s on the %s page: %v", c.field, c.page, got[c.field])
		}
		if after := len(taskEvents(t, s, "update_task", tid)); after != before+1 {
			t.Errorf("quick edit of %s: %d update_task events, want 1", c.field, after-before)
		}
	}
	// The quick page of a task nobody sees, or of no task, is not found.
	for _, id := range []string{"999999", "x", "-1"} {
		if p := b.Get(s.Base + acct + "/tasks/" + id + "/quick?return=project"); p.Status != http.StatusNotFound && p.Status != http.StatusBadRequest {
			t.Errorf("the quick page of task %q: HTTP %d", id, p.Status)
		}
	}
	// A refused change is shown beside the list, and changes nothing.
	p := b.Submit(s.Base, b.Get(quick["project"]), update, url.Values{"datestart": {"2031-01-10"}, "dateend": {"2031-01-01"}})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, `role="alert"`) {
		t.Errorf("a start after the due date: HTTP %d", p.Status)
	}
	if got := apiTask(t, s, tid); !strings.Contains(fmt.Sprint(got["date_end"]), "2030-12-31") {
		t.Errorf("a refused quick edit changed the due date: %v", got["date_end"])
	}
	// The row's tick completes the task (an ordinary event), and reopens it.
	b.Submit(s.Base, b.Get(pages["project"]), acct+"/tasks/"+tid+"/complete", nil).Location(t)
	if got := apiTask(t, s, tid); got["status"] != "done" {
		t.Fatalf("after the tick: %v", got["status"])
	}
	if n := len(taskEvents(t, s, "close_task", tid)); n != 1 {
		t.Errorf("%d close_task events", n)
	}
	b.Submit(s.Base, b.Get(pages["task"]), acct+"/tasks/"+tid+"/reopen", nil).Location(t)
	if got := apiTask(t, s, tid); got["status"] != "active" {
		t.Fatalf("after reopening: %v", got["status"])
	}
}
