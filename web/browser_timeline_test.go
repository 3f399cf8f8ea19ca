package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// barBox is a bar's place on the screen and the width of a day.
type barBox struct {
	Left  float64 `json:"left"`
	Right float64 `json:"right"`
	Y     float64 `json:"y"`
	Day   float64 `json:"day"`
}

// TestBrowserTimeline, in Chromium: a bar dragged by its body moves both
// of the task's dates, dragged by its end changes the due date alone, and
// moved with the keyboard (arrows, Shift+arrow, Enter) changes both as
// the keys said; each change is the task's, read back from the store, and
// the timeline shows it without a reload.
func TestBrowserTimeline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	testsite.One(t, testBrowserTimeline)
}

func testBrowserTimeline(t *testing.T, s *testsite.Site) {
	s, pid, ids := timelineOn(t, s)
	c := newChrome(t)
	c.signIn(s.Base, testsite.OwnerEmail)
	c.run(chromedp.Navigate(fmt.Sprintf("%s/project/%d/timeline?scale=day", s.AccountURL(), pid)), chromedp.WaitVisible(chromedp.CSS("table.tl")),
		chromedp.WaitVisible(chromedp.CSS("#tl-keys")))
	c.see("timeline", "Write the copy", "Unscheduled", "Drag a bar to move it")

	_, by := s.Owner()
	viewer := taskd.PersonViewer(by.AccountID, by.Person.ID, by.Role)
	dates := func(name string) (string, string) {
		task, err := s.Store.Task(context.Background(), viewer, ids[name])
		if err != nil {
			t.Fatal(err)
		}
		return task.DateStart, task.DateEnd
	}
	shift := func(date string, n int) string {
		d, _ := time.Parse(taskd.DateLayout, date)
		return d.AddDate(0, 0, n).Format(taskd.DateLayout)
	}
	box := func(name string) barBox {
		b, err := chromedp.Run(c.ctx, chromedp.Evaluate[barBox](fmt.Sprintf(`(() => {
			const row = document.querySelector('tr[data-task="%d"]'), r = row.querySelector('td.tl-cell > a').getBoundingClientRect();
			let w = 0; row.querySelectorAll('td').forEach(td => w += td.getBoundingClientRect().width);
			return {left: r.left, right: r.right, y: (r.top + r.bottom) / 2, day: w / +document.getElementById('timeline').dataset.days};
		})()`, ids[name])))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// waitFor waits until the task's row on the page shows the dates.
	waitFor := func(step, name, start, end string) {
		t.Helper()
		c.run(chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`tr[data-task="%d"][data-start="%s"][data-end="%s"]`, ids[name], start, end))))
		if gs, ge := dates(name); gs != start || ge != end {
			t.Fatalf("%s: the task's dates are %s to %s, want %s to %s", step, gs, ge, start, end)
		}
		c.see(step, name)
	}

	start, end := dates("Write the copy")
	b := box("Write the copy")
	mid := (b.Left + b.Right) / 2
	c.run(chromedp.DragAndDropXY(mid, b.Y, mid+3*b.Day, b.Y))
	waitFor("dragged-body", "Write the copy", shift(start, 3), shift(end, 3))

	b = box("Write the copy")
	c.run(chromedp.DragAndDropXY(b.Right-3, b.Y, b.Right-3+2*b.Day, b.Y))
	waitFor("dragged-end", "Write the copy", shift(start, 3), shift(end, 5))

	start, end = dates("Outline")
	c.run(chromedp.Focus(chromedp.CSS(fmt.Sprintf(`tr[data-task="%d"] td.tl-cell > a`, ids["Outline"]))),
		chromedp.KeyEvent(kbRight), chromedp.KeyEvent(kbRight), chromedp.KeyEvent(kbRight, chromedp.KeyModifiers(chromedp.ModifierShift)))
	said, err := chromedp.Run(c.ctx, chromedp.Text(chromedp.CSS("#tl-live")))
	if err != nil || !strings.Contains(said, "Enter saves") {
		t.Errorf("the keys' change is announced as %q (%v)", said, err)
	}
	if gs, _ := dates("Outline"); gs != start {
		t.Fatal("the keys saved before Enter")
	}
	c.run(chromedp.KeyEvent("\r"))
	waitFor("keyboard", "Outline", shift(start, 2), shift(end, 3))
	focused, err := chromedp.Run(c.ctx, chromedp.Evaluate[string](`document.activeElement.closest('tr') ? document.activeElement.closest('tr').dataset.task : ''`))
	if err != nil || focused != fmt.Sprint(ids["Outline"]) {
		t.Errorf("after saving, the focus is on %q, want the bar of task %d", focused, ids["Outline"])
	}

	// A dependency drawn from the dot after "Write the copy" to the
	// milestone "Launch day" makes the milestone wait: an arrow is drawn.
	blockedBy := func(name string) []string {
		from, _, err := s.Store.RelatedTasks(context.Background(), viewer, ids[name])
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range from {
			out = append(out, r.Task.Name)
		}
		return out
	}
	arrowShown := func(step, from, to string) {
		t.Helper()
		c.run(chromedp.WaitReady(chromedp.CSS(fmt.Sprintf(`.tl-arrows span[data-from="%d"][data-to="%d"]`, ids[from], ids[to]))))
		c.waitFor(step, `document.querySelectorAll('#timeline svg.tl-svg path.tl-arrow').length > 0`)
		c.see(step, to)
	}
	dot, err := chromedp.Run(c.ctx, chromedp.Evaluate[barBox](fmt.Sprintf(`(() => {
		const r = document.querySelector('tr[data-task="%d"] .tl-dot').getBoundingClientRect();
		return {left: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2};
	})()`, ids["Write the copy"])))
	if err != nil {
		t.Fatal(err)
	}
	target := box("Launch day")
	c.run(chromedp.DragAndDropXY(dot.Left, dot.Y, (target.Left+target.Right)/2, target.Y))
	arrowShown("drawn-dependency", "Write the copy", "Launch day")
	if got := blockedBy("Launch day"); len(got) != 1 || got[0] != "Write the copy" {
		t.Errorf("Launch day is blocked by %v after the drawing", got)
	}

	// With the keyboard: L on "Fix the logo", L on "Outline".
	c.run(chromedp.Focus(chromedp.CSS(fmt.Sprintf(`tr[data-task="%d"] td.tl-cell > a`, ids["Fix the logo"]))), chromedp.KeyEvent("l"),
		chromedp.Focus(chromedp.CSS(fmt.Sprintf(`tr[data-task="%d"] td.tl-cell > a`, ids["Outline"]))), chromedp.KeyEvent("l"))
	arrowShown("keyboard-dependency", "Fix the logo", "Outline")
	if got := blockedBy("Outline"); len(got) != 1 || got[0] != "Fix the logo" {
		t.Errorf("Outline is blocked by %v after the keys", got)
	}

	// Moving "Write the copy" a day later offers to shift Launch day,
	// and the offer's button does.
	_, due := dates("Launch day")
	start, end = dates("Write the copy")
	c.run(chromedp.Focus(chromedp.CSS(fmt.Sprintf(`tr[data-task="%d"] td.tl-cell > a`, ids["Write the copy"]))),
		chromedp.KeyEvent(kbRight), chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS("#tl-shift button")))
	c.see("shift-offer", "Write the copy moved 1 day later", "Shift 1 task")
	c.run(chromedp.Click(chromedp.CSS("#tl-shift button")), chromedp.WaitNotPresent(chromedp.CSS("#tl-shift")))
	waitFor("shifted", "Launch day", "", shift(due, 1))
	if gs, ge := dates("Write the copy"); gs != shift(start, 1) || ge != shift(end, 1) {
		t.Errorf("Write the copy is %s to %s after the move", gs, ge)
	}
}

