package server_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/internal/upload"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/server"
	"github.com/taskd/taskd/wire"
)

// TestPasswordChecksAreThrottled: the current-password checks of the
// profile count against the sign-in limit of the person's address, on
// every replica: of 40 wrong guesses at once through a session, on the
// password form and the e-mail form, 10 are evaluated; then the right
// password is refused there and at sign-in until the window slides.
func TestPasswordChecksAreThrottled(t *testing.T) {
	t.Parallel()
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		second := s.Replica()
		email := testaccount.UniqueSlug("guessed") + "@acme.example"
		s.AddMember(s.Slug, email, "", "", taskd.RoleUser)
		b := s.SignedIn(email)
		profile := b.Get(s.Base + "/profile")
		// The guesses start just after the turn of a minute, the limiter's
		// bucket: at a turn, a guess counted in the new bucket may refuse
		// one counted just before it in the old (ratelimit.Strict.Judge),
		// and fewer than 10 would be evaluated.
		now := s.Clock.Now()
		s.Clock.Advance(now.Truncate(time.Minute).Add(time.Minute + 100*time.Millisecond).Sub(now))
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for i := range 40 {
			base, form, set := s.Base, "/profile/password", url.Values{"password": {"guess"}, "new_password": {"a new password"}}
			if i%2 == 1 {
				base, form, set = second, "/profile/email", url.Values{"password": {"guess"}, "email": {"thief@example.com"}}
			}
			fields := profile.Form(t, "", "")
			for k, v := range set {
				fields[k] = v
			}
			wg.Go(func() {
				p := b.Post(base+form, fields)
				mu.Lock()
				statuses[p.Status]++
				mu.Unlock()
				if p.Status == http.StatusTooManyRequests && (p.Header.Get("Retry-After") == "" || !strings.Contains(p.Body, "Too many wrong passwords")) {
					t.Errorf("a refused guess: Retry-After %q\n%s", p.Header.Get("Retry-After"), p.Body)
				}
			})
		}
		wg.Wait()
		if statuses[http.StatusUnprocessableEntity] != 10 || statuses[http.StatusTooManyRequests] != 30 {
			t.Fatalf("40 guesses through a session: %v; want 10 × 422 and 30 × 429", statuses)
		}
		right := profile.Form(t, "", "")
		right.Set("password", testsite.Password)
		right.Set("new_password", "a new password")
		if p := b.Post(s.Base+"/profile/password", right); p.Status != http.StatusTooManyRequests {
			t.Fatalf("the right password after 10 wrong guesses: HTTP %d", p.Status)
		}
		other := s.Browser()
		f := other.Get(s.Base+"/login").Form(t, "", "")
		f.Set("email", email)
		f.Set("password", testsite.Password)
		if p := other.Post(s.Base+"/login", f); p.Status != http.StatusTooManyRequests {
			t.Fatalf("signing in after 10 wrong guesses through a session: HTTP %d", p.Status)
		}
		s.Clock.Advance(16 * 60 * 1e9)
		if p := b.Post(s.Base+"/profile/password", right); p.Status != http.StatusSeeOther {
			t.Fatalf("the right password once the window slid: HTTP %d", p.Status)
		}
	})
}

