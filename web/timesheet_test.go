package web_test

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"html"
	"math/big"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/wire"
)

// sheetGuest is on the team of Alpha only.
const sheetGuest = "guest@acme.example"

// sheet is a site with cost lines for the timesheet's tests: projects
// Alpha (the guest on its team, a task only the owner sees) and Beta;
// lines by the owner, a user and a member since removed, one by a timer,
// over the five weeks ending today; some texts start like spreadsheet
// formulas.
type sheet struct {
	s           *testsite.Site
	today       time.Time
	lines       []taskd.Cost
	names       map[int64]string // each person as the page names them
	projects    map[int64]string
	alpha, beta int64
	hidden      int64 // the task only the owner sees
	owner, user int64 // person ids
}

// newSheet logs the lines of a sheet on a fresh site.
func newSheet(t *testing.T, s *testsite.Site) *sheet {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	acct, err := s.Store.AccountBySlug(ctx, s.Slug)
	must(err)
	s.AddMember(s.Slug, sheetGuest, "Gus", "Guest", taskd.RoleGuest)
	s.AddMember(s.Slug, "tess@acme.example", "Tess", "Temp", taskd.RoleUser)
	as := func(email string) taskd.Actor {
		m, err := s.Store.MemberByEmail(ctx, acct.ID, email)
		must(err)
		return taskd.Actor{AccountID: acct.ID, Person: m.Ref(), Role: m.Role}
	}
	owner, user, tess := as(testsite.OwnerEmail), as(testsite.UserEmail), as("tess@acme.example")
	project := func(name string) int64 {
		p, err := s.Store.CreateProject(ctx, owner, taskd.ProjectInput{Name: new(name)})
		must(err)
		return p.ID
	}
	sh := &sheet{s: s, today: time.Now().UTC().Truncate(24 * time.Hour), alpha: project("Alpha"), beta: project("Beta"),
		owner: owner.Person.ID, user: user.Person.ID,
		names: map[int64]string{owner.Person.ID: "Olga Owner", user.Person.ID: "Uma User", tess.Person.ID: "tess@acme.example"}}
	sh.projects = map[int64]string{sh.alpha: "Alpha", sh.beta: "Beta"}
	_, err = s.Store.SetProjectMembers(ctx, owner, sh.alpha, []string{sheetGuest}, true)
	must(err)
	task := func(project, parent int64, name string, hidden ...string) int64 {
		tk, err := s.Store.CreateTask(ctx, owner, project, parent, taskd.TaskInput{Name: new(name), Hidden: hidden})
		must(err)
		return tk.ID
	}
	design, build, danger := task(sh.alpha, 0, "Design"), task(sh.beta, 0, "Build"), task(sh.beta, 0, "=danger()")
	sketch := task(sh.alpha, design, "Sketch")
	sh.hidden = task(sh.alpha, 0, "Secret", testsite.OwnerEmail)
	add := func(by taskd.Actor, taskID int64, ago int, minutes, cents int64, comment string) {
		t.Helper()
		c, err := s.Store.AddCost(ctx, by, taskID, taskd.CostInput{Minutes: &minutes, Cents: &cents, Comment: &comment, Date: new(sh.day(ago))})
		must(err)
		sh.lines = append(sh.lines, c)
	}
	for i := range 150 {
		by, tk := owner, design
		if i%3 == 0 {
			by = user
		}
		if i%2 == 1 {
			tk = build
		}
		add(by, tk, i%35, int64(5+i*37%240), int64(i*1234%50000), fmt.Sprintf("line %03d", i))
	}
	for _, formula := range []string{`=HYPERLINK("http://evil.example")`, "+1+1", "-2", "@SUM(A1)", "\tTabbed"} {
		add(owner, design, 1, 15, 0, formula)
	}
	add(user, danger, 2, 30, 100, "risky task")
	add(owner, sh.hidden, 3, 45, 0, "secret line")
	add(user, sketch, 4, 20, 0, "sketching")
	add(tess, build, 5, 60, 500, "tess one")
	add(tess, build, 12, 30, 0, "tess two")
	add(user, design, 48, 1, 0, "one minute") // a week whose bar is barely there
	_, _, err = s.Store.StartTimer(ctx, user, design, time.UTC)
	must(err)
	timed, err := s.Store.StopTimer(ctx, user, 0, "timed", time.UTC)
	must(err)
	sh.lines = append(sh.lines, timed)
	_, err = s.Store.RemoveMember(ctx, owner, tess.Person.ID)
	must(err)
	return sh
}

