package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
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
	if p := b.post(list, form); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "HTTP 503") {
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
	op := func(name string) page {
		t.Helper()
		b.post(hook+"/"+name, b.get(hook).form(t, "", "")).location(t)
		return b.get(hook)
	}
	if p := op("test"); !strings.Contains(p.body, "The URL check passed") {
		t.Fatalf("test button:\n%s", p.body)
	}
	if p := op("enable"); !strings.Contains(p.body, "state-green") {
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
	if p := op("enable"); !strings.Contains(p.body, "state-gray") || !strings.Contains(p.body, "HTTP 503") {
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
