package web_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestBrowserViewsWithoutJavaScript: with JavaScript off, the calendar
// (month and week) reads and moves a task's due date with its form, the
// activity feeds of a project and a person read, a task's quick-edit page
// saves with its button, and a list's one-line add adds a task with its
// shortcuts. Each change is read back from the store.
func TestBrowserViewsWithoutJavaScript(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	testsite.One(t, testBrowserViewsWithoutJavaScript)
}

func testBrowserViewsWithoutJavaScript(t *testing.T, s *testsite.Site) {
	cs := newCalSite(t, s)
	ctx := context.Background()
	id := strconv.FormatInt(cs.write, 10)
	task := func(id int64) taskd.Task {
		t.Helper()
		tk, err := s.Store.Task(ctx, taskd.AccountViewer(cs.acct.ID), id)
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	c := newChrome(t)
	c.noScript()
	c.signIn(s.Base, testsite.OwnerEmail)
	acct := s.Base + "/a/" + s.Slug
	project := acct + "/project/" + strconv.FormatInt(cs.project, 10)

	// The calendar: the month reads, the week's form moves a due date.
	c.run(chromedp.Navigate(project+"/calendar"), chromedp.WaitVisible(chromedp.CSS("table")))
	c.see("calendar-month-no-js", "Write copy, v2; final", "Old thing", time.Now().UTC().Format("January 2006"))
	other := time.Now().UTC().AddDate(0, 0, 1)
	if other.Weekday() == time.Monday {
		other = time.Now().UTC().AddDate(0, 0, -1)
	}
	otherDay := other.Format(taskd.DateLayout)
	c.run(chromedp.Navigate(project+"/calendar?view=week&date="+cs.today), chromedp.WaitVisible(chromedp.CSS("#cal-task"+id)),
		chromedp.Click(`//li[@id="cal-task`+id+`"]//summary`), chromedp.WaitVisible(chromedp.CSS("#due"+id)),
		chromedp.SetValue(chromedp.CSS("#due"+id), otherDay),
		chromedp.Click(`//li[@id="cal-task`+id+`"]//button[text()="Move"]`),
		chromedp.WaitVisible(fmt.Sprintf(`//td[@data-date="%s"]//li[@id="cal-task%s"]`, otherDay, id)))
	c.see("calendar-moved-no-js", "Write copy, v2; final")
	if got := task(cs.write).DateEnd; got != otherDay {
		t.Fatalf("due %s after the week's form, want %s", got, otherDay)
	}

	// The activity feeds read, the move among them.
	c.run(chromedp.Navigate(project+"/activity"), chromedp.WaitVisible(chromedp.CSS("main")))
	c.see("project-activity-no-js", "Write copy, v2; final")
	c.run(chromedp.Navigate(fmt.Sprintf("%s/people/%d/activity", acct, cs.owner.Person.ID)), chromedp.WaitVisible(chromedp.CSS("main")))
	c.see("person-activity-no-js", "Write copy, v2; final")

	// A task's quick-edit page saves with its button.
	c.run(chromedp.Navigate(acct+"/tasks/"+strconv.FormatInt(cs.old, 10)+"/quick"), chromedp.WaitVisible(chromedp.CSS(".quick-page form")))
	c.see("quick-page-no-js", "Old thing")
	// The old document is marked, so that the wait is for the page the
	// form's answer loads: "main" alone may be the old page's, gone the
	// next moment ("No node with given id found").
	c.run(chromedp.SetValue(chromedp.CSS(`.quick-page input[name="priority"]`), "9"))
	if _, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](`window.leftBehind = true`)); err != nil {
		t.Fatal(err)
	}
	c.run(chromedp.Click(chromedp.CSS(`.quick-page button[type=submit]`)))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		// Each look is tried again: one sent while the tab navigates is
		// answered with an error.
		loaded, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](`window.leftBehind === undefined && document.readyState === "complete" && document.querySelector("main") !== null`))
		if err == nil && loaded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the quick page's form did not load its answer: %v", err)
		}
	}
	c.see("quick-saved-no-js", "Old thing")
	if got := task(cs.old).Priority; got != 9 {
		t.Errorf("priority %d after the quick page's form, want 9", got)
	}

	// The project's one-line add.
	c.run(chromedp.Navigate(project+"/"), chromedp.WaitVisible(chromedp.CSS("#quickadd-line")),
		chromedp.SendKeys(chromedp.CSS("#quickadd-line"), "Call the printer !high"),
		chromedp.Click(chromedp.CSS(`form.quickadd button[type=submit]`)),
		chromedp.WaitVisible(`//a[text()="Call the printer"]`))
	c.see("quick-added-no-js", "Call the printer")
}