// day is the date ago days before today.
func (sh *sheet) day(ago int) string { return sh.today.AddDate(0, 0, -ago).Format(taskd.DateLayout) }

// seen lists the lines a viewer ("owner", "user" or "guest") sees that
// keep keeps: the task only the owner sees is left out for the others,
// and a guest sees Alpha's lines only.
func (sh *sheet) seen(viewer string, keep func(taskd.Cost) bool) []taskd.Cost {
	var out []taskd.Cost
	for _, c := range sh.lines {
		if (c.TaskID == sh.hidden && viewer != "owner") || (viewer == "guest" && c.ProjectID != sh.alpha) || !keep(c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// between keeps the lines from from to to days ago.
func (sh *sheet) between(from, to int) func(taskd.Cost) bool {
	return func(c taskd.Cost) bool { return c.Date >= sh.day(from) && c.Date <= sh.day(to) }
}

// sum is the time, money and number of lines of a group, as the page
// writes them.
type sum struct {
	minutes, cents int64
	lines          int
}

func (x sum) String() string {
	return wire.FormatCostTime(x.minutes) + "|" + wire.FormatMoney(x.cents) + "|" + strconv.Itoa(x.lines)
}

func (x *sum) add(c taskd.Cost) {
	x.minutes, x.cents, x.lines = x.minutes+c.Minutes, x.cents+c.Cents, x.lines+1
}

var (
	rowRE     = regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	cellRE    = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	tagRE     = regexp.MustCompile(`<[^>]+>`)
	csvLinkRE = regexp.MustCompile(`<a href="([^"]+)">Download CSV</a>`)
	barRE     = regexp.MustCompile(`<rect class="bar" x="\d+" y="\d+" width="\d+" height="(\d+)"/>`)
)

// tableRows are the texts of the cells of each body row of the table
// with the id, joined by "|".
func tableRows(p testsite.Page, id string) []string {
	i := strings.Index(p.Body, `id="`+id+`"`)
	if i < 0 {
		return nil
	}
	table := p.Body[i : i+strings.Index(p.Body[i:], "</table>")]
	table = table[strings.Index(table, "<tbody>"):]
	var out []string
	for _, row := range rowRE.FindAllStringSubmatch(table, -1) {
		var cells []string
		for _, c := range cellRE.FindAllStringSubmatch(row[1], -1) {
			cells = append(cells, strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(c[1], ""))))
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out
}

// checkTotals checks the page's total and its totals by person, project
// and week, and the chart's bars, against the lines it should hold,
// computed here from the lines as they were logged.
func (sh *sheet) checkTotals(t *testing.T, what string, p testsite.Page, want []taskd.Cost, from, to int) {
	t.Helper()
	if p.Status != 200 {
		t.Fatalf("%s: HTTP %d\n%s", what, p.Status, p.Body)
	}
	var total sum
	people, projects := map[string]*sum{}, map[string]*sum{}
	weeks := map[string]*sum{}
	for _, c := range want {
		total.add(c)
		for _, g := range []struct {
			m map[string]*sum
			k string
		}{{people, sh.names[c.Person.ID]}, {projects, sh.projects[c.ProjectID]}, {weeks, isoWeek(c.Date)}} {
			if g.m[g.k] == nil {
				g.m[g.k] = &sum{}
			}
			g.m[g.k].add(c)
		}
	}
	head := fmt.Sprintf("<strong>%s</strong> and <strong>%s USD</strong> in %d line", wire.FormatCostTime(total.minutes), wire.FormatMoney(total.cents), total.lines)
	if !strings.Contains(p.Body, head) || !strings.Contains(p.Body, sh.day(from)+" to "+sh.day(to)) {
		t.Errorf("%s: no total %q from %s to %s", what, head, sh.day(from), sh.day(to))
	}
	if len(want) == 0 {
		if !strings.Contains(p.Body, "No time logged in these dates. Log time on a task&#39;s page.") {
			t.Errorf("%s: no empty state", what)
		}
		return
	}
	for id, m := range map[string]map[string]*sum{"by-person": people, "by-project": projects} {
		var wantRows []string
		for k, x := range m {
			wantRows = append(wantRows, k+"|"+x.String())
		}
		if got := tableRows(p, id); !sameSet(got, wantRows) {
			t.Errorf("%s: %s is %q, want %q", what, id, got, wantRows)
		}
	}
	var wantWeeks []string
	var empty []bool
	for d := monday(sh.today.AddDate(0, 0, -from)); !d.After(sh.today.AddDate(0, 0, -to)); d = d.AddDate(0, 0, 7) {
		k := isoWeek(d.Format(taskd.DateLayout))
		x := weeks[k]
		if x == nil {
			x = &sum{}
		}
		wantWeeks = append(wantWeeks, k+"|"+d.Format(taskd.DateLayout)+" to "+d.AddDate(0, 0, 6).Format(taskd.DateLayout)+"|"+x.String())
		empty = append(empty, x.minutes == 0)
	}
	if got := tableRows(p, "by-week"); !slices.Equal(got, wantWeeks) {
		t.Errorf("%s: weeks are\n%q\nwant\n%q", what, got, wantWeeks)
	}
	bars := barRE.FindAllStringSubmatch(p.Body, -1)
	if len(bars) != len(wantWeeks) || !strings.Contains(p.Body, `role="img" aria-label="Hours per week from `) {
		t.Fatalf("%s: %d bars for %d weeks, or the chart has no name", what, len(bars), len(wantWeeks))
	}
	for i, b := range bars {
		if (b[1] == "0") != empty[i] {
			t.Errorf("%s: the bar of %s is %s high", what, wantWeeks[i], b[1])
		}
	}
}

// isoWeek names the ISO week of a date, "2026-W10".
func isoWeek(date string) string {
	d, _ := time.Parse(taskd.DateLayout, date)
	y, w := d.ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}

// monday is the Monday on or before d.
func monday(d time.Time) time.Time {
	for d.Weekday() != time.Monday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(s string) bool { return !slices.Contains(b, s) })
}

// TestTimesheet: totals by person, project and week agree with the lines
// logged, under each filter and for each role; the lines page 100 at a
// time, newest first, with links that keep the filters; the chart has a
// bar per week; and a hostile query shows the default timesheet.
func TestTimesheet(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		sh := newSheet(t, s)
		path := s.Base + "/a/" + s.Slug + "/timesheet"
		owner := s.SignedIn(testsite.OwnerEmail)
		span := fmt.Sprintf("from=%s&to=%s", sh.day(34), sh.day(0))
		id := func(n int64) string { return strconv.FormatInt(n, 10) }
		all := sh.between(34, 0) // the span: every line but the one of 48 days ago

		t.Run("the owner's totals agree with the lines under each filter, and so does the CSV link", func(t *testing.T) {
			owner := owner.In(t)
			for _, tc := range []struct {
				query    string
				from, to int
				keep     func(taskd.Cost) bool
			}{
				{span, 34, 0, all},
				{"", 27, 0, sh.between(27, 0)},
				{fmt.Sprintf("from=%s&to=%s", sh.day(6), sh.day(3)), 6, 3, sh.between(6, 3)},
				{span + "&person=" + id(sh.user), 34, 0, func(c taskd.Cost) bool { return all(c) && c.Person.ID == sh.user }},
				{span + "&project=" + id(sh.beta), 34, 0, func(c taskd.Cost) bool { return all(c) && c.ProjectID == sh.beta }},
				{fmt.Sprintf("from=%s&to=%s&person=%d&project=%d", sh.day(20), sh.day(2), sh.owner, sh.alpha), 20, 2,
					func(c taskd.Cost) bool {
						return sh.between(20, 2)(c) && c.Person.ID == sh.owner && c.ProjectID == sh.alpha
					}},
				{fmt.Sprintf("from=%s&to=%s", sh.day(60), sh.day(0)), 60, 0, sh.between(60, 0)},
				{"from=2001-01-01&to=2001-01-31", 0, 0, func(taskd.Cost) bool { return false }},
			} {
				pg := owner.Get(path + "?" + tc.query)
				if tc.query == "from=2001-01-01&to=2001-01-31" {
					if !strings.Contains(pg.Body, "No time logged in these dates.") || !strings.Contains(pg.Body, `timesheet.csv?from=2001-01-01&amp;to=2001-01-31">Download CSV`) {
						t.Errorf("empty range: no empty state or CSV link:\n%s", pg.Body)
					}
					continue
				}
				want := sh.seen("owner", tc.keep)
				sh.checkTotals(t, "owner "+tc.query, pg, want, tc.from, tc.to)
				link := csvLinkRE.FindStringSubmatch(pg.Body)
				if link == nil {
					t.Fatalf("owner %s: no CSV link", tc.query)
				}
				rows, err := csv.NewReader(strings.NewReader(owner.Get(s.Base + html.UnescapeString(link[1])).Body)).ReadAll()
				if err != nil || len(rows) != len(want)+1 {
					t.Errorf("owner %s: the CSV link has %d rows, want %d (%v)", tc.query, len(rows)-1, len(want), err)
				}
			}
		})

		t.Run("a former member is named by e-mail, and the chosen person shows in the form", func(t *testing.T) {
			owner := owner.In(t)
			if pg := owner.Get(path + "?" + span); !strings.Contains(pg.Body, `<th scope="row">tess@acme.example</th>`) {
				t.Errorf("a former member is named by e-mail, without a link to a timesheet of theirs")
			}
			if pg := owner.Get(path + "?" + span + "&person=" + id(sh.user)); !strings.Contains(pg.Body, `<option value="`+id(sh.user)+`" selected>Uma User</option>`) {
				t.Errorf("the person filter is not selected in the form")
			}
		})

		t.Run("the lines page 100 at a time, newest first, with links that keep the filters", func(t *testing.T) {
			owner := owner.In(t)
			want := sh.seen("owner", all)
			slices.SortFunc(want, func(a, b taskd.Cost) int {
				return strings.Compare(b.Date+fmt.Sprintf("%012d", b.ID), a.Date+fmt.Sprintf("%012d", a.ID))
			})
			first := owner.Get(path + "?" + span)
			next := regexp.MustCompile(`<a href="([^"]+)" rel="next">Next</a>`).FindStringSubmatch(first.Body)
			if next == nil || !strings.Contains(first.Body, "page 1 of 2") {
				t.Fatalf("no next page:\n%s", first.Body)
			}
			u, _ := url.Parse(html.UnescapeString(next[1]))
			if q := u.Query(); q.Get("from") != sh.day(34) || q.Get("to") != sh.day(0) || q.Get("page") != "2" {
				t.Errorf("the next page's link drops the filters: %s", u)
			}
			second := owner.Get(s.Base + u.String())
			got := append(tableRows(first, "cost-lines"), tableRows(second, "cost-lines")...)
			if len(tableRows(first, "cost-lines")) != 100 || len(got) != len(want) || !strings.Contains(second.Body, `rel="prev">Previous`) {
				t.Fatalf("pages hold %d+%d lines, want 100+%d", 100, len(got)-100, len(want)-100)
			}
			for i, c := range want {
				who, project := sh.names[c.Person.ID], sh.projects[c.ProjectID]
				if !strings.HasPrefix(got[i], c.Date+"|"+who+"|"+project+"|"+c.Task.Name+"|"+strings.TrimSpace(c.Comment)+"|"+wire.FormatCostTime(c.Minutes)) ||
					strings.Contains(got[i], "timer") != c.IsTimer || !strings.HasSuffix(got[i], "|"+wire.FormatMoney(c.Cents)) {
					t.Fatalf("line %d is %q, want %+v", i, got[i], c)
				}
			}
			if link := `<a href="/a/` + s.Slug + want[0].Task.Page() + `">`; !strings.Contains(first.Body+second.Body, link) {
				t.Errorf("no task link %s", link)
			}
		})

		t.Run("a user does not see the task hidden from them, and a guest sees Alpha's lines only and may not choose Beta", func(t *testing.T) {
			s := s.In(t)
			user := s.SignedIn(testsite.UserEmail)
			sh.checkTotals(t, "user", user.Get(path+"?"+span), sh.seen("user", all), 34, 0)
			guest := s.SignedIn(sheetGuest)
			for _, q := range []string{span, span + "&project=" + id(sh.beta)} {
				pg := guest.Get(path + "?" + q)
				sh.checkTotals(t, "guest "+q, pg, sh.seen("guest", all), 34, 0)
				if strings.Contains(pg.Body, ">Beta<") || strings.Contains(pg.Body, "secret line") {
					t.Errorf("guest %s: sees Beta or a hidden line", q)
				}
			}
		})

		t.Run("hostile queries answer 200 with the default timesheet", func(t *testing.T) {
			owner := owner.In(t)
			for _, q := range []string{"from=garbage&person=-1&project=abc&page=99999", "from=2026-02-30&to=%00&person=99999999999&project=1e3&page=-3",
				"to=" + strings.Repeat("9", 400) + "&person=0&project=%27%20OR%201=1--"} {
				pg := owner.Get(path + "?" + q)
				sh.checkTotals(t, q, pg, sh.seen("owner", sh.between(27, 0)), 27, 0)
				if strings.Contains(pg.Body, " selected>") || !strings.Contains(pg.Body, `name="from" value="`+sh.day(27)+`"`) {
					t.Errorf("%s: the form does not show the defaults", q)
				}
			}
			if pg := owner.Get(path + "?from=garbage&page=99999"); !strings.Contains(pg.Body, "page 2 of 2") || strings.Contains(pg.Body, `rel="next"`) {
				t.Errorf("a page past the end shows the last one")
			}
			swapped := owner.Get(fmt.Sprintf("%s?from=%s&to=%s", path, sh.day(0), sh.day(34)))
			sh.checkTotals(t, "swapped dates", swapped, sh.seen("owner", all), 34, 0)
			if wide := owner.Get(path + "?from=1900-01-01&to=2999-12-31"); wide.Status != 200 || len(barRE.FindAllString(wide.Body, -1)) > 106 ||
				!strings.Contains(wide.Body, "at most two years") {
				t.Errorf("a range of centuries: HTTP %d, %d bars", wide.Status, len(barRE.FindAllString(wide.Body, -1)))
			}
		})
	})
}

