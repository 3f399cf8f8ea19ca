package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/wire"
)

// checkTLS: the server speaks HTTPS with the row's certificate.
func checkTLS(t *testing.T, s *flagServer) {
	if !strings.HasPrefix(s.base, "https://") {
		t.Fatalf("serving %s, want HTTPS", s.base)
	}
	if status, _ := s.get(t, "/healthz", nil); status != 200 {
		t.Fatalf("/healthz over HTTPS: %d", status)
	}
}

// checkShutdownTimeout: a request in flight (an add_webhook whose URL check
// the destination never answers) is given up on once the timeout has
// passed, and serve says so; with the default 15 s serve would wait, and the
// check's own 5-second bound would end the request first.
func checkShutdownTimeout(t *testing.T, s *flagServer) {
	hang := newHookReceiver(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, nil)
	go func() { // its answer never comes: the server stops under it
		q := url.Values{"action": {"add_webhook"}, "url": {hang.URL}, "events": {"post_task"}}.Encode()
		if res, err := http.Get(s.account() + "/api/admin/v2/?" + q + "&hash=" + wire.Hash(q, s.key)); err == nil {
			res.Body.Close()
		}
	}()
	<-hang.checked
	s.expectStopError = true
	if err := s.stop(); err == nil || !strings.Contains(err.Error(), "shutdown") {
		t.Fatalf("serve stopped with a request in flight: %v; want it to give up after --shutdown-timeout", err)
	}
}

// checkWebhookWorkers: with one worker, a second webhook's delivery starts
// only once the first one's attempt is over and recorded (its destination
// hangs until the 5-second timeout); with more workers it would arrive
// while the first is still waiting, nothing recorded of it yet.
func checkWebhookWorkers(t *testing.T, s *flagServer) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.st.data, "taskd.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	ids := map[string]string{} // path → webhook id
	var first string           // the path of the delivery that hangs
	overlap, done := make(chan bool, 1), make(chan struct{})
	r := newHookReceiver(t, nil, func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		if first == "" {
			first = req.URL.Path
			mu.Unlock()
			<-req.Context().Done() // until the dispatcher gives up on it
			return
		}
		id := ids[first]
		mu.Unlock()
		var attempts int
		if err := db.QueryRow(`SELECT count(*) FROM attempts WHERE webhook_id = ? AND delivery_id <> 0`, id).Scan(&attempts); err != nil {
			t.Error(err)
		}
		select {
		case overlap <- attempts == 0:
			close(done)
		default:
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	})
	for _, path := range []string{"/a", "/b"} {
		body := s.addWebhook(t, r.URL+path)
		if body["status"] != "ok" {
			t.Fatalf("add_webhook: %v", body)
		}
		mu.Lock()
		ids[path] = fmt.Sprint(body["id"])
		mu.Unlock()
	}
	pid := s.project(t)
	wantOK(t, "post_task")(s.call(t, s.key, "action", "post_task", "id_project", pid, "title", "Heard twice"))
	<-done
	if <-overlap {
		t.Fatal("the second webhook's delivery began while the first one's was in flight, with --webhook-workers 1")
	}
}

// checkWebhookLease: while a delivery is in flight, the webhook's lease in
// the database runs until about an hour from now, not 30 seconds.
func checkWebhookLease(t *testing.T, s *flagServer) {
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	r := newHookReceiver(t, nil, func(w http.ResponseWriter, req *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-req.Context().Done():
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	})
	defer close(release)
	if body := s.addWebhook(t, r.URL); body["status"] != "ok" {
		t.Fatalf("add_webhook: %v", body)
	}
	pid := s.project(t)
	wantOK(t, "post_task")(s.call(t, s.key, "action", "post_task", "id_project", pid, "title", "Leased"))
	<-arrived
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.st.data, "taskd.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var until int64
	if err := db.QueryRow(`SELECT lease_until FROM webhooks`).Scan(&until); err != nil {
		t.Fatal(err)
	}
	if left := time.Until(time.UnixMilli(until)); left < 30*time.Minute {
		t.Fatalf("the lease runs out in %v, want about an hour", left)
	}
}

