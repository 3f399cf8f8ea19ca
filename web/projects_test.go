package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
)

// rowNames are the names of the task rows of a list, in order.
func rowNames(p testsite.Page) []string {
	var out []string
	for _, m := range taskRowRE.FindAllStringSubmatch(p.Body, -1) {
		out = append(out, m[1])
	}
	return out
}

var taskRowRE = regexp.MustCompile(`(?s)<li id="task\d+" class="task[^"]*">.*?<span class="title"><a href="[^"]+">([^<]*)</a>`)

// TestProjectPageLists: the project page pages through its tasks, 50 at a
// time, and filters them by text, status, assignee, tag and due date, in
// each order; hostile query strings show the default list.
func TestProjectPageLists(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	url0 := s.AccountURL()
	pid := s.APIID("action=post_project&title=Big")
	testsite.APICall(t, url0, s.Key, "action=add_task_tag_groups&type=status&access=public&title=Stage")
	testsite.APICall(t, url0, s.Key, "action=add_task_tags&group=Stage&title=Doing,Review")
	today := time.Now().UTC()
	day := func(d int) string { return today.AddDate(0, 0, d).Format("02.01.2006") }
	post := func(q string) string {
		t.Helper()
		code, r := testsite.APICall(t, url0, s.Key, "action=post_task&id_project="+pid+"&"+q)
		if code != 200 || r["status"] != "ok" {
			t.Fatalf("post_task %s: %v", q, r)
		}
		return r["data"].(map[string]any)["id"].(string)
	}
	for i := range 110 {
		post(fmt.Sprintf("title=Filler+%03d&priority=1", i))
	}
	late := post("title=Late+report&priority=9&dateend=" + day(-3) + "&email_user_to=" + testsite.UserEmail)
	post("title=Due+today&priority=5&dateend=" + day(0) + "&tags=Doing")
	post("title=Next+week&priority=2&dateend=" + day(5) + "&text=the+QUARTERLY+numbers")
	post("title=Subtask+of+late&id_parent=" + late + "&tags=Review")
	done := post("title=Finished&priority=3")
	testsite.APICall(t, url0, s.Key, "action=complete_task&id_task="+done)

	b := s.SignedIn(testsite.OwnerEmail)
	base := s.Base + "/a/" + s.Slug + "/project/" + pid + "/"
	list := func(t *testing.T, q string) testsite.Page {
		t.Helper()
		pg := b.In(t).Get(base + "?" + q)
		if pg.Status != 200 {
			t.Fatalf("%s: %d\n%s", q, pg.Status, pg.Body)
		}
		return pg
	}
	var first testsite.Page

	if !t.Run("the list pages 50 at a time, in tree order", func(t *testing.T) {
		first = list(t, "")
		if rows := rowNames(first); len(rows) != 50 || rows[0] != "Filler 000" || !strings.Contains(first.Body, "Active (114)") ||
			!strings.Contains(first.Body, "Done (1)") || !strings.Contains(first.Body, "page 1 of 3") {
			t.Fatalf("first page: %d rows %q\n%s", len(rows), rows, first.Body)
		}
		third := list(t, "page=3")
		if rows := rowNames(third); !slices.Equal(rows[len(rows)-4:], []string{"Late report", "Subtask of late", "Due today", "Next week"}) ||
			!strings.Contains(third.Body, `class="task active sub"`) || strings.Contains(third.Body, `rel="next"`) {
			t.Fatalf("last page in tree order: %q\n%s", rows, third.Body)
		}
	}) {
		return
	}

	t.Run("text, status, assignee and due date filter the list, in each order", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"q=quarterly", []string{"Next week"}},
			{"q=LATE", []string{"Late report", "Subtask of late"}},
			{"q=100%25", nil},
			{"status=done", []string{"Finished"}},
			{"assignee=" + url.QueryEscape(testsite.UserEmail), []string{"Late report"}},
			{"due=overdue", []string{"Late report"}},
			{"due=today", []string{"Due today"}},
			{"due=week", []string{"Due today", "Next week"}},
			{"due=overdue&sort=priority", []string{"Late report"}},
			{"q=e&due=week&sort=name", []string{"Due today", "Next week"}},
		} {
			if got := rowNames(list(t, tc.query)); !slices.Equal(got, tc.want) {
				t.Errorf("%s: %q, want %q", tc.query, got, tc.want)
			}
		}
	})

	t.Run("a subtask shown alone names its parent and shows its tags", func(t *testing.T) {
		tagged := list(t, "q=of+late")
		if !strings.Contains(tagged.Body, `<span class="tag" title="Stage">Review</span>`) || !strings.Contains(tagged.Body, "in Late report") {
			t.Fatalf("a subtask shown alone names its parent and shows its tags:\n%s", tagged.Body)
		}
	})

	t.Run("the tag filter keeps the tasks of the tag", func(t *testing.T) {
		doing := regexp.MustCompile(`<option value="(\d+)">Stage: Doing</option>`).FindStringSubmatch(first.Body)
		if doing == nil {
			t.Fatalf("no tag filter:\n%s", first.Body)
		}
		if got := rowNames(list(t, "tag="+doing[1])); !slices.Equal(got, []string{"Due today"}) {
			t.Errorf("tag filter: %q", got)
		}
	})

	t.Run("the list sorts by due date, soonest first, and by newest", func(t *testing.T) {
		if got := rowNames(list(t, "sort=due")); !slices.Equal(got[:4], []string{"Late report", "Due today", "Next week", "Filler 000"}) {
			t.Errorf("soonest due first: %q", got[:4])
		}
		if got := rowNames(list(t, "sort=newest")); got[0] != "Subtask of late" {
			t.Errorf("newest first: %q", got[:3])
		}
	})

	t.Run("a filter matching nothing says so and offers to clear the filters", func(t *testing.T) {
		empty := list(t, "q=nothing+like+this")
		if !strings.Contains(empty.Body, "No tasks match these filters") || !strings.Contains(empty.Body, "Clear filters") {
			t.Fatalf("no match:\n%s", empty.Body)
		}
	})

	t.Run("hostile query strings show the default list", func(t *testing.T) {
		for _, hostile := range []string{"page=-5&sort=evil&tag=abc&due=x&status=%00", "page=99999999999999999999",
			"assignee=%27%20OR%201=1--&tag=-1", "q=" + strings.Repeat("%E2%80%AE", 300)} {
			if got := rowNames(list(t, hostile)); len(got) > 50 {
				t.Errorf("%s: %d rows", hostile, len(got))
			}
		}
		if got := rowNames(list(t, "page=-5&sort=evil")); len(got) != 50 || got[0] != "Filler 000" {
			t.Errorf("a bad page and order show the first page: %q", got[:1])
		}
	})
}

