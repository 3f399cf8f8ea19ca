package web_test

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
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/wire"
)

// calSite is a site for the calendar's, the feed's and the activity's
// tests: project Launch with tasks due around today, one of them hidden
// from everyone but the owner, and time the user logged today.
type calSite struct {
	s                           *testsite.Site
	acct                        taskd.Account
	owner, user                 taskd.Actor
	project                     int64
	write, old, shipped, secret int64 // tasks
	today, yesterday, nextWeek  string
}

func newCalSite(t *testing.T, s *testsite.Site) *calSite {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	acct, owner := s.Owner()
	m, err := s.Store.MemberByEmail(ctx, acct.ID, testsite.UserEmail)
	must(err)
	user := taskd.Actor{AccountID: acct.ID, Person: m.Ref(), Role: m.Role}
	today := time.Now().UTC()
	c := &calSite{s: s, acct: acct, owner: owner, user: user,
		today: today.Format(taskd.DateLayout), yesterday: today.AddDate(0, 0, -1).Format(taskd.DateLayout), nextWeek: today.AddDate(0, 0, 7).Format(taskd.DateLayout)}
	p, err := s.Store.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Launch")})
	must(err)
	c.project = p.ID
	task := func(name, due string, hidden ...string) int64 {
		t.Helper()
		tk, err := s.Store.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new(name), DateEnd: new(due), AssigneeEmail: new(testsite.UserEmail), Hidden: hidden})
		must(err)
		return tk.ID
	}
	c.write, c.old, c.shipped = task("Write copy, v2; final", c.today), task("Old thing", c.yesterday), task("Shipped", c.yesterday)
	c.secret = task("Secret plan", c.today, testsite.OwnerEmail)
	_, err = s.Store.CompleteTask(ctx, owner, c.shipped)
	must(err)
	minutes := int64(90)
	_, err = s.Store.AddCost(ctx, user, c.write, taskd.CostInput{Minutes: &minutes, Date: new(c.today)})
	must(err)
	return c
}

// page is the path of an account page.
func (c *calSite) page(path string) string { return c.s.Base + "/a/" + c.s.Slug + path }

var todayCellRE = regexp.MustCompile(`<td class="day[^"]* today" data-date="([0-9-]+)" aria-current="date">`)

// TestCalendarPages shows month and week grids of My tasks and of a
// project, with today marked in the viewer's zone, overdue and done
// tasks styled, the time logged, and no hidden task for who may not see
// it.
func TestCalendarPages(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := newCalSite(t, s)
	u := s.SignedIn(testsite.UserEmail)
	o := s.SignedIn(testsite.OwnerEmail)

	t.Run("the month of My tasks", func(t *testing.T) {
		p := u.In(t).Get(c.page("/my/calendar"))
		if p.Status != 200 {
			t.Fatalf("status %d\n%s", p.Status, p.Body)
		}
		for _, want := range []string{"Write copy, v2; final", `class="cal-task overdue"`, `class="cal-task done"`, ">" + wire.FormatCostTime(90) + "<",
			time.Now().UTC().Format("January 2006"), `rel="prev"`, `rel="next"`, ">Today<"} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("no %q on the month", want)
			}
		}
		if strings.Contains(p.Body, "Secret plan") {
			t.Error("the user sees the task hidden from them")
		}
		if n := strings.Count(p.Body, `<td class="day`); n%7 != 0 || n < 28 {
			t.Errorf("%d days: not whole weeks of a month", n)
		}
	})
	t.Run("the week of a project, and a previous week", func(t *testing.T) {
		p := o.In(t).Get(c.page("/project/" + strconv.FormatInt(c.project, 10) + "/calendar?view=week&date=" + c.today))
		if n := strings.Count(p.Body, `<td class="day`); n != 7 {
			t.Fatalf("%d days in a week\n%s", n, p.Body)
		}
		if !strings.Contains(p.Body, "Secret plan") || !strings.Contains(p.Body, "Write copy") {
			t.Errorf("the owner's project week lacks a task:\n%s", p.Body)
		}
		prev := regexp.MustCompile(`href="([^"]+)" rel="prev"`).FindStringSubmatch(p.Body)
		if prev == nil {
			t.Fatal("no link to the previous week")
		}
		back := o.In(t).Get(s.Base + strings.ReplaceAll(prev[1], "&amp;", "&"))
		if back.Status != 200 || !strings.Contains(back.Body, "calendar-week") || strings.Contains(back.Body, `data-date="`+c.today+`"`) {
			t.Errorf("previous week: %d\n%s", back.Status, back.Body)
		}
		for _, bad := range []string{"?view=year&date=nonsense", "?date=0001-01-01", "?date=2999-12-31&view=week", "?date=%00"} {
			if p := o.In(t).Get(c.page("/my/calendar" + bad)); p.Status != 200 {
				t.Errorf("%s: %d", bad, p.Status)
			}
		}
	})
	t.Run("today is the viewer's, in their time zone", func(t *testing.T) {
		// UTC+14 and UTC−11 are never on the same date.
		for b, zone := range map[*testsite.Browser]string{u: "Pacific/Kiritimati", o: "Pacific/Pago_Pago"} {
			prof := b.In(t).Get(s.Base + "/profile")
			b.In(t).Submit(s.Base, prof, "/profile", url.Values{"time_zone": {zone}}).Location(t)
		}
		for b, zone := range map[*testsite.Browser]string{u: "Pacific/Kiritimati", o: "Pacific/Pago_Pago"} {
			loc, _ := time.LoadLocation(zone)
			want := time.Now().In(loc).Format(taskd.DateLayout)
			m := todayCellRE.FindStringSubmatch(b.In(t).Get(c.page("/my/calendar?view=week")).Body)
			if m == nil || m[1] != want {
				t.Errorf("%s: today is %v, want %s", zone, m, want)
			}
		}
	})
}

