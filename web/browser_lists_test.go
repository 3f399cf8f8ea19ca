package web_test

import (
	"fmt"
	"math"
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
	c.signIn(s.Base, testsite.OwnerEmail)

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

// boardLayout measures the board as shown: each column's width, and for
// each card's move form whether its button's text takes more than one
// line, whether the button sits on the menu's line, and whether it stays
// inside its card.
const boardLayout = `(() => {
	const cols = Array.from(document.querySelectorAll('.board .column')).map(c => c.getBoundingClientRect().width);
	const forms = Array.from(document.querySelectorAll('.board form.move')).map(f => {
		const b = f.querySelector('button'), s = f.querySelector('select');
		const r = document.createRange(); r.selectNodeContents(b);
		const br = b.getBoundingClientRect(), sr = s.getBoundingClientRect(), cr = f.closest('.cardlet').getBoundingClientRect();
		return {id: f.closest('.cardlet').id, lines: new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size,
			sameLine: Math.abs((br.top + br.bottom) / 2 - (sr.top + sr.bottom) / 2) < 4,
			inside: br.right <= cr.right + 0.5 && sr.left >= cr.left - 0.5, select: Math.round(sr.width)};
	});
	const board = document.querySelector('.board');
	return {cols, forms, scrolls: board.scrollWidth > board.clientWidth + 1};
})()`

// TestBrowserBoardAt1280: at 1280 px, a board of five columns (No status
// and a group's four statuses, as the demo has, one of them long) shows
// columns of one
// width and each card's move control on one line, its button unbroken;
// the project page's Board link leads there; moving a status up on the
// tags page moves its column.
func TestBrowserBoardAt1280(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := testsite.New(t)
	url0 := s.AccountURL()
	pid := s.APIID("action=post_project&title=Website+launch")
	testsite.APICall(t, url0, s.Key, "action=add_task_tag_groups&type=status&access=public&title=Stage")
	testsite.APICall(t, url0, s.Key, "action=add_task_tags&group=Stage&title=To+do,Doing,Waiting+for+review,Done")
	for i, tc := range []struct{ name, status, extra string }{
		{"Design the landing page with a much longer name than most", "Doing", "&priority=7&email_user_to=" + testsite.UserEmail},
		{"Write the copy", "To do", "&dateend=31.01.2030"},
		{"Supercalifragilisticexpialidocious-checklist", "Waiting for review", ""},
		{"Renew", "Done", ""},
		{"Unsorted idea", "", ""},
	} {
		tid := s.APIID(fmt.Sprintf("action=post_task&id_project=%s&title=%s%s", pid, url.QueryEscape(tc.name), tc.extra))
		if tc.status != "" {
			testsite.APICall(t, url0, s.Key, "action=update_task_tags&id_task="+tid+"&plus="+url.QueryEscape(tc.status))
		}
		if i == 0 {
			s.APIID("action=post_task&id_project=" + pid + "&id_parent=" + tid + "&title=Wireframes")
		}
	}

	c := newChrome(t)
	acct := s.Base + "/a/" + s.Slug
	c.signIn(s.Base, testsite.OwnerEmail)
	type layout struct {
		Cols  []float64
		Forms []struct {
			ID       string
			Lines    int
			SameLine bool
			Inside   bool
			Select   int
		}
		Scrolls bool
	}
	measure := func(c *chrome) layout {
		c.t.Helper()
		c.run(chromedp.EmulateViewport(1280, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(".board")))
		c.shot("board-1280")
		got, err := chromedp.Run(c.ctx, chromedp.Evaluate[layout](boardLayout))
		if err != nil {
			c.t.Fatal(err)
		}
		c.run(chromedp.EmulateViewport(1100, 900))
		return got
	}
	columns := func(c *chrome) string {
		c.t.Helper()
		h, err := chromedp.Run(c.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.board .column h2')).map(h => h.firstChild.textContent.trim())`))
		if err != nil {
			c.t.Fatal(err)
		}
		return strings.Join(h, ",")
	}

	if !t.Run("the project page's Board link opens the board", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.Navigate(acct+"/project/"+pid+"/"), chromedp.WaitVisible(`//a[text()="Board"]`))
		href, err := chromedp.Run(c.ctx, chromedp.Evaluate[string](`document.evaluate('//a[text()="Board"]', document, null, 9, null).singleNodeValue.getAttribute('href')`))
		if err != nil || href != "/a/"+s.Slug+"/project/"+pid+"/board" {
			t.Fatalf("the Board link is %q (%v)", href, err)
		}
		c.run(chromedp.Click(`//a[text()="Board"]`), chromedp.WaitVisible(chromedp.CSS(".board")))
		if loc := c.location(); loc != acct+"/project/"+pid+"/board" {
			t.Fatalf("the link led to %s", loc)
		}
		c.see("board", "No status (2)", "To do (1)", "Doing (1)", "Waiting for review (1)", "Done (1)")
	}) {
		return
	}

	if !t.Run("at 1280 px the columns have one width and each move control one line", func(t *testing.T) {
		c := c.in(t)
		got := measure(c)
		if len(got.Cols) != 5 || len(got.Forms) != 6 {
			t.Fatalf("the board has %d columns and %d move forms, want 5 and 6", len(got.Cols), len(got.Forms))
		}
		for _, w := range got.Cols {
			if math.Abs(w-got.Cols[0]) > 1 {
				t.Errorf("column widths %v: want them equal", got.Cols)
				break
			}
		}
		if got.Scrolls {
			t.Errorf("five columns do not fit at 1280 px: widths %v", got.Cols)
		}
		for _, f := range got.Forms {
			if f.Lines != 1 || !f.SameLine || !f.Inside || f.Select < 60 {
				t.Errorf("card %s: the move button takes %d lines, on the menu's line %v, inside the card %v, menu %d px wide",
					f.ID, f.Lines, f.SameLine, f.Inside, f.Select)
			}
		}
	}) {
		return
	}

	t.Run("moving a status up on the tags page moves its column", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.Navigate(acct+"/tags"), chromedp.WaitVisible(`//button[@aria-label="Move Waiting for review up"]`),
			chromedp.Click(`//button[@aria-label="Move Waiting for review up"]`),
			chromedp.WaitVisible(`//li[.//span[@class="tag" and text()="Waiting for review"]]/following-sibling::li[.//span[@class="tag" and text()="Doing"]]`))
		c.see("tags-sorted", "Waiting for review", "Doing")
		c.run(chromedp.Navigate(acct+"/project/"+pid+"/board"), chromedp.WaitVisible(chromedp.CSS(".board")))
		if got := columns(c); got != "No status,To do,Waiting for review,Doing,Done" {
			t.Fatalf("columns after the move: %s", got)
		}
	})
}
