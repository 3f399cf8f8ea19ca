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

// TestBrowserCalendar: in Chromium, the week of My tasks moves a task to
// another day with its form, and back by drag and drop; each is the
// ordinary update of the task's due date.
func TestBrowserCalendar(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	testsite.One(t, testBrowserCalendar)
}

func testBrowserCalendar(t *testing.T, s *testsite.Site) {
	cs := newCalSite(t, s)
	id := strconv.FormatInt(cs.write, 10)
	today := time.Now().UTC()
	other := today.AddDate(0, 0, 1) // another day of the same week
	if today.Weekday() == time.Sunday {
		other = today.AddDate(0, 0, -1)
	}
	otherDay := other.Format(taskd.DateLayout)
	dueOf := func(t *testing.T) string {
		t.Helper()
		tk, err := s.Store.Task(context.Background(), taskd.AccountViewer(cs.acct.ID), cs.write)
		if err != nil {
			t.Fatal(err)
		}
		return tk.DateEnd
	}

	c := newChrome(t)
	c.signIn(s.Base, testsite.UserEmail)
	week := s.Base + "/a/" + s.Slug + "/my/calendar?view=week&date=" + cs.today
	inDay := func(day string) string {
		return fmt.Sprintf(`//td[@data-date="%s"]//li[@id="cal-task%s"]`, day, id)
	}

	if !t.Run("a task moves to another day with its form", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.Navigate(week), chromedp.WaitVisible(inDay(cs.today)))
		c.see("week", "Write copy, v2; final", "Old thing")
		c.run(chromedp.Click(`//li[@id="cal-task`+id+`"]//summary`), chromedp.WaitVisible(chromedp.CSS("#due"+id)),
			chromedp.SetValue(chromedp.CSS("#due"+id), otherDay),
			chromedp.Click(`//li[@id="cal-task`+id+`"]//button[text()="Move"]`),
			chromedp.WaitVisible(inDay(otherDay)))
		c.see("moved by form", "Write copy, v2; final")
		if got := dueOf(t); got != otherDay {
			t.Fatalf("due %s after the form, want %s", got, otherDay)
		}
	}) {
		return
	}

	t.Run("and back by drag and drop", func(t *testing.T) {
		c := c.in(t)
		drag := fmt.Sprintf(`(() => {
			const dt = new DataTransfer();
			dt.setData("text/plain", "cal-task%s");
			const day = document.querySelector('td.day[data-date="%s"]');
			day.dispatchEvent(new DragEvent("dragover", {bubbles: true, cancelable: true, dataTransfer: dt}));
			day.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: dt}));
			return true;
		})()`, id, cs.today)
		if _, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](drag)); err != nil {
			t.Fatal(err)
		}
		c.run(chromedp.WaitVisible(inDay(cs.today)))
		c.see("dropped", "Write copy, v2; final")
		if got := dueOf(t); got != cs.today {
			t.Fatalf("due %s after the drop, want %s", got, cs.today)
		}
	})
}
