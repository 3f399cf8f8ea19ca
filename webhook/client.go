// Package webhook delivers account events to webhooks: the URL check, the
// Standard Webhooks signature, an HTTP client that refuses private
// destinations at connection time, the service behind the webhook actions
// and pages, and the dispatcher that drains the outbox.
package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Limits of one request to a destination.
const (
	Timeout     = 5 * time.Second // spec: answer within 5 seconds
	maxResponse = 64 << 10        // bytes of an answer read
	excerptLen  = 300             // bytes of an answer kept in the log
	// MaxPayload bounds a delivery's body. Texts are at most 100 KB, so an
	// event (new and old values) stays well below it.
	MaxPayload = 1 << 20
)

// UserAgent names taskd's deliveries.
const UserAgent = "taskd-webhooks/1"

// errPrivate is a destination refused by the SSRF guard.
var errPrivate = errors.New("the destination resolves to a non-public (private, loopback, link-local, multicast, reserved or special-purpose) address")

// NewHTTPClient returns the client deliveries and URL checks use: no
// redirects followed, no proxy from the environment (it would bypass the
// guard), and, unless allowPrivate, every connection's resolved address
// checked when it is dialled, so DNS rebinding cannot slip past.
func NewHTTPClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: Timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || isBlocked(ap.Addr()) {
				return errPrivate
			}
			return nil
		}
	}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   Timeout,
			ResponseHeaderTimeout: Timeout,
			// Up to the dispatcher's workers send to one host at once
			// (several webhooks may share it): keep as many connections.
			MaxIdleConns:        256,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     60 * time.Second,
			ForceAttemptHTTP2:   true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Request is one POST to a destination.
type Request struct {
	URL      string
	Body     []byte // a JSON array
	ID       string // webhook-id
	Secret   string // whsec_…
	HTTPUser string
	HTTPPass string
}

// Result is how a destination answered.
type Result struct {
	OK       bool
	Status   int
	Latency  time.Duration
	Error    string // why it counts as an error; empty when OK
	Response string // excerpt of the body
	// NewConnection reports that the request opened a connection rather
	// than reusing an idle one.
	NewConnection bool
}

// Post sends the request and judges the answer: success is HTTP 200 with a
// JSON content type and a JSON object whose status is "OK", within Timeout.
func Post(ctx context.Context, c *http.Client, r Request, now time.Time) Result {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if len(r.Body) > MaxPayload {
		return Result{Error: fmt.Sprintf(reasonPayload, len(r.Body), MaxPayload)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, strings.NewReader(string(r.Body)))
	if err != nil {
		return Result{Error: reasonBadURL}
	}
	sig, err := Sign(r.Secret, r.ID, now, r.Body)
	if err != nil {
		return Result{Error: reasonCannotSign + err.Error()}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set("webhook-id", r.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	h.Set("webhook-signature", sig)
	if r.HTTPUser != "" || r.HTTPPass != "" {
		req.SetBasicAuth(r.HTTPUser, r.HTTPPass)
	}
	newConn := false
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { newConn = !info.Reused },
	}))
	start := time.Now()
	res, err := c.Do(req)
	if err != nil {
		return Result{Latency: time.Since(start), Error: describe(err, ctx), NewConnection: newConn}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxResponse+1))
	out := Result{Status: res.StatusCode, Latency: time.Since(start), Response: excerpt(body), NewConnection: newConn}
	switch {
	case err != nil:
		out.Error = describe(err, ctx)
	case res.StatusCode >= 300 && res.StatusCode < 400:
		out.Error = fmt.Sprintf(reasonRedirect, res.StatusCode)
	case res.StatusCode != http.StatusOK:
		out.Error = fmt.Sprintf(reasonStatus, res.StatusCode)
	case len(body) > maxResponse:
		out.Error = fmt.Sprintf(reasonTooLong, maxResponse)
	case !isJSON(res.Header.Get("Content-Type")):
		out.Error = fmt.Sprintf(reasonNotJSON, res.Header.Get("Content-Type"))
	case !statusOK(body):
		out.Error = reasonNotOK
	default:
		out.OK = true
	}
	return out
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

func statusOK(body []byte) bool {
	var v struct {
		Status *string `json:"status"`
	}
	return json.Unmarshal(body, &v) == nil && v.Status != nil && *v.Status == "OK"
}

// describe turns a transport error into a short reason without internals.
func describe(err error, ctx context.Context) string {
	switch {
	case errors.Is(err, errPrivate):
		return errPrivate.Error()
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf(reasonTimeout, Timeout)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return reasonNoHost
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return reasonRefused
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return reasonConnect + op.Err.Error()
	}
	return reasonFailed
}

func excerpt(b []byte) string {
	if len(b) > excerptLen {
		b = b[:excerptLen]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