// TestProjectPageSaysUnassigned: an unassigned task reads "Unassigned"
// where the assignee stands alone (the list's column, the task page's
// field, the assignee filter's choice); a sentence keeps "nobody" ("new
// tasks go to nobody").
func TestProjectPageSaysUnassigned(t *testing.T) {
	t.Parallel() // a site of its own
	s := testsite.New(t)
	pid := s.APIID("action=post_project&title=Loose&email_user_to=NOONE")
	tid := s.APIID("action=post_task&id_project=" + pid + "&title=Loose+end")
	b := s.SignedIn(testsite.OwnerEmail)
	project := b.Get(s.Base + "/a/" + s.Slug + "/project/" + pid + "/")
	row := regexp.MustCompile(`(?s)<li id="task` + tid + `" .*?</li>`).FindString(project.Body)
	if !strings.Contains(row, `<span class="assignee">Unassigned</span>`) {
		t.Errorf("the list's assignee column of an unassigned task:\n%s", row)
	}
	if !strings.Contains(project.Body, `>Unassigned</option>`) {
		t.Errorf("the assignee filter has no choice \"Unassigned\":\n%s", project.Body)
	}
	if !strings.Contains(project.Body, "new tasks go to nobody</p>") {
		t.Errorf("the project's sentence does not say new tasks go to nobody:\n%s", project.Body)
	}
	link := regexp.MustCompile(`<span class="title"><a href="([^"]+)">`).FindStringSubmatch(row)
	if link == nil {
		t.Fatalf("no link to the task in its row:\n%s", row)
	}
	if task := b.Get(s.Base + link[1]); !strings.Contains(task.Body, "<dt>Assignee</dt><dd>Unassigned</dd>") {
		t.Errorf("the task page's assignee field:\n%s", task.Body)
	}
}

