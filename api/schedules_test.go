package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
)

// member adds a member with the role to the account and returns them
// with an access token of every scope their role may hold.
func (a *account) member(t *testing.T, name string, role taskd.Role) (taskd.Person, string) {
	t.Helper()
	acct := mustAccount(t, a.server, a)
	p, err := a.DB.AddMember(context.Background(), acct.ID, taskd.NewPerson{Email: name + "-" + a.Slug + "@example.com",
		PasswordHash: "x", FirstName: name}, role)
	if err != nil {
		t.Fatal(err)
	}
	var scopes []string
	for _, s := range taskd.Scopes {
		if s != taskd.ScopeAdministrative || role.Can(taskd.PermAdministrative) {
			scopes = append(scopes, s)
		}
	}
	return p, tokenFor(t, a.server, a, p, role, scopes...)
}

// noonZone is a fixed-offset zone where it is now around noon, so that a
// test of "today" there does not cross midnight while it runs.
func noonZone() string {
	n := time.Now().UTC().Hour() - 12 // Etc/GMT+n is n hours behind UTC
	n = min(max(n, -14), 12)
	if n >= 0 {
		return fmt.Sprintf("Etc/GMT+%d", n)
	}
	return fmt.Sprintf("Etc/GMT%d", n)
}

// TestUsersSchedule: get_users_schedule and update_users_schedule as the
// Python SDK sends them (a JSON body, data a nested object, users a list)
// and as a signed GET carries them (data as JSON text): the default week,
// weekdays and dates set and taken back, every member's or the named
// ones', the default span; who may change (owners and admins, the key)
// and read (everyone); a bad e-mail or value changes nothing of the call.
func TestUsersSchedule(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		uma, umaToken := a.member(t, "uma", taskd.RoleUser)
		ada, adaToken := a.member(t, "ada", taskd.RoleAdmin)
		days := func(r response, email string) map[string]any {
			t.Helper()
			for _, s := range r.list() {
				if s := s.(map[string]any); s["email"] == email {
					return s["dates"].(map[string]any)
				}
			}
			t.Fatalf("no schedule of %s in %v", email, r)
			return nil
		}

		// Everyone starts with eight hours from Monday to Friday.
		r := a.ok("action", "get_users_schedule", "datestart", "02.03.2026", "dateend", "08.03.2026")
		if len(r.list()) != 3 {
			t.Fatalf("schedules of three members: %v", r)
		}
		first := r.list()[0].(map[string]any)
		if keys(first) != "dates,department,email,group,id,name,week" || first["email"] != a.Owner.Email {
			t.Fatalf("a schedule: %v", first)
		}
		if got := fmt.Sprint(days(r, uma.Email)); got != "map[2026-03-02:8 2026-03-03:8 2026-03-04:8 2026-03-05:8 2026-03-06:8 2026-03-07:0 2026-03-08:0]" {
			t.Fatalf("the default week: %s", got)
		}

		// The Python SDK: data a nested object, users a list.
		if r := a.python("update_users_schedule", map[string]any{"data": map[string]any{
			strings.ToUpper(uma.Email): map[string]any{"mon": 6, "fri": "4:30", "sat": "2,5", "09.03.2026": 0, "2026-03-14": "7"},
			ada.Email:                  map[string]any{"tue": 0},
		}}); r.code() != -1 {
			t.Fatalf("update_users_schedule from Python: %v", r)
		}
		r = a.python("get_users_schedule", map[string]any{"users": []string{uma.Email}, "datestart": "2026-03-07", "dateend": "2026-03-16"})
		if len(r.list()) != 1 {
			t.Fatalf("users names one member: %v", r)
		}
		if got := fmt.Sprint(days(r, uma.Email)); got != "map[2026-03-07:2.5 2026-03-08:0 2026-03-09:0 2026-03-10:8 2026-03-11:8 "+
			"2026-03-12:8 2026-03-13:4.5 2026-03-14:7 2026-03-15:0 2026-03-16:6]" {
			t.Fatalf("uma's days: %s", got)
		}
		if got := fmt.Sprint(r.list()[0].(map[string]any)["week"]); got != "map[fri:4.5 mon:6 sat:2.5 sun:0 thu:8 tue:8 wed:8]" {
			t.Fatalf("uma's week: %s", got)
		}

		// A signed GET: data as JSON text; null takes a date back to its
		// weekday's hours; the admin's token may, as the key may.
		a.ok("action", "update_users_schedule", "data", `{"`+uma.Email+`":{"2026-03-14":null,"wed":"7.5"}}`)
		if r := a.as(adaToken, "action", "update_users_schedule", "data", `{"`+uma.Email+`":{"thu":7}}`); r.code() != -1 {
			t.Fatalf("an admin's token: %v", r)
		}
		// Everyone reads, a user too; a user does not change, not even
		// their own.
		r = a.as(umaToken, "action", "get_users_schedule", "users", uma.Email, "datestart", "11.03.2026", "dateend", "14.03.2026")
		if got := fmt.Sprint(days(r, uma.Email)); got != "map[2026-03-11:7.5 2026-03-12:7 2026-03-13:4.5 2026-03-14:2.5]" {
			t.Fatalf("uma reads her days: %s (%v)", got, r)
		}
		if r := a.as(umaToken, "action", "update_users_schedule", "data", `{"`+uma.Email+`":{"mon":1}}`); r.HTTP != 403 ||
			r.code() != int(api.CodeForbidden) {
			t.Fatalf("a user changing a schedule: %v", r)
		}

		// One e-mail of no member (another account's owner among them) or
		// one bad value, and nothing of the call is set.
		other := a.server.newAccount(t)
		for _, c := range []struct {
			data    string
			code    api.Code
			details string
		}{
			{`{"` + ada.Email + `":{"mon":1},"` + other.Owner.Email + `":{"mon":1}}`, api.CodeUserInvalid, other.Owner.Email},
			{`{"` + ada.Email + `":{"mon":1},"nobody@example.com":{"mon":1}}`, api.CodeUserInvalid, "nobody@example.com"},
			{`{"` + ada.Email + `":{"mon":1,"tue":25}}`, api.CodeInvalidValue, "tue"},
			{`{"` + ada.Email + `":{"mon":1,"someday":2}}`, api.CodeInvalidValue, "someday"},
			{`{"` + ada.Email + `":{"mon":1,"30.02.2026":2}}`, api.CodeInvalidValue, "30.02.2026"},
			{`[1]`, api.CodeInvalidValue, "data"},
			{`{}`, api.CodeFieldRequired, "data"},
		} {
			r := a.fails(c.code, "action", "update_users_schedule", "data", c.data)
			if r.Body["message_details"] != c.details {
				t.Errorf("%s: details %v, want %q", c.data, r.Body["message_details"], c.details)
			}
		}
		a.fails(api.CodeFieldRequired, "action", "update_users_schedule")
		r = a.ok("action", "get_users_schedule", "users", ada.Email, "datestart", "02.03.2026", "dateend", "03.03.2026")
		if got := fmt.Sprint(days(r, ada.Email)); got != "map[2026-03-02:8 2026-03-03:0]" {
			t.Fatalf("a refused call changed ada's schedule: %s", got)
		}
		if r := other.ok("action", "get_users_schedule", "datestart", "02.03.2026", "dateend", "02.03.2026"); fmt.Sprint(days(r, other.Owner.Email)) != "map[2026-03-02:8]" {
			t.Fatalf("the other account's schedule: %v", r)
		}

		// get_users_schedule's errors and default span: a week.
		a.fails(api.CodeUserInvalid, "action", "get_users_schedule", "users", other.Owner.Email)
		a.fails(api.CodeInvalidValue, "action", "get_users_schedule", "users", "not-an-address")
		a.fails(api.CodeInvalidValue, "action", "get_users_schedule", "datestart", "31.02.2026")
		a.fails(api.CodeInvalidValue, "action", "get_users_schedule", "datestart", "10.03.2026", "dateend", "09.03.2026")
		a.fails(api.CodeInvalidValue, "action", "get_users_schedule", "datestart", "01.01.2026", "dateend", "02.01.2027")
		a.ok("action", "get_users_schedule", "datestart", "01.01.2026", "dateend", "01.01.2027") // 366 days
		if d := days(a.ok("action", "get_users_schedule", "datestart", "10.03.2026"), uma.Email); len(d) != 7 || d["2026-03-16"] == nil {
			t.Fatalf("from datestart: %v", d)
		}
		if d := days(a.ok("action", "get_users_schedule", "dateend", "10.03.2026"), uma.Email); len(d) != 7 || d["2026-03-04"] == nil {
			t.Fatalf("up to dateend: %v", d)
		}
		today := time.Now().UTC().Format(taskd.DateLayout) // the account's zone is UTC
		if d := days(a.ok("action", "get_users_schedule"), uma.Email); len(d) != 7 || d[today] == nil {
			t.Fatalf("from today (%s): %v", today, d)
		}

		// A schedule ends with the membership.
		acct := mustAccount(t, a.server, a)
		if _, err := a.DB.RemoveMember(context.Background(), taskd.Actor{AccountID: acct.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}, uma.ID); err != nil {
			t.Fatal(err)
		}
		a.fails(api.CodeUserInvalid, "action", "get_users_schedule", "users", uma.Email)
	})
}