// checkSecondRefused: with a limit of 1 a minute, the first request
// passes and the next is refused with 429 in the endpoint's form; a third
// is sent when the second fell into the next fixed window (a minute's turn
// between the two), where the first weighs a hair under 1.
func checkSecondRefused(t *testing.T, send func() (status int, refused bool)) {
	t.Helper()
	if status, refused := send(); status == 429 || refused {
		t.Fatalf("the first request was refused: %d", status)
	}
	for range 2 {
		if status, refused := send(); status == 429 && refused {
			return
		}
	}
	t.Fatal("three requests in a row with a limit of 1 a minute, and none refused")
}

// checkInvitationsLimited: with a budget of n, n invitations pass and the
// next is refused with code 24 and a message naming the budget spent
// (containing which), so that the hour's and the day's budgets, given
// different values, cannot stand in for each other.
func checkInvitationsLimited(n int, which string) func(t *testing.T, s *flagServer) {
	return func(t *testing.T, s *flagServer) {
		invite := func() (int, map[string]any) {
			return s.call(t, s.key, "action", "add_user", "email", testaccount.UniqueSlug("invited")+"@example.com")
		}
		for i := range n {
			wantOK(t, fmt.Sprintf("invitation %d of %d", i+1, n))(invite())
		}
		if status, body := invite(); status != 429 || errorCode(body) != 24 || !strings.Contains(fmt.Sprint(body["message"]), which) {
			t.Fatalf("invitation %d with a budget of %d: %d %v; want 429, code 24 and %q", n+1, n, status, body, which)
		}
	}
}

// checkAddressNotLimited: two requests from one address that no account
// is known for are both let through (the limit per address is its
// default), so a limit per account given 1 did not reach the one per
// address.
func checkAddressNotLimited(t *testing.T, send func() (status int)) {
	t.Helper()
	for i := range 2 {
		if status := send(); status == http.StatusTooManyRequests {
			t.Fatalf("request %d of no account from one address was limited: the limit per account reached the one per address", i+1)
		}
	}
}

// wantRefused returns a check that an account-API answer is an error
// whose message contains want, for a call's two results.
func wantRefused(t *testing.T, what, want string) func(int, map[string]any) {
	return func(status int, body map[string]any) {
		t.Helper()
		if body["status"] == "ok" || !strings.Contains(fmt.Sprint(body["message"]), want) {
			t.Fatalf("%s: %d %v; want refused with %q", what, status, body, want)
		}
	}
}

// checkUploadRefused: while an upload is held in flight, another (with the
// extra parameters) is refused with code 24 for the uploads in progress,
// with a message containing want (whose bound it is). The held one may
// itself be refused when it reaches the gate while another is passing; it
// is then held again.
func checkUploadRefused(t *testing.T, s *flagServer, pid, want string, extra ...string) {
	t.Helper()
	held := s.holdUpload(t, pid)
	waitFor(t, "an upload refused beside the one in flight", func() bool {
		select {
		case <-held:
			held = s.holdUpload(t, pid)
		default:
		}
		status, body := s.upload(t, pid, 10, extra...)
		msg, _ := body["message"].(string)
		if status == 429 && errorCode(body) == 24 && strings.Contains(msg, "uploads in progress") && !strings.Contains(msg, want) {
			t.Fatalf("refused by the other bound: %q, want %q", msg, want)
		}
		return status == 429 && errorCode(body) == 24 && strings.Contains(msg, want) // not the API's rate limit
	})
}

// newMasterKey is a fresh base64 master key.
func newMasterKey(t *testing.T) string {
	k := make([]byte, 32)
	rand.Read(k)
	return base64.StdEncoding.EncodeToString(k)
}

// mailServer is a listener standing for a mail server: it counts the
// connections it gets and closes each at once.
type mailServer struct {
	net.Listener
	connections atomic.Int32
}

func newMailServer(t *testing.T) *mailServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &mailServer{Listener: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			m.connections.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return m
}

// checkMailServerReached: an invitation is sent to the mail server named,
// not kept unsent.
func checkMailServerReached(t *testing.T, s *flagServer, m *mailServer) {
	wantOK(t, "an invitation")(s.call(t, s.key, "action", "add_user", "email", testaccount.UniqueSlug("mailed")+"@example.com"))
	waitFor(t, "the mail server to be called", func() bool { return m.connections.Load() > 0 })
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// formToken is the first form token on a page.
func formToken(t *testing.T, page string) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no form token on the page:\n%s", page)
	}
	return html.UnescapeString(m[1])
}

