package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
)

// timelineSite is a site whose project "Launch" has tasks around today:
// a bar, its subtask, an overdue bar, a done one, a milestone, one far
// later, one without dates and one hidden from Uma. Uma has the first
// task, Dana, of the team "Design", the milestone. It returns the project's id and the tasks' ids by name.
func timelineSite(t *testing.T) (*testsite.Site, int64, map[string]int64) {
	t.Helper()
	return timelineOn(t, testsite.New(t))
}

// timelineOn fills the site s as timelineSite does.
func timelineOn(t *testing.T, s *testsite.Site) (*testsite.Site, int64, map[string]int64) {
	t.Helper()
	ctx := context.Background()
	_, by := s.Owner()
	p, err := s.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Launch")})
	if err != nil {
		t.Fatal(err)
	}
	day := func(n int) *string { return new(time.Now().UTC().AddDate(0, 0, n).Format(taskd.DateLayout)) }
	ids := map[string]int64{}
	add := func(name string, parent int64, in taskd.TaskInput) {
		t.Helper()
		in.Name = new(name)
		task, err := s.Store.CreateTask(ctx, by, p.ID, parent, in)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = task.ID
	}
	uma, dana := testsite.UserEmail, "dana@acme.example"
	acct, _ := s.Owner()
	np, err := taskd.PreparePerson(dana, testsite.Password, "Dana", "Designer", testaccount.Hasher().Hash)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := s.Store.Invite(ctx, taskd.InviteInput{AccountID: acct.ID, Person: np, Role: taskd.RoleUser, Team: "Design"})
	if err != nil {
		t.Fatal(err)
	}
	person, err := s.Store.PersonByEmail(ctx, dana)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.AcceptInvitation(ctx, person.ID, inv.ID); err != nil {
		t.Fatal(err)
	}
	add("Write the copy", 0, taskd.TaskInput{DateStart: day(-2), DateEnd: day(3), AssigneeEmail: &uma})
	add("Outline", ids["Write the copy"], taskd.TaskInput{DateStart: day(0), DateEnd: day(1)})
	add("Fix the logo", 0, taskd.TaskInput{DateStart: day(-10), DateEnd: day(-3)})
	add("Book the venue", 0, taskd.TaskInput{DateStart: day(-5), DateEnd: day(-1)})
	add("Launch day", 0, taskd.TaskInput{DateEnd: day(5), AssigneeEmail: &dana})
	add("Next year's plan", 0, taskd.TaskInput{DateEnd: day(400)})
	add("Someday", 0, taskd.TaskInput{})
	add("Secret pricing", 0, taskd.TaskInput{DateStart: day(0), DateEnd: day(2), Hidden: []string{testsite.OwnerEmail}})
	if _, err := s.Store.CompleteTask(ctx, by, ids["Book the venue"]); err != nil {
		t.Fatal(err)
	}
	return s, p.ID, ids
}

// TestTimelinePages: a project's timeline shows its tasks as bars (a
// subtask indented under its task), overdue and done bars styled, a
// milestone as a point, the tasks without dates apart and the count of
// those outside the window; it has three scales and two groupings; My
// tasks' and a team's timelines show the person's and the team's tasks;
// a task hidden from the viewer appears on none.
func TestTimelinePages(t *testing.T) { testsite.One(t, testTimelinePages) }

