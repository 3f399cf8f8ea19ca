package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chrome is a headless Chromium driving the site, failing the test on any
// console error and saving a screenshot of each step.
type chrome struct {
	t    *testing.T
	ctx  context.Context
	dir  string
	step int
	mu   sync.Mutex
	errs []string
}

// newChrome starts Debian's Chromium. Outside CI a machine without it skips
// the browser tests; in CI (CI=true) that is a failure. A test's steps have
// three minutes in all, so a wait that never ends fails soon.
func newChrome(t *testing.T) *chrome {
	t.Helper()
	return newChromeWithin(t, 3*time.Minute)
}

// newChromeWithin is newChrome for a test with more steps than most (the
// page audit), whose steps have the time given in all.
func newChromeWithin(t *testing.T, within time.Duration) *chrome {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed (.ci/run installs it)")
		}
		t.Skip("chromium is not installed")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-background-networking", true), chromedp.NoFirstRun,
		chromedp.IgnoreCertErrors, chromedp.WindowSize(1100, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, within)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	dir := os.Getenv("TASKD_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, "screenshots", t.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &chrome{t: t, ctx: ctx, dir: dir}
	c.run() // starts the browser and opens the tab
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == "error" || m.IsException() {
				c.mu.Lock()
				c.errs = append(c.errs, m.String())
				c.mu.Unlock()
			}
		}
	}()
	t.Cleanup(c.checkConsole)
	return c
}

func (c *chrome) run(steps ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	if err := chromedp.Do(c.ctx, steps...); err != nil {
		c.shot("failure")
		c.t.Fatalf("browser: %v", err)
	}
}

// shot saves a screenshot of the page, numbered in step order.
func (c *chrome) shot(name string) {
	c.step++
	buf, err := chromedp.Run(c.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		c.t.Logf("screenshot %s: %v", name, err)
		return
	}
	os.WriteFile(filepath.Join(c.dir, fmt.Sprintf("%02d-%s.png", c.step, name)), buf, 0o644)
}

// checkConsole fails the test on console errors seen so far.
func (c *chrome) checkConsole() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.errs {
		c.t.Errorf("browser console: %s", e)
	}
	c.errs = nil
}

// expectErrors drops console errors a step causes on purpose (a page that
// answers 404 logs a failed resource), after checking there was one.
func (c *chrome) expectErrors() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = nil
}

// text returns the visible text of the page's main element.
func (c *chrome) text() string {
	c.t.Helper()
	s, err := chromedp.Run(c.ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil {
		c.t.Fatalf("browser: %v", err)
	}
	return s
}

// see checks that the main element shows every one of want.
func (c *chrome) see(step string, want ...string) {
	c.t.Helper()
	c.shot(step)
	got := c.text()
	for _, w := range want {
		if !strings.Contains(got, w) {
			c.t.Fatalf("%s: the page does not show %q; it shows:\n%s", step, w, got)
		}
	}
	c.checkControls(step)
	c.checkConsole()
}

// unlabeled lists the form controls a person cannot identify: visible
// inputs, selects and textareas without a label, and buttons without text.
const unlabeled = `Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea, button'))
	.filter(e => e.tagName === 'BUTTON' ? !e.textContent.trim() && !e.getAttribute('aria-label')
		: !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))
	.map(e => e.outerHTML.slice(0, 120))`

// wrappedDates lists the date cells (td.date) whose text takes more than
// one line.
const wrappedDates = `Array.from(document.querySelectorAll('td.date')).filter(e => {
		const r = document.createRange(); r.selectNodeContents(e)
		return new Set(Array.from(r.getClientRects()).map(b => Math.round(b.top))).size > 1
	}).map(e => e.textContent)`

// checkControls fails on unlabeled controls, on a page wider than a
// phone's screen (390 CSS pixels), which it checks by narrowing the window,
// and on a date cell that wraps there.
func (c *chrome) checkControls(step string) {
	c.t.Helper()
	bad, err := chromedp.Run(c.ctx, chromedp.Evaluate[[]string](unlabeled))
	if err != nil {
		c.t.Fatalf("browser: %v", err)
	}
	for _, b := range bad {
		c.t.Errorf("%s: control without a label: %s", step, b)
	}
	c.run(chromedp.EmulateViewport(390, 844))
	overflow, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
	if err != nil {
		c.t.Fatalf("browser: %v", err)
	}
	if overflow {
		wide, _ := chromedp.Run(c.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('main *')).filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 8)`))
		c.t.Logf("%s: wider than the screen: %v", step, wide)
		c.shot(step + "-phone-overflow")
		c.t.Errorf("%s: the page is wider than a phone's screen", step)
	}
	wrapped, err := chromedp.Run(c.ctx, chromedp.Evaluate[[]string](wrappedDates))
	if err != nil {
		c.t.Fatalf("browser: %v", err)
	}
	if len(wrapped) > 0 {
		c.shot(step + "-phone-wrapped-dates")
		c.t.Errorf("%s: dates wrap on a phone's screen: %q", step, wrapped)
	}
	c.run(chromedp.EmulateViewport(1100, 900)) // the window's size, as newChrome opens it
}

// arrive waits until the tab shows a loaded page whose URL starts with
// prefix. A navigation to another site moves the tab to another renderer,
// and a command sent while it moves may never be answered (the tab's
// session is being replaced): each look is bounded and tried again, and
// the step's whole wait is the test's.
func (c *chrome) arrive(prefix string) {
	c.t.Helper()
	for c.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
		u, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState === "complete" ? location.href : ""`))
		cancel()
		if err == nil && strings.HasPrefix(u, prefix) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.shot("not-arrived")
	c.t.Fatalf("the browser never showed %s", prefix)
}

