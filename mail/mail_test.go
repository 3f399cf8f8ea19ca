package mail_test

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/taskd/taskd/internal/smtptest"
	taskdmail "github.com/taskd/taskd/mail"
)

const sender = "taskd <taskd@example.com>"

// client returns a sender for rawURL, with ADDR standing for the test
// server's address.
func client(t *testing.T, srv *smtptest.Server, rawURL string) *taskdmail.Server {
	return srv.Client(t, strings.Replace(rawURL, "ADDR", srv.Addr, 1))
}

// TestComposedMessagesReadBack: a composed message parses as RFC 5322 and
// MIME and gives back the subject, sender, recipient and both bodies, in
// any language, with lines that need encoding.
func TestComposedMessagesReadBack(t *testing.T) {
	m := taskdmail.Message{To: "Olga Owner <olga@example.com>", Subject: "Задача назначена: «Launch» ✓",
		Text: "Hello Olga,\n\n.a line starting with a dot\n" + strings.Repeat("long ", 40) + "\nÜber = 1",
		HTML: `<p>Hello <b>Olga</b> — <a href="https://example.com/?a=1&amp;b=2">open</a></p>`}
	raw, err := taskdmail.Compose(sender, m, time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Fatal("a bare LF in the message; SMTP wants CRLF")
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || subject != m.Subject {
		t.Fatalf("subject %q (%v), want %q", subject, err, m.Subject)
	}
	if to, _ := msg.Header.AddressList("To"); len(to) != 1 || to[0].Address != "olga@example.com" || to[0].Name != "Olga Owner" {
		t.Fatalf("To = %v", to)
	}
	if msg.Header.Get("Message-ID") == "" || msg.Header.Get("Date") != "Mon, 23 Nov 2026 10:00:00 +0000" {
		t.Fatalf("headers: %v", msg.Header)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for _, want := range []struct{ typ, body string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		p, err := mr.NextRawPart()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(quotedprintable.NewReader(p))
		got := strings.ReplaceAll(string(body), "\r\n", "\n")
		if !strings.HasPrefix(p.Header.Get("Content-Type"), want.typ) || got != want.body {
			t.Fatalf("%s part = %q, want %q", want.typ, got, want.body)
		}
	}
	if _, err := mr.NextPart(); err != io.EOF {
		t.Fatalf("a third part: %v", err)
	}
}

// TestHeaderInjectionIsRefused: a subject or address that would add
// headers is refused, not sent.
// TestLongSubjectsFold: a subject of a 500-character task name in any
// script comes back whole, in lines within RFC 2047's 76 characters.
func TestLongSubjectsFold(t *testing.T) {
	for _, subject := range []string{
		"Olga commented on " + strings.Repeat("Я", 500),
		"=?" + strings.Repeat("🙂", 300),
		strings.Repeat("plain words ", 80) + "=?utf-8?q?x?=",
	} {
		raw, err := taskdmail.Compose(sender, taskdmail.Message{To: "a@example.com", Subject: subject, Text: "x"}, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(string(raw), "\r\n\r\n")
		for _, line := range strings.Split(head, "\r\n") {
			if len(line) > 76 {
				t.Errorf("a header line of %d characters: %.90s…", len(line), line)
			}
		}
		m, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject")); err != nil || got != subject {
			t.Errorf("subject came back as %.60q (%v), want %.60q", got, err, subject)
		}
	}
}

func TestHeaderInjectionIsRefused(t *testing.T) {
	for _, m := range []taskdmail.Message{
		{To: "olga@example.com", Subject: "Hi\r\nBcc: everyone@example.com"},
		{To: "olga@example.com\r\nBcc: everyone@example.com", Subject: "Hi"},
		{To: "not an address", Subject: "Hi"},
	} {
		if _, err := taskdmail.Compose(sender, m, time.Now()); err == nil {
			t.Errorf("composed %+v", m)
		}
	}
}

// TestSendOverSTARTTLSAndTLS: a message reaches a real SMTP server on
// loopback over STARTTLS and over implicit TLS, signed in, byte for byte.
func TestSendOverSTARTTLSAndTLS(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode smtptest.Mode
		url  string
	}{
		{"starttls", smtptest.StartTLS, "smtp://user:s3cret%20pass@ADDR"},
		{"implicit tls", smtptest.Implicit, "smtps://user:s3cret%20pass@ADDR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := smtptest.Start(t, tc.mode)
			raw, err := taskdmail.Compose(sender, taskdmail.Message{To: "olga@example.com", Subject: "Hi", Text: "Hello\n.\nbye"}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := client(t, srv, tc.url).Send(context.Background(), sender, "olga@example.com", raw); err != nil {
				t.Fatal(err)
			}
			got := srv.Messages()
			if len(got) != 1 || got[0].From != "taskd@example.com" || got[0].To != "olga@example.com" || !got[0].TLS {
				t.Fatalf("received %+v", got)
			}
			if !bytes.Equal(bytes.TrimRight(got[0].Data, "\r\n"), bytes.TrimRight(raw, "\r\n")) {
				t.Fatalf("received\n%q\nsent\n%q", got[0].Data, raw)
			}
		})
	}
}

// TestNoPlaintextNoLeaks: a server without STARTTLS gets neither the
// password nor the message; a wrong password and a refused message are
// errors that never repeat the password; a 5xx refusal is permanent.
func TestNoPlaintextNoLeaks(t *testing.T) {
	raw, _ := taskdmail.Compose(sender, taskdmail.Message{To: "olga@example.com", Subject: "Hi", Text: "x"}, time.Now())
	plain := smtptest.Start(t, smtptest.Plain)
	err := client(t, plain, "smtp://user:s3cret%20pass@ADDR").Send(context.Background(), sender, "olga@example.com", raw)
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") || len(plain.Messages()) != 0 {
		t.Fatalf("plaintext server: %v, %d messages", err, len(plain.Messages()))
	}

	srv := smtptest.Start(t, smtptest.StartTLS)
	err = client(t, srv, "smtp://user:wrong%20guess@ADDR").Send(context.Background(), sender, "olga@example.com", raw)
	if err == nil || strings.Contains(err.Error(), "wrong guess") || len(srv.Messages()) != 0 {
		t.Fatalf("wrong password: %v", err)
	}
	srv.Refuse(&smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "rejected"})
	err = client(t, srv, "smtp://user:s3cret%20pass@ADDR").Send(context.Background(), sender, "olga@example.com", raw)
	if err == nil || !taskdmail.Permanent(err) || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("refused message: %v (permanent %v)", err, taskdmail.Permanent(err))
	}
	srv.Refuse(&smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"})
	err = client(t, srv, "smtp://user:s3cret%20pass@ADDR").Send(context.Background(), sender, "olga@example.com", raw)
	if err == nil || taskdmail.Permanent(err) {
		t.Fatalf("deferred message: %v (permanent %v)", err, taskdmail.Permanent(err))
	}
}

// TestSMTPURLs: the two schemes with their default ports, and errors that
// never repeat the password.
func TestSMTPURLs(t *testing.T) {
	for raw, want := range map[string]string{
		"smtp://mail.example.com":             "smtp://mail.example.com:587",
		"smtps://u:p@mail.example.com":        "smtps://mail.example.com:465",
		"smtp://u:p@mail.example.com:2525":    "smtp://mail.example.com:2525",
		"smtps://u:p%40ss@[2001:db8::1]:1465": "smtps://[2001:db8::1]:1465",
	} {
		s, err := taskdmail.ParseURL(raw)
		if err != nil || s.String() != want {
			t.Errorf("%s: %v, %v; want %s", raw, s, err, want)
		}
	}
	for _, raw := range []string{"http://u:hunter2@mail.example.com", "smtp://u:hunter2@", "smtp://u:hunter2@host/path",
		"smtp://u:hunter2@host?x=1", "smtp://u:hunter2@host:99999999999999999999", "::"} {
		_, err := taskdmail.ParseURL(raw)
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