func testTimelinePages(t *testing.T, s *testsite.Site) {
	s, pid, ids := timelineOn(t, s)
	owner, uma := s.SignedIn(testsite.OwnerEmail), s.SignedIn(testsite.UserEmail)
	acct := s.AccountURL()
	project := fmt.Sprintf("%s/project/%d/timeline", acct, pid)
	bar := func(body, name string) string {
		t.Helper()
		m := regexp.MustCompile(`<a class="([^"]*)" href="[^"]*/` + fmt.Sprint(ids[name]) + `/" draggable="false">(.*?)</a>`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no bar of %q in:\n%s", name, body)
		}
		return m[1] + " | " + regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[2], "")
	}
	day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format("2 Jan 2006") }

	t.Run("bars, styles, milestone, unscheduled and counts", func(t *testing.T) {
		p := owner.Get(project)
		if p.Status != 200 {
			t.Fatalf("HTTP %d", p.Status)
		}
		for name, want := range map[string]string{
			"Write the copy": "tl-bar | Write the copy: " + day(-2) + " to " + day(3),
			"Outline":        "tl-bar | Outline: " + day(0) + " to " + day(1),
			"Fix the logo":   "tl-bar overdue | Fix the logo: " + day(-10) + " to " + day(-3) + ", overdue",
			"Book the venue": "tl-bar done | Book the venue: " + day(-5) + " to " + day(-1) + ", done",
			"Launch day":     "tl-point | Launch day: due " + day(5),
			"Secret pricing": "tl-bar | Secret pricing: " + day(0) + " to " + day(2),
		} {
			if got := bar(p.Body, name); got != want {
				t.Errorf("%s: got %q, want %q", name, got, want)
			}
		}
		if !strings.Contains(p.Body, `<th scope="row" class="tl-name sub"><span class="tl-title">Outline</span>`) {
			t.Error("the subtask is not indented under its task")
		}
		if !strings.Contains(p.Body, "· 1 later") || !strings.Contains(p.Body, `<h2 id="unscheduled">Unscheduled</h2>`) || !strings.Contains(p.Body, ">Someday</a>") {
			t.Error("the later task's count or the unscheduled task is missing")
		}
		if strings.Contains(p.Body, "Next year&#39;s plan") {
			t.Error("a task after the window is shown")
		}
		// Today: its week in the header, its column on every row whose
		// bar does not cover it (Fix the logo, Book the venue, Launch day).
		if n, rows := strings.Count(p.Body, `class="tl-lower tl-current"`), strings.Count(p.Body, `<td class="tl-now"></td>`); n != 1 || rows != 3 {
			t.Errorf("today is marked in %d header cells and %d rows", n, rows)
		}
	})

	t.Run("scales", func(t *testing.T) {
		for _, tc := range []struct {
			scale string
			lower int // header cells of the second row
		}{{"day", 28}, {"week", 12}, {"month", 6}} {
			p := owner.Get(project + "?scale=" + tc.scale)
			if n := strings.Count(p.Body, `class="tl-lower`); p.Status != 200 || n != tc.lower {
				t.Errorf("%s: HTTP %d, %d columns headed, want %d", tc.scale, p.Status, n, tc.lower)
			}
			if !strings.Contains(p.Body, `<a href="/a/`+s.Slug+fmt.Sprintf("/project/%d/timeline?group=project&amp;scale=%s\" aria-current=\"true\">", pid, tc.scale)) {
				t.Errorf("%s: the scale's link is not marked current", tc.scale)
			}
		}
		// Moving later twice at the month scale puts the far task in.
		p := owner.Get(project + "?scale=month&from=" + time.Now().UTC().AddDate(0, 11, 0).Format(taskd.DateLayout))
		if !strings.Contains(p.Body, "Next year&#39;s plan: due") {
			t.Error("the far task is not on a window that holds it")
		}
		// Nonsense falls back to the defaults.
		if p := owner.Get(project + "?scale=year&from=yesterday&group=x"); p.Status != 200 || strings.Count(p.Body, `class="tl-lower`) != 12 {
			t.Errorf("a hand-edited address: HTTP %d", p.Status)
		}
	})

	t.Run("grouped by assignee", func(t *testing.T) {
		p := owner.Get(project + "?group=assignee")
		groups := regexp.MustCompile(`<tr class="tl-group"><th scope="rowgroup" colspan="\d+">([^<]*) <span`).FindAllStringSubmatch(p.Body, -1)
		var got []string
		for _, g := range groups {
			got = append(got, g[1])
		}
		if strings.Join(got, ",") != "Dana Designer,Uma User,Unassigned" {
			t.Errorf("groups %v", got)
		}
	})

	t.Run("hidden tasks appear on no timeline", func(t *testing.T) {
		for _, path := range []string{project, project + "?group=assignee", acct + "/my/timeline", acct + "/people/teams/" + teamID(t, s, "Design") + "/timeline"} {
			p := uma.Get(path)
			if p.Status != 200 || strings.Contains(p.Body, "Secret pricing") {
				t.Errorf("%s: HTTP %d, hidden task shown: %v", path, p.Status, strings.Contains(p.Body, "Secret pricing"))
			}
		}
	})

	t.Run("my tasks and a team's", func(t *testing.T) {
		for path, want := range map[string]string{acct + "/my/timeline": `"tl-bar-name">Write the copy</span>`, acct + "/people/teams/" + teamID(t, s, "Design") + "/timeline": "Launch day: due"} {
			p := uma.Get(path)
			if n := strings.Count(p.Body, `<a class="tl-bar`) + strings.Count(p.Body, `<a class="tl-point`); !strings.Contains(p.Body, want) || n != 1 {
				t.Errorf("%s shows %d tasks, want %q alone:\n%s", path, n, want, p.Body)
			}
		}
		if p := uma.Get(acct + "/people/teams/999999/timeline"); p.Status != 404 {
			t.Errorf("an unknown team: HTTP %d", p.Status)
		}
		if p := owner.Get(acct + "/my/timeline"); !strings.Contains(p.Body, "No task has dates") {
			t.Error("the owner, who has no task, sees some")
		}
	})

	t.Run("the pages link to their timelines", func(t *testing.T) {
		for path, link := range map[string]string{
			fmt.Sprintf("%s/project/%d/", acct, pid): fmt.Sprintf(`href="/a/%s/project/%d/timeline">Timeline</a>`, s.Slug, pid),
			acct + "/my":                             fmt.Sprintf(`href="/a/%s/my/timeline"`, s.Slug),
			acct + "/people":                         fmt.Sprintf(`href="/a/%s/people/teams/%s/timeline"`, s.Slug, teamID(t, s, "Design")),
		} {
			if p := owner.Get(path); !strings.Contains(p.Body, link) {
				t.Errorf("%s has no link %s", path, link)
			}
		}
	})

	t.Run("names are escaped", func(t *testing.T) {
		_, by := s.Owner()
		day := time.Now().UTC().Format(taskd.DateLayout)
		if _, err := s.Store.CreateTask(context.Background(), by, pid, 0, taskd.TaskInput{Name: new(`<script>alert("x")</script> & 'co'`), DateEnd: &day}); err != nil {
			t.Fatal(err)
		}
		p := owner.Get(project)
		if strings.Contains(p.Body, "<script>alert") || !strings.Contains(p.Body, `<span class="tl-title">&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;co&#39;</span>`) {
			t.Errorf("a name with markup is not escaped")
		}
	})
}

