package web_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// axeSource returns axe-core, fetched by scripts/axe.sh. Outside CI a
// machine without it skips the audit, loudly (scripts/test.sh fetches it);
// in CI that is a failure.
func axeSource(t *testing.T) string {
	t.Helper()
	path := os.Getenv("TASKD_AXE")
	if path == "" {
		found, _ := filepath.Glob("../.cache/axe-core-*/axe.min.js")
		if len(found) > 0 {
			path = found[len(found)-1]
		}
	}
	b, err := os.ReadFile(path)
	if err != nil || path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("axe-core is not fetched (scripts/test.sh runs scripts/axe.sh)")
		}
		t.Skip("axe-core is not fetched: run scripts/axe.sh")
	}
	return string(b)
}

// auditJS runs axe-core on the page for WCAG 2.0, 2.1 and 2.2 A and AA
// (2.2 AA adds the 24×24 px target size) and lists each violation with
// the first elements it concerns.
const auditJS = `axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}, resultTypes: ['violations']})
	.then(r => r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.help + ' — ' +
		v.nodes.slice(0, 3).map(n => n.target.join(' ') + (n.failureSummary ? ' [' + n.failureSummary.replace(/\s+/g, ' ').slice(0, 160) + ']' : '')).join('; ')))`

// layoutJS lists what a person would trip over on the page as shown: a
// page wider than the screen, a control outside it, two controls that
// overlap, a heading that repeats the page's title, and every menu that
// opens past the screen's edge (each menu is opened in turn), and on a
// desktop, a table clipped in its sideways-scrolling box.
const layoutJS = `(() => {
	const vw = window.innerWidth, out = [];
	const desc = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '') + ' "' + (e.textContent || e.value || '').trim().slice(0, 30) + '"';
	const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && e.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true}) && !e.closest('.inline-label, .skip'); };
	// Behind an open modal dialog nothing can be reached: only its controls count.
	const modal = document.querySelector('dialog:modal');
	const controls = within => Array.from(within.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary')).filter(shown).filter(e => !modal || modal.contains(e));
	if (document.documentElement.scrollWidth > vw + 1) out.push('the page is wider than the screen: ' + document.documentElement.scrollWidth + ' px');
	const check = (where, within) => {
		const cs = controls(within);
		for (const e of cs) {
			const r = e.getBoundingClientRect();
			if (e.closest('.scroll')) continue; // inside a box that scrolls sideways on purpose
			if (r.right > vw + 1 || r.left < -1) out.push(where + 'outside the screen (' + Math.round(r.left) + '…' + Math.round(r.right) + '): ' + desc(e));
		}
		for (let i = 0; i < cs.length; i++) for (let j = i + 1; j < cs.length; j++) {
			const a = cs[i], b = cs[j];
			if (a.contains(b) || b.contains(a) || (a.labels && Array.from(a.labels).some(l => l.contains(b))) || (b.labels && Array.from(b.labels).some(l => l.contains(a)))) continue;
			const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
			const w = Math.min(p.right, q.right) - Math.max(p.left, q.left), h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
			if (w > 2 && h > 2) out.push(where + 'overlapping: ' + desc(a) + ' and ' + desc(b));
		}
	};
	check('', document);
	// A box that scrolls sideways is for a phone: on a desktop its table
	// gets the width it needs.
	if (vw >= 1200) for (const b of document.querySelectorAll('.scroll')) if (b.scrollWidth > b.clientWidth + 1) out.push('a table is clipped at desktop width (' + b.scrollWidth + ' px in ' + b.clientWidth + '): ' + desc(b));
	const h1 = document.querySelector('h1');
	for (const h of document.querySelectorAll('h2')) if (h1 && h.textContent.trim() === h1.textContent.trim()) out.push('a heading repeats the page title: "' + h1.textContent.trim() + '"');
	// A menu opens over the page: its own controls must fit the screen and
	// not overlap each other.
	for (const d of document.querySelectorAll('details.menu')) {
		const was = d.open; d.open = true;
		const list = d.querySelector('.menu-list'), name = d.querySelector('summary').textContent.trim().slice(0, 30);
		if (list) {
			const r = list.getBoundingClientRect();
			if (r.left < -1 || r.right > vw + 1) out.push('menu "' + name + '" opens outside the screen (' + Math.round(r.left) + '…' + Math.round(r.right) + ')');
			check('in the open menu "' + name + '": ', list);
		}
		d.open = was;
	}
	return Array.from(new Set(out)).slice(0, 20);
})()`

