package web_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/taskd/taskd/internal/testsite"
)

// TestBrowserListsAndBoard: in Chromium, a project of 60 tasks pages, a
// text search and an assignee filter narrow it, a task's status is set on
// its page, and the board moves the task with a card's form and by drag
// and drop.
func TestBrowserListsAndBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := testsite.New(t)
	url0 := s.AccountURL()
	pid := s.APIID("action=post_project&title=Launch")
	for i := range 58 {
		testsite.APICall(t, url0, s.Key, fmt.Sprintf("action=post_task&id_project=%s&title=Filler+%02d", pid, i))
	}
	tid := s.APIID("action=post_task&id_project=" + pid + "&title=Send+invoice&priority=8")
	testsite.APICall(t, url0, s.Key, "action=post_task&id_project="+pid+"&title=Call+the+printer&email_user_to="+testsite.UserEmail)
	testsite.APICall(t, url0, s.Key, "action=add_task_tag_groups&type=status&access=public&title=Stage")
	_, tags := testsite.APICall(t, url0, s.Key, "action=add_task_tags&group=Stage&title=Doing,Review")
	doing := tags["data"].([]any)[0].(map[string]any)["id"].(string)
	review := tags["data"].([]any)[1].(map[string]any)["id"].(string)
	_, groups := testsite.APICall(t, url0, s.Key, "action=get_task_tag_groups")
	group := testsite.JSONNumber(groups["data"].([]any)[0].(map[string]any)["id"])

	c := newChrome(t)
	acct := s.Base + "/a/" + s.Slug
	c.run(chromedp.Navigate(s.Base+"/login"), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), testsite.OwnerEmail), chromedp.SendKeys(chromedp.CSS("#password"), testsite.Password),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Main"]`)))

	if !t.Run("the project's 60 tasks show in two pages", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.Navigate(acct+"/project/"+pid+"/"), chromedp.WaitVisible(chromedp.CSS("#f-q")))
		c.see("list", "Active (60)", "page 1 of 2", "Filler 00")
		c.run(chromedp.Click(`//a[@rel="next"]`), chromedp.WaitVisible(`//a[text()="Send invoice"]`))
		c.see("list-page-2", "page 2 of 2", "Call the printer")
	}) {
		return
	}

	if !t.Run("a text search and an assignee filter narrow the list", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.SendKeys(chromedp.CSS("#f-q"), "INVOICE"), chromedp.Submit(chromedp.CSS("#f-q")),
			chromedp.WaitVisible(`//a[text()="Clear filters"]`))
		c.see("searched", "Send invoice", "Active (1)")
		if text := c.text(); strings.Contains(text, "Filler") {
			t.Fatalf("the search shows other tasks:\n%s", text)
		}
		c.run(chromedp.Click(`//a[text()="Clear filters"]`), chromedp.WaitVisible(chromedp.CSS("#f-assignee")),
			chromedp.SetValue(chromedp.CSS("#f-assignee"), testsite.UserEmail), chromedp.Submit(chromedp.CSS("#f-assignee")),
			chromedp.WaitVisible(`//a[text()="Call the printer"]`))
		c.see("filtered", "Active (1)", "Uma User")
	}) {
		return
	}

	if !t.Run("the task's status is set on its page", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.Navigate(acct+"/project/"+pid+"/"+tid+"/"), chromedp.WaitVisible(`//summary[text()="Tags"]`),
			chromedp.Click(`//summary[text()="Tags"]`), chromedp.WaitVisible(chromedp.CSS("#task-group"+group)),
			chromedp.SetValue(chromedp.CSS("#task-group"+group), doing), chromedp.Click(`//button[text()="Save tags"]`),
			chromedp.WaitVisible(`//span[@class="tag" and text()="Doing"]`))
		c.see("tagged", "Doing")
	}) {
		return
	}

	if !t.Run("the board moves the card with its form", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.Navigate(acct+"/project/"+pid+"/"), chromedp.WaitVisible(`//a[text()="Board"]`),
			chromedp.Click(`//a[text()="Board"]`), chromedp.WaitVisible(chromedp.CSS("#move"+tid)))
		c.see("board", "No status (59)", "Doing (1)", "Review (0)")
		c.run(chromedp.SetValue(chromedp.CSS("#move"+tid), review),
			chromedp.Click(`//article[@id="task`+tid+`"]//button[text()="Move"]`),
			chromedp.WaitVisible(`//h2[@id="col`+review+`" and contains(., "(1)")]`))
		c.see("moved", "Doing (0)", "Review (1)")
	}) {
		return
	}

	if !t.Run("the board moves the card back by drag and drop", func(t *testing.T) {
		c := c.in(t)
		drag := fmt.Sprintf(`(() => {
			const dt = new DataTransfer();
			dt.setData("text/plain", "task%s");
			const col = document.querySelector('.column[data-tag="%s"]');
			col.dispatchEvent(new DragEvent("dragover", {bubbles: true, cancelable: true, dataTransfer: dt}));
			col.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: dt}));
			return true;
		})()`, tid, doing)
		if _, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](drag)); err != nil {
			t.Fatal(err)
		}
		c.run(chromedp.WaitVisible(`//h2[@id="col` + doing + `" and contains(., "(1)")]`))
		c.see("dropped", "Doing (1)", "Review (0)")
		_, got := testsite.APICall(t, url0, s.Key, "action=get_task&id_task="+tid)
		if tags := got["data"].(map[string]any)["tags"].(map[string]any); len(tags) != 1 || tags[doing] != "Doing" {
			t.Fatalf("after the drop the API shows tags %v", tags)
		}
	}) {
		return
	}

	t.Run("a card's complete control, as a row's, brings the board back without the task", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.Click(`//button[@aria-label="Complete Send invoice"]`),
			chromedp.WaitVisible(`//h2[@id="col`+doing+`" and contains(., "(0)")]`))
		c.see("completed on the board", "Doing (0)", "No status (59)")
		if loc, err := url.Parse(c.location()); err != nil || !strings.HasSuffix(loc.Path, "/project/"+pid+"/board") || loc.Query().Get("group") != group {
			t.Fatalf("completing a card led to %s", loc)
		}
		if _, got := testsite.APICall(t, url0, s.Key, "action=get_task&id_task="+tid); got["data"].(map[string]any)["status"] != "done" {
			t.Fatalf("after completing on the board the API shows %v", got["data"])
		}
	})
}
