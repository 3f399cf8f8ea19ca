package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestSchedulePages: a member's schedule in the pages.
// The people page links every member's schedule; the owner sets a week
// and a day apart, sees them, and the API reads the same; a bad value is
// a 422 naming the problem beside its form; a user sees the schedule
// without forms and cannot post one.
func TestSchedulePages(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		uma := strconv.FormatInt(mustPerson(t, s, testsite.UserEmail), 10)
		page := s.AccountURL() + "/people/" + uma + "/schedule"
		action := "/a/" + s.Slug + "/people/" + uma + "/schedule"
		b := s.SignedIn(testsite.OwnerEmail)

		people := b.Get(s.AccountURL() + "/people")
		if !strings.Contains(people.Body, `href="`+action+`"`) {
			t.Fatalf("the people page links no schedule of Uma:\n%s", people.Body)
		}
		pg := b.Get(page)
		for _, want := range []string{"<h1>Schedule of Uma User</h1>", `name="mon" value="8"`, `name="sat" value="0"`, "Save week", "Set the day"} {
			if !strings.Contains(pg.Body, want) {
				t.Fatalf("Uma's schedule page lacks %q:\n%s", want, pg.Body)
			}
		}

		week := url.Values{"mon": {"8"}, "tue": {"8"}, "wed": {"7:30"}, "thu": {"8"}, "fri": {"4"}, "sat": {"0"}, "sun": {"0"}}
		if loc := b.Submit(s.Base, pg, action, week).Location(t); loc.Path != action {
			t.Fatalf("after saving the week: %v", loc)
		}
		pg = b.Get(page)
		if !strings.Contains(pg.Body, "Uma User&#39;s week is saved.") || !strings.Contains(pg.Body, `name="wed" value="7.5"`) ||
			!strings.Contains(pg.Body, `name="fri" value="4"`) {
			t.Fatalf("the page after saving the week:\n%s", pg.Body)
		}
		b.Submit(s.Base, pg, action, url.Values{"date": {"2030-01-07"}, "hours": {"0"}}).Location(t)
		b.Submit(s.Base, pg, action, url.Values{"date": {"2030-01-08"}, "hours": {"3"}}).Location(t)
		b.Submit(s.Base, pg, action, url.Values{"date": {"2030-01-08"}, "hours": {""}}).Location(t) // back to the week

		// The API reads what the pages set.
		_, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_users_schedule&users="+url.QueryEscape(testsite.UserEmail)+
			"&datestart=07.01.2030&dateend=11.01.2030")
		got := body["data"].([]any)[0].(map[string]any)
		dates, week2 := got["dates"].(map[string]any), got["week"].(map[string]any)
		if dates["2030-01-07"] != "0" || dates["2030-01-08"] != "8" || dates["2030-01-09"] != "7.5" || dates["2030-01-11"] != "4" ||
			week2["fri"] != "4" {
			t.Fatalf("get_users_schedule after the pages: %v", got)
		}

		// A bad value is refused beside its form, and changes nothing.
		bad := b.Submit(s.Base, pg, action, url.Values{"mon": {"25"}, "tue": {"8"}, "wed": {"8"}, "thu": {"8"}, "fri": {"8"}, "sat": {"0"}, "sun": {"0"}})
		if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "A day&#39;s hours are 0 to 24") ||
			!strings.Contains(bad.Body, `name="mon" value="25"`) {
			t.Fatalf("a day of 25 hours: HTTP %d\n%s", bad.Status, bad.Body)
		}
		bad = b.Submit(s.Base, pg, action, url.Values{"date": {"31.02.2030"}, "hours": {"1"}})
		if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "A key is a weekday") && !strings.Contains(bad.Body, "There is no") {
			t.Fatalf("a date that is no day: HTTP %d\n%s", bad.Status, bad.Body)
		}

		// A user sees the schedule, without forms, and cannot post one.
		u := s.SignedIn(testsite.UserEmail)
		upg := u.Get(page)
		if upg.Status != http.StatusOK || strings.Contains(upg.Body, "Save week") || !strings.Contains(upg.Body, "7.5 h") {
			t.Fatalf("a user's view of the schedule: HTTP %d\n%s", upg.Status, upg.Body)
		}
		csrf := u.Get(s.AccountURL()+"/people").Form(t, "", "").Get("csrf")
		if r := u.Post(s.Base+action, url.Values{"csrf": {csrf}, "mon": {"1"}}); r.Status != http.StatusForbidden {
			t.Fatalf("a user posting a schedule: HTTP %d", r.Status)
		}
		if r := b.Get(s.AccountURL() + "/people/999999/schedule"); r.Status != http.StatusNotFound {
			t.Fatalf("the schedule of no member: HTTP %d", r.Status)
		}
	})
}

