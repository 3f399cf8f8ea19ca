package mail_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	taskdmail "github.com/taskd/taskd/mail"
)

const sender = "taskd <taskd@example.com>"

// received is one message a test server accepted.
type received struct {
	from, to string
	data     []byte
	tls      bool
}

// smtpServer is a real SMTP server on loopback (go-smtp) that requires
// PLAIN authentication as user/secret and keeps what it receives.
type smtpServer struct {
	addr string
	pool *x509.CertPool

	mu   sync.Mutex
	got  []received
	fail error // when set, every message is refused with it
}

// refuse makes the server refuse every message with err.
func (s *smtpServer) refuse(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = err
}

func (s *smtpServer) messages() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.got...)
}

type session struct {
	srv  *smtpServer
	conn *smtp.Conn
	auth bool
	from string
	to   string
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != "user" || pass != "s3cret pass" {
			return errors.New("invalid credentials")
		}
		s.auth = true
		return nil
	}), nil
}
func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if !s.auth {
		return smtp.ErrAuthRequired
	}
	s.from = from
	return nil
}
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error { s.to = to; return nil }
func (s *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	if s.srv.fail != nil {
		return s.srv.fail
	}
	_, isTLS := s.conn.TLSConnectionState()
	s.srv.got = append(s.srv.got, received{from: s.from, to: s.to, data: data, tls: isTLS})
	return nil
}
func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }

// newSMTPServer starts a server with a certificate of its own for
// 127.0.0.1: STARTTLS, or TLS from the first byte when implicit, or no TLS
// at all when plain.
func newSMTPServer(t *testing.T, implicit, plain bool) *smtpServer {
	t.Helper()
	cert, pool := selfSigned(t)
	srv := &smtpServer{pool: pool}
	s := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{srv: srv, conn: c}, nil
	}))
	s.Domain = "localhost"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.AllowInsecureAuth = plain
	var ln net.Listener
	var err error
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	switch {
	case implicit:
		ln, err = tls.Listen("tcp", "127.0.0.1:0", cfg)
	default:
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if !plain {
			s.TLSConfig = cfg
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	srv.addr = ln.Addr().String()
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return srv
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// client returns a Server for the test server's URL, trusting its certificate.
func client(t *testing.T, srv *smtpServer, rawURL string) *taskdmail.Server {
	t.Helper()
	s, err := taskdmail.ParseURL(strings.Replace(rawURL, "ADDR", srv.addr, 1))
	if err != nil {
		t.Fatal(err)
	}
	s.TLS = &tls.Config{RootCAs: srv.pool, ServerName: "127.0.0.1"}
	s.Timeout = 10 * time.Second
	return s
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
		name     string
		implicit bool
		url      string
	}{
		{"starttls", false, "smtp://user:s3cret%20pass@ADDR"},
		{"implicit tls", true, "smtps://user:s3cret%20pass@ADDR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSMTPServer(t, tc.implicit, false)
			raw, err := taskdmail.Compose(sender, taskdmail.Message{To: "olga@example.com", Subject: "Hi", Text: "Hello\n.\nbye"}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := client(t, srv, tc.url).Send(context.Background(), sender, "olga@example.com", raw); err != nil {
				t.Fatal(err)
			}
			got := srv.messages()
			if len(got) != 1 || got[0].from != "taskd@example.com" || got[0].to != "olga@example.com" || !got[0].tls {
				t.Fatalf("received %+v", got)
			}
			if !bytes.Equal(bytes.TrimRight(got[0].data, "\r\n"), bytes.TrimRight(raw, "\r\n")) {
				t.Fatalf("received\n%q\nsent\n%q", got[0].data, raw)
			}
		})
	}
}

// TestNoPlaintextNoLeaks: a server without STARTTLS gets neither the
// password nor the message; a wrong password and a refused message are
// errors that never repeat the password; a 5xx refusal is permanent.
func TestNoPlaintextNoLeaks(t *testing.T) {
	raw, _ := taskdmail.Compose(sender, taskdmail.Message{To: "olga@example.com", Subject: "Hi", Text: "x"}, time.Now())
	plain := newSMTPServer(t, false, true)
	err := client(t, plain, "smtp://user:s3cret%20pass@ADDR").Send(context.Background(), sender, "olga@example.com", raw)
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") || len(plain.messages()) != 0 {
		t.Fatalf("plaintext server: %v, %d messages", err, len(plain.messages()))
	}

	srv := newSMTPServer(t, false, false)
	err = client(t, srv, "smtp://user:wrong%20guess@ADDR").Send(context.Background(), sender, "olga@example.com", raw)
	if err == nil || strings.Contains(err.Error(), "wrong guess") || len(srv.messages()) != 0 {
		t.Fatalf("wrong password: %v", err)
	}
	srv.refuse(&smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "rejected"})
	err = client(t, srv, "smtp://user:s3cret%20pass@ADDR").Send(context.Background(), sender, "olga@example.com", raw)
	if err == nil || !taskdmail.Permanent(err) || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("refused message: %v (permanent %v)", err, taskdmail.Permanent(err))
	}
	srv.refuse(&smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"})
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