// TestMailBudget: invitations are bounded per account and hour (and day),
// mail that others cause to one address per day, across accounts and
// kinds; beyond, the API answers 24 / 429 and the pages a sentence with
// 429, both with Retry-After; a reset request over an address's budget
// answers the same whether the address is known.
func TestMailBudget(t *testing.T) {
	t.Parallel()
	s := testsite.Limited(t, testdb.New(t, "sqlite"), server.Limits{Mail: people.MailLimits{AccountHour: 3, AccountDay: 100, RecipientDay: 3, PersonDay: 2}})
	invite := func(email string) (int, map[string]any) {
		t.Helper()
		return testsite.APICall(t, s.AccountURL(), s.Key, "action=add_user&email="+url.QueryEscape(email))
	}
	for i := range 3 {
		if status, body := invite(testaccount.UniqueSlug("budget") + "@example.com"); status != 200 || body["status"] != "ok" {
			t.Fatalf("invitation %d: %d %v", i+1, status, body)
		}
	}
	status, body := invite(testaccount.UniqueSlug("budget") + "@example.com")
	if status != 429 || body["status_code"] != float64(24) || !strings.Contains(body["message"].(string)+" "+testsite.JSON(body), "invitations in the last hour") {
		t.Fatalf("the 4th invitation within an hour: %d %v", status, body)
	}
	owner := s.SignedIn(testsite.OwnerEmail)
	acct := "/a/" + s.Slug
	p := owner.Submit(s.Base, owner.Get(s.Base+acct+"/people"), acct+"/people", url.Values{"email": {"page@example.com"}, "role": {"user"}})
	if p.Status != http.StatusTooManyRequests || p.Header.Get("Retry-After") == "" || !strings.Contains(p.Body, "as many invitations in the last hour as it may") {
		t.Fatalf("the page's 4th invitation: HTTP %d\n%s", p.Status, p.Body)
	}
	// A refused invitation (already invited) costs nothing.
	s.Clock.Advance(61 * 60 * 1e9)
	target := testaccount.UniqueSlug("target") + "@example.com"
	if status, body := invite(target); status != 200 {
		t.Fatalf("after the hour: %d %v", status, body)
	}
	if status, body := invite(target); body["status_code"] != float64(23) {
		t.Fatalf("inviting twice: %d %v", status, body)
	}
	// Per recipient, across accounts: three accounts' invitations of one
	// address are its day's budget, a fourth's is refused.
	for i := range 3 {
		slug := testaccount.UniqueSlug("elsewhere")
		key := s.CreateAccount(slug, "Elsewhere", testaccount.UniqueSlug("o")+"@example.com", "", "")
		status, body := testsite.APICall(t, s.Base+"/a/"+slug, key, "action=add_user&email="+url.QueryEscape(target))
		if want := i < 2; want != (status == 200) || (!want && body["status_code"] != float64(24)) {
			t.Fatalf("account %d inviting %s (invited once already): %d %v", i+2, target, status, body)
		}
	}
	// And across kinds: resets of a known and of an unknown address take
	// the same budget and are refused alike beyond it.
	r := s.Browser()
	reset := func(email string) testsite.Page {
		return r.Submit(s.Base, r.Get(s.Base+"/reset"), "/reset", url.Values{"email": {email}})
	}
	known, unknown := testsite.UserEmail, testaccount.UniqueSlug("nobody")+"@example.com"
	for i := range 3 {
		for _, e := range []string{known, unknown} {
			if p := reset(e); p.Status != http.StatusOK {
				t.Fatalf("reset %d of %s: HTTP %d", i+1, e, p.Status)
			}
		}
	}
	k, u := reset(known), reset(unknown)
	if k.Status != http.StatusTooManyRequests || u.Status != http.StatusTooManyRequests ||
		strings.ReplaceAll(k.Body, known, "E") != strings.ReplaceAll(u.Body, unknown, "E") {
		t.Fatalf("a 4th reset request of a known and an unknown address: HTTP %d and %d", k.Status, u.Status)
	}
	if status, body := invite(known); status != 429 || body["status_code"] != float64(24) ||
		!strings.Contains(body["message"].(string), "This address has been sent as much mail") {
		t.Fatalf("inviting an address over its budget: %d %v", status, body)
	}
	// A person asks for two address changes a day, each mailed to an
	// address of their choosing; the third is refused beside its form.
	mover := s.SignedIn(testsite.UserEmail)
	for i := range 3 {
		p := mover.Submit(s.Base, mover.Get(s.Base+"/profile"), "/profile/email", url.Values{"password": {testsite.Password}, "email": {testaccount.UniqueSlug("new") + "@example.com"}})
		if i < 2 && p.Status != http.StatusSeeOther {
			t.Fatalf("address change %d: HTTP %d", i+1, p.Status)
		}
		if i == 2 && (p.Status != http.StatusTooManyRequests || !strings.Contains(p.Body, "You have asked to change your address as often today as you may")) {
			t.Fatalf("a third address change in a day: HTTP %d\n%s", p.Status, p.Body)
		}
	}
}

