package oauth_test

import (
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testsite"
)

// TestSpecLimits pins the interface's limits with the spec's own numbers,
// written out here rather than read from the constants under test: an
// authorization code lives 10 minutes, an access token 24 hours
// (expires_in 86400), a refresh token 1 month (30 days). Each limit is
// checked from both sides.
func TestSpecLimits(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	redeem := func(code string) int {
		status, _, _ := s.TokenCall("/oauth2/token", s.Creds("grant_type", "authorization_code", "code", code, "redirect_uri", testsite.RedirectURI))
		return status
	}
	code := s.Code()
	s.Clock.Advance(10*time.Minute - 10*time.Second)
	if status := redeem(code); status != 200 {
		t.Fatalf("a code 9 min 50 s old: HTTP %d", status)
	}
	code = s.Code()
	s.Clock.Advance(10*time.Minute + 10*time.Second)
	if status := redeem(code); status != 400 {
		t.Fatalf("a code 10 min 10 s old: HTTP %d", status)
	}

	tok := s.Exchange(s.Code())
	if tok["expires_in"] != float64(86400) {
		t.Fatalf("expires_in %v, want 86400", tok["expires_in"])
	}
	access := tok["access_token"].(string)
	s.Clock.Advance(24*time.Hour - time.Minute)
	if status, body, _ := s.API(s.AccountURL(), access, "action=me"); status != 200 {
		t.Fatalf("an access token 23 h 59 min old: %d %v", status, body)
	}
	s.Clock.Advance(2 * time.Minute)
	if status, _, _ := s.API(s.AccountURL(), access, "action=me"); status != 401 {
		t.Fatalf("an access token 24 h 1 min old: %d", status)
	}

	refresh := func(token string) (int, map[string]any) {
		status, body, _ := s.TokenCall("/oauth2/refresh", s.Creds("grant_type", "refresh_token", "refresh_token", token))
		return status, body
	}
	// The refresh token was issued 24 h 1 min ago; it lives 30 days.
	s.Clock.Advance(29*24*time.Hour - 2*time.Minute)
	status, body := refresh(tok["refresh_token"].(string))
	if status != 200 {
		t.Fatalf("a refresh token 29 days 23 h 59 min old: %d %v", status, body)
	}
	s.Clock.Advance(30*24*time.Hour + time.Minute)
	if status, body := refresh(body["refresh_token"].(string)); status != 400 {
		t.Fatalf("a refresh token 30 days 1 min old: %d %v", status, body)
	}
}