// TestProjectOptionPages: the project's edit form sets the options of
// logging time, which the API then shows, and the pages obey the same
// rules as the API: the cost form of a timer_only project has no time
// field and a time posted anyway is refused; a time_today project refuses
// another day; a time_require task is not marked done without time.
func TestProjectOptionPages(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		ctx := context.Background()
		_, by := s.Owner()
		p, err := s.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Support")})
		if err != nil {
			t.Fatal(err)
		}
		task, err := s.Store.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Login fails")})
		if err != nil {
			t.Fatal(err)
		}
		projectURL, taskURL := s.AccountURL()+p.Page(), s.AccountURL()+task.Page()
		edit := "/a/" + s.Slug + p.Page() + "update"
		costs := "/a/" + s.Slug + "/tasks/" + strconv.FormatInt(task.ID, 10) + "/costs"
		complete := "/a/" + s.Slug + "/tasks/" + strconv.FormatInt(task.ID, 10) + "/complete"
		b := s.SignedIn(testsite.OwnerEmail)
		options := func() string {
			t.Helper()
			_, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_project&extra=options&id_project="+strconv.FormatInt(p.ID, 10))
			o := body["data"].(map[string]any)["options"].(map[string]any)
			return testsite.JSON(o)
		}

		pg := b.Get(projectURL)
		if !strings.Contains(pg.Body, `name="options.timer_only" value="1">`) {
			t.Fatalf("the edit form has no options:\n%s", pg.Body)
		}
		b.Submit(s.Base, pg, edit, url.Values{"title": {"Support"}, "options.timer_only": {"1"}}).Location(t)
		if got := options(); got != `{"time_require":0,"time_today":0,"timer_only":1}` {
			t.Fatalf("options after the edit form: %s", got)
		}
		pg = b.Get(projectURL)
		if !strings.Contains(pg.Body, `name="options.timer_only" value="1" checked>`) ||
			!strings.Contains(pg.Body, "In this project time is logged only with the timer.") {
			t.Fatalf("the project page of a timer_only project:\n%s", pg.Body)
		}
		tp := b.Get(taskURL)
		if strings.Contains(tp.Body, `id="cost-time"`) || !strings.Contains(tp.Body, "Log money") {
			t.Fatalf("the cost form of a timer_only project offers time:\n%s", tp.Body)
		}
		r := b.Submit(s.Base, tp, costs, url.Values{"time": {"1"}, "date": {"2030-01-07"}})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "This project takes time only from the timer") {
			t.Fatalf("time posted to a timer_only project: HTTP %d\n%s", r.Status, r.Body)
		}
		b.Submit(s.Base, tp, costs, url.Values{"money": {"12"}, "date": {"2030-01-07"}}).Location(t) // money alone

		// Unticked boxes turn options off; time_today refuses another day.
		b.Submit(s.Base, b.Get(projectURL), edit, url.Values{"title": {"Support"}, "options.time_today": {"1"}}).Location(t)
		if got := options(); got != `{"time_require":0,"time_today":1,"timer_only":0}` {
			t.Fatalf("options after the second edit: %s", got)
		}
		tp = b.Get(taskURL)
		r = b.Submit(s.Base, tp, costs, url.Values{"time": {"1"}, "date": {"2020-01-07"}})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "This project takes time for today") {
			t.Fatalf("time on another day: HTTP %d\n%s", r.Status, r.Body)
		}

		// time_require: not done without time, done once time is logged.
		b.Submit(s.Base, b.Get(projectURL), edit, url.Values{"title": {"Support"}, "options.time_require": {"1"}}).Location(t)
		tp = b.Get(taskURL)
		r = b.Submit(s.Base, tp, complete, nil)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "This project needs time logged on a task before it is done") {
			t.Fatalf("marking done without time: HTTP %d\n%s", r.Status, r.Body)
		}
		today := r.Body[strings.Index(r.Body, `id="cost-date" type="date" name="date" value="`)+len(`id="cost-date" type="date" name="date" value="`):]
		b.Submit(s.Base, tp, costs, url.Values{"time": {"0:20"}, "date": {today[:10]}}).Location(t)
		b.Submit(s.Base, b.Get(taskURL), complete, nil).Location(t)
		if done, err := s.Store.Task(ctx, taskd.AccountViewer(p.AccountID), task.ID); err != nil || done.Status != taskd.StatusDone {
			t.Fatalf("the task after time was logged: %+v, %v", done, err)
		}
	})
}
