package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/taskd/taskd/internal/testsite"
)

// waitFor waits until the expression is true on the page, through a
// navigation the step may cause.
func (c *chrome) waitFor(step, expr string) {
	c.t.Helper()
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(c.ctx, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && (`+expr+`)`))
		cancel()
		if err == nil && ok {
			return
		}
	}
	c.shot(step + "-timeout")
	c.t.Fatalf("%s: %s never held", step, expr)
}

// eval evaluates an expression on the page.
func eval[T any](c *chrome, expr string) T {
	c.t.Helper()
	v, err := chromedp.Run(c.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		c.t.Fatalf("browser: %s: %v", expr, err)
	}
	return v
}

// TestBrowserQuickEdit, in Chromium: "n" goes to the one-line add field and
// a line adds a task with its shortcuts; a row's quick edit changes the
// assignee in place, without leaving the page, and shows a refusal in the
// row; "j" moves to a row and "x" completes it; "/" goes to the search;
// "?" opens the shortcuts' help, Escape closes it and focus comes back; a
// letter typed in a field is only typed.
func TestBrowserQuickEdit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	testsite.One(t, testBrowserQuickEdit)
}

func testBrowserQuickEdit(t *testing.T, s *testsite.Site) {
	pid := s.APIID("action=post_project&title=Launch")
	first := s.APIID("action=post_task&id_project=" + pid + "&title=Draft+plan&dateend=31.12.2030")
	second := s.APIID("action=post_task&id_project=" + pid + "&title=Book+venue")

	c := newChrome(t)
	acct := s.Base + "/a/" + s.Slug
	c.signIn(s.Base, testsite.OwnerEmail)
	project := acct + "/project/" + pid + "/"
	c.run(chromedp.Navigate(project), chromedp.WaitVisible(chromedp.CSS("#quickadd-line")))
	c.waitFor("script", `!document.getElementById('shortcuts-open').parentElement.hidden`)

	// "n", then a line.
	c.run(chromedp.KeyEvent("n"))
	if id := eval[string](c, `document.activeElement.id`); id != "quickadd-line" {
		t.Fatalf(`after "n" the focus is on %q`, id)
	}
	// The script cancels the key's default; DevTools' separate "char"
	// event types the letter all the same, which a person's key does not.
	c.run(chromedp.Evaluate[chromedp.Void](`document.activeElement.value = ''`))
	c.run(chromedp.KeyEvent("Call caterer @uma !high due tomorrow"), chromedp.KeyEvent(kb.Enter))
	c.waitFor("quick-add", `document.body.textContent.includes('Added “Call caterer” to Launch.')`)
	c.see("quick-added", "Call caterer", "Uma User", "P8")

	// The quick edit of "Draft plan": the assignee, in place.
	c.run(chromedp.Evaluate[chromedp.Void](`window.stayed = true`))
	c.run(chromedp.Click(chromedp.CSS("#task"+first+" .quick > a.quick-open")), chromedp.WaitVisible(chromedp.CSS("#q"+first+"-assignee")))
	c.shot("quick-edit-open")
	if got := eval[string](c, `document.activeElement.id + ' ' + document.getElementById('q`+first+`-of').textContent + ' ' + document.querySelector('#task`+first+` form.quick-edit').getAttribute('action') + ' ' + document.querySelectorAll('form.quick-edit').length`); got != "q"+first+"-assignee of Draft plan /a/"+s.Slug+"/tasks/"+first+"/update 1" {
		t.Fatalf("the quick edit opened in place: %q", got)
	}
	if got := eval[string](c, `document.getElementById('q`+first+`-end').value + ' ' + document.getElementById('q`+first+`-assignee').value`); got != "2030-12-31 NOONE" {
		t.Fatalf("the quick edit's values: %q", got)
	}
	c.run(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById('q%s-assignee'); s.value = %q; s.dispatchEvent(new Event('change', {bubbles: true})); })()`, first, testsite.UserEmail)))
	c.waitFor("quick-edit", `document.querySelector('#task`+first+` .assignee').textContent.includes('Uma User')`)
	if !eval[bool](c, `window.stayed === true && document.activeElement.id === 'q`+first+`-assignee'`) {
		t.Fatal("the quick edit left the page or lost the focus")
	}
	if got := apiTask(t, s, first); !strings.Contains(fmt.Sprint(got["user_to"]), testsite.UserEmail) {
		t.Fatalf("after the quick edit: %v", got["user_to"])
	}
	if n := len(taskEvents(t, s, "update_task", first)); n != 1 {
		t.Fatalf("%d update_task events of the quick edit", n)
	}
	// A refusal is shown in the row: a start after the due date.
	c.run(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('q` + first + `-start'); s.value = '2031-02-01'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`))
	c.waitFor("quick-refusal", `!!document.querySelector('#task`+first+` .quick-msg[role=alert]')`)
	c.expectErrors() // the refused post's 422
	c.see("quick-refused", "Nothing was changed.")
	if got := eval[string](c, `document.getElementById('q`+first+`-start').value`); got != "" {
		t.Fatalf("the refused start stayed in the field: %q", got)
	}
	// Escape closes the quick edit and the focus returns to its link; "e"
	// opens it again, with the row's new values.
	c.run(chromedp.Focus(chromedp.CSS("#q"+first+"-priority")), chromedp.KeyEvent(kb.Escape))
	c.waitFor("quick-closed", `!document.querySelector('#task`+first+` form.quick-edit') && document.activeElement.matches('#task`+first+` a.quick-open')`)
	c.run(chromedp.KeyEvent("e"))
	c.waitFor("quick-e", `document.activeElement.id === 'q`+first+`-assignee' && document.activeElement.value === '`+testsite.UserEmail+`'`)

	// "j" twice reaches "Book venue" (the list is as added), "x" completes it.
	c.run(chromedp.Navigate(project), chromedp.WaitVisible(chromedp.CSS("#quickadd-line")))
	c.waitFor("script", `!document.getElementById('shortcuts-open').parentElement.hidden`)
	c.run(chromedp.KeyEvent("j"), chromedp.KeyEvent("j"))
	if id := eval[string](c, `document.activeElement.id`); id != "task"+second {
		t.Fatalf(`after "j j" the focus is on %q, want task%s; %s; swapped %s`, id, second, eval[string](c, `document.activeElement.outerHTML.slice(0, 200)`), eval[string](c, `document.documentElement.getAttribute('data-live-swapped') || 'no'`))
	}
	c.run(chromedp.KeyEvent("x"))
	c.waitFor("complete", `!document.getElementById('task`+second+`')`)
	if got := apiTask(t, s, second); got["status"] != "done" {
		t.Fatalf(`after "x": %v`, got["status"])
	}

	// "/" goes to the search, where letters are typed, not shortcuts.
	c.run(chromedp.KeyEvent("/"), chromedp.Evaluate[chromedp.Void](`document.activeElement.value = ''`), chromedp.KeyEvent("jx?"))
	if v := eval[string](c, `document.activeElement.id + '=' + document.activeElement.value`); v != "f-q=jx?" {
		t.Fatalf(`"/" then typing: %q`, v)
	}
	if eval[bool](c, `document.getElementById('shortcuts').open`) {
		t.Fatal("a shortcut fired while typing")
	}

	// "?" opens the help, a modal dialog; Escape closes it and the focus
	// comes back.
	c.run(chromedp.Evaluate[chromedp.Void](`document.activeElement.blur(); document.querySelector('#task` + first + ` .title a').focus()`))
	c.run(chromedp.KeyEvent("?"))
	c.waitFor("help", `document.getElementById('shortcuts').open && document.getElementById('shortcuts').contains(document.activeElement)`)
	c.see("help-open", "Keyboard shortcuts")
	// A live swap while the help is open replaces the link that opened
	// it: closing the help focuses its counterpart.
	before := eval[string](c, `document.documentElement.getAttribute('data-live-swapped') || ''`)
	s.APIID("action=post_task&id_project=" + pid + "&title=Call+caterer")
	c.waitFor("swapped-under-help", `document.documentElement.getAttribute('data-live-swapped') !== '`+before+`' && document.body.textContent.includes('Call caterer')`)
	c.run(chromedp.KeyEvent(kb.Escape))
	c.waitFor("help-closed", `!document.getElementById('shortcuts').open && document.activeElement.matches('#task`+first+` .title a')`)

	// After a live update swaps the page (someone else adds a task), the
	// shortcuts' button still shows and opens the help.
	swapped := eval[string](c, `document.documentElement.getAttribute('data-live-swapped') || ''`)
	s.APIID("action=post_task&id_project=" + pid + "&title=Order+flowers")
	c.waitFor("swapped", `document.documentElement.getAttribute('data-live-swapped') !== '`+swapped+`' && document.body.textContent.includes('Order flowers')`)
	c.waitFor("button-after-swap", `!document.getElementById('shortcuts-open').parentElement.hidden`)
	c.run(chromedp.Click(chromedp.CSS("#shortcuts-open")))
	c.waitFor("help-after-swap", `document.getElementById('shortcuts').open`)
	c.run(chromedp.KeyEvent(kb.Escape))
	c.waitFor("help-closed-after-swap", `!document.getElementById('shortcuts').open`)

	// The task page: the quick edit's priority, in place.
	c.run(chromedp.Navigate(project+first+"/"), chromedp.WaitVisible(chromedp.CSS("#task"+first)))
	c.run(chromedp.Click(chromedp.CSS("#task"+first+" details.quick > summary")), chromedp.WaitVisible(chromedp.CSS("#q"+first+"-priority")))
	c.run(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('q` + first + `-priority'); s.value = '9'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`))
	c.waitFor("task-page-edit", `document.querySelector('#task`+first+` dl.facts').textContent.includes('P9')`)
}