// TestSlowUploadsAreBounded: requests whose files never finish arriving
// hold at most PerPerson of a person's uploads at once (the API's and the
// pages' together) and PerAccount of an account's; beyond, uploads are
// refused with 24 / 429 at once, and a body that falls behind its pace is
// cut off, which frees its place.
func TestSlowUploadsAreBounded(t *testing.T) {
	t.Parallel()
	s := testsite.Limited(t, testdb.New(t, "sqlite"),
		server.Limits{Uploads: upload.Limits{PerPerson: 2, PerAccount: 3, MinRate: 1 << 10, Grace: 3 * time.Second, Idle: 3 * time.Second}})
	addr := strings.TrimPrefix(s.Base, "http://")
	q := "action=upload_files"
	apiPath := "/a/" + s.Slug + "/api/admin/v2/?" + q + "&hash=" + wire.Hash(q, s.Key) // the key acts as the owner
	apiUpload := func() *trickle {
		return startTrickle(t, addr, "POST "+apiPath+" HTTP/1.1\r\nHost: taskd\r\nContent-Type: multipart/form-data; boundary=B\r\n"+
			"Content-Length: 1000000\r\n\r\n--B\r\nContent-Disposition: form-data; name=\"files[]\"; filename=\"slow.txt\"\r\n\r\nhello")
	}
	ownerUpload := func() (int, map[string]any) { return quickUpload(t, s.Base+apiPath, http.Header{}) }
	owner := s.SignedIn(testsite.OwnerEmail)
	project := s.APIOK("action=post_project&title=Files")["data"].(map[string]any)["id"].(string)
	task := s.APIOK("action=post_task&id_project=" + project + "&title=Doc")["data"].(map[string]any)["id"].(string)
	filesPath := "/a/" + s.Slug + "/tasks/" + task + "/files"
	csrf := owner.Get(s.AccountURL()+"/project/"+project+"/"+task+"/").Form(t, "", "").Get("csrf")

	t.Run("API uploads", func(t *testing.T) {
		stalled, status, body := holdPlaces(t, 2, apiUpload, ownerUpload)
		if status != http.StatusTooManyRequests || body["status_code"] != float64(24) || !strings.Contains(body["message"].(string), "2 uploads in progress") ||
			body["message_details"] != "files[]" { // the part refused, not id_file
			t.Fatalf("a third upload of one person beside two stalled: %d %v", status, body)
		}
		// A refused upload is answered at once, though its body never ends:
		// the server does not wait for the rest of it.
		third := apiUpload()
		third.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(third.conn), nil)
		if err != nil || res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
			t.Fatalf("a third stalled upload of one person: %v %v", res, err)
		}
		third.stop()
		// Another person of the account still may: the account has room for 3.
		access, _ := s.GrantOf(s.SignedIn(testsite.UserEmail), testsite.UserEmail, "files_write")
		if status, body := quickUpload(t, s.AccountURL()+"/api/oauth2?action=upload_files", http.Header{"Authorization": {"Bearer " + access}}); status != 200 {
			t.Fatalf("another person's upload beside them: %d %v", status, body)
		}
		// The person's form upload on a page counts with their API uploads.
		p := owner.PostMultipart(s.Base+filesPath, [][2]string{{"csrf", csrf}}, testsite.FormFile{Field: "file", Name: "page.txt", Type: "text/plain", Content: "page"})
		if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Body, "2 uploads in progress") {
			t.Fatalf("a page upload of the person beside two stalled: HTTP %d\n%s", p.Status, p.Body)
		}
		// Once they stall, the bodies fall behind their pace and are cut
		// off, which frees their places.
		for _, tr := range stalled {
			tr.stall(t)
		}
		if status, body := eventually(ownerUpload, http.StatusOK); status != http.StatusOK {
			t.Fatalf("an upload once the stalled ones ended: %d %v", status, body)
		}
	})

	t.Run("page uploads", func(t *testing.T) {
		var cookies []string
		for _, c := range owner.C.Jar.Cookies(&url.URL{Scheme: "http", Host: addr, Path: "/"}) {
			cookies = append(cookies, c.Name+"="+c.Value)
		}
		pageUpload := func() *trickle {
			return startTrickle(t, addr, "POST "+filesPath+" HTTP/1.1\r\nHost: "+addr+"\r\nCookie: "+strings.Join(cookies, "; ")+
				"\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 1000000\r\n\r\n"+
				"--B\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n"+csrf+"\r\n"+
				"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.txt\"\r\n\r\nhello")
		}
		stalled, status, body := holdPlaces(t, 2, pageUpload, ownerUpload)
		if status != http.StatusTooManyRequests || body["status_code"] != float64(24) {
			t.Fatalf("an API upload of a person with two page uploads in progress: %d %v", status, body)
		}
		for _, tr := range stalled {
			tr.stall(t)
		}
		if status, body := eventually(ownerUpload, http.StatusOK); status != http.StatusOK {
			t.Fatalf("an upload once the stalled page uploads ended: %d %v", status, body)
		}
	})
}

