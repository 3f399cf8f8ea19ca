package server_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/server"
)

// TestSignInLimitHoldsInParallel: 40 wrong passwords for one e-mail sent at
// once, on two replicas, have exactly 10 evaluated; the other 30 are
// refused before their password is checked.
func TestSignInLimitHoldsInParallel(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		second := s.Replica()
		email := testaccount.UniqueSlug("guessed") + "@acme.example" // its failures must not lock out other tests' people
		s.AddMember(s.Slug, email, "", "", taskd.RoleUser)
		b := s.Browser()
		f := b.Get(s.Base+"/login").Form(t, "", "")
		f.Set("email", email)
		f.Set("password", "wrong password")
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for i := range 40 {
			base := s.Base
			if i%2 == 1 {
				base = second
			}
			wg.Go(func() {
				p := b.Post(base+"/login", f)
				mu.Lock()
				statuses[p.Status]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if statuses[http.StatusUnauthorized] != 10 || statuses[http.StatusTooManyRequests] != 30 {
			t.Fatalf("40 parallel wrong passwords: %v; want 10 × 401 and 30 × 429", statuses)
		}
		// The right password is refused too until the window has slid.
		f.Set("password", testsite.Password)
		if p := b.Post(s.Base+"/login", f); p.Status != http.StatusTooManyRequests {
			t.Fatalf("right password after 10 failures: HTTP %d", p.Status)
		}
	})
}

// TestAPIRateLimits: the account APIs count calls per account (key and
// token together) and requests per client address, and answer code 24 with
// HTTP 429 and Retry-After beyond them; the token endpoints answer 429 in
// the OAuth error format.
func TestAPIRateLimits(t *testing.T) {
	s := testsite.Limited(t, testdb.New(t, "sqlite"), server.Limits{APIAccount: 5, APIAddress: 8, TokenAccount: 3, TokenAddress: 100})
	tok := s.Exchange(s.Code())["access_token"].(string)
	for i := range 3 {
		if status, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_projects"); status != 200 {
			t.Fatalf("call %d with the key: %d %v", i+1, status, body)
		}
	}
	for i := range 2 {
		if status, body, _ := s.API(s.AccountURL(), tok, "action=me"); status != 200 {
			t.Fatalf("call %d with the token: %d %v", i+1, status, body)
		}
	}
	status, body, hdr := s.API(s.AccountURL(), tok, "action=me")
	checkLimited(t, "6th call of the account", status, body, hdr)
	status, body = testsite.APICall(t, s.AccountURL(), s.Key, "action=get_projects")
	if status != 429 || body["status_code"] != float64(24) {
		t.Fatalf("6th call with the key: %d %v", status, body)
	}

	// The other account has its own count, but the address's is shared:
	// 8 requests from this address, counted before authentication.
	u := s.Consent(s.Browser(), s.AuthorizeURL(), testsite.OwnerEmail, s.Other, "allow")
	other := s.Exchange(u.Query().Get("code"))["access_token"].(string)
	if status, body, _ := s.API(s.Base+"/a/"+s.Other, other, "action=me"); status != 200 {
		t.Fatalf("another account's first call: %d %v", status, body)
	}
	status, body, hdr = s.API(s.Base+"/a/"+s.Other, "not-a-token", "action=me")
	checkLimited(t, "9th request from the address, unauthenticated", status, body, hdr)

	// Token endpoints: the application's account may make 3 requests a
	// minute; two were spent above.
	form := s.Creds("grant_type", "refresh_token", "refresh_token", "unknown")
	if status, body, _ := s.TokenCall("/oauth2/token", form); status != 400 {
		t.Fatalf("3rd token request: %d %v", status, body)
	}
	status, body, hdr = s.TokenCall("/oauth2/token", form)
	if status != 429 || body["error"] != "too_many_requests" || hdr.Get("Retry-After") == "" {
		t.Fatalf("4th token request: %d %v %v", status, body, hdr)
	}

	// A minute and more later, the counts have faded.
	s.Clock.Advance(2 * time.Minute)
	if status, body := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_projects"); status != 200 {
		t.Fatalf("two minutes later: %d %v", status, body)
	}
}

func checkLimited(t *testing.T, what string, status int, body map[string]any, hdr http.Header) {
	t.Helper()
	wait, err := strconv.Atoi(hdr.Get("Retry-After"))
	if status != 429 || body["status_code"] != float64(24) || body["message"] != "Too many requests" || err != nil || wait < 1 || wait > 120 {
		t.Fatalf("%s: %d %v Retry-After %q; want 429, code 24 and a Retry-After", what, status, body, hdr.Get("Retry-After"))
	}
}