// TestListQueryText: a search that is not valid UTF-8, holds NUL, or is
// long enough to be cut inside a character shows a list on both databases;
// a form with such text gets a clear 400, never a 500, and nothing is made.
func TestListQueryText(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		pid := s.APIID("action=post_project&title=P")
		testsite.APICall(t, s.AccountURL(), s.Key, "action=post_task&id_project="+pid+"&title=Caf%C3%A9")
		b := s.SignedIn(testsite.OwnerEmail)
		for _, q := range []string{"%FF%FE", "caf%C3", "a%00b", strings.Repeat("%E2%80%AE", 300), "Caf%C3%A9%FF"} {
			pg := b.Get(s.Base + "/a/" + s.Slug + "/project/" + pid + "/?q=" + q)
			if pg.Status != 200 {
				t.Errorf("q=%.30s: %d", q, pg.Status)
			}
		}
		if got := rowNames(b.Get(s.Base + "/a/" + s.Slug + "/project/" + pid + "/?q=Caf%C3%A9%FF")); !slices.Equal(got, []string{"Café"}) {
			t.Errorf("a search with a stray byte: %q", got)
		}
		acct := "/a/" + s.Slug
		for _, bad := range []string{"a\xffb", "a\x00b"} {
			pg := b.Submit(s.Base, b.Get(s.Base+acct+"/project/"+pid+"/"), acct+"/project/"+pid+"/tasks", url.Values{"title": {bad}})
			if pg.Status != http.StatusBadRequest || !strings.Contains(pg.Body, "characters that are not text") {
				t.Errorf("a task titled %q: %d", bad, pg.Status)
			}
		}
		if got := rowNames(b.Get(s.Base + acct + "/project/" + pid + "/?status=all")); len(got) != 1 {
			t.Errorf("tasks after refused forms: %q", got)
		}
	})
}

