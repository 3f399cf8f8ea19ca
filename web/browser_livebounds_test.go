package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/admit"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/server"
)

// TestBrowserLiveRefusedBeyondTheBound: a page whose live stream is
// refused (the person holds as many as the server allows) says so in its
// notice, in the server's words, and marks itself refused instead of
// failing silently; the page itself works.
func TestBrowserLiveRefusedBeyondTheBound(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two browsers")
	}
	s := testsite.Limited(t, testdb.New(t, "sqlite"), server.Limits{Live: admit.Limits{PerPerson: 1}})
	_, owner := s.Owner()
	p, err := s.Store.CreateProject(context.Background(), owner, taskd.ProjectInput{Name: new("Bounded")})
	if err != nil {
		t.Fatal(err)
	}
	page := s.AccountURL() + p.Page()
	a, b := newChrome(t), newChrome(t)
	live := func(c *chrome, want string) {
		t.Helper()
		if _, err := chromedp.Run(c.ctx, chromedp.Poll[bool](`document.documentElement.getAttribute("data-live") === "`+want+`"`,
			chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			got, _ := chromedp.Run(c.ctx, chromedp.Evaluate[string](`String(document.documentElement.getAttribute("data-live"))`))
			t.Fatalf("the page's live stream is %q, want %q: %v", got, want, err)
		}
	}
	b.signIn(s.Base, testsite.UserEmail)
	live(b, "open")
	b.run(chromedp.Navigate("about:blank")) // its signed-in page's stream ends
	a.signIn(s.Base, testsite.UserEmail)
	live(a, "open") // the signed-in page's stream, which the next page's replaces
	a.run(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#task-title")))
	live(a, "open")
	b.run(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#task-title")))
	live(b, "refused")
	notice, err := chromedp.Run(b.ctx, chromedp.Poll[string](`(document.querySelector(".live-notice.shown[role=status]") || {}).textContent`,
		chromedp.WithPollingTimeout(10*time.Second)))
	if want := "You have another page with live updates open, the most at once. Close it, and this page will update again within a minute."; err != nil || notice != want {
		t.Fatalf("the refused page's notice: %q (%v), want %q", notice, err, want)
	}
	b.expectErrors() // the refused stream and its question log failed loads
	b.shot("live-refused")
	b.see("the refused page works", "Bounded")
}
