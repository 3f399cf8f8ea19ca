// Package smtptest runs a real SMTP server (go-smtp) on loopback for tests:
// STARTTLS or implicit TLS with a certificate of its own, PLAIN
// authentication, and the messages it accepted, decoded.
package smtptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
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

// The credentials the server accepts.
const (
	User     = "user"
	Password = "s3cret pass"
)

// Mode is how the server speaks TLS.
type Mode int

// The modes.
const (
	StartTLS Mode = iota // STARTTLS offered
	Implicit             // TLS from the first byte
	Plain                // no TLS at all (and authentication in clear)
)

// Received is one message the server accepted.
type Received struct {
	From, To string
	Data     []byte
	TLS      bool
}

// Server is a running test SMTP server.
type Server struct {
	Addr string
	Pool *x509.CertPool // trusts the server's certificate
	mode Mode
	cert tls.Certificate
	srv  *smtp.Server
	ln   net.Listener

	mu     sync.Mutex
	got    []Received
	fail   error // when set, every message is refused with it
	notify chan struct{}
}

// Start starts a server on a free loopback port.
func Start(t testing.TB, mode Mode) *Server { return StartAt(t, mode, "127.0.0.1:0") }

// StartAt starts a server on addr, for a test that brings a server up
// where a client already expects one.
func StartAt(t testing.TB, mode Mode, addr string) *Server {
	t.Helper()
	cert, pool := selfSigned(t)
	s := &Server{Pool: pool, mode: mode, cert: cert, notify: make(chan struct{}, 1)}
	if err := s.listen(addr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func (s *Server) listen(addr string) error {
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{srv: s, conn: c}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.AllowInsecureAuth = s.mode == Plain
	cfg := &tls.Config{Certificates: []tls.Certificate{s.cert}}
	var ln net.Listener
	var err error
	if s.mode == Implicit {
		ln, err = tls.Listen("tcp", addr, cfg)
	} else {
		ln, err = net.Listen("tcp", addr)
		if s.mode == StartTLS {
			srv.TLSConfig = cfg
		}
	}
	if err != nil {
		return err
	}
	s.Addr, s.srv, s.ln = ln.Addr().String(), srv, ln
	go srv.Serve(ln)
	return nil
}

// Stop closes the server: connections are refused until Restart.
func (s *Server) Stop() {
	s.ln.Close() // Serve may not have taken the listener yet
	s.srv.Close()
}

// Restart listens again on the same address with the same certificate,
// keeping what was received.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.listen(s.Addr); err != nil {
		t.Fatal(err)
	}
}

// URL is the --smtp-url of the server with the right credentials.
func (s *Server) URL() string {
	scheme := "smtp"
	if s.mode == Implicit {
		scheme = "smtps"
	}
	return scheme + "://" + User + ":" + strings.ReplaceAll(Password, " ", "%20") + "@" + s.Addr
}

// Client returns a sender for rawURL ("" for URL()) that trusts the
// server's certificate.
func (s *Server) Client(t testing.TB, rawURL string) *taskdmail.Server {
	t.Helper()
	if rawURL == "" {
		rawURL = s.URL()
	}
	c, err := taskdmail.ParseURL(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	c.TLS = &tls.Config{RootCAs: s.Pool, ServerName: "127.0.0.1"}
	c.Timeout = 10 * time.Second
	return c
}

// Refuse makes the server refuse every message with err (nil: accept).
func (s *Server) Refuse(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = err
}

// Messages returns what the server accepted so far.
func (s *Server) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.got...)
}

// Wait waits up to d for the server to hold at least n messages and
// returns them; it fails the test when they do not come.
func (s *Server) Wait(t testing.TB, n int, d time.Duration) []Received {
	t.Helper()
	deadline := time.After(d)
	for {
		if got := s.Messages(); len(got) >= n {
			return got
		}
		select {
		case <-s.notify:
		case <-deadline:
			t.Fatalf("smtptest: %d messages after %v, want %d", len(s.Messages()), d, n)
		}
	}
}

type session struct {
	srv  *Server
	conn *smtp.Conn
	auth bool
	from string
	to   string
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if subtle.ConstantTimeCompare([]byte(user+"\x00"+pass), []byte(User+"\x00"+Password)) != 1 {
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
	s.srv.got = append(s.srv.got, Received{From: s.from, To: s.to, Data: data, TLS: isTLS})
	select {
	case s.srv.notify <- struct{}{}:
	default:
	}
	return nil
}
func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }

func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
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

// Parsed is a received message read back: headers decoded, and the plain
// text and HTML parts.
type Parsed struct {
	Subject, From, To string
	Header            mail.Header
	Text, HTML        string
}

// Parse reads a received message back.
func Parse(t testing.TB, data []byte) Parsed {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("smtptest: %v", err)
	}
	var p Parsed
	p.Header = m.Header
	dec := new(mime.WordDecoder)
	p.Subject, _ = dec.DecodeHeader(m.Header.Get("Subject"))
	p.From, p.To = m.Header.Get("From"), m.Header.Get("To")
	ct, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("smtptest: content type: %v", err)
	}
	part := func(ct string, r io.Reader) {
		b, err := io.ReadAll(quotedprintable.NewReader(r))
		if err != nil {
			t.Fatalf("smtptest: body: %v", err)
		}
		switch {
		case strings.HasPrefix(ct, "text/plain"):
			p.Text = string(b)
		case strings.HasPrefix(ct, "text/html"):
			p.HTML = string(b)
		}
	}
	if !strings.HasPrefix(ct, "multipart/") {
		part(ct, m.Body)
		return p
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		pt, err := mr.NextRawPart()
		if err == io.EOF {
			return p
		}
		if err != nil {
			t.Fatalf("smtptest: part: %v", err)
		}
		part(pt.Header.Get("Content-Type"), pt)
	}
}