func (c *chrome) location() string {
	c.t.Helper()
	u, err := chromedp.Run(c.ctx, chromedp.Location())
	if err != nil {
		c.t.Fatalf("browser: %v", err)
	}
	return u
}

// TestBrowser walks the main flows in Chromium: sign in, a project, a task,
// a subtask, a comment, complete and reopen; the OAuth consent flow; a
// webhook created in the page firing for a change made in the page; and
// another account's pages refused.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := newSite(t)
	c := newChrome(t)
	acct := s.base + "/a/" + s.slug

	c.run(chromedp.Navigate(s.base+"/login"), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), ownerEmail), chromedp.SendKeys(chromedp.CSS("#password"), password),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Main"]`)))
	c.see("signed-in", "Your accounts", "Acme", "Other")

	c.run(chromedp.Click(`//main//a[normalize-space()="Acme"]`), chromedp.WaitVisible(chromedp.CSS("#project-title")))
	if loc := c.location(); loc != acct+"/" {
		t.Fatalf("the account's name led to %s, want %s/", loc, acct)
	}
	c.see("projects-empty", "No active projects yet")
	c.run(chromedp.SendKeys(chromedp.CSS("#project-title"), "Launch"), chromedp.Submit(chromedp.CSS("#project-title")),
		chromedp.WaitVisible(chromedp.CSS("#task-title")))
	c.see("project", "Launch", "No tasks yet")

	c.run(chromedp.SendKeys(chromedp.CSS("#task-title"), "Write copy"), chromedp.SetValue(chromedp.CSS("#new-priority"), "7"),
		chromedp.Submit(chromedp.CSS("#task-title")), chromedp.WaitVisible(`//a[text()="Write copy"]`))
	c.see("task-created", "Write copy", "P7")

	c.run(chromedp.Click(`//a[text()="Write copy"]`), chromedp.WaitVisible(chromedp.CSS("#subtask-title")))
	c.see("task-page", "Write copy", "No subtasks", "No comments yet")
	taskURL := c.location()

	c.run(chromedp.SendKeys(chromedp.CSS("#subtask-title"), "Outline"), chromedp.Submit(chromedp.CSS("#subtask-title")),
		chromedp.WaitVisible(`//a[text()="Outline"]`))
	c.see("subtask-created", "Outline")

	c.run(chromedp.SendKeys(chromedp.CSS("#new-comment"), "First draft is up"), chromedp.Submit(chromedp.CSS("#new-comment")),
		chromedp.WaitVisible(`//p[text()="First draft is up"]`))
	c.see("commented", "First draft is up")

	// Complete the subtask, then the task.
	c.run(chromedp.Click(`//a[text()="Outline"]`), chromedp.WaitVisible(`//button[text()="Complete"]`),
		chromedp.Click(`//button[text()="Complete"]`), chromedp.WaitVisible(`//button[text()="Reopen"]`))
	c.see("subtask-completed", "Outline", "done")
	c.run(chromedp.Navigate(taskURL), chromedp.WaitVisible(`//button[text()="Complete"]`),
		chromedp.Click(`//button[text()="Complete"]`), chromedp.WaitVisible(`//button[text()="Reopen"]`))
	c.see("task-completed", "done")
	c.run(chromedp.Click(`//button[text()="Reopen"]`), chromedp.WaitVisible(`//button[text()="Complete"]`))
	c.see("task-reopened", "Write copy")

	// A webhook made in the page fires for a change made in the page.
	var mu sync.Mutex
	var events []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var evs []map[string]any
		decodeJSON(r, &evs)
		mu.Lock()
		for _, e := range evs {
			events = append(events, e["event"].(string))
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(recv.Close)
	c.run(chromedp.Navigate(acct+"/settings/webhooks"), chromedp.WaitVisible(chromedp.CSS("#url")))
	c.see("webhooks-empty", "No webhooks yet", "reopen_task")
	c.run(chromedp.SendKeys(chromedp.CSS("#url"), recv.URL+"/"), chromedp.Submit(chromedp.CSS("#url")),
		chromedp.WaitVisible(`//button[text()="Enable"]`))
	c.see("webhook-created", "Copy the signing secret now", "Disabled")
	// The secret's copy button appears where JavaScript runs, and copies
	// (or, where the clipboard is refused, selects the secret).
	c.run(chromedp.WaitVisible(chromedp.CSS(`button[data-copy="shown-secret"]`)), chromedp.Click(chromedp.CSS(`button[data-copy="shown-secret"]`)))
	copied, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](`document.querySelector('button[data-copy]').textContent === 'Copied' || window.getSelection().toString().startsWith('whsec_')`))
	if err != nil || !copied {
		t.Fatalf("the copy button neither copied nor selected the secret: %v", err)
	}
	hookURL := c.location()
	c.run(chromedp.Click(`//button[text()="Enable"]`), chromedp.WaitVisible(`//button[text()="Disable"]`))
	c.see("webhook-enabled", "Working")
	c.run(chromedp.Navigate(taskURL), chromedp.WaitVisible(chromedp.CSS("#subtask-title")),
		chromedp.SendKeys(chromedp.CSS("#subtask-title"), "Proofread"), chromedp.Submit(chromedp.CSS("#subtask-title")),
		chromedp.WaitVisible(`//a[text()="Proofread"]`))
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.run(chromedp.Navigate(hookURL), chromedp.WaitVisible(chromedp.CSS("main")))
		if strings.Contains(c.text(), "post_task #") {
			break
		}
		if time.Now().After(deadline) {
			c.shot("no-delivery")
			t.Fatal("the webhook page never showed the delivery")
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.see("webhook-delivered", "post_task #", "OK", "1 delivered")
	mu.Lock()
	if len(events) != 1 || events[0] != "post_task" {
		t.Errorf("receiver got %v", events)
	}
	mu.Unlock()

	// The OAuth consent flow, clicked through.
	var codes = make(chan url.Values, 1)
	app := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case codes <- r.URL.Query():
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>App</title><main>Signed in to the app</main>`))
	}))
	app.Config.ErrorLog = nil
	app.TLS = &tls.Config{}
	t.Cleanup(app.Close)
	client := s.createClient(s.slug, "Browser app", app.URL+"/cb")
	authURL := s.base + "/oauth2/authorize?" + url.Values{"client_id": {client["client_id"]}, "response_type": {"code"},
		"redirect_uri": {app.URL + "/cb"}, "state": {"st-1"}, "scope": {"tasks_read comments_read"}}.Encode()
	c.run(chromedp.Navigate(authURL), chromedp.WaitVisible(fmt.Sprintf(`//input[@name="account"][@value=%q]/..`, s.slug)))
	c.see("oauth-select", "Browser app, an application registered by the account Acme, asks for access", "Sign in as someone else")
	c.run(chromedp.Click(fmt.Sprintf(`//input[@name="account"][@value=%q]/../button`, s.slug)), chromedp.WaitVisible(`//button[@value="allow"]`))
	c.see("oauth-consent", "See tasks and subtasks", "Read comments")
	// The consent page's own main would satisfy a wait for "main": the
	// browser is waited for until it shows the application's page.
	c.run(chromedp.Click(`//button[@value="allow"]`))
	var q url.Values
	select {
	case q = <-codes:
	case <-time.After(30 * time.Second):
		t.Fatal("the browser never reached the application")
	}
	c.arrive(app.URL + "/cb")
	c.see("oauth-redirected", "Signed in to the app")
	if q.Get("state") != "st-1" || q.Get("iss") != s.base || q.Get("code") == "" {
		t.Fatalf("redirect query %v", q)
	}
	s.client = client
	status, tok, _ := s.tokenCall("/oauth2/token", s.creds("grant_type", "authorization_code", "code", q.Get("code"), "redirect_uri", app.URL+"/cb"))
	if status != 200 || tok["access_token"] == nil {
		t.Fatalf("exchanging the browser's code: %d %v", status, tok)
	}

	// Another account's pages are refused.
	s.createAccount("elsewhere", "Elsewhere", "e@example.com", "", "")
	c.run(chromedp.Navigate(s.base+"/a/elsewhere/"), chromedp.WaitVisible(chromedp.CSS("main")))
	c.shot("other-account")
	if got := c.text(); !strings.Contains(got, "There is no such account") {
		t.Fatalf("another account's page shows:\n%s", got)
	}
	c.expectErrors() // the 404 logs a failed resource load, as it should
	c.run(chromedp.Navigate(s.base+"/a/elsewhere/settings/webhooks"), chromedp.WaitVisible(chromedp.CSS("main")))
	if got := c.text(); !strings.Contains(got, "There is no such account") {
		t.Fatalf("another account's settings show:\n%s", got)
	}
	c.expectErrors()
}

