package web_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/taskd/taskd/internal/testsite"
)

// TestBrowserTimerAndTimesheet, in Chromium: a timer started on a task
// ticks on the page and shows in the header of another page, is stopped
// from the header with its time logged, a line is logged and edited by
// hand, and the timesheet shows the lines with their totals and chart; at
// 390 px nothing overflows.
func TestBrowserTimerAndTimesheet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := testsite.New(t)
	pid := s.APIID("action=post_project&title=Launch&max_time=2")
	tid := s.APIID("action=post_task&id_project=" + pid + "&title=Write+the+press+release")

	c := newChrome(t)
	acct := s.Base + "/a/" + s.Slug
	c.signIn(s.Base, testsite.OwnerEmail)

	taskPage := acct + "/project/" + pid + "/" + tid + "/"
	c.run(chromedp.Navigate(taskPage), chromedp.WaitVisible(`//button[text()="Start timer"]`))
	c.see("task-no-costs", "No time or money logged yet.")
	c.run(chromedp.Click(`//button[text()="Start timer"]`), chromedp.WaitVisible(chromedp.CSS(".timer-panel")))
	c.see("timer-running", "Your timer is running on this task")
	first, err := chromedp.Run(c.ctx, chromedp.Text(chromedp.CSS(".timer-panel time.timer-clock")))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond)
	later, err := chromedp.Run(c.ctx, chromedp.Text(chromedp.CSS(".timer-panel time.timer-clock")))
	if err != nil {
		t.Fatal(err)
	}
	if first == later || !strings.HasPrefix(later, "0:00:") {
		t.Fatalf("the timer does not tick: %q then %q", first, later)
	}

	// The header of another page shows it, and stops it.
	c.run(chromedp.Navigate(acct+"/project/"+pid+"/"), chromedp.WaitVisible(chromedp.CSS(".header-timer")))
	c.shot("header-timer")
	// At 1280 px the header with a timer is still one row: the brand,
	// the sections, the timer and the menu side by side.
	c.run(chromedp.EmulateViewport(1280, 900))
	rows, err := chromedp.Run(c.ctx, chromedp.Evaluate[float64](`(() => { const h = document.querySelector('header.top');
		const mids = Array.from(h.children).filter(e => e.getBoundingClientRect().height > 0).map(e => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2 }).sort((a, b) => a - b);
		return mids.filter((m, i) => i === 0 || m - mids[i - 1] > 12).length })()`))
	if err != nil {
		t.Fatal(err)
	}
	c.shot("header-timer-1280")
	if rows != 1 {
		t.Errorf("at 1280 px the header with a timer takes %v rows", rows)
	}
	// The task's name is cut by its box only: the link's text, what a
	// screen reader says, holds it whole.
	name, err := chromedp.Run(c.ctx, chromedp.Evaluate[string](`(() => { const n = document.querySelector('.header-timer .timer-task');
		return n.closest('a').textContent.replace(/\s+/g, ' ').trim() + (n.scrollWidth > n.clientWidth ? ' [cut]' : ' [whole]') })()`))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^Your timer on Write the press release \d+:\d\d:\d\d \[cut\]$`).MatchString(name) {
		t.Errorf("the header's timer link says %q; want the task's whole name, cut only by its box ([cut])", name)
	}
	c.checkControls("header-timer")
	c.run(chromedp.Click(`//form[@class="header-timer"]//button`), chromedp.WaitNotPresent(chromedp.CSS(".header-timer")))
	if loc := c.location(); !strings.HasSuffix(loc, "/project/"+pid+"/") {
		t.Fatalf("stopping from the header went to %s", loc)
	}
	c.see("project-budget", "Time: 0:01 of 2:00 (0%)")

	// A line by hand, then edited.
	c.run(chromedp.Navigate(taskPage), chromedp.WaitVisible(`//summary[text()="Log time or money"]`),
		chromedp.Click(`//summary[text()="Log time or money"]`), chromedp.WaitVisible(chromedp.CSS("#cost-time")),
		chromedp.SendKeys(chromedp.CSS("#cost-time"), "1,5"), chromedp.SendKeys(chromedp.CSS("#cost-money"), "80"),
		chromedp.SendKeys(chromedp.CSS("#cost-comment"), "First draft"),
		chromedp.Click(`//button[text()="Log"]`), chromedp.WaitVisible(`//td[text()="1:30"]`))
	c.see("task-lines", "Logged: 1:31 and 80.00 USD in 2 lines", "First draft", "timer")
	c.run(chromedp.Click(`//tr[td[text()="1:30"]]//summary`), chromedp.WaitVisible(`//tr[td[text()="1:30"]]//input[@name="time"]`),
		chromedp.SetValue(`//tr[td[text()="1:30"]]//input[@name="time"]`, "2:45"),
		chromedp.Click(`//tr[td[text()="1:30"]]//button[text()="Save line"]`), chromedp.WaitVisible(`//td[text()="2:45"]`))
	c.see("task-edited", "Logged: 2:46 and 80.00 USD in 2 lines")
	c.run(chromedp.Navigate(acct+"/project/"+pid+"/"), chromedp.WaitVisible(chromedp.CSS("#budget")))
	c.see("project-over-budget", "Time: 2:46 of 2:00 (138%)", "Over by 0:46")

	// The timesheet.
	c.run(chromedp.Navigate(acct+"/timesheet"), chromedp.WaitVisible(chromedp.CSS("main svg")))
	c.see("timesheet", "Timesheet", "Launch", "2:46", "80.00", "First draft")
}

