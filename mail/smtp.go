package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"strconv"
	"time"
)

// Server is the SMTP server taskd sends through.
type Server struct {
	host     string // for certificate checks
	addr     string // host:port
	implicit bool   // smtps: TLS from the first byte
	user     string
	pass     string
	// TLS, when set, is the TLS configuration instead of the system's
	// roots and the URL's host (tests trust their own certificate).
	TLS *tls.Config
	// Timeout bounds one whole send (default 30 s).
	Timeout time.Duration
}

// ParseURL reads --smtp-url: smtp://[user:pass@]host[:587] (STARTTLS) or
// smtps://[user:pass@]host[:465]. Errors never repeat the password.
func ParseURL(raw string) (*Server, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("mail: --smtp-url is not a URL")
	}
	s := &Server{host: u.Hostname()}
	port := u.Port()
	switch u.Scheme {
	case "smtp":
		port = orDefault(port, "587")
	case "smtps":
		s.implicit, port = true, orDefault(port, "465")
	default:
		return nil, fmt.Errorf("mail: --smtp-url must start with smtp:// or smtps://, not %q", u.Scheme+"://")
	}
	if s.host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, errors.New("mail: --smtp-url is smtp[s]://[user:password@]host[:port], nothing more")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, errors.New("mail: --smtp-url has a bad port")
	}
	s.addr = net.JoinHostPort(s.host, port)
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
	}
	return s, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// String names the server without its credentials.
func (s *Server) String() string {
	scheme := "smtp"
	if s.implicit {
		scheme = "smtps"
	}
	return scheme + "://" + s.addr
}

// Send delivers one composed message (Compose) from the sender to the
// recipient. The connection is always encrypted before the password or the
// message is sent. A rejection the server says is final is Permanent.
func (s *Server) Send(ctx context.Context, from, to string, msg []byte) error {
	fromAddr, err := mail.ParseAddress(from)
	if err != nil {
		return fmt.Errorf("mail: sender: %w", err)
	}
	toAddr, err := mail.ParseAddress(to)
	if err != nil {
		return fmt.Errorf("mail: recipient: %w", err)
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("mail: connect to %s: %w", s, err)
	}
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	cfg := s.tlsConfig()
	if s.implicit {
		conn = tls.Client(conn, cfg)
	}
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("mail: %s: %w", s, err)
	}
	defer c.Close()
	if !s.implicit {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return fmt.Errorf("mail: %s does not offer STARTTLS; taskd does not send mail unencrypted", s)
		}
		if err := c.StartTLS(cfg); err != nil {
			return fmt.Errorf("mail: %s: STARTTLS: %w", s, err)
		}
	}
	if s.user != "" {
		if err := c.Auth(smtp.PlainAuth("", s.user, s.pass, s.host)); err != nil {
			return fmt.Errorf("mail: %s: sign in as %s: %w", s, s.user, err)
		}
	}
	if err := c.Mail(fromAddr.Address); err != nil {
		return fmt.Errorf("mail: %s: sender refused: %w", s, err)
	}
	if err := c.Rcpt(toAddr.Address); err != nil {
		return fmt.Errorf("mail: %s: recipient refused: %w", s, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("mail: %s: %w", s, err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("mail: %s: %w", s, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("mail: %s: message refused: %w", s, err)
	}
	c.Quit() // the message is accepted: a failed goodbye must not send it again
	return nil
}

func (s *Server) tlsConfig() *tls.Config {
	if s.TLS != nil {
		return s.TLS
	}
	return &tls.Config{ServerName: s.host, MinVersion: tls.VersionTLS12}
}

// Permanent reports whether err is the server's final refusal (a 5xx
// reply), which sending again will not change.
func Permanent(err error) bool {
	var te *textproto.Error
	return errors.As(err, &te) && te.Code >= 500 && te.Code < 600
}