// trickle is a request whose body never ends: it arrives at 5 KiB/s,
// above its pace, until it stalls.
type trickle struct {
	conn net.Conn
	stop func()
}

// startTrickle sends head (a request and the start of its body) and then
// trickles.
func startTrickle(t *testing.T, addr, head string) *trickle {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	tr := &trickle{conn: c, stop: sync.OnceFunc(func() { close(stopped) })}
	t.Cleanup(func() { tr.stop(); c.Close() })
	fmt.Fprint(c, head)
	go func() {
		for {
			select {
			case <-stopped:
				return
			case <-time.After(200 * time.Millisecond):
				c.Write(bytes.Repeat([]byte("x"), 1<<10))
			}
		}
	}()
	return tr
}

// stall stops the trickle and waits until the server ends the request.
func (tr *trickle) stall(t *testing.T) {
	t.Helper()
	tr.stop()
	tr.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.Copy(io.Discard, tr.conn); err != nil {
		t.Fatalf("a stalled upload was not ended by the server: %v", err)
	}
}

// holdPlaces starts n uploads of one person that hold their places, and
// returns them with the answer to probe, another upload of that person,
// once it is refused. A probe may take a place before an upload does
// (that upload is then answered at once, and started again).
func holdPlaces(t *testing.T, n int, start func() *trickle, probe func() (int, map[string]any)) ([]*trickle, int, map[string]any) {
	t.Helper()
	held := make([]*trickle, n)
	for i := range held {
		held[i] = start()
	}
	var status int
	var body map[string]any
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		for i, tr := range held {
			if answered(tr.conn) {
				held[i] = start()
			}
		}
		if status, body = probe(); status == http.StatusTooManyRequests {
			break
		}
	}
	return held, status, body
}

// eventually calls f until it answers want, for up to 10 seconds, and
// returns its last answer.
func eventually(f func() (int, map[string]any), want int) (int, map[string]any) {
	var status int
	var body map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if status, body = f(); status == want {
			break
		}
	}
	return status, body
}

// quickUpload sends one small file to an upload_files URL.
func quickUpload(t *testing.T, url string, header http.Header) (int, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("files[]", "quick.txt")
	fw.Write([]byte("quick"))
	w.Close()
	req, _ := http.NewRequest("POST", url, &body)
	req.Header = header
	req.Header.Set("Content-Type", w.FormDataContentType())
	status, out, _ := testsite.DoJSON(t, req)
	return status, out
}

// answered reports whether the server has answered (or closed) a request
// whose body is still being sent.
func answered(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	defer c.SetReadDeadline(time.Time{})
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}