// TestProjectEditPage: the project page renames a
// project and edits its description through the API's update_project
// path: the page shows the change with a notice, the update_project event
// holds the old and new values, a blank name is refused next to the form,
// and saving unchanged text writes no event. A guest on the team may edit
// (the API's rule: guests work on their projects); a reader on the team
// gets no form and is refused, and a guest outside the team finds no
// project.
func TestProjectEditPage(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		ctx := context.Background()
		const guest, outsider, reader = "guest@acme.example", "outsider@acme.example", "reader@acme.example"
		s.AddMember(s.Slug, guest, "Gus", "Guest", taskd.RoleGuest)
		s.AddMember(s.Slug, outsider, "Otto", "Outside", taskd.RoleGuest)
		s.AddMember(s.Slug, reader, "Rea", "Reader", taskd.RoleReader)
		acct, by := s.Owner()
		p, err := s.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Launch"), Text: new("The first plan"),
			Members: &[]string{guest, reader}})
		if err != nil {
			t.Fatal(err)
		}
		projectURL := s.AccountURL() + p.Page()
		action := "/a/" + s.Slug + p.Page() + "update"

		b := s.SignedIn(testsite.OwnerEmail)
		var pg testsite.Page

		if !t.Run("the project page offers an edit form filled with the project", func(t *testing.T) {
			b := b.In(t)
			pg = b.Get(projectURL)
			if !strings.Contains(pg.Body, `action="`+action+`"`) || !strings.Contains(pg.Body, `value="Launch"`) ||
				!strings.Contains(pg.Body, ">The first plan</textarea>") {
				t.Fatalf("the project page offers no edit form filled with the project:\n%s", pg.Body)
			}
		}) {
			return
		}

		if !t.Run("the form renames the project and edits its description, with a notice", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			// A browser sends a textarea's line breaks as CR LF.
			loc := b.Submit(s.Base, pg, action, url.Values{"title": {"Launch v2"}, "text": {"Ship <b>it</b>\r\nthen rest"}}).Location(t)
			if loc.Path != "/a/"+s.Slug+p.Page() {
				t.Fatalf("after saving: %v", loc)
			}
			pg = b.Get(projectURL)
			for _, want := range []string{"<title>Launch v2 · taskd</title>", "<h1>Launch v2</h1>", "Project saved.",
				`<p class="text">Ship &lt;b&gt;it&lt;/b&gt;` + "\nthen rest</p>"} {
				if !strings.Contains(pg.Body, want) {
					t.Fatalf("the project page after the edit lacks %q:\n%s", want, pg.Body)
				}
			}
		}) {
			return
		}

		if !t.Run("the API sees the change, and its update_project event holds the old and new values", func(t *testing.T) {
			s := s.In(t)
			if _, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_project&id_project="+strconv.FormatInt(p.ID, 10)); body["data"].(map[string]any)["name"] != "Launch v2" {
				t.Fatalf("get_project after the page's edit: %v", body)
			}
			updates := projectUpdates(t, s)
			if len(updates) != 1 {
				t.Fatalf("update_project events = %v, want one", updates)
			}
			ev := updates[0]
			newV, oldV := ev["new"].(map[string]any), ev["old"].(map[string]any)
			if newV["name"] != "Launch v2" || oldV["name"] != "Launch" || newV["text"] != "Ship <b>it</b>\nthen rest" || oldV["text"] != "The first plan" {
				t.Fatalf("update_project event: new %v, old %v", newV, oldV)
			}
			if ev["user_from"].(map[string]any)["email"] != testsite.OwnerEmail {
				t.Fatalf("update_project event is not the owner's: %v", ev)
			}
		}) {
			return
		}

		if !t.Run("a blank name is refused beside the form, which keeps what was typed", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			bad := b.Submit(s.Base, pg, action, url.Values{"title": {"   "}, "text": {"Typed text"}})
			if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, `<p class="error" role="alert">Name is required</p>`) ||
				!strings.Contains(bad.Body, ">Typed text</textarea>") || !strings.Contains(bad.Body, `id="edit" open`) {
				t.Fatalf("a blank name: HTTP %d\n%s", bad.Status, bad.Body)
			}
		}) {
			return
		}

		if !t.Run("saving the form as shown changes nothing and writes no event", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			b.Submit(s.Base, b.Get(projectURL), action, url.Values{"title": {"Launch v2"}, "text": {"Ship <b>it</b>\r\nthen rest"}}).Location(t)
			if n := len(projectUpdates(t, s)); n != 1 {
				t.Fatalf("an unchanged save or a refused one wrote events: %d update_project events", n)
			}
		}) {
			return
		}

		if !t.Run("a guest on the team may edit, as update_project allows", func(t *testing.T) {
			s := s.In(t)
			g := s.SignedIn(guest)
			g.Submit(s.Base, g.Get(projectURL), action, url.Values{"title": {"Launch v3"}, "text": {"By the guest"}}).Location(t)
			if !strings.Contains(g.Get(projectURL).Body, "<h1>Launch v3</h1>") {
				t.Fatal("the guest's edit did not show")
			}
		}) {
			return
		}

		if !t.Run("a reader on the team sees no form and is refused", func(t *testing.T) {
			s := s.In(t)
			r := s.SignedIn(reader)
			rp := r.Get(projectURL)
			if rp.Status != http.StatusOK || strings.Contains(rp.Body, action) {
				t.Fatalf("a reader's project page: HTTP %d, offers the edit form: %t", rp.Status, strings.Contains(rp.Body, action))
			}
			csrf := rp.Form(t, "", "").Get("csrf")
			if got := r.Post(s.Base+action, url.Values{"csrf": {csrf}, "title": {"By the reader"}, "text": {""}}); got.Status != http.StatusForbidden {
				t.Fatalf("a reader renaming the project: HTTP %d", got.Status)
			}
		}) {
			return
		}

		if !t.Run("a guest outside the team finds no such project", func(t *testing.T) {
			s := s.In(t)
			o := s.SignedIn(outsider)
			csrf := o.Get(s.AccountURL()+"/").Form(t, "", "").Get("csrf")
			if got := o.Post(s.Base+action, url.Values{"csrf": {csrf}, "title": {"By the outsider"}}); got.Status != http.StatusNotFound {
				t.Fatalf("a guest outside the team renaming the project: HTTP %d", got.Status)
			}
		}) {
			return
		}

		t.Run("the refused edits leave the guest's, with the owner's and the guest's events only", func(t *testing.T) {
			s := s.In(t)
			if got, err := s.Store.Project(ctx, taskd.AccountViewer(acct.ID), p.ID); err != nil || got.Name != "Launch v3" || got.Text != "By the guest" {
				t.Fatalf("the project after the refused edits: %+v %v", got, err)
			}
			if n := len(projectUpdates(t, s)); n != 2 {
				t.Fatalf("%d update_project events, want the owner's and the guest's", n)
			}
		})
	})
}

// projectUpdates returns the account's update_project events.
func projectUpdates(t *testing.T, s *testsite.Site) []map[string]any {
	t.Helper()
	_, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_events&period=1h")
	var out []map[string]any
	for _, e := range body["data"].([]any) {
		if ev := e.(map[string]any); ev["event"] == "update_project" {
			out = append(out, ev)
		}
	}
	return out
}

