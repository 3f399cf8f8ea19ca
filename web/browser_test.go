package web_test

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
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/taskd/taskd/internal/testsite"
)

// chrome is a headless Chromium driving the site, failing the test on any
// console error and saving a screenshot of each step.
type chrome struct {
	t   *testing.T
	ctx context.Context
	*chromeLog
}

// chromeLog is what a chrome keeps for every step of its test: its
// screenshots' directory and count, and the console errors not yet
// checked.
type chromeLog struct {
	dir  string
	step int
	mu   sync.Mutex
	errs []string
}

// in is the chrome as a step of a scenario sees it: the same tab,
// screenshots and console, with t, a subtest of the test that started it,
// the test its checks fail.
func (c *chrome) in(t *testing.T) *chrome {
	d := *c
	d.t = t
	return &d
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
	c := &chrome{t: t, ctx: ctx, chromeLog: &chromeLog{dir: dir}}
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

// signIn signs in on the site at base as the person with the e-mail
// (the test sites' password), and waits for the signed-in page.
func (c *chrome) signIn(base, email string) {
	c.t.Helper()
	c.run(chromedp.Navigate(base+"/login"), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), email), chromedp.SendKeys(chromedp.CSS("#password"), testsite.Password),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Main"]`)))
}

// noScript turns JavaScript off in the browser, for the pages' way
// without it.
func (c *chrome) noScript() {
	c.t.Helper()
	if _, err := chromedp.Call(c.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		c.t.Fatal(err)
	}
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

// consoleMark is the console error expectErrors writes to learn that
// every message logged before it has arrived.
const consoleMark = "taskd-test: the expected errors end here"

// expectErrors drops the console errors a step caused on purpose (a page
// that answers 404 logs a failed resource). The console's messages reach
// the test on their own goroutine, after the page has moved on, so it
// first logs a mark of its own and waits for it: the page logged every
// earlier message before it, and they arrive in order.
func (c *chrome) expectErrors() {
	c.t.Helper()
	c.run(chromedp.Evaluate[chromedp.Void](`console.error(` + strconv.Quote(consoleMark) + `)`))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c.mu.Lock()
		seen := slices.ContainsFunc(c.errs, func(e string) bool { return strings.Contains(e, consoleMark) })
		if seen {
			c.errs = nil
		}
		c.mu.Unlock()
		if seen {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatal("the browser's console did not pass on the test's mark within 10s")
		}
	}
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
	s := testsite.New(t)
	c := newChrome(t)
	acct := s.Base + "/a/" + s.Slug

	// The receiver of the webhook the page makes.
	var mu sync.Mutex
	var events []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var evs []map[string]any
		testsite.DecodeJSON(r, &evs)
		mu.Lock()
		for _, e := range evs {
			events = append(events, e["event"].(string))
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(recv.Close)
	var taskURL, hookURL string

	if !t.Run("the owner signs in and sees their accounts", func(t *testing.T) {
		c := c.in(t)
		c.signIn(s.Base, testsite.OwnerEmail)
		c.see("signed-in", "Your accounts", "Acme", "Other")
	}) {
		return
	}

	if !t.Run("the account's name leads to its projects, where a project is made", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.Click(`//main//a[normalize-space()="Acme"]`), chromedp.WaitVisible(chromedp.CSS("#project-title")))
		if loc := c.location(); loc != acct+"/" {
			t.Fatalf("the account's name led to %s, want %s/", loc, acct)
		}
		c.see("projects-empty", "No active projects yet")
		c.run(chromedp.SendKeys(chromedp.CSS("#project-title"), "Launch"), chromedp.Submit(chromedp.CSS("#project-title")),
			chromedp.WaitVisible(chromedp.CSS("#task-title")))
		c.see("project", "Launch", "No tasks yet")
	}) {
		return
	}

	if !t.Run("the project page makes a task", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.SendKeys(chromedp.CSS("#task-title"), "Write copy"), chromedp.SetValue(chromedp.CSS("#new-priority"), "7"),
			chromedp.Submit(chromedp.CSS("#task-title")), chromedp.WaitVisible(`//a[text()="Write copy"]`))
		c.see("task-created", "Write copy", "P7", "Added “Write copy”. Open it")
	}) {
		return
	}

	if !t.Run("the task page makes a subtask and a comment", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.Click(`//a[text()="Write copy"]`), chromedp.WaitVisible(chromedp.CSS("#subtask-title")))
		c.see("task-page", "Write copy", "No subtasks", "No comments yet")
		taskURL = c.location()

		c.run(chromedp.SendKeys(chromedp.CSS("#subtask-title"), "Outline"), chromedp.Submit(chromedp.CSS("#subtask-title")),
			chromedp.WaitVisible(`//a[text()="Outline"]`))
		c.see("subtask-created", "Outline")

		c.run(chromedp.SendKeys(chromedp.CSS("#new-comment"), "First draft is up"), chromedp.Submit(chromedp.CSS("#new-comment")),
			chromedp.WaitVisible(`//p[text()="First draft is up"]`))
		c.see("commented", "First draft is up")
	}) {
		return
	}

	if !t.Run("the subtask completes, then the task, which reopens", func(t *testing.T) {
		c := c.in(t)
		c.run(chromedp.Click(`//a[text()="Outline"]`), chromedp.WaitVisible(`//button[text()="Complete"]`),
			chromedp.Click(`//button[text()="Complete"]`), chromedp.WaitVisible(`//button[text()="Reopen"]`))
		c.see("subtask-completed", "Outline", "done")
		c.run(chromedp.Navigate(taskURL), chromedp.WaitVisible(`//button[text()="Complete"]`),
			chromedp.Click(`//button[text()="Complete"]`), chromedp.WaitVisible(`//button[text()="Reopen"]`))
		c.see("task-completed", "done")
		c.run(chromedp.Click(`//button[text()="Reopen"]`), chromedp.WaitVisible(`//button[text()="Complete"]`))
		c.see("task-reopened", "Write copy")
	}) {
		return
	}

	// A webhook made in the page fires for a change made in the page.
	if !t.Run("a webhook made in the page shows its secret once, with a copy button", func(t *testing.T) {
		c := c.in(t)
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
		hookURL = c.location()
	}) {
		return
	}

	if !t.Run("the webhook, enabled, fires for a change made in the page", func(t *testing.T) {
		c := c.in(t)
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
	}) {
		return
	}

	if !t.Run("the OAuth consent flow, clicked through, gives a code that exchanges for a token", func(t *testing.T) {
		s, c := s.In(t), c.in(t)
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
		client := s.CreateClient(s.Slug, "Browser app", app.URL+"/cb")
		authURL := s.Base + "/oauth2/authorize?" + url.Values{"client_id": {client["client_id"]}, "response_type": {"code"},
			"redirect_uri": {app.URL + "/cb"}, "state": {"st-1"}, "scope": {"tasks_read comments_read"}}.Encode()
		c.run(chromedp.Navigate(authURL), chromedp.WaitVisible(fmt.Sprintf(`//input[@name="account"][@value=%q]/..`, s.Slug)))
		c.see("oauth-select", "Browser app, an application registered by the account Acme, asks for access", "Sign in as someone else")
		c.run(chromedp.Click(fmt.Sprintf(`//input[@name="account"][@value=%q]/../button`, s.Slug)), chromedp.WaitVisible(`//button[@value="allow"]`))
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
		if q.Get("state") != "st-1" || q.Get("iss") != s.Base || q.Get("code") == "" {
			t.Fatalf("redirect query %v", q)
		}
		s.Client = client
		status, tok, _ := s.TokenCall("/oauth2/token", s.Creds("grant_type", "authorization_code", "code", q.Get("code"), "redirect_uri", app.URL+"/cb"))
		if status != 200 || tok["access_token"] == nil {
			t.Fatalf("exchanging the browser's code: %d %v", status, tok)
		}
	}) {
		return
	}

	t.Run("another account's pages are refused", func(t *testing.T) {
		s, c := s.In(t), c.in(t)
		s.CreateAccount("elsewhere", "Elsewhere", "e@example.com", "", "")
		c.run(chromedp.Navigate(s.Base+"/a/elsewhere/"), chromedp.WaitVisible(chromedp.CSS("main")))
		c.shot("other-account")
		if got := c.text(); !strings.Contains(got, "There is no such account") {
			t.Fatalf("another account's page shows:\n%s", got)
		}
		c.expectErrors() // the 404 logs a failed resource load, as it should
		c.run(chromedp.Navigate(s.Base+"/a/elsewhere/settings/webhooks"), chromedp.WaitVisible(chromedp.CSS("main")))
		if got := c.text(); !strings.Contains(got, "There is no such account") {
			t.Fatalf("another account's settings show:\n%s", got)
		}
		c.expectErrors()
	})
}