// auditPage loads url and checks it at a desktop and a phone width, in the
// light and the dark scheme, saving a screenshot of each.
func (c *chrome) auditPage(name, url, axe string) {
	c.t.Helper()
	c.auditState(name, url, axe, "")
}

// auditState is auditPage for a state of the page: setup, a script run
// once the page has loaded, puts the page in it (a fold open, a dialog
// shown).
func (c *chrome) auditState(name, url, axe, setup string) {
	c.t.Helper()
	for _, v := range []struct {
		label         string
		width, height int64
		dark, axe     bool
	}{
		{"desktop", 1280, 900, false, true},
		{"phone", 390, 844, false, false},
		{"phone-dark", 390, 844, true, true},
	} {
		scheme := "light"
		if v.dark {
			scheme = "dark"
		}
		if _, err := chromedp.Call(c.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			c.t.Fatal(err)
		}
		c.run(chromedp.EmulateViewport(v.width, v.height), chromedp.Navigate(url), chromedp.WaitReady("body"))
		if setup != "" {
			c.waitFor(name, `true`) // the page and its deferred scripts loaded
			c.run(chromedp.Evaluate[chromedp.Void](setup))
		}
		c.shot(name + "-" + v.label)
		c.componentShots(name, v.label)
		where := name + " (" + v.label + ")"
		problems, err := chromedp.Run(c.ctx, chromedp.Evaluate[[]string](layoutJS))
		if err != nil {
			c.t.Fatalf("%s: %v", where, err)
		}
		if v.axe {
			found, err := chromedp.Run(c.ctx, chromedp.Evaluate[[]string](axe+";"+auditJS, chromedp.EvalAwaitPromise))
			if err != nil {
				c.t.Fatalf("%s: axe: %v", where, err)
			}
			problems = append(problems, found...)
		}
		for _, p := range problems {
			c.t.Errorf("%s: %s", where, p)
		}
	}
	c.run(chromedp.EmulateViewport(1100, 900)) // the window's size
	chromedp.Call(c.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
}

// uiComponents are the components docs/ui.md shows: the page and width
// each is taken from, and its selector.
var uiComponents = []struct{ file, page, variant, selector string }{
	{"header-desktop", "project-1", "desktop", "header.top"},
	{"header-phone", "project-1", "phone", "header.top"},
	{"task-rows", "project-1", "desktop", "ul.tasks"},
	{"task-rows-phone-dark", "project-1", "phone-dark", "ul.tasks"},
	{"add-task", "project-1", "desktop", "form.add-task"},
	{"task-actions", "project-1-1", "desktop", "#main > .card"},
	{"empty-state", "project-1-1-2", "desktop", "p.card.empty"},
	{"delivery-log", "settings-webhooks-1", "desktop", ".card.scroll"},
	{"settings-index", "settings", "phone-dark", "main"},
	{"board-column", "project-1-board", "desktop", ".board .column"},
	{"people-rows", "people", "desktop", "ul.people"},
	{"people-rows-phone", "people", "phone", "ul.people"},
	{"tag-group", "tags", "desktop", "section.card"},
	{"invite-form", "people", "phone-dark", "form.card"},
	{"calendar-month", "project-1-calendar", "desktop", "table.calendar"},
	{"activity-list", "project-1-activity", "phone-dark", "ol.activity"},
	{"timeline", "project-1-timeline", "desktop", "#timeline"},
	{"timeline-phone-dark", "project-1-timeline", "phone-dark", "#timeline"},
	{"timeline-dependencies", "project-timeline-shift-offer", "desktop", "#timeline"},
	{"quick-add", "project-1", "desktop", "form.quickadd"},
	{"quick-edit", "project-quick-edit-open", "desktop", ".quick.open"},
	{"quick-edit-phone-dark", "project-quick-edit-open", "phone-dark", ".quick.open"},
	{"shortcuts-help", "my-shortcuts-help", "desktop", "#shortcuts"},
	{"live-notice", "live-notice", "desktop", ".live-notice"},
}

// componentShots saves the components of uiComponents found on this page
// and variant into $TASKD_UI_SHOTS (docs/ui when refreshing the docs).
func (c *chrome) componentShots(page, variant string) {
	dir := os.Getenv("TASKD_UI_SHOTS")
	if dir == "" {
		return
	}
	for _, u := range uiComponents {
		if u.page != page || u.variant != variant {
			continue
		}
		// A selector the page lacks would make Screenshot wait until the
		// test's time runs out.
		if there, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](fmt.Sprintf(`!!document.querySelector(%q)`, u.selector))); err != nil || !there {
			c.t.Errorf("component %s: no %s on %s (%s) (%v)", u.file, u.selector, page, variant, err)
			continue
		}
		buf, err := chromedp.Run(c.ctx, chromedp.Screenshot(chromedp.CSS(u.selector), chromedp.NodeVisible))
		if err != nil {
			c.t.Errorf("component %s: %v", u.file, err)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, u.file+".png"), buf, 0o644); err != nil {
			c.t.Error(err)
		}
	}
}