// TestDueCuesInTheViewersZone: the project page, My tasks and the board
// put a cue beside each open task's due date, counted from the viewer's
// today in their time zone: at 22:30 UTC a person in Tokyo is already on
// the next day.
func TestDueCuesInTheViewersZone(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 3, 10, 22, 30, 0, 0, time.UTC) // 2030-03-11 07:30 in Tokyo
	s := testsite.Open(t, testdb.New(t, "sqlite"), testsite.Options{Now: func() time.Time { return now }})
	acct := "/a/" + s.Slug
	pid := s.APIID("action=post_project&title=Dates")
	me := url.QueryEscape(testsite.OwnerEmail)
	for _, c := range []struct{ name, due string }{
		{"Late", "09.03.2030"}, {"Yesterday", "10.03.2030"}, {"Today", "11.03.2030"},
		{"Tomorrow", "12.03.2030"}, {"Soon", "16.03.2030"}, {"Far", "30.04.2030"},
	} {
		s.APIOK("action=post_task&id_project=" + pid + "&title=" + c.name + "&dateend=" + c.due + "&email_user_to=" + me)
	}
	done := s.APIID("action=post_task&id_project=" + pid + "&title=Finished&dateend=01.03.2030&email_user_to=" + me)
	s.APIOK("action=complete_task&id_task=" + done)
	s.APIOK("action=add_task_tag_groups&type=status&access=public&title=Stage")
	o := s.SignedIn(testsite.OwnerEmail)
	o.Submit(s.Base, o.Get(s.Base+"/profile"), "/profile", url.Values{"first_name": {"Olga"}, "last_name": {"Owner"},
		"time_zone": {"Asia/Tokyo"}}).Location(t)

	cue := regexp.MustCompile(`<span class="due-cue ?([a-z]*)">([^<]+)</span>`)
	want := []string{"overdue:overdue by 2 days", "overdue:overdue by 1 day", "soon:today", "soon:tomorrow", ":in 5 days"}
	for _, page := range []string{acct + "/project/" + pid + "/?status=all&sort=due", acct + "/my?status=all&sort=due"} {
		p := o.Get(s.Base + page)
		var got []string
		for _, m := range cue.FindAllStringSubmatch(p.Body, -1) {
			got = append(got, m[1]+":"+m[2])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: cues %q, want %q (Far has none, nor Finished)\n%s", page, got, want, p.Body)
		}
	}
	if board := o.Get(s.Base + acct + "/project/" + pid + "/board"); len(cue.FindAllString(board.Body, -1)) != 5 {
		t.Errorf("the board shows %d cues, want 5:\n%s", len(cue.FindAllString(board.Body, -1)), board.Body)
	}
}

// TestProjectsPageProgress: the projects page shows each project's
// manager, its tasks open and done with the share done, and the nearest
// due date of an open task with its cue, as the viewer sees the tasks: a
// task hidden from a member counts for them nowhere.
func TestProjectsPageProgress(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 3, 10, 9, 0, 0, 0, time.UTC)
	s := testsite.Open(t, testdb.New(t, "sqlite"), testsite.Options{Now: func() time.Time { return now }})
	acct := "/a/" + s.Slug
	pid := s.APIID("action=post_project&title=Launch&email_manager=" + url.QueryEscape(testsite.OwnerEmail) + "&members=" + url.QueryEscape(testsite.UserEmail))
	s.APIID("action=post_project&title=Empty")
	first := s.APIID("action=post_task&id_project=" + pid + "&title=One&dateend=20.03.2030")
	s.APIOK("action=post_task&id_project=" + pid + "&title=Two&dateend=12.03.2030&hidden=" + url.QueryEscape(testsite.OwnerEmail))
	s.APIOK("action=post_task&id_project=" + pid + "&title=Three")
	s.APIOK("action=complete_task&id_task=" + first)
	for _, c := range []struct{ who, want string }{
		{testsite.OwnerEmail, "2 open · 1 done · 33%</span>\n    <span>Next due 2030-03-12 <span class=\"due-cue \">in 2 days</span>"},
		{testsite.UserEmail, "1 open · 1 done · 50%</span>\n    </span>"},
	} {
		p := s.SignedIn(c.who).Get(s.Base + acct + "/")
		if !strings.Contains(p.Body, c.want) || !strings.Contains(p.Body, "Managed by Olga Owner") || !strings.Contains(p.Body, "No manager") ||
			!strings.Contains(p.Body, "No tasks yet") {
			t.Errorf("%s sees:\n%s", c.who, p.Body)
		}
	}
}