// TestProjectOptions: options.time_require, time_today and timer_only set
// by post_project and update_project, shown with extra=options, and the
// rules they imply through the API, for the key and tokens alike: hand
// time refused in a timer_only project while a timer's is logged; time on
// another day than the person's today refused in a time_today project;
// completion refused without time in a time_require project.
func TestProjectOptions(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		uma, umaToken := a.member(t, "uma", taskd.RoleUser)
		zone := noonZone()
		if _, err := a.DB.SetProfile(context.Background(), uma.ID, "uma", "", taskd.Profile{TimeZone: zone}); err != nil {
			t.Fatal(err)
		}
		loc, _ := time.LoadLocation(zone)
		today := time.Now().In(loc)

		p := a.ok("action", "post_project", "title", "Support", "options.timer_only", "1", "extra", "options").data()
		if fmt.Sprint(p["options"]) != "map[time_require:0 time_today:0 timer_only:1]" {
			t.Fatalf("post_project with options: %v", p)
		}
		pid := p["id"].(string)
		if p := a.ok("action", "get_project", "id_project", pid).data(); p["options"] != nil {
			t.Fatalf("options without extra=options: %v", p)
		}
		for _, pr := range a.ok("action", "get_projects", "extra", "options,users").list() {
			if pr := pr.(map[string]any); pr["id"] == pid && fmt.Sprint(pr["options"]) != "map[time_require:0 time_today:0 timer_only:1]" {
				t.Fatalf("get_projects with extra=options: %v", pr)
			}
		}
		a.fails(api.CodeInvalidValue, "action", "update_project", "id_project", pid, "options.time_today", "yes")
		a.fails(api.CodeUnknownParam, "action", "update_project", "id_project", pid, "options.allow_close", "1")
		tid := a.id("action", "post_task", "id_project", pid, "title", "Login fails")

		// timer_only: time by hand is refused, with the key or a token,
		// added or changed; money alone passes; a timer's time is logged.
		r := a.fails(api.CodeInvalidValue, "action", "add_costs", "id_task", tid, "time", "1", "email_user_from", a.Owner.Email)
		if r.Body["message_details"] != "time" || !strings.Contains(r.Body["message"].(string), "timer") {
			t.Fatalf("the refusal: %v", r)
		}
		if r := a.as(umaToken, "action", "add_costs", "id_task", tid, "time", "0:30", "money", "5"); r.code() != int(api.CodeInvalidValue) {
			t.Fatalf("a token's time by hand: %v", r)
		}
		taxi := a.as(umaToken, "action", "add_costs", "id_task", tid, "money", "12.50", "comment", "taxi").Body["id"]
		if taxi == nil {
			t.Fatal("a line of money alone was refused")
		}
		if r := a.as(umaToken, "action", "update_costs", "id_costs", taxi.(string), "time", "1"); r.code() != int(api.CodeInvalidValue) {
			t.Fatalf("time added to a line by hand: %v", r)
		}
		if r := a.as(umaToken, "action", "start_my_timer", "id_task", tid); r.code() != -1 {
			t.Fatal(r)
		}
		timed := a.as(umaToken, "action", "stop_my_timer", "comment", "fixed")
		if timed.code() != -1 {
			t.Fatalf("a timer's time in a timer_only project: %v", timed)
		}
		if r := a.as(umaToken, "action", "update_costs", "id_costs", timed.Body["id"].(string), "comment", "fixed it"); r.code() != -1 {
			t.Fatalf("a new comment on the timer's line: %v", r)
		}

		// time_today: today is uma's, in her zone, whoever logs for her.
		up := a.ok("action", "update_project", "id_project", pid, "options.timer_only", "0", "options.time_today", "1", "extra", "options").data()
		if fmt.Sprint(up["options"]) != "map[time_require:0 time_today:1 timer_only:0]" {
			t.Fatalf("update_project: %v", up)
		}
		yesterday := today.AddDate(0, 0, -1).Format("02.01.2006")
		r = a.fails(api.CodeInvalidValue, "action", "add_costs", "id_task", tid, "time", "1", "date", yesterday, "email_user_from", uma.Email)
		if r.Body["message_details"] != "date" || !strings.Contains(r.Body["message"].(string), today.Format(taskd.DateLayout)) {
			t.Fatalf("the refusal names the field and uma's today: %v", r)
		}
		if r := a.as(umaToken, "action", "add_costs", "id_task", tid, "time", "1", "date", yesterday); r.code() != int(api.CodeInvalidValue) {
			t.Fatalf("uma's own line of yesterday: %v", r)
		}
		a.ok("action", "add_costs", "id_task", tid, "time", "1", "email_user_from", uma.Email)
		a.ok("action", "add_costs", "id_task", tid, "time", "1", "date", today.Format("02.01.2006"), "email_user_from", uma.Email)
		a.ok("action", "add_costs", "id_task", tid, "money", "3", "date", yesterday, "email_user_from", uma.Email)
		lines := a.ok("action", "get_costs", "id_task", tid, "is_timer", "0").list()
		if n := len(lines); n != 4 || lines[n-1].(map[string]any)["date"] != today.Format(taskd.DateLayout) {
			t.Fatalf("a line without a date is dated uma's today (%s): %v", today.Format(taskd.DateLayout), lines)
		}

		// time_require: completing needs time logged, by anyone.
		a.ok("action", "update_project", "id_project", pid, "options.time_today", "false", "options.time_require", "true")
		bare := a.id("action", "post_task", "id_project", pid, "title", "Bare")
		r = a.fails(api.CodeFieldRequired, "action", "complete_task", "id_task", bare)
		if r.Body["message_details"] != "time" {
			t.Fatalf("the refusal: %v", r)
		}
		if r := a.as(umaToken, "action", "complete_task", "id_task", bare); r.code() != int(api.CodeFieldRequired) {
			t.Fatalf("a token completing: %v", r)
		}
		a.ok("action", "add_costs", "id_task", bare, "time", "0:05", "email_user_from", uma.Email)
		if r := a.as(umaToken, "action", "complete_task", "id_task", bare); r.code() != -1 || r.data()["status"] != "done" {
			t.Fatalf("completing once time is logged: %v", r)
		}

		// The changes of options are in the project's events.
		var changed []string
		for _, ev := range a.ok("action", "get_events", "period", "1h", "id_project", pid).list() {
			if ev := ev.(map[string]any); ev["event"] == "update_project" {
				changed = append(changed, fmt.Sprint(ev["new"], ev["old"]))
			}
		}
		if got := strings.Join(changed, "; "); got != "map[time_today:1 timer_only:<nil>] map[timer_only:1]; map[time_require:1 time_today:<nil>] map[time_today:1]" {
			t.Fatalf("update_project events: %s", got)
		}
	})
}