// kbRight is the right arrow key as chromedp types it.
const kbRight = kb.ArrowRight

// TestBrowserTimelineWithoutJavaScript: with JavaScript off the timeline
// reads (bars, dates, the unscheduled tasks) and a row's form changes the
// task's dates.
func TestBrowserTimelineWithoutJavaScript(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s, pid, ids := timelineSite(t)
	c := newChrome(t)
	c.noScript()
	c.signIn(s.Base, testsite.OwnerEmail)
	c.run(chromedp.Navigate(fmt.Sprintf("%s/project/%d/timeline", s.AccountURL(), pid)), chromedp.WaitVisible(chromedp.CSS("table.tl")))
	c.see("timeline-no-js", "Write the copy", "Launch day", "Someday", "Unscheduled")
	hidden, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](`document.getElementById('tl-keys').hidden`))
	if err != nil || !hidden {
		t.Errorf("the keyboard's help shows without the script that does what it says (%v)", err)
	}
	row := fmt.Sprintf(`tr[data-task="%d"]`, ids["Fix the logo"])
	from, to := time.Now().UTC().AddDate(0, 0, -1).Format(taskd.DateLayout), time.Now().UTC().AddDate(0, 0, 6).Format(taskd.DateLayout)
	c.run(chromedp.Click(chromedp.CSS(row+" a.tl-edit-link")), chromedp.WaitVisible(chromedp.CSS(`#tl-edit input[name="dateend"]`)))
	c.see("dates-form-no-js", "Dates of Fix the logo")
	c.run(chromedp.SetValue(chromedp.CSS(`#tl-edit input[name="datestart"]`), from),
		chromedp.SetValue(chromedp.CSS(`#tl-edit input[name="dateend"]`), to),
		chromedp.Click(chromedp.CSS("#tl-edit button")),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-start="`+from+`"][data-end="`+to+`"]`)))
	c.see("rescheduled-no-js", "Fix the logo")
	_, by := s.Owner()
	task, err := s.Store.Task(context.Background(), taskd.PersonViewer(by.AccountID, by.Person.ID, by.Role), ids["Fix the logo"])
	if err != nil || task.DateStart != from || task.DateEnd != to {
		t.Fatalf("the task after the form: %s to %s (%v)", task.DateStart, task.DateEnd, err)
	}
}
