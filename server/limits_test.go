package server

import (
	"testing"
	"time"
)

// TestSpecLimits pins the interface's limits with the spec's own numbers,
// written out here rather than read from the constants under test: an
// authorization code lives 10 minutes, an access token 24 hours
// (expires_in 86400), a refresh token 1 month (30 days). Each limit is
// checked from both sides.
func TestSpecLimits(t *testing.T) {
	s := newSite(t)
	redeem := func(code string) int {
		status, _, _ := s.tokenCall("/oauth2/token", s.creds("grant_type", "authorization_code", "code", code, "redirect_uri", redirectURI))
		return status
	}
	code := s.code()
	s.clock.advance(10*time.Minute - 10*time.Second)
	if status := redeem(code); status != 200 {
		t.Fatalf("a code 9 min 50 s old: HTTP %d", status)
	}
	code = s.code()
	s.clock.advance(10*time.Minute + 10*time.Second)
	if status := redeem(code); status != 400 {
		t.Fatalf("a code 10 min 10 s old: HTTP %d", status)
	}

	tok := s.exchange(s.code())
	if tok["expires_in"] != float64(86400) {
		t.Fatalf("expires_in %v, want 86400", tok["expires_in"])
	}
	access := tok["access_token"].(string)
	s.clock.advance(24*time.Hour - time.Minute)
	if status, body, _ := s.api(s.accountURL(), access, "action=me"); status != 200 {
		t.Fatalf("an access token 23 h 59 min old: %d %v", status, body)
	}
	s.clock.advance(2 * time.Minute)
	if status, _, _ := s.api(s.accountURL(), access, "action=me"); status != 401 {
		t.Fatalf("an access token 24 h 1 min old: %d", status)
	}

	refresh := func(token string) (int, map[string]any) {
		status, body, _ := s.tokenCall("/oauth2/refresh", s.creds("grant_type", "refresh_token", "refresh_token", token))
		return status, body
	}
	// The refresh token was issued 24 h 1 min ago; it lives 30 days.
	s.clock.advance(29*24*time.Hour - 2*time.Minute)
	status, body := refresh(tok["refresh_token"].(string))
	if status != 200 {
		t.Fatalf("a refresh token 29 days 23 h 59 min old: %d %v", status, body)
	}
	s.clock.advance(30*24*time.Hour + time.Minute)
	if status, body := refresh(body["refresh_token"].(string)); status != 400 {
		t.Fatalf("a refresh token 30 days 1 min old: %d %v", status, body)
	}
}