// TestBrowserFiles, in Chromium: a file attached on a task's page through
// the file input is listed with its size, downloads as an attachment that
// is not rendered, and is deleted after its confirmation; nothing
// overflows at 390 px.
func TestBrowserFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := testsite.New(t)
	pid := s.APIID("action=post_project&title=Launch")
	tid := s.APIID("action=post_task&id_project=" + pid + "&title=Press+kit")
	dir := t.TempDir()
	file := filepath.Join(dir, "press <release>.html")
	if err := os.WriteFile(file, []byte("<h1>Launch</h1><script>document.title='pwned'</script>"), 0o644); err != nil {
		t.Fatal(err)
	}

	c := newChrome(t)
	acct := s.Base + "/a/" + s.Slug
	c.signIn(s.Base, testsite.OwnerEmail)

	c.run(chromedp.Navigate(acct+"/project/"+pid+"/"+tid+"/"), chromedp.WaitVisible(chromedp.CSS("#task-files")))
	c.see("no-files", "No files attached to the task.")
	c.run(chromedp.SetUploadFiles(chromedp.CSS("#task-files"), []string{file}),
		chromedp.Click(`//button[text()="Attach"]`), chromedp.WaitVisible(`//ul[contains(@class,"files")]//a`))
	c.see("attached", "press <release>.html", "54 bytes", "Olga Owner")

	// The link downloads the file as an attachment, never as a page.
	type head struct {
		Status      int    `json:"status"`
		Disposition string `json:"disposition"`
		Type        string `json:"type"`
		Sniff       string `json:"sniff"`
		Body        string `json:"body"`
	}
	res, err := chromedp.Run(c.ctx, chromedp.Evaluate[head](`(async () => {
		const a = document.querySelector('ul.files a');
		const r = await fetch(a.href);
		return {status: r.status, disposition: r.headers.get('content-disposition'), type: r.headers.get('content-type'),
			sniff: r.headers.get('x-content-type-options'), body: await r.text()};
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 200 || !strings.HasPrefix(res.Disposition, "attachment;") || res.Type != "application/octet-stream" || res.Sniff != "nosniff" ||
		!strings.Contains(res.Body, "<h1>Launch</h1>") {
		t.Fatalf("the download: %+v", res)
	}

	// Deleting asks first.
	c.run(chromedp.Click(`//ul[contains(@class,"files")]//summary`), chromedp.WaitVisible(`//button[text()="Delete file"]`))
	c.see("confirm-delete", "goes for good")
	c.run(chromedp.Click(`//button[text()="Delete file"]`), chromedp.WaitVisible(`//p[contains(text(),"No files attached to the task.")]`))
	c.see("deleted", "No files attached to the task.")
}