// TestBrowserAudit opens every page of the site, with data in it, at a
// desktop and a phone width and in the dark scheme, and fails on any
// WCAG 2.x A/AA violation axe-core finds (contrast, names, target sizes),
// a page wider than the screen, a control or an open menu outside it, or
// two controls that overlap. The screenshots are the pages' record.
func TestBrowserAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	axe := axeSource(t)
	s := testsite.New(t)
	ids := auditData(t, s)
	pages := pagesOf(t, s)
	// About 30 pages, each three times with axe-core: under a loaded CI
	// machine that takes several times the half minute it takes alone.
	c := newChromeWithin(t, 8*time.Minute)
	c.auditPage("sign-in", s.Base+"/login", axe)
	c.signIn(s.Base, testsite.OwnerEmail)
	var seen []string
	for _, pattern := range pages.Patterns() {
		path, ok := strings.CutPrefix(pattern, "GET ")
		if !ok || skipAudit(path) {
			continue
		}
		path = strings.ReplaceAll(strings.ReplaceAll(path, "{slug}", s.Slug), "{$}", "")
		if strings.Contains(path, "{parent}") { // a subtask's page
			path = strings.ReplaceAll(path, "{task}", ids["{sub}"])
		}
		for k, v := range ids {
			path = strings.ReplaceAll(path, k, v)
		}
		if strings.Contains(path, "{") || slices.Contains(seen, path) {
			t.Logf("not audited: %s", pattern)
			continue
		}
		seen = append(seen, path)
		c.auditPage(auditName(s.Slug, path), s.Base+path, axe)
	}
	c.auditPage("not-found", s.Base+"/a/"+s.Slug+"/project/999999/", axe)
	// The task page offering to shift its dependents after its dates moved
	// (issue 35).
	c.auditPage("task-shift-offer", s.Base+"/a/"+s.Slug+"/project/"+ids["{project}"]+"/"+ids["{task}"]+"/?shift=2", axe)
	// The calendar's week (issue 35), and the profile with the calendar
	// feed's address shown once.
	c.auditPage("my-calendar-week", s.Base+"/a/"+s.Slug+"/my/calendar?view=week", axe)
	// The timeline's other scales and grouping, and a task's dates form.
	timeline := s.Base + "/a/" + s.Slug + "/project/" + ids["{project}"] + "/timeline"
	c.auditPage("project-timeline-days", timeline+"?scale=day", axe)
	c.auditPage("project-timeline-months-by-assignee", timeline+"?scale=month&group=assignee", axe)
	c.auditPage("project-timeline-dates-form", timeline+"?edit="+ids["{bar}"]+"#tl-edit", axe)
	// With its arrows drawn (the script runs once the page has loaded).
	c.auditState("project-timeline-shift-offer", timeline+"?offer="+ids["{bar}"]+"&shift=2#tl-shift", axe, "0")

	// Quick editing's states (issue 35): a row's and a card's quick edit
	// open (the shared form the script copies under the row), the task
	// page's fold open, and the keyboard shortcuts' help shown. A task's
	// quick page, the same form without the script, is a route above.
	project := s.Base + "/a/" + s.Slug + "/project/" + ids["{project}"] + "/"
	c.auditState("project-quick-edit-open", project, axe, `document.querySelector('ul.tasks li.task .quick > a.quick-open').click()`)
	c.auditState("board-quick-edit-open", project+"board", axe, `document.querySelector('.board .cardlet .quick > a.quick-open').click()`)
	c.auditState("task-quick-edit-open", project+ids["{task}"]+"/", axe, `document.querySelector('#main > .card details.quick').open = true`)
	c.auditState("my-shortcuts-help", s.Base+"/a/"+s.Slug+"/my", axe, `document.getElementById('shortcuts').showModal()`)

	// The pages an application's authorization request leads to: the
	// account choice, then the consent.
	c.auditPage("oauth-choose-account", s.AuthorizeURL(), axe)
	c.run(chromedp.Navigate(s.AuthorizeURL()), chromedp.WaitVisible(chromedp.CSS(`form[action="/oauth2/authorize"] button`)),
		chromedp.Click(chromedp.CSS(`form[action="/oauth2/authorize"] button`)), chromedp.WaitVisible(chromedp.CSS(`button[value=allow]`)))
	c.auditPage("oauth-consent", c.location(), axe)

	// The pages people reach from an e-mail's one-time link, and the
	// request for one.
	c.auditPage("join", s.Base+s.LinkIn(t, s.MailTo(t, "nadia@acme.example")), axe)
	c.auditPage("reset-request", s.Base+"/reset", axe)
	b := s.Browser()
	b.Submit(s.Base, b.Get(s.Base+"/reset"), "/reset", url.Values{"email": {testsite.UserEmail}})
	c.auditPage("reset-password", s.Base+s.LinkIn(t, s.MailTo(t, testsite.UserEmail)), axe)
	c.expectErrors() // the 404 page logs its failed load
	if len(seen) < 20 {
		t.Fatalf("only %d pages audited: %v", len(seen), seen)
	}
	t.Logf("%d pages audited", len(seen))
}