// TestBrowserSignInRedirectStaysHome: Chromium, which reads URLs by the
// WHATWG rules (tabs and newlines dropped, "\" read as "/"), signs in with
// hostile "next" targets, in the link and in the form itself, and always
// lands on taskd.
func TestBrowserSignInRedirectStaysHome(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := newSite(t)
	c := newChrome(t)
	for i, next := range []string{"/\t/evil.example/", "/\\evil.example/", "//evil.example/", "/\r\n/evil.example/",
		"\t//evil.example/", "https://evil.example/", "javascript:alert(1)", "/\\/evil.example/"} {
		for _, in := range []string{"link", "form"} {
			login := s.base + "/login"
			if in == "link" {
				login += "?next=" + url.QueryEscape(next)
			}
			c.run(chromedp.Navigate(login), chromedp.WaitVisible(chromedp.CSS("#email")))
			if in == "form" {
				c.run(chromedp.SetValue(chromedp.CSS(`input[name="next"]`), next))
			}
			c.run(chromedp.SendKeys(chromedp.CSS("#email"), ownerEmail), chromedp.SendKeys(chromedp.CSS("#password"), password),
				chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)))
			got := c.location()
			for deadline := time.Now().Add(10 * time.Second); strings.HasPrefix(got, s.base+"/login") && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
				got = c.location()
			}
			if !strings.HasPrefix(got, s.base+"/") || strings.HasPrefix(got, s.base+"/login") {
				c.shot(fmt.Sprintf("redirect-%d-%s", i, in))
				t.Fatalf("next %q in the %s: the browser went to %s", next, in, got)
			}
		}
	}
	c.run(chromedp.WaitVisible(chromedp.CSS("main")))
	c.see("after-hostile-next", "Your accounts")
}