// TestBrowserSignInRedirectStaysHome: Chromium, which reads URLs by the
// WHATWG rules (tabs and newlines dropped, "\" read as "/"), signs in with
// hostile "next" targets, in the link and in the form itself, and always
// lands on taskd.
func TestBrowserSignInRedirectStaysHome(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := testsite.New(t)
	c := newChrome(t)
	for i, next := range []string{"/\t/evil.example/", "/\\evil.example/", "//evil.example/", "/\r\n/evil.example/",
		"\t//evil.example/", "https://evil.example/", "javascript:alert(1)", "/\\/evil.example/"} {
		for _, in := range []string{"link", "form"} {
			login := s.Base + "/login"
			if in == "link" {
				login += "?next=" + url.QueryEscape(next)
			}
			c.run(chromedp.Navigate(login), chromedp.WaitVisible(chromedp.CSS("#email")))
			if in == "form" {
				c.run(chromedp.SetValue(chromedp.CSS(`input[name="next"]`), next))
			}
			c.run(chromedp.SendKeys(chromedp.CSS("#email"), testsite.OwnerEmail), chromedp.SendKeys(chromedp.CSS("#password"), testsite.Password),
				chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)))
			got := c.location()
			for deadline := time.Now().Add(10 * time.Second); strings.HasPrefix(got, s.Base+"/login") && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
				got = c.location()
			}
			if !strings.HasPrefix(got, s.Base+"/") || strings.HasPrefix(got, s.Base+"/login") {
				c.shot(fmt.Sprintf("redirect-%d-%s", i, in))
				t.Fatalf("next %q in the %s: the browser went to %s", next, in, got)
			}
		}
	}
	c.run(chromedp.WaitVisible(chromedp.CSS("main")))
	c.see("after-hostile-next", "Your accounts")
}