// signedIn signs the account's owner in and returns their client, and a
// function that fetches a page or posts a form with it.
func (s *flagServer) signedIn(t *testing.T) (*http.Client, func(method, path string, form url.Values) (int, string)) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	page := func(method, path string, form url.Values) (int, string) {
		t.Helper()
		var res *http.Response
		var err error
		if method == http.MethodGet {
			res, err = c.Get(s.base + path)
		} else {
			res, err = c.PostForm(s.base+path, form)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	_, login := page(http.MethodGet, "/login", nil)
	if status, body := page(http.MethodPost, "/login", url.Values{"csrf": {formToken(t, login)}, "email": {s.slug + "@example.com"},
		"password": {password}}); status != 200 || !strings.Contains(body, "Your accounts") {
		t.Fatalf("signing in: %d\n%s", status, body)
	}
	return c, page
}

// checkAddressChangesLimited: the owner, signed in, asks for a new address
// twice; with a budget of 1 a day the second is refused with 429.
func checkAddressChangesLimited(t *testing.T, s *flagServer) {
	_, page := s.signedIn(t)
	ask := func() int {
		_, profile := page(http.MethodGet, "/profile", nil)
		status, _ := page(http.MethodPost, "/profile/email", url.Values{"csrf": {formToken(t, profile)},
			"email": {testaccount.UniqueSlug("moved") + "@example.com"}, "password": {password}})
		return status
	}
	if status := ask(); status == http.StatusTooManyRequests {
		t.Fatal("the first address change was refused")
	}
	if status := ask(); status != http.StatusTooManyRequests {
		t.Fatalf("a second address change in a day with a budget of 1: %d", status)
	}
}

// checkLiveStreamsLimited: the owner, signed in, opens a page's live
// stream; with a bound of one (theirs, or their account's) a second is
// refused with 429 and a sentence containing want.
func checkLiveStreamsLimited(want string) func(t *testing.T, s *flagServer) {
	return func(t *testing.T, s *flagServer) {
		c, _ := s.signedIn(t)
		first, err := c.Get(s.account() + "/live")
		if err != nil || first.StatusCode != http.StatusOK {
			t.Fatalf("the first stream: %v %v", first, err)
		}
		defer first.Body.Close()
		// Bounded: a second stream let in would never end.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.account()+"/live", nil)
		second, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Body.Close()
		body, _ := io.ReadAll(second.Body)
		if second.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), want) {
			t.Fatalf("a second stream: %d\n%s", second.StatusCode, body)
		}
	}
}

// checkTrustProxy: with --trust-proxy, the API's limit per address
// (1 a minute) and the token endpoint's (2) count each client by the
// proxy's X-Forwarded-For: first requests from different addresses all get
// through, and only the same address's third token request is refused.
func checkTrustProxy(t *testing.T, s *flagServer) {
	for _, from := range []string{"192.0.2.1", "192.0.2.2"} {
		if status, _ := s.get(t, "/a/"+s.slug+"/api/admin/v2/?action=get_projects", http.Header{"X-Forwarded-For": {from}}); status == 429 {
			t.Fatalf("the first request from %s was limited: its address was not the proxy's word", from)
		}
	}
	token := func(from string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, s.base+"/oauth2/token", strings.NewReader("grant_type=refresh_token"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", from)
		status, _ := s.do(t, req)
		return status
	}
	for _, from := range []string{"198.51.100.1", "198.51.100.2", "198.51.100.3"} {
		if status := token(from); status == 429 {
			t.Fatalf("a token request from %s, the first from it, was limited (2 per address): its address was not the proxy's word", from)
		}
	}
	for i := 1; i <= 3; i++ {
		status := token("198.51.100.9")
		if i < 3 && status == 429 {
			t.Fatalf("token request %d from one address was limited (2 per address)", i)
		}
		if i == 3 && status != 429 {
			t.Fatalf("the third token request from one address: %d, want 429 (2 per address)", status)
		}
	}
}
