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
	"mime"
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
	if strings.ContainsAny(m.Subject, "\r\n") {
		return nil, errors.New("mail: a subject has no line breaks")
	}
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", fromAddr.String())
	header("To", toAddr.String())
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

// encodeText encodes a header's free text for any language. Text that
// already looks like an encoded word ("=?...?=") is encoded in full, so a
// reader shows it as it was written instead of decoding it.
func encodeText(s string) string {
	if !strings.Contains(s, "=?") {
		return mime.QEncoding.Encode("utf-8", s)
	}
	const chunk = 45 // bytes per word: 60 in base64, within RFC 2047's 75
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
	return strings.Join(words, " ")
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