// TestTimesheetCSV: the CSV holds every line of the filter, oldest first,
// with exact decimal hours, cells that could run as formulas defused, and
// a file name of the dates; a guest's holds their projects' lines only.
func TestTimesheetCSV(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		sh := newSheet(t, s)
		for _, tc := range []struct {
			who, email, query string
			keep              func(taskd.Cost) bool
		}{
			{"owner", testsite.OwnerEmail, "from=" + sh.day(34) + "&to=" + sh.day(0), sh.between(34, 0)},
			{"owner", testsite.OwnerEmail, fmt.Sprintf("from=%s&to=%s&person=%d", sh.day(13), sh.day(1), sh.user),
				func(c taskd.Cost) bool { return sh.between(13, 1)(c) && c.Person.ID == sh.user }},
			{"guest", sheetGuest, "from=" + sh.day(34) + "&to=" + sh.day(0) + "&project=" + strconv.FormatInt(sh.beta, 10), sh.between(34, 0)},
			{"owner", testsite.OwnerEmail, "from=2001-01-01&to=2001-01-31", func(taskd.Cost) bool { return false }},
		} {
			res := s.SignedIn(tc.email).Get(s.Base + "/a/" + s.Slug + "/timesheet.csv?" + tc.query)
			q, _ := url.ParseQuery(tc.query)
			disposition := `attachment; filename="timesheet-` + q.Get("from") + "-" + q.Get("to") + `.csv"`
			if res.Status != 200 || res.Header.Get("Content-Type") != "text/csv; charset=utf-8" || res.Header.Get("Content-Disposition") != disposition {
				t.Fatalf("%s: HTTP %d, %q, %q", tc.query, res.Status, res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"))
			}
			rows, err := csv.NewReader(strings.NewReader(res.Body)).ReadAll()
			if err != nil || len(rows) == 0 || strings.Join(rows[0], ",") != "date,person,email,project,task,comment,hours,time,money,timer" {
				t.Fatalf("%s: header %v, %v", tc.query, rows, err)
			}
			want := sh.seen(tc.who, tc.keep)
			slices.SortFunc(want, func(a, b taskd.Cost) int {
				return strings.Compare(a.Date+fmt.Sprintf("%012d", a.ID), b.Date+fmt.Sprintf("%012d", b.ID))
			})
			if len(rows)-1 != len(want) {
				t.Fatalf("%s: %d rows, want %d", tc.query, len(rows)-1, len(want))
			}
			for i, c := range want {
				timer := map[bool]string{true: "yes", false: "no"}[c.IsTimer]
				wantRow := []string{c.Date, sh.names[c.Person.ID], c.Person.Email, sh.projects[c.ProjectID], defused(c.Task.Name), defused(c.Comment),
					big.NewRat(c.Minutes, 60).FloatString(2), wire.FormatCostTime(c.Minutes), wire.FormatMoney(c.Cents), timer}
				if !slices.Equal(rows[i+1], wantRow) {
					t.Fatalf("%s: row %d is %q, want %q", tc.query, i+1, rows[i+1], wantRow)
				}
			}
		}
		csvText := s.SignedIn(testsite.OwnerEmail).Get(s.Base + "/a/" + s.Slug + "/timesheet.csv?from=" + sh.day(34) + "&to=" + sh.day(0)).Body
		for _, cell := range []string{`"'=HYPERLINK(""http://evil.example"")"`, ",'+1+1,", ",'-2,", ",'@SUM(A1),", ",'\tTabbed,", ",'=danger(),"} {
			if !strings.Contains(csvText, cell) {
				t.Errorf("no defused cell %q in the CSV", cell)
			}
		}
	})
}