// TestCalendarMovesADueDate moves a task by its form, which is the
// ordinary update of a task: its event says so; bad dates and foreign
// return addresses are refused.
func TestCalendarMovesADueDate(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := newCalSite(t, s)
	u := s.SignedIn(testsite.UserEmail)
	ctx := context.Background()
	since := time.Now().Add(-time.Minute)
	cal := u.Get(c.page("/my/calendar"))
	action := "/a/" + s.Slug + "/tasks/" + strconv.FormatInt(c.write, 10) + "/due"
	p := u.Submit(s.Base, cal, action, url.Values{"dateend": {c.nextWeek}})
	if loc := p.Location(t); loc.Path != "/a/"+s.Slug+"/my/calendar" {
		t.Fatalf("after the move: %s", loc)
	}
	tk, err := s.Store.Task(ctx, taskd.AccountViewer(c.acct.ID), c.write)
	if err != nil || tk.DateEnd != c.nextWeek {
		t.Fatalf("due date %q, want %s (%v)", tk.DateEnd, c.nextWeek, err)
	}
	evs, err := s.Store.Events(ctx, taskd.AccountViewer(c.acct.ID), since, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range evs {
		if e.Name == "update_task" && strings.Contains(string(e.Body), `"date_end":"`+c.nextWeek+`"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no update_task event with the new due date among %d events", len(evs))
	}
	for _, bad := range []string{"", "tomorrow", "2026-02-30", "3000-01-01"} {
		if p := u.Submit(s.Base, cal, action, url.Values{"dateend": {bad}}); p.Status != http.StatusUnprocessableEntity {
			t.Errorf("date %q: %d", bad, p.Status)
		}
	}
	for _, back := range []string{"//evil.example/my/calendar", "https://evil.example/", "/settings", "/project/1/2/calendar"} {
		p := u.Submit(s.Base, cal, action, url.Values{"dateend": {c.today}, "back": {back}})
		if loc := p.Location(t); !strings.HasPrefix(loc.Path, "/a/"+s.Slug+"/project/") || strings.HasSuffix(loc.Path, "calendar") {
			t.Errorf("back %q went to %s, not the task", back, loc)
		}
	}
	secret := "/a/" + s.Slug + "/tasks/" + strconv.FormatInt(c.secret, 10) + "/due"
	if p := u.Post(s.Base+secret, url.Values{"csrf": {csrfOf(t, cal)}, "dateend": {c.today}}); p.Status != http.StatusNotFound {
		t.Errorf("moving a hidden task: %d", p.Status)
	}
}

// csrfOf is a page's form token.
func csrfOf(t *testing.T, p testsite.Page) string {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatal("no form token on the page")
	}
	return m[1]
}