// teamID is the id of the account's team with the title.
func teamID(t *testing.T, s *testsite.Site, title string) string {
	t.Helper()
	acct, _ := s.Owner()
	teams, err := s.Store.Teams(context.Background(), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range teams {
		if tm.Title == title {
			return fmt.Sprint(tm.ID)
		}
	}
	t.Fatalf("no team %q", title)
	return ""
}

// TestTimelineReschedule: a row's form changes the task's dates through
// update_task's use case (its event is written) and comes back to the same
// window; what update_task refuses the form refuses with the same message;
// a reader may not; a hidden task is not found.
func TestTimelineReschedule(t *testing.T) { testsite.One(t, testTimelineReschedule) }

func testTimelineReschedule(t *testing.T, s *testsite.Site) {
	s, pid, ids := timelineOn(t, s)
	owner := s.SignedIn(testsite.OwnerEmail)
	acct := s.AccountURL()
	page := fmt.Sprintf("%s/project/%d/timeline?group=project&scale=day", acct, pid)
	// A row's link opens its dates form, filled in.
	p := owner.Get(page)
	edit := regexp.MustCompile(`<a class="tl-edit-link" href="([^"]+)">Dates<span class="inline-label"> of Write the copy</span></a>`).FindStringSubmatch(p.Body)
	if edit == nil {
		t.Fatalf("no link to the dates form of the task in:\n%s", p.Body)
	}
	p = owner.Get(s.Base + html.UnescapeString(edit[1]))
	form := p.Form(t, "task", fmt.Sprint(ids["Write the copy"]))
	if !strings.Contains(p.Body, `<h2 id="tl-edit-title">Dates of Write the copy</h2>`) || !strings.Contains(p.Body, `name="dateend" value="`+time.Now().UTC().AddDate(0, 0, 3).Format(taskd.DateLayout)+`"`) {
		t.Errorf("the dates form:\n%s", p.Body)
	}
	action := ""
	for _, f := range p.Forms() {
		if f.Fields.Get("task") == fmt.Sprint(ids["Write the copy"]) {
			action = f.Action
		}
	}
	post := func(b *testsite.Browser, id int64, start, end string) testsite.Page {
		f := url.Values{}
		for k, v := range form {
			f[k] = v
		}
		f.Set("task", fmt.Sprint(id))
		f.Set("datestart", start)
		f.Set("dateend", end)
		f.Set("title", "Renamed by a forged field")
		return b.Post(s.Base+action, f)
	}

	got := post(owner, ids["Write the copy"], "2030-01-07", "2030-01-18")
	if loc := got.Location(t); loc.String() != action {
		t.Errorf("after the change: went to %s, want %s", loc, action)
	}
	_, by := s.Owner()
	task, err := s.Store.Task(context.Background(), taskd.PersonViewer(by.AccountID, by.Person.ID, by.Role), ids["Write the copy"])
	if err != nil {
		t.Fatal(err)
	}
	if task.DateStart != "2030-01-07" || task.DateEnd != "2030-01-18" || task.Name != "Write the copy" {
		t.Errorf("the task after the form: %s to %s, %q", task.DateStart, task.DateEnd, task.Name)
	}
	_, events := testsite.APICall(t, acct, s.Key, "action=get_events&period=1h")
	var last map[string]any
	for _, e := range events["data"].([]any) {
		last = e.(map[string]any)
	}
	if last["event"] != "update_task" || fmt.Sprint(last["id_task"]) != fmt.Sprint(ids["Write the copy"]) && !strings.Contains(fmt.Sprint(last), fmt.Sprint(ids["Write the copy"])) {
		t.Errorf("the last event: %v", last)
	}

	// Refused as update_task refuses, with its message.
	for _, tc := range []struct{ name, start, end string }{
		{"start after due", "2030-02-10", "2030-02-01"},
		{"no such day", "2030-02-30", ""},
	} {
		_, api := testsite.APICall(t, acct, s.Key, fmt.Sprintf("action=update_task&id_task=%d&datestart=%s&dateend=%s", ids["Outline"], tc.start, tc.end))
		msg := fmt.Sprint(api["message"])
		if api["status"] == "ok" || msg == "" {
			t.Fatalf("%s: update_task answered %v", tc.name, api)
		}
		got := post(owner, ids["Outline"], tc.start, tc.end)
		if got.Status != http.StatusUnprocessableEntity || !strings.Contains(got.Body, "The dates were not changed: "+template(msg)) ||
			!strings.Contains(got.Body, `<h2 id="tl-edit-title">Dates of Outline</h2>`) {
			t.Errorf("%s: HTTP %d; want 422 with %q in:\n%s", tc.name, got.Status, msg, got.Body)
		}
	}

	// Hostile input: clear refusals, never a 500.
	for _, id := range []string{"abc", "-1", "99999999", ""} {
		f := url.Values{"csrf": form["csrf"], "task": {id}, "dateend": {"2030-01-01"}}
		if got := owner.Post(s.Base+action, f); got.Status != http.StatusUnprocessableEntity || !strings.Contains(got.Body, "The dates were not changed: ") {
			t.Errorf("task %q: HTTP %d", id, got.Status)
		}
	}
	if got := owner.Get(page + "&edit=abc&from=99999-01-01"); got.Status != 200 {
		t.Errorf("a hand-edited address: HTTP %d", got.Status)
	}

	// A reader may not; a hidden task is not the user's to change.
	s.AddMember(s.Slug, "reader@acme.example", "Rita", "Reader", taskd.RoleReader)
	if _, err := s.Store.SetProjectMembers(context.Background(), by, pid, []string{"reader@acme.example"}, true); err != nil {
		t.Fatal(err)
	}
	reader := s.SignedIn("reader@acme.example")
	if p := reader.Get(page + fmt.Sprintf("&edit=%d", ids["Outline"])); p.Status != 200 || strings.Contains(p.Body, `name="datestart"`) || strings.Contains(p.Body, "tl-edit-link") {
		t.Errorf("a reader's timeline: HTTP %d, with forms: %v", p.Status, strings.Contains(p.Body, `name="datestart"`))
	}
	rf := reader.Get(acct+"/my").Form(t, "", "")
	if got := reader.Post(s.Base+action, url.Values{"csrf": rf["csrf"], "task": {fmt.Sprint(ids["Outline"])}, "dateend": {"2030-01-01"}}); got.Status != http.StatusForbidden {
		t.Errorf("a reader's change: HTTP %d", got.Status)
	}
	uma := s.SignedIn(testsite.UserEmail)
	uf := uma.Get(page+fmt.Sprintf("&edit=%d", ids["Outline"])).Form(t, "task", fmt.Sprint(ids["Outline"]))
	uf.Set("task", fmt.Sprint(ids["Secret pricing"]))
	uf.Set("dateend", "2030-01-01")
	if got := uma.Post(s.Base+action, uf); got.Status == http.StatusSeeOther || strings.Contains(got.Body, "Secret pricing") {
		t.Errorf("a hidden task's change: HTTP %d", got.Status)
	}
}

// template escapes a message as html/template writes it in a page.
func template(s string) string {
	return strings.NewReplacer("&", "&amp;", "'", "&#39;", "\"", "&#34;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// TestTimelineInTheViewersZone: today, on a timeline, is the viewer's: at
// 22:30 UTC a person in Tokyo is on the next day, so a task due that UTC
// day is overdue for them, and today's column is the next day's.
func TestTimelineInTheViewersZone(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 3, 10, 22, 30, 0, 0, time.UTC) // 2030-03-11 07:30 in Tokyo
	s := testsite.Open(t, testdb.New(t, "sqlite"), testsite.Options{Now: func() time.Time { return now }})
	pid := s.APIID("action=post_project&title=Dates")
	s.APIOK("action=post_task&id_project=" + pid + "&title=Due+on+the+tenth&dateend=10.03.2030")
	o := s.SignedIn(testsite.OwnerEmail)
	page := s.AccountURL() + "/project/" + pid + "/timeline?scale=day"
	for _, tc := range []struct{ zone, class, today string }{
		{"UTC", "tl-point", "Sun 10 Mar 2030"},
		{"Asia/Tokyo", "tl-point overdue", "Mon 11 Mar 2030"},
	} {
		o.Submit(s.Base, o.Get(s.Base+"/profile"), "/profile", url.Values{"first_name": {"Olga"}, "last_name": {"Owner"},
			"time_zone": {tc.zone}}).Location(t)
		p := o.Get(page)
		if !strings.Contains(p.Body, `<a class="`+tc.class+`" href=`) || !strings.Contains(p.Body, `class="tl-lower tl-now" title="`+tc.today+`"`) {
			t.Errorf("%s: want the point %q and today %s in:\n%s", tc.zone, tc.class, tc.today, p.Body)
		}
	}
}
