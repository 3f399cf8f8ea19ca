package server

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// TestCostPages: time and money in the pages, on both databases. The
// owner logs a line on a task and sees it with the total; a bad time is
// a 422 naming the problem; a timer started on the task shows in the
// header of every page of the account, survives a restart (a second
// server on the same database stops it and logs the time that passed),
// and its line is marked; a user cannot change the owner's line; a rate
// prices time; budgets show progress on the task and the project, and an
// overrun says by how much.
func TestCostPages(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	for name, d := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := newOAuthSite(t, d)
			ctx := context.Background()
			acct, by := s.owner()
			p, err := s.setup.CreateProject(ctx, by, taskd.ProjectInput{Name: ptr("Site")})
			if err != nil {
				t.Fatal(err)
			}
			task, err := s.setup.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: ptr("Design"), MaxMinutes: ptr[int64](120)})
			if err != nil {
				t.Fatal(err)
			}
			base := s.accountURL()
			taskURL := base + task.Page()
			b := s.signedIn(ownerEmail)

			pg := b.get(taskURL)
			if !strings.Contains(pg.body, "No time or money logged yet.") || !strings.Contains(pg.body, "Time: 0:00 of 2:00 (0%)") {
				t.Fatalf("an empty task's costs:\n%s", pg.body)
			}
			action := "/a/" + s.slug + "/tasks/" + strconv.FormatInt(task.ID, 10) + "/costs"
			bad := b.submit(s.base, pg, action, url.Values{"time": {"1:75"}, "date": {"2026-03-02"}})
			if bad.status != http.StatusUnprocessableEntity || !strings.Contains(bad.body, "Time is hours, as 1.5, 1,5 or 1:30") {
				t.Fatalf("a bad time: HTTP %d\n%s", bad.status, bad.body)
			}
			if loc := b.submit(s.base, pg, action, url.Values{"time": {"1:30"}, "money": {"12,5"}, "date": {"2026-03-02"},
				"comment": {"Sketches"}}).location(t); loc.Path != "/a/"+s.slug+task.Page() || loc.Fragment != "costs" {
				t.Fatalf("after logging: %v", loc)
			}
			pg = b.get(taskURL)
			for _, want := range []string{`<td class="date">2026-03-02</td>`, `<td class="num">1:30</td>`, `<td class="num">12.50</td>`, "Sketches",
				"Logged: 1:30 and 12.50 in 1 line", "Time: 1:30 of 2:00 (75%)", `<progress max="120" value="90">`} {
				if !strings.Contains(pg.body, want) {
					t.Fatalf("the task page lacks %q:\n%s", want, pg.body)
				}
			}

			// A timer: started here, shown in the header of other pages,
			// stopped by a second server after an hour and a half.
			timerAction := "/a/" + s.slug + "/tasks/" + strconv.FormatInt(task.ID, 10) + "/timer"
			b.submit(s.base, pg, timerAction, nil).location(t)
			projectPage := b.get(base + p.Page())
			if !strings.Contains(projectPage.body, `class="header-timer"`) || !strings.Contains(projectPage.body, `Your timer on </span><span class="timer-task">Design</span>`) {
				t.Fatalf("the header shows no timer:\n%s", projectPage.body)
			}
			s.clock.advance(90*time.Minute + 20*time.Second)
			restarted := s.replica()
			pg = b.get(restarted + "/a/" + s.slug + task.Page())
			if !strings.Contains(pg.body, "Your timer is running on this task") || !strings.Contains(pg.body, ">1:30:2") {
				t.Fatalf("after a restart the timer is gone or lost time:\n%s", pg.body)
			}
			f := pg.form(t, "next", "/a/"+s.slug+task.Page()+"#costs")
			f.Set("comment", "Layout")
			if loc := b.post(restarted+"/a/"+s.slug+"/timer/stop", f).location(t); loc.Fragment != "costs" {
				t.Fatalf("after stopping: %v", loc)
			}
			pg = b.get(taskURL)
			if strings.Contains(pg.body, `class="header-timer"`) || !strings.Contains(pg.body, `Layout <span class="badge">timer</span>`) ||
				!strings.Contains(pg.body, "Logged: 3:00 and 12.50 in 2 lines") || !strings.Contains(pg.body, "Time: 3:00 of 2:00 (150%)") ||
				!strings.Contains(pg.body, "Over by 1:00") {
				t.Fatalf("the timer's line and the overrun:\n%s", pg.body)
			}

			// A user sees the owner's lines without forms to change them,
			// and the store refuses a forged change.
			lines, err := s.setup.Costs(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(acct.ID)})
			if err != nil || len(lines) != 2 {
				t.Fatalf("lines %v, %v", lines, err)
			}
			u := s.signedIn(userEmail)
			upg := u.get(taskURL)
			if strings.Contains(upg.body, "/costs/"+strconv.FormatInt(lines[0].ID, 10)+"/update") {
				t.Fatalf("a user may edit the owner's line:\n%s", upg.body)
			}
			forged := upg.form(t, "", "")
			forged.Set("time", "9")
			if r := u.post(base+"/costs/"+strconv.FormatInt(lines[0].ID, 10)+"/update", forged); r.status != http.StatusForbidden {
				t.Fatalf("a forged change of the owner's line: HTTP %d", r.status)
			}
			edit := "/a/" + s.slug + "/costs/" + strconv.FormatInt(lines[0].ID, 10) + "/update"
			b.submit(s.base, b.get(taskURL), edit, url.Values{"time": {"2"}, "money": {"0"}, "date": {"2026-03-01"}, "comment": {"Fewer sketches"}}).location(t)
			if got, _ := s.setup.Cost(ctx, taskd.AccountViewer(acct.ID), lines[0].ID); got.Minutes != 120 || got.Cents != 0 || got.Date != "2026-03-01" {
				t.Fatalf("the owner's edit: %+v", got)
			}

			// A rate set on the people page prices the user's time.
			peoplePage := b.get(base + "/people")
			uma, _ := s.setup.MemberByEmail(ctx, acct.ID, userEmail)
			rateAction := "/a/" + s.slug + "/people/" + strconv.FormatInt(uma.ID, 10) + "/rate"
			if r := b.submit(s.base, peoplePage, rateAction, url.Values{"rate": {"abc"}}); r.status != http.StatusUnprocessableEntity {
				t.Fatalf("a bad rate: HTTP %d", r.status)
			}
			b.submit(s.base, peoplePage, rateAction, url.Values{"rate": {"40"}}).location(t)
			upg = u.get(taskURL)
			if !strings.Contains(upg.body, "Price the time at my hourly rate") {
				t.Fatalf("no rate choice for a user with a rate:\n%s", upg.body)
			}
			u.submit(s.base, upg, action, url.Values{"time": {"0:45"}, "is_rate": {"1"}, "date": {"2026-03-03"}}).location(t)
			if r := regexp.MustCompile(`<td class="num">0:45</td><td class="num">([0-9.]+)</td>`).FindStringSubmatch(u.get(taskURL).body); r == nil || r[1] != "30.00" {
				t.Fatalf("45 minutes at 40.00: %v", r)
			}
			del := "/a/" + s.slug + "/costs/" + strconv.FormatInt(lines[1].ID, 10) + "/delete"
			b.submit(s.base, b.get(taskURL), del, nil).location(t)
			if _, err := s.setup.Cost(ctx, taskd.AccountViewer(acct.ID), lines[1].ID); !taskd.IsNotFound(err) {
				t.Fatalf("a deleted line: %v", err)
			}

			// The project's budget.
			budget := "/a/" + s.slug + p.Page() + "budget"
			pp := b.get(base + p.Page())
			if r := b.submit(s.base, pp, budget, url.Values{"max_time": {"lots"}}); r.status != http.StatusUnprocessableEntity {
				t.Fatalf("a bad budget: HTTP %d", r.status)
			}
			b.submit(s.base, pp, budget, url.Values{"max_time": {"10"}, "max_money": {"100"}}).location(t)
			pp = b.get(base + p.Page())
			if !strings.Contains(pp.body, "Time: 2:45 of 10:00 (27%)") || !strings.Contains(pp.body, "Money: 30.00 of 100.00 (30%)") {
				t.Fatalf("the project's budget:\n%s", pp.body)
			}
		})
	}
}
