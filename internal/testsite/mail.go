package testsite

import (
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/smtptest"
)

// DigestsUntil waits for a digest to each of the addresses and returns the
// text of all mail each received.
func (s *Site) DigestsUntil(t *testing.T, emails ...string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out := map[string]string{}
		for _, m := range s.Mail.Messages() {
			p := smtptest.Parse(t, m.Data)
			out[m.To] += p.Subject + "\n" + p.Text
		}
		missing := slices.ContainsFunc(emails, func(e string) bool { return out[e] == "" })
		if !missing || time.Now().After(deadline) {
			if missing {
				t.Fatalf("digests: got mail for %d addresses, want %v", len(out), emails)
			}
			time.Sleep(200 * time.Millisecond) // and none for the rest
			for _, m := range s.Mail.Messages() {
				out[m.To] += ""
			}
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// MailTo waits for the next message to the address that this call has
// not returned yet, and returns it read back.
func (s *Site) MailTo(t *testing.T, to string) smtptest.Parsed {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m, ok := s.mailsRead.next(s.Mail.Messages(), to); ok {
			return smtptest.Parse(t, m.Data)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new mail to %s (%d read before)", to, s.mailsRead.of(to))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// next is the first message of ms to the address that was not returned
// before, counted as returned now.
func (r *mailsRead) next(ms []smtptest.Received, to string) (smtptest.Received, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := 0
	for _, m := range ms {
		if m.To != to {
			continue
		}
		if seen++; seen > r.n[to] {
			r.n[to]++
			return m, true
		}
	}
	return smtptest.Received{}, false
}

// of is how many messages to the address were returned.
func (r *mailsRead) of(to string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[to]
}

// LinkRE finds a one-time link (…?t=TOKEN) in a message.
var LinkRE = regexp.MustCompile(`https?://[^\s"<>]+\?t=[A-Za-z0-9_-]+`)

// LinkIn returns the one-time link of a message, as a path and query on
// the site.
func (s *Site) LinkIn(t *testing.T, m smtptest.Parsed) string {
	t.Helper()
	raw := LinkRE.FindString(m.Text)
	u, err := url.Parse(raw)
	if raw == "" || err != nil || !strings.HasPrefix(raw, s.Base) {
		t.Fatalf("no link to %s in the mail:\n%s", s.Base, m.Text)
	}
	if !strings.Contains(m.HTML, html.EscapeString(raw)) {
		t.Fatalf("the HTML part lacks the link %s:\n%s", raw, m.HTML)
	}
	return u.RequestURI()
}
