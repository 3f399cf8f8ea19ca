package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/web"
)

// TestBrowserLiveContinuesAfterTheStreamsAge (issue 47): with streams
// that end at a short age (Config.LiveMaxAge, 30 minutes unless set), an
// open page sees its stream end and opens it again by itself, over and
// over, without being reloaded; a change made after several ends still
// shows on the page.
func TestBrowserLiveContinuesAfterTheStreamsAge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := testsite.New(t)
	hub := runningHub(t, s) // the server's hub runs; the page hears what it hands out
	base := pagesWith(t, s, func(c *web.Config) { c.LiveMaxAge, c.Live = 500*time.Millisecond, hub })
	_, owner := s.Owner()
	p, err := s.Store.CreateProject(context.Background(), owner, taskd.ProjectInput{Name: new("Aging")})
	if err != nil {
		t.Fatal(err)
	}
	c := newChrome(t)
	c.signIn(base, testsite.UserEmail)
	c.run(chromedp.Navigate(base+"/a/"+s.Slug+p.Page()), chromedp.WaitVisible(chromedp.CSS("#task-title")))
	// The page counts its stream's ends and reopenings; a reload would
	// lose the count.
	if _, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](`window.liveEnds = 0; window.liveOpens = 0;
		new MutationObserver(function () {
			var v = document.documentElement.getAttribute("data-live");
			if (v === "closed") { window.liveEnds++; }
			if (v === "open") { window.liveOpens++; }
		}).observe(document.documentElement, { attributes: true, attributeFilter: ["data-live"] }); true`)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(c.ctx, chromedp.Poll[bool](`window.liveEnds >= 2 && window.liveOpens >= 2 &&
		document.documentElement.getAttribute("data-live") === "open"`,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		got, _ := chromedp.Run(c.ctx, chromedp.Evaluate[string](`window.liveEnds + " ends, " + window.liveOpens + " opens, " + document.documentElement.getAttribute("data-live")`))
		t.Fatalf("the page did not see its stream end at its age and open it again: %s (%v)", got, err)
	}
	if _, err := s.Store.CreateTask(context.Background(), owner, p.ID, 0, taskd.TaskInput{Name: new("Made after the ends")}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(c.ctx, chromedp.Poll[bool](`window.liveEnds !== undefined && document.querySelector("main").textContent.indexOf("Made after the ends") >= 0`,
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("the page did not show a change made after its stream ended and came back: %v", err)
	}
}
