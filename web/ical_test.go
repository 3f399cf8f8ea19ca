package web_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
)

// icalEvent is a VEVENT read back: its properties by name, parameters
// aside, TEXT values unescaped.
type icalEvent map[string]string

// parseICal reads a feed as RFC 5545 says: every line ends in CRLF and
// is at most 75 octets, folded lines are joined, and the object is one
// VCALENDAR of VEVENTs.
func parseICal(t *testing.T, body string) []icalEvent {
	t.Helper()
	if !strings.HasSuffix(body, "\r\n") || strings.Contains(strings.ReplaceAll(body, "\r\n", ""), "\n") {
		t.Fatalf("lines do not all end in CRLF:\n%q", body)
	}
	for _, l := range strings.Split(body, "\r\n") {
		if len(l) > 75 {
			t.Errorf("a line of %d octets: %q", len(l), l)
		}
	}
	lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(body, "\r\n ", ""), "\r\n"), "\r\n")
	if lines[0] != "BEGIN:VCALENDAR" || lines[len(lines)-1] != "END:VCALENDAR" {
		t.Fatalf("not one VCALENDAR: %q … %q", lines[0], lines[len(lines)-1])
	}
	unescape := strings.NewReplacer(`\\`, `\`, `\;`, ";", `\,`, ",", `\n`, "\n", `\N`, "\n")
	var out []icalEvent
	var ev icalEvent
	for _, l := range lines[1 : len(lines)-1] {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("no colon in %q", l)
		}
		name, _, _ = strings.Cut(name, ";")
		switch {
		case l == "BEGIN:VEVENT":
			ev = icalEvent{}
		case l == "END:VEVENT":
			for _, p := range []string{"UID", "DTSTAMP", "DTSTART", "SUMMARY"} {
				if ev[p] == "" {
					t.Errorf("a VEVENT without %s: %v", p, ev)
				}
			}
			out = append(out, ev)
			ev = nil
		case ev != nil:
			ev[name] = unescape.Replace(value)
			if name == "DTSTART" || name == "DTEND" {
				ev[name+"-param"] = strings.TrimPrefix(strings.SplitN(l, ":", 2)[0], name)
			}
		}
	}
	return out
}

// getFeed reads a feed without cookies, as a calendar application does.
func getFeed(t *testing.T, u string) (int, string, http.Header) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header
}

// summaries are the feed's events by summary.
func summaries(evs []icalEvent) map[string]icalEvent {
	out := map[string]icalEvent{}
	for _, e := range evs {
		out[e["SUMMARY"]] = e
	}
	return out
}

// TestICalFeed serves each person the tasks they see as all-day events,
// in RFC 5545's form; rotating ends the old address; a person removed
// from the account no longer gets its tasks.
func TestICalFeed(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := newCalSite(t, s)
	u, o := s.SignedIn(testsite.UserEmail), s.SignedIn(testsite.OwnerEmail)
	userFeed, ownerFeed := s.FeedAddress(u), s.FeedAddress(o)

	status, body, h := getFeed(t, userFeed)
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/calendar") {
		t.Fatalf("feed: %d %s", status, h.Get("Content-Type"))
	}
	evs := summaries(parseICal(t, body))
	w, ok := evs["Write copy, v2; final"]
	if !ok || len(evs) != 4-1 {
		t.Fatalf("the user's feed has %d events, want 3 (not the hidden one): %v", len(evs), evs)
	}
	if want := strings.ReplaceAll(c.today, "-", ""); w["DTSTART"] != want || w["DTSTART-param"] != ";VALUE=DATE" || w["DTEND-param"] != ";VALUE=DATE" {
		t.Errorf("DTSTART %q%q, want ;VALUE=DATE:%s", w["DTSTART-param"], w["DTSTART"], want)
	}
	if !regexp.MustCompile(`^\d{8}T\d{6}Z$`).MatchString(w["DTSTAMP"]) || !strings.Contains(w["URL"], "/project/") {
		t.Errorf("DTSTAMP %q, URL %q", w["DTSTAMP"], w["URL"])
	}
	if _, ok := evs["✓ Shipped"]; !ok {
		t.Error("the done task is not marked done")
	}
	_, again, _ := getFeed(t, userFeed)
	if summaries(parseICal(t, again))["Write copy, v2; final"]["UID"] != w["UID"] {
		t.Error("a task's UID changed between two reads")
	}
	if _, body, _ := getFeed(t, ownerFeed); !strings.Contains(body, "SUMMARY:Secret plan") {
		t.Error("the owner's feed lacks the task only they see")
	}

	t.Run("rotating ends the old address", func(t *testing.T) {
		fresh := s.In(t).FeedAddress(u.In(t))
		if st, _, _ := getFeed(t, userFeed); st != http.StatusNotFound {
			t.Errorf("the rotated address answers %d", st)
		}
		if st, _, _ := getFeed(t, fresh); st != 200 {
			t.Errorf("the new address answers %d", st)
		}
		userFeed = fresh
	})
	t.Run("hostile addresses are not found, all alike", func(t *testing.T) {
		_, want, _ := getFeed(t, s.Base+"/ical/"+strings.Repeat("A", 43)+".ics")
		token := strings.TrimSuffix(userFeed[strings.LastIndex(userFeed, "/")+1:], ".ics")
		for _, path := range []string{"/ical/", "/ical/x.ics", "/ical/" + token, "/ical/" + token + ".ICS", "/ical/" + token + "x.ics",
			"/ical/" + strings.ToUpper(token) + ".ics", "/ical/" + token[:42] + ".ics", "/ical/" + token + ".ics%00", "/ical/%2e%2e%2fetc%2fpasswd",
			"/ical/" + strings.Repeat("a", 5000) + ".ics", "/ical/" + token[:40] + "%00%00.ics", "/ical/'%20OR%201=1--.ics"} {
			st, body, _ := getFeed(t, s.Base+path)
			if st != http.StatusNotFound || (strings.HasPrefix(path, "/ical/"+token[:10]) && body != want) {
				t.Errorf("%.60s: %d %q", path, st, body)
			}
		}
		if strings.ToUpper(token) == token {
			t.Skip("an all-upper-case token")
		}
	})
	t.Run("a person removed from the account loses its tasks", func(t *testing.T) {
		if _, err := s.Store.RemoveMember(context.Background(), c.owner, c.user.Person.ID); err != nil {
			t.Fatal(err)
		}
		st, body, _ := getFeed(t, userFeed)
		if st != 200 || len(parseICal(t, body)) != 0 {
			t.Errorf("after removal: %d\n%s", st, body)
		}
	})
}