// skipAudit leaves out what is not a page: files, downloads, redirects,
// the OAuth endpoints and the pages that need a one-time link.
func skipAudit(path string) bool {
	for _, p := range []string{"/static/", "/download/", ".csv", "/oauth2/", "/logout", "/join", "/reset", "/confirm-email", "/notifications/off", "/invitations/", "/dev/mail/", "/ical/", "/live"} {
		if strings.Contains(path, p) {
			return true
		}
	}
	return false
}

// auditName makes a screenshot's name of a path.
func auditName(slug, path string) string {
	name := strings.Trim(strings.NewReplacer("/a/"+slug, "", "/", "-").Replace(path), "-")
	if name == "" {
		return "home"
	}
	return name
}

// auditData fills the site's account with one of everything a page shows,
// through the API, and returns the ids the page patterns name.
func auditData(t *testing.T, s *testsite.Site) map[string]string {
	t.Helper()
	recv := testsite.OKReceiver(t)
	q := s.APIOK
	id := func(b map[string]any) string {
		if d, ok := b["data"].(map[string]any); ok {
			return fmt.Sprint(d["id"])
		}
		if v, ok := b["id"].(float64); ok {
			return strconv.Itoa(int(v))
		}
		return fmt.Sprint(b["id"])
	}
	pid := id(q("action=post_project&title=Website+launch&text=Ship+the+new+site&max_time=40"))
	tid := id(q("action=post_task&id_project=" + pid + "&title=Design+the+landing+page&priority=7&email_user_to=" + url.QueryEscape(testsite.UserEmail) + "&dateend=31.12.2030"))
	sub := id(q("action=post_task&id_project=" + pid + "&id_parent=" + tid + "&title=Wireframes"))
	copyID := id(q("action=post_task&id_project=" + pid + "&title=Write+the+copy"))
	// A task with a start and a due date, a bar on the timelines.
	bar := id(q("action=post_task&id_project=" + pid + "&title=Plan+the+launch&email_user_to=" + url.QueryEscape(testsite.OwnerEmail) +
		"&datestart=" + time.Now().UTC().AddDate(0, 0, -3).Format("02.01.2006") + "&dateend=" + time.Now().UTC().AddDate(0, 0, 6).Format("02.01.2006")))
	// Due dates with cues in each colour: overdue, today, in a few days.
	var dueIDs []string
	for i, days := range []int{-2, 0, 4} {
		due := time.Now().UTC().AddDate(0, 0, days).Format("02.01.2006")
		dueIDs = append(dueIDs, id(q("action=post_task&id_project="+pid+"&title=Due+"+strconv.Itoa(i)+"&dateend="+due+"&email_user_to="+url.QueryEscape(testsite.OwnerEmail))))
	}
	// Relations (issue 35): the task is blocked by one task and blocks two,
	// one of them dated, so that its page lists both sides and can offer
	// to shift its dependents (auditRelations).
	q("action=add_task_relation&id_task_from=" + copyID + "&id_task_to=" + tid)
	q("action=add_task_relation&id_task_from=" + tid + "&id_task_to=" + dueIDs[2] + "&type=start-to-start")
	q("action=add_task_relation&id_task_from=" + tid + "&id_task_to=" + dueIDs[1])
	// And the bar waits for nothing but makes the task due in a few days
	// wait: an arrow on the timelines.
	q("action=add_task_relation&id_task_from=" + bar + "&id_task_to=" + dueIDs[2])
	cid := id(q("action=post_comment&id_task=" + tid + "&text=First+draft+is+in+the+shared+folder."))
	costID := id(q("action=add_costs&id_task=" + tid + "&time=1:30&comment=Wireframes&email_user_from=" + url.QueryEscape(testsite.OwnerEmail)))
	wid := id(q("action=add_webhook&url=" + url.QueryEscape(recv.URL+"/") + "&events=post_task"))
	q("action=enable_webhook&id=" + wid)
	q("action=post_task&id_project=" + pid + "&title=After+the+webhook")
	fileID := theirFile(t, s, tid)
	q("action=add_user_group&title=Design")
	q("action=add_user&email=" + url.QueryEscape("nadia@acme.example") + "&first_name=Nadia&last_name=Novak&title=Designer&group=Design")
	q("action=add_contact&email=" + url.QueryEscape("petra@supplier.example") + "&name=Petra+Ivanova&title=Account+manager&phone=%2B380+44+123+4567&group=Suppliers")
	q("action=add_contact&email=" + url.QueryEscape("max@example.org") + "&name=Max+Mustermann")
	q("action=add_task_tag_groups&type=status&access=public&title=Stage")
	q("action=add_task_tags&group=Stage&title=To+do,Doing,Review")
	q("action=add_project_tag_groups&type=label&access=public&title=Kind")
	q("action=add_project_tags&group=Kind&title=Internal,Client+work")
	s.CreateClient(s.Slug, "Reporting app", "https://app.example/cb")
	// Custom fields, with values on the task and the project, so that the
	// fields page, the edit forms' inputs and the list's labels are seen.
	_, owner := s.Owner()
	for _, f := range []taskd.CustomField{
		{Of: taskd.ObjectTask, Name: "Phase", Type: taskd.CustomList, Descr: "Where the work is", Options: []string{"Draft", "Final"}},
		{Of: taskd.ObjectTask, Name: "Hours", Type: taskd.CustomNumber},
		{Of: taskd.ObjectTask, Name: "Review by", Type: taskd.CustomDate},
		{Of: taskd.ObjectProject, Name: "Client code", Type: taskd.CustomText},
	} {
		made, err := s.Store.AddCustomField(t.Context(), owner, f)
		if err != nil {
			t.Fatal(err)
		}
		value := map[string]string{taskd.CustomList: "Draft", taskd.CustomNumber: "2.5", taskd.CustomDate: "2030-12-01", taskd.CustomText: "ACME-7"}[f.Type]
		param := url.QueryEscape(taskd.FieldParam(made.ID)) + "=" + url.QueryEscape(value)
		if f.Of == taskd.ObjectTask {
			q("action=update_task&id_task=" + tid + "&" + param)
		} else {
			q("action=update_project&id_project=" + pid + "&" + param)
		}
	}
	// Uma works short Fridays and has a day off next week (a schedule's
	// page shows the dates set apart).
	off := time.Now().AddDate(0, 0, 8).Format("2006-01-02")
	q("action=update_users_schedule&data=" + url.QueryEscape(`{"`+testsite.UserEmail+`":{"fri":4.5,"`+off+`":0}}`))
	q("action=update_project&id_project=" + pid + "&options.time_require=1")
	return map[string]string{"{project}": pid, "{task}": tid, "{parent}": tid, "{sub}": sub, "{comment}": cid, "{webhook}": wid,
		"{cost}": costID, "{file}": fileID, "{person}": strconv.FormatInt(mustPerson(t, s, testsite.UserEmail), 10), "{team}": teamID(t, s, "Design"), "{bar}": bar}
}
