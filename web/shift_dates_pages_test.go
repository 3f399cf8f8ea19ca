package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
)

// TestShiftDatesOnPages (issue 46), without
// JavaScript: shifts made with the task page's button and the timeline's
// stop at the dates update_task takes. A shift that would take a
// dependent past 2999-12-31 or before 1900-01-01 is refused with 422, the
// refusal (naming the task and the bound) above the relations' forms or
// the timeline, and nothing moves; after every shift, taken or refused,
// each dependent's edit form saves unchanged.
func TestShiftDatesOnPages(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		pid := s.APIID("action=post_project&title=Dates")
		task := func(title, extra string) string {
			return s.APIID("action=post_task&id_project=" + pid + "&title=" + url.QueryEscape(title) + extra)
		}
		a := task("Alpha task", "&dateend=02.03.2030")
		late := task("Late task", "&datestart=01.06.2999&dateend=30.06.2999")
		early := task("Early task", "&datestart=02.02.1920")
		for _, to := range []string{late, early} {
			if r := s.APIOK("action=add_task_relation&id_task_from=" + a + "&id_task_to=" + to); r["status"] != "ok" {
				t.Fatalf("add_task_relation: %v", r)
			}
		}
		base := s.Base + "/a/" + s.Slug
		page := base + "/project/" + pid + "/"
		owner := s.SignedIn(testsite.OwnerEmail)
		dates := func(id string) string {
			t.Helper()
			d := s.APIOK("action=get_task&id_task=" + id)["data"].(map[string]any)
			return d["date_start"].(string) + ".." + d["date_end"].(string)
		}
		resave := func(after string) {
			t.Helper()
			for _, id := range []string{late, early} {
				action := "/a/" + s.Slug + "/tasks/" + id + "/update"
				form := owner.Get(page+id+"/").FormValues(t, action, "title")
				if form.Get("title") == "" || !form.Has("datestart") {
					t.Fatalf("task %s's edit form reads as %v", id, form)
				}
				if got := owner.Post(s.Base+action, form); got.Status != http.StatusSeeOther {
					t.Errorf("after %s, task %s's edit form (%s) unchanged: HTTP %d, want 303\n%s", after, id, dates(id), got.Status, errorOf(got.Body))
				}
			}
		}
		shift := func(days int) testsite.Page {
			t.Helper()
			f := owner.Get(page+a+"/").Form(t, "", "")
			return owner.Post(base+"/tasks/"+a+"/shift", url.Values{"csrf": f["csrf"], "days": {strconv.Itoa(days)}})
		}

		// To the last date: taken, and the forms still save.
		if p := shift(184); p.Status != http.StatusSeeOther {
			t.Fatalf("shifting to 2999-12-31: HTTP %d\n%s", p.Status, errorOf(p.Body))
		}
		resave("a shift to 2999-12-31")
		// Ten years later: refused above the relations, nothing moved.
		p := shift(3650)
		want := "Task #" + late + " “Late task” cannot move 3650 days later: its due date would be 3009-12-29, after 2999-12-31"
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, `<p class="error" role="alert">`+want) {
			t.Errorf("ten years later: HTTP %d %q, want 422 saying %q", p.Status, errorOf(p.Body), want)
		}
		if i, j := strings.Index(p.Body, want), strings.Index(p.Body, `class="relation-add"`); i < 0 || j < i {
			t.Errorf("the refusal is not above the relations' forms")
		}
		if got := dates(late); got != "2999-12-02..2999-12-31" {
			t.Errorf("Late task after the refusal: %s", got)
		}
		if got := dates(early); got != "1920-08-04.." {
			t.Errorf("Early task after the refusal: %s, want 1920-08-04 (moved 184 days once)", got)
		}
		resave("a refused shift")
		// Back again and again: the first date stops it.
		for range 3 {
			if p := shift(-3650); p.Status != http.StatusSeeOther && p.Status != http.StatusUnprocessableEntity {
				t.Fatalf("shifting earlier: HTTP %d", p.Status)
			}
			resave("a shift earlier")
		}
		if got := dates(early); got != "1900-08-09.." {
			t.Errorf("Early task after three shifts earlier: %s, want two taken (1900-08-09)", got)
		}

		// The timeline refuses as the task page does.
		tl := owner.Get(page + "timeline?group=project&scale=day")
		form := tl.Form(t, "op", "")
		action := ""
		for _, f := range tl.Forms() {
			if _, ok := f.Fields["op"]; ok {
				action = f.Action
			}
		}
		got := owner.Post(s.Base+action, url.Values{"csrf": form["csrf"], "op": {"shift"}, "task": {a}, "days": {"-3650"}})
		want = "The tasks were not shifted: Task #" + early + " “Early task” cannot move 3650 days earlier: its start date would be"
		if got.Status != http.StatusUnprocessableEntity || !strings.Contains(got.Body, want) || !strings.Contains(got.Body, "before 1900-01-01") {
			t.Errorf("the timeline's shift: HTTP %d %q, want 422 saying %q", got.Status, errorOf(got.Body), want)
		}
		resave("the timeline's refusal")
	})
}

// errorOf is a page's first error paragraph, for a failure's message.
func errorOf(body string) string {
	i := strings.Index(body, `class="error"`)
	if i < 0 {
		return "(no error shown)"
	}
	j := strings.Index(body[i:], "</")
	if j < 0 {
		return body[i:]
	}
	return body[i : i+j]
}