// defused is a cell as a spreadsheet must read it: text, never a formula.
func defused(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// TestTimesheetInBrowser, in Chromium: the timesheet with long names and
// a hundred lines has labelled controls and fits a phone's screen
// (390 px), its wide tables scrolling in their cards.
func TestTimesheetInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	sh := newSheet(t, testsite.New(t))
	s := sh.s
	c := newChrome(t)
	c.signIn(s.Base, testsite.OwnerEmail)
	c.run(chromedp.Navigate(fmt.Sprintf("%s/a/%s/timesheet?from=%s&to=%s", s.Base, s.Slug, sh.day(60), sh.day(0))),
		chromedp.WaitVisible(chromedp.CSS("main svg")))
	c.see("timesheet", "Timesheet", "Hours per week", "By person", "tess@acme.example", "Download CSV", "page 1 of 2")
	c.run(chromedp.Navigate(s.Base+"/a/"+s.Slug+"/timesheet?from=2001-01-01&to=2001-01-31"), chromedp.WaitVisible(chromedp.CSS("main")))
	c.see("timesheet-empty", "No time logged in these dates. Log time on a task's page.", "Download CSV")
}

// TestTimesheetCSVTooLong: a CSV of more than taskd.MaxCostLines lines is
// refused with a plain 400 that asks for fewer dates; narrower dates work.
func TestTimesheetCSVTooLong(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	if testing.Short() {
		t.Skip("logs ten thousand lines")
	}
	s := testsite.New(t)
	ctx := context.Background()
	_, owner := s.Owner()
	p, err := s.Store.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Big")})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := s.Store.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Long job")})
	if err != nil {
		t.Fatal(err)
	}
	for _, date := range []string{"2024-01-02", "2024-01-01"} {
		if _, err := s.Store.AddCost(ctx, owner, tk.ID, taskd.CostInput{Minutes: new(int64(1)), Date: &date}); err != nil {
			t.Fatal(err)
		}
	}
	// The other lines of 2024-01-01 as copies of the one logged, in one
	// statement: logged one by one they took a minute and more of CI.
	raw, err := sql.Open("sqlite", filepath.Join(s.DB.Dir, "taskd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?)
		INSERT INTO costs (account_id, project_id, task_id, top_task_id, person_id, minutes, cents, comment, day, is_timer, created_at)
		SELECT x.account_id, x.project_id, x.task_id, x.top_task_id, x.person_id, x.minutes, x.cents, x.comment, x.day, x.is_timer, x.created_at
		FROM costs x, c WHERE x.task_id = ? AND x.day = '2024-01-01'`, taskd.MaxCostLines-1, tk.ID); err != nil {
		t.Fatal(err)
	}
	b := s.SignedIn(testsite.OwnerEmail)
	csvURL := s.Base + "/a/" + s.Slug + "/timesheet.csv?from=2024-01-01&to=2024-01-02"
	if res := b.Get(csvURL); res.Status != 400 || !strings.Contains(res.Body, "Narrow the dates") || strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("too many lines: HTTP %d %q\n%s", res.Status, res.Header.Get("Content-Type"), res.Body)
	}
	if res := b.Get(strings.Replace(csvURL, "from=2024-01-01", "from=2024-01-02", 1)); res.Status != 200 || strings.Count(res.Body, "\n") != 2 {
		t.Fatalf("one day of them: HTTP %d\n%.300s", res.Status, res.Body)
	}
}
