package web_test

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testsite"
)

// TestWebhookPages: create a webhook in the settings (disabled, secret
// shown once), test and enable it, see a delivery made by an API change in
// its log and chart, then disable, rotate and delete it. Plain users are
// refused.
func TestWebhookPages(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var failing atomic.Bool
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(recv.Close)

	b := s.Browser()
	f := b.Get(s.Base+"/login").Form(t, "", "")
	f.Set("email", testsite.OwnerEmail)
	f.Set("password", testsite.Password)
	b.Post(s.Base+"/login", f).Location(t)
	list := s.Base + "/a/" + s.Slug + "/settings/webhooks"
	var (
		p        testsite.Page
		form     url.Values
		m        []string
		hook     string
		deadline time.Time
	)
	// op presses one of the webhook page's buttons.
	op := func(t *testing.T, name string) testsite.Page { return b.In(t).WebhookAction(hook, name) }

	if !t.Run("the webhooks page lists the events, and no webhooks yet", func(t *testing.T) {
		b := b.In(t)
		p = b.Get(list)
		if p.Status != 200 || !strings.Contains(p.Body, "reopen_task") || !strings.Contains(p.Body, "No webhooks yet") {
			t.Fatalf("webhooks page: HTTP %d\n%s", p.Status, p.Body)
		}
	}) {
		return
	}

	if !t.Run("a failing URL is refused next to the form, and nothing is stored", func(t *testing.T) {
		b := b.In(t)
		form = p.Form(t, "", "")
		form.Set("url", recv.URL+"/x")
		form["events"] = []string{"post_task", "reopen_task"}
		failing.Store(true)
		if p := b.Post(list, form); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "The URL check failed: the receiver answered 503 Service Unavailable.") {
			t.Fatalf("failing URL: HTTP %d\n%s", p.Status, p.Body)
		}
	}) {
		return
	}

	if !t.Run("a webhook is made disabled, its secret shown once", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		failing.Store(false)
		made := b.Post(list, form).Location(t)
		p = b.Get(s.Base + made.String())
		m = testsite.SecretRE.FindStringSubmatch(p.Body)
		if m == nil || !strings.HasPrefix(m[1], "whsec_") || !strings.Contains(p.Body, "Disabled") {
			t.Fatalf("new webhook page:\n%s", p.Body)
		}
		if testsite.SecretRE.MatchString(b.Get(s.Base + made.String()).Body) {
			t.Fatal("secret shown twice")
		}
		hook = s.Base + made.String()
	}) {
		return
	}

	if !t.Run("the test button checks the URL, and enabling turns the webhook green", func(t *testing.T) {
		if p := op(t, "test"); !strings.Contains(p.Body, "The URL check passed") {
			t.Fatalf("test button:\n%s", p.Body)
		}
		if p := op(t, "enable"); !strings.Contains(p.Body, "state-green") || !strings.Contains(p.Body, "Webhook enabled: no held events") {
			t.Fatalf("enable:\n%s", p.Body)
		}
	}) {
		return
	}

	if !t.Run("a change through the API arrives, and the log and chart show it", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		pid := s.APIID("action=post_project&title=Hooked")
		testsite.APICall(t, s.AccountURL(), s.Key, "action=post_task&id_project="+pid+"&title=Seen")
		deadline = time.Now().Add(30 * time.Second)
		for p = b.Get(hook); !strings.Contains(p.Body, "post_task #"); p = b.Get(hook) {
			if time.Now().After(deadline) {
				t.Fatalf("no delivery in the log:\n%s", p.Body)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if !strings.Contains(p.Body, `class="ok-text">OK`) || !strings.Contains(p.Body, "1 delivered") {
			t.Fatalf("log or chart:\n%s", p.Body)
		}
	}) {
		return
	}

	if !t.Run("a delivery is redelivered from the log", func(t *testing.T) {
		b := b.In(t)
		rf := p.Form(t, "", "")
		for _, fm := range p.Forms() {
			if fm.Fields.Get("delivery_id") != "" {
				rf = fm.Fields
			}
		}
		b.Post(hook+"/redeliver", rf).Location(t)
		for p = b.Get(hook); strings.Count(p.Body, "post_task #") < 2; p = b.Get(hook) {
			if time.Now().After(deadline) {
				t.Fatalf("redelivery never logged:\n%s", p.Body)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}) {
		return
	}

	if !t.Run("disabling turns the webhook gray, and rotating shows a new secret", func(t *testing.T) {
		if p := op(t, "disable"); !strings.Contains(p.Body, "state-gray") {
			t.Fatalf("disable:\n%s", p.Body)
		}
		if p := op(t, "rotate"); !testsite.SecretRE.MatchString(p.Body) || strings.Contains(p.Body, m[1]) {
			t.Fatalf("rotate:\n%s", p.Body)
		}
	}) {
		return
	}

	if !t.Run("enabling against a failing URL keeps the webhook disabled and says why", func(t *testing.T) {
		failing.Store(true)
		if p := op(t, "enable"); !strings.Contains(p.Body, "state-gray") ||
			!strings.Contains(p.Body, "The URL check failed: the receiver answered 503 Service Unavailable.") ||
			!strings.Contains(p.Body, "Why disabled:</span> The URL check failed when enabling: the receiver answered 503 Service Unavailable") {
			t.Fatalf("enable against a failing URL:\n%s", p.Body)
		}
	}) {
		return
	}

	if !t.Run("a plain user cannot reach or change the webhook", func(t *testing.T) {
		s := s.In(t)
		u := s.Browser()
		uf := u.Get(s.Base+"/login").Form(t, "", "")
		uf.Set("email", testsite.UserEmail)
		uf.Set("password", testsite.Password)
		u.Post(s.Base+"/login", uf).Location(t)
		if p := u.Get(hook); p.Status != http.StatusForbidden {
			t.Fatalf("user on a webhook page: HTTP %d", p.Status)
		}
		if p := u.Post(hook+"/delete", url.Values{"csrf": {u.Get(s.Base+"/login").Form(t, "", "").Get("csrf")}}); p.Status != http.StatusForbidden {
			t.Fatalf("user deleting a webhook: HTTP %d", p.Status)
		}
	}) {
		return
	}

	t.Run("the owner deletes the webhook", func(t *testing.T) {
		b := b.In(t)
		b.Post(hook+"/delete", b.Get(hook).Form(t, "", "")).Location(t)
		if p := b.Get(hook); p.Status != http.StatusNotFound {
			t.Fatalf("deleted webhook page: HTTP %d", p.Status)
		}
	})
}

// TestWebhookLogSaysWhy: every failed attempt in a webhook's delivery log
// gives one reason in plain words, once ("The receiver answered 401
// Unauthorized", not "HTTP 401: HTTP 401, want 200"), for URL checks and
// deliveries alike, and so do the last error and the test button's notice;
// times sit in cells that do not wrap.
func TestWebhookLogSaysWhy(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var answer atomic.Value // func(http.ResponseWriter)
	answer.Store(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	})
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer.Load().(func(http.ResponseWriter))(w)
	}))
	t.Cleanup(recv.Close)
	b := s.SignedIn(testsite.OwnerEmail)
	hook := s.AddWebhookOnPage(b, recv.URL+"/in")
	post := func(op string) testsite.Page { return b.WebhookAction(hook, op) }
	shows := func(p testsite.Page, want ...string) {
		t.Helper()
		text := html.UnescapeString(p.Body)
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Fatalf("the webhook page lacks %q:\n%s", w, p.Body)
			}
		}
		for _, raw := range []string{"want 200", "HTTP 401", "HTTP 503:"} {
			if strings.Contains(text, raw) {
				t.Fatalf("the webhook page shows %q:\n%s", raw, p.Body)
			}
		}
	}
	if p := b.Get(hook); !strings.Contains(p.Body, "No deliveries in the last 24 hours") || strings.Contains(p.Body, `<svg class="chart"`) {
		t.Fatalf("a new webhook's chart is not an empty state:\n%s", p.Body)
	}
	post("enable")

	// A delivery answered 401.
	answer.Store(func(w http.ResponseWriter) { http.Error(w, "who are you", http.StatusUnauthorized) })
	_, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=post_project&title=Watched")
	testsite.APICall(t, s.AccountURL(), s.Key, "action=post_task&title=Seen&id_project="+body["data"].(map[string]any)["id"].(string))
	deadline := time.Now().Add(30 * time.Second)
	p := b.Get(hook)
	// The attempt and the webhook's last error are written apart: wait for both.
	for ; !strings.Contains(p.Body, "post_task #") || !strings.Contains(p.Body, "Last error:"); p = b.Get(hook) {
		if time.Now().After(deadline) {
			t.Fatalf("no delivery in the log:\n%s", p.Body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	shows(p, `<td class="reason"><span class="error">The receiver answered 401 Unauthorized</span></td>`,
		`<span class="muted">Last error:</span> <span class="error">The receiver answered 401 Unauthorized</span>`)
	rows := logRowRE.FindAllString(p.Body, -1)
	if len(rows) == 0 {
		t.Fatalf("no rows in the delivery log:\n%s", p.Body)
	}
	for _, row := range rows {
		if !strings.Contains(row, `<td class="date">`) {
			t.Fatalf("a log row's time is not in a date cell: %s", row)
		}
		if strings.Contains(row, "post_task #") && strings.Count(row, "401") != 1 {
			t.Fatalf("the failed delivery's row does not say 401 exactly once: %s", row)
		}
	}

	// URL checks from the test button, each failing its own way.
	answer.Store(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>OK</p>"))
	})
	shows(post("test"), `The URL check failed: the receiver's answer has the content type "text/html", not JSON. Its answer: <p>OK</p>`,
		`<span class="error">The receiver's answer has the content type "text/html", not JSON</span>`)
	answer.Store(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"maybe"}`))
	})
	shows(post("test"), `<span class="error">The receiver's answer is not a JSON object with "status": "OK"</span>`)
	recv.Close()
	shows(post("test"), "The URL check failed: the receiver's host refused the connection.",
		`<span class="error">The receiver's host refused the connection</span>`)
}

var logRowRE = regexp.MustCompile(`(?s)<tr>\s*<td.*?</tr>`)

// TestWebhookEnableCountsHeld: on both databases, enabling a disabled
// webhook says how many held events it will now send: none at first, then
// the three changes it subscribes to that came while it was disabled (not
// the one it does not), which then arrive.
func TestWebhookEnableCountsHeld(t *testing.T) {
	t.Parallel()
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		var mu sync.Mutex
		var got []string
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var evs []map[string]any
			testsite.DecodeJSON(r, &evs)
			mu.Lock()
			for _, e := range evs {
				got = append(got, e["event"].(string))
			}
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"status":"OK"}`))
		}))
		t.Cleanup(recv.Close)
		b := s.SignedIn(testsite.OwnerEmail)
		hook := s.AddWebhookOnPage(b, recv.URL+"/in")
		id, err := strconv.ParseInt(path.Base(hook), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		post := func(op string) testsite.Page { return b.WebhookAction(hook, op) }
		if p := post("enable"); !strings.Contains(p.Body, "Webhook enabled: no held events; new events will be sent as they happen.") {
			t.Fatalf("enabling a new webhook:\n%s", p.Body)
		}
		post("disable")

		pid := s.APIID("action=post_project&title=Held")
		for _, title := range []string{"one", "two", "three"} {
			testsite.APICall(t, s.AccountURL(), s.Key, "action=post_task&id_project="+pid+"&title="+title)
		}
		acct, err := s.Store.AccountBySlug(context.Background(), s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		// The dispatcher fans the events out while the webhook is
		// disabled; wait until they wait for it.
		deadline := time.Now().Add(30 * time.Second)
		for {
			n, err := s.Store.HeldEvents(context.Background(), acct.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			if n == 3 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d events held, want 3", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		early := len(got)
		mu.Unlock()
		if early != 0 {
			t.Fatalf("a disabled webhook sent %d events", early)
		}
		if p := post("enable"); !strings.Contains(p.Body, "Webhook enabled: 3 held events will now be sent.") {
			t.Fatalf("enabling with three held events:\n%s", p.Body)
		}
		for {
			mu.Lock()
			sent := strings.Join(got, " ")
			mu.Unlock()
			if sent == "post_task post_task post_task" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after enabling, the receiver got %q", sent)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
