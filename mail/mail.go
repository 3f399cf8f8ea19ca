// Package mail composes taskd's e-mail and sends it over SMTP.
//
// A message is plain text with an optional HTML alternative, to one
// recipient, from the installation's one sender (--mail-from). The server
// is named by a URL (--smtp-url): smtp://user:pass@host:587 speaks
// STARTTLS and refuses a server that does not offer it; smtps://…:465
// uses TLS from the first byte. The password is never part of an error.
package mail

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
	"unicode/utf8"
)

// Message is one e-mail to one person.
type Message struct {
	To      string // an address, optionally with a name: "Olga <olga@example.com>"
	Subject string
	Text    string // the plain-text body
	HTML    string // an HTML alternative; empty: text only
}

// Compose renders m from the sender as an RFC 5322 message with CRLF line
// ends: headers encoded for any language, bodies quoted-printable, and
// multipart/alternative when there is HTML. A header value with a line
// break (an attempt to add headers) or an address that does not parse is
// refused.
func Compose(from string, m Message, now time.Time) ([]byte, error) {
	fromAddr, err := mail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("mail: sender %q: %w", from, err)
	}
	toAddr, err := mail.ParseAddress(m.To)
	if err != nil {
		return nil, fmt.Errorf("mail: recipient %q: %w", m.To, err)
	}
	if len(toAddr.Address) > 254 { // RFC 5321's limit on a path
		return nil, fmt.Errorf("mail: recipient of %d characters, longer than an address can be", len(toAddr.Address))
	}
	to := toAddr.String()
	if len(to) > 900 { // a name that would stretch the line past RFC 5322's limit is left out
		to = (&mail.Address{Address: toAddr.Address}).String()
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return nil, errors.New("mail: a subject has no line breaks")
	}
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", fromAddr.String())
	header("To", to)
	header("Subject", encodeText(m.Subject))
	header("Date", now.UTC().Format(time.RFC1123Z))
	header("Message-ID", "<"+randomID()+"@"+domain(fromAddr.Address)+">")
	header("MIME-Version", "1.0")
	header("Auto-Submitted", "auto-generated")
	if m.HTML == "" {
		header("Content-Type", `text/plain; charset="utf-8"`)
		header("Content-Transfer-Encoding", "quoted-printable")
		b.WriteString("\r\n")
		return b.Bytes(), writeQP(&b, m.Text)
	}
	mw := multipart.NewWriter(&b)
	header("Content-Type", `multipart/alternative; boundary="`+mw.Boundary()+`"`)
	b.WriteString("\r\n")
	for _, part := range []struct{ typ, body string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		w, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {part.typ + `; charset="utf-8"`},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, err
		}
		if err := writeQP(w, part.body); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encodeText encodes a header's free text for any language. Short
// printable ASCII stays as it is. Anything else is encoded in full as
// RFC 2047 words of at most 75 characters, split between characters and
// folded one to a line, so no line passes RFC 5322's limits however long
// a task's name. That includes text which already looks like an encoded
// word ("=?...?="), so a reader shows it as it was written. Bytes that are
// not UTF-8 become U+FFFD, as the label promises UTF-8.
func encodeText(s string) string {
	if len(s) <= 900 && !strings.Contains(s, "=?") && strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r > '~' }) < 0 {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	const chunk = 39 // bytes per word: 52 in base64, 64 with its markers, 73 on the first line
	var words []string
	for len(s) > 0 {
		n := 0
		for n < len(s) {
			_, size := utf8.DecodeRuneInString(s[n:])
			if n+size > chunk && n > 0 {
				break
			}
			n += size
		}
		words = append(words, "=?utf-8?b?"+base64.StdEncoding.EncodeToString([]byte(s[:n]))+"?=")
		s = s[n:]
	}
	return strings.Join(words, "\r\n ")
}

// writeQP writes text quoted-printable; its line breaks become CRLF.
func writeQP(w io.Writer, text string) error {
	qp := quotedprintable.NewWriter(w)
	if _, err := qp.Write([]byte(text)); err != nil {
		return err
	}
	return qp.Close()
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func domain(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		return addr[i+1:]
	}
	return "taskd.invalid"
}
