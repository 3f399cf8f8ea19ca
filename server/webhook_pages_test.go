package server

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
)

// TestWebhookPages: create a webhook in the settings (disabled, secret
// shown once), test and enable it, see a delivery made by an API change in
// its log and chart, then disable, rotate and delete it. Plain users are
// refused.
func TestWebhookPages(t *testing.T) {
	s := newSite(t)
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

	b := s.browser()
	f := b.get(s.base+"/login").form(t, "", "")
	f.Set("email", ownerEmail)
	f.Set("password", password)
	b.post(s.base+"/login", f).location(t)
	list := s.base + "/a/" + s.slug + "/settings/webhooks"
	p := b.get(list)
	if p.status != 200 || !strings.Contains(p.body, "reopen_task") || !strings.Contains(p.body, "No webhooks yet") {
		t.Fatalf("webhooks page: HTTP %d\n%s", p.status, p.body)
	}

	// A failing URL is refused next to the form, and nothing is stored.
	form := p.form(t, "", "")
	form.Set("url", recv.URL+"/x")
	form["events"] = []string{"post_task", "reopen_task"}
	failing.Store(true)
	if p := b.post(list, form); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "The URL check failed: the receiver answered 503 Service Unavailable.") {
		t.Fatalf("failing URL: HTTP %d\n%s", p.status, p.body)
	}
	failing.Store(false)
	made := b.post(list, form).location(t)
	p = b.get(s.base + made.String())
	m := secretRE.FindStringSubmatch(p.body)
	if m == nil || !strings.HasPrefix(m[1], "whsec_") || !strings.Contains(p.body, "Disabled") {
		t.Fatalf("new webhook page:\n%s", p.body)
	}
	if secretRE.MatchString(b.get(s.base + made.String()).body) {
		t.Fatal("secret shown twice")
	}
	hook := s.base + made.String()
	op := func(name string) page { return b.webhookAction(hook, name) }
	if p := op("test"); !strings.Contains(p.body, "The URL check passed") {
		t.Fatalf("test button:\n%s", p.body)
	}
	if p := op("enable"); !strings.Contains(p.body, "state-green") || !strings.Contains(p.body, "Webhook enabled: no held events") {
		t.Fatalf("enable:\n%s", p.body)
	}

	// A change through the API arrives, and the log and chart show it.
	_, body := apiCall(t, s.accountURL(), s.key, "action=post_project&title=Hooked")
	pid := body["data"].(map[string]any)["id"].(string)
	apiCall(t, s.accountURL(), s.key, "action=post_task&id_project="+pid+"&title=Seen")
	deadline := time.Now().Add(30 * time.Second)
	for p = b.get(hook); !strings.Contains(p.body, "post_task #"); p = b.get(hook) {
		if time.Now().After(deadline) {
			t.Fatalf("no delivery in the log:\n%s", p.body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(p.body, `class="ok-text">OK`) || !strings.Contains(p.body, "1 delivered") {
		t.Fatalf("log or chart:\n%s", p.body)
	}
	// Redeliver from the log.
	rf := p.form(t, "", "")
	for _, fm := range p.forms() {
		if fm.fields.Get("delivery_id") != "" {
			rf = fm.fields
		}
	}
	b.post(hook+"/redeliver", rf).location(t)
	for p = b.get(hook); strings.Count(p.body, "post_task #") < 2; p = b.get(hook) {
		if time.Now().After(deadline) {
			t.Fatalf("redelivery never logged:\n%s", p.body)
		}
		time.Sleep(10 * time.Millisecond)
	}

	if p := op("disable"); !strings.Contains(p.body, "state-gray") {
		t.Fatalf("disable:\n%s", p.body)
	}
	if p := op("rotate"); !secretRE.MatchString(p.body) || strings.Contains(p.body, m[1]) {
		t.Fatalf("rotate:\n%s", p.body)
	}
	// Enabling against a failing URL keeps it disabled and says why.
	failing.Store(true)
	if p := op("enable"); !strings.Contains(p.body, "state-gray") ||
		!strings.Contains(p.body, "The URL check failed: the receiver answered 503 Service Unavailable.") ||
		!strings.Contains(p.body, "Why disabled:</span> The URL check failed when enabling: the receiver answered 503 Service Unavailable") {
		t.Fatalf("enable against a failing URL:\n%s", p.body)
	}
	// A plain user cannot reach or change it.
	u := s.browser()
	uf := u.get(s.base+"/login").form(t, "", "")
	uf.Set("email", userEmail)
	uf.Set("password", password)
	u.post(s.base+"/login", uf).location(t)
	if p := u.get(hook); p.status != http.StatusForbidden {
		t.Fatalf("user on a webhook page: HTTP %d", p.status)
	}
	if p := u.post(hook+"/delete", url.Values{"csrf": {u.get(s.base+"/login").form(t, "", "").Get("csrf")}}); p.status != http.StatusForbidden {
		t.Fatalf("user deleting a webhook: HTTP %d", p.status)
	}
	b.post(hook+"/delete", b.get(hook).form(t, "", "")).location(t)
	if p := b.get(hook); p.status != http.StatusNotFound {
		t.Fatalf("deleted webhook page: HTTP %d", p.status)
	}
}

// TestWebhookLogSaysWhy: every failed attempt in a webhook's delivery log
// gives one reason in plain words, once ("The receiver answered 401
// Unauthorized", not "HTTP 401: HTTP 401, want 200"), for URL checks and
// deliveries alike, and so do the last error and the test button's notice;
// times sit in cells that do not wrap.
func TestWebhookLogSaysWhy(t *testing.T) {
	s := newSite(t)
	var answer atomic.Value // func(http.ResponseWriter)
	answer.Store(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	})
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer.Load().(func(http.ResponseWriter))(w)
	}))
	t.Cleanup(recv.Close)
	b := s.signedIn(ownerEmail)
	hook := s.addWebhookOnPage(b, recv.URL+"/in")
	post := func(op string) page { return b.webhookAction(hook, op) }
	shows := func(p page, want ...string) {
		t.Helper()
		text := html.UnescapeString(p.body)
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Fatalf("the webhook page lacks %q:\n%s", w, p.body)
			}
		}
		for _, raw := range []string{"want 200", "HTTP 401", "HTTP 503:"} {
			if strings.Contains(text, raw) {
				t.Fatalf("the webhook page shows %q:\n%s", raw, p.body)
			}
		}
	}
	if p := b.get(hook); !strings.Contains(p.body, "No deliveries in the last 24 hours") || strings.Contains(p.body, `<svg class="chart"`) {
		t.Fatalf("a new webhook's chart is not an empty state:\n%s", p.body)
	}
	post("enable")

	// A delivery answered 401.
	answer.Store(func(w http.ResponseWriter) { http.Error(w, "who are you", http.StatusUnauthorized) })
	_, body := apiCall(t, s.accountURL(), s.key, "action=post_project&title=Watched")
	apiCall(t, s.accountURL(), s.key, "action=post_task&title=Seen&id_project="+body["data"].(map[string]any)["id"].(string))
	deadline := time.Now().Add(30 * time.Second)
	p := b.get(hook)
	// The attempt and the webhook's last error are written apart: wait for both.
	for ; !strings.Contains(p.body, "post_task #") || !strings.Contains(p.body, "Last error:"); p = b.get(hook) {
		if time.Now().After(deadline) {
			t.Fatalf("no delivery in the log:\n%s", p.body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	shows(p, `<td class="reason"><span class="error">The receiver answered 401 Unauthorized</span></td>`,
		`<span class="muted">Last error:</span> <span class="error">The receiver answered 401 Unauthorized</span>`)
	rows := logRowRE.FindAllString(p.body, -1)
	if len(rows) == 0 {
		t.Fatalf("no rows in the delivery log:\n%s", p.body)
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
	for name, d := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := newOAuthSite(t, d)
			var mu sync.Mutex
			var got []string
			recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var evs []map[string]any
				decodeJSON(r, &evs)
				mu.Lock()
				for _, e := range evs {
					got = append(got, e["event"].(string))
				}
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"status":"OK"}`))
			}))
			t.Cleanup(recv.Close)
			b := s.signedIn(ownerEmail)
			hook := s.addWebhookOnPage(b, recv.URL+"/in")
			id, err := strconv.ParseInt(path.Base(hook), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			post := func(op string) page { return b.webhookAction(hook, op) }
			if p := post("enable"); !strings.Contains(p.body, "Webhook enabled: no held events; new events will be sent as they happen.") {
				t.Fatalf("enabling a new webhook:\n%s", p.body)
			}
			post("disable")

			_, body := apiCall(t, s.accountURL(), s.key, "action=post_project&title=Held")
			pid := body["data"].(map[string]any)["id"].(string)
			for _, title := range []string{"one", "two", "three"} {
				apiCall(t, s.accountURL(), s.key, "action=post_task&id_project="+pid+"&title="+title)
			}
			acct, err := s.setup.AccountBySlug(context.Background(), s.slug)
			if err != nil {
				t.Fatal(err)
			}
			// The dispatcher fans the events out while the webhook is
			// disabled; wait until they wait for it.
			deadline := time.Now().Add(30 * time.Second)
			for {
				n, err := s.setup.HeldEvents(context.Background(), acct.ID, id)
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
			if p := post("enable"); !strings.Contains(p.body, "Webhook enabled: 3 held events will now be sent.") {
				t.Fatalf("enabling with three held events:\n%s", p.body)
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
}

// addWebhookOnPage adds a webhook for post_task on the settings page, as
// b, and returns the address of its page.
func (s *oauthSite) addWebhookOnPage(b *browser, url string) string {
	s.t.Helper()
	list := s.base + "/a/" + s.slug + "/settings/webhooks"
	form := b.get(list).form(s.t, "", "")
	form.Set("url", url)
	form["events"] = []string{"post_task"}
	return s.base + b.post(list, form).location(s.t).Path
}

// webhookAction presses one of a webhook page's buttons (enable, disable,
// test, rotate…) with the page's form token, follows the redirect, and
// returns the page as it then reads.
func (b *browser) webhookAction(hook, action string) page {
	b.t.Helper()
	b.post(hook+"/"+action, b.get(hook).form(b.t, "", "")).location(b.t)
	return b.get(hook)
}
