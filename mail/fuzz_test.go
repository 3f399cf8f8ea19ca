package mail_test

import (
	"mime"
	"net/mail"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	taskdmail "github.com/taskd/taskd/mail"
)

// FuzzCompose: whatever the recipient, subject and bodies, a composed
// message parses back with exactly taskd's headers (no header can be
// injected), the recipient and subject it was given, and nothing else.
func FuzzCompose(f *testing.F) {
	f.Add("olga@example.com", "Hi", "text", "<p>x</p>")
	f.Add("Olga <olga@example.com>", "Réinitialiser\r\nBcc: x@y.z", "a\n.\nb", "")
	f.Add("x@y.z\r\nBcc: a@b.c", "=?utf-8?q?x?=", strings.Repeat("long ", 40), "<a href=\"x\">")
	f.Add("a@b.c", "=??B??=", "", "")
	want := []string{"Auto-Submitted", "Content-Type", "Date", "From", "Message-Id", "Mime-Version", "Subject", "To"}
	f.Fuzz(func(t *testing.T, to, subject, text, html string) {
		raw, err := taskdmail.Compose("taskd <taskd@example.com>", taskdmail.Message{To: to, Subject: subject, Text: text, HTML: html}, time.Unix(0, 0))
		if err != nil {
			return
		}
		head, _, _ := strings.Cut(string(raw), "\r\n\r\n")
		for _, line := range strings.Split(head, "\r\n") {
			if len(line) > 998 { // RFC 5322's hard limit
				t.Fatalf("a header line of %d characters", len(line))
			}
		}
		m, err := mail.ReadMessage(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatalf("composed message does not parse: %v\n%q", err, raw)
		}
		var keys []string
		for k := range m.Header {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if html == "" {
			want := append([]string{"Content-Transfer-Encoding"}, want...)
			slices.Sort(want)
			if !slices.Equal(keys, want) {
				t.Fatalf("headers %v, want %v\n%q", keys, want, raw)
			}
		} else if !slices.Equal(keys, want) {
			t.Fatalf("headers %v, want %v\n%q", keys, want, raw)
		}
		if len(m.Header["To"]) != 1 || len(m.Header["Subject"]) != 1 {
			t.Fatalf("repeated headers\n%q", raw)
		}
		if utf8.ValidString(subject) {
			got, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
			if err != nil || strings.TrimSpace(got) != strings.TrimSpace(subject) {
				t.Fatalf("subject %q came back as %q (%v)", subject, got, err)
			}
		}
	})
}
