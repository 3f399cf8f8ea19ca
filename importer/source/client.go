// Package source reads a whole account through the administrative API that
// Worksection and taskd both speak (issue 36, DESIGN §12): hash-signed GET
// requests as the PHP SDK sends them, answers decoded into this package's
// types, tolerant of what the documented sources disagree on and bounded
// against hostile input. It writes nothing anywhere: the importer maps what
// it reads onto a taskd account.
package source

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// Defaults of Options.
const (
	DefaultConcurrency    = 4
	DefaultAttempts       = 6
	DefaultBaseDelay      = 500 * time.Millisecond
	DefaultMaxDelay       = 30 * time.Second
	DefaultMaxRetryAfter  = 5 * time.Minute
	DefaultMaxAnswerBytes = 64 << 20
	// DefaultAheadBytes is what the reads beyond the oldest may hold
	// together, on top of the bound of one answer (Options.MaxHeldBytes):
	// the comments read ahead of those being written, kilobytes each in
	// a real account.
	DefaultAheadBytes = 4 << 20
	DefaultTimeout    = 2 * time.Minute
	// DefaultStall bounds a download's wait for its next bytes; a download
	// as a whole has no time bound, so a large file on a slow link is
	// brought, while one whose source stops sending is not waited on.
	DefaultStall = 2 * time.Minute
	// MaxDepth bounds the nesting of any JSON answer (objects and arrays).
	MaxDepth = 32
)

// CodeRateLimit is the API's "too many requests" (HTTP 429).
const CodeRateLimit = 24

// RetryPolicy is exponential backoff with jitter, for network errors, HTTP
// 5xx and the rate limit (code 24 or HTTP 429). Attempt n (from 1) that
// fails waits a random time in [d/2, d], d = min(MaxDelay, BaseDelay·2^(n-1)),
// or the Retry-After the answer gives (at most MaxRetryAfter).
type RetryPolicy struct {
	Attempts      int           // tries in all, first included; DefaultAttempts when 0
	BaseDelay     time.Duration // DefaultBaseDelay when 0
	MaxDelay      time.Duration // DefaultMaxDelay when 0
	MaxRetryAfter time.Duration // DefaultMaxRetryAfter when 0
}

// Options configure a Client; the zero value is usable.
type Options struct {
	// HTTPClient makes the requests; a client with DefaultTimeout when
	// nil. The Client uses a copy whose redirects stay on the source's
	// host. Its Timeout bounds each call's answer, without the time a read
	// waits for room in MaxHeldBytes.
	HTTPClient *http.Client
	// Concurrency bounds the requests in flight; DefaultConcurrency when 0.
	Concurrency int
	Retry       RetryPolicy
	// Sleep waits d or until ctx is done; a timer when nil. Tests pass a
	// hook that records the waits and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1); rand.Float64 when nil.
	Jitter func() float64
	// Now is the clock for Retry-After dates; time.Now when nil.
	Now func() time.Time
	// MaxAnswerBytes bounds one JSON answer: the bytes received, and the
	// values decoded from it and kept (weighed as the memory they take);
	// DefaultMaxAnswerBytes when 0. An answer over it fails its call with
	// a *TooLargeError (ErrAnswerTooLarge), not retried.
	MaxAnswerBytes int64
	// MaxHeldBytes bounds what all the reads of the client hold at once,
	// however many run together: the bytes received and not yet decoded,
	// and the values decoded and kept until their call returns (or its
	// Lease is released). MaxAnswerBytes + DefaultAheadBytes when 0, and
	// never less than MaxAnswerBytes: the oldest read may always hold
	// that much (see Lease), the others share the rest.
	MaxHeldBytes int64
	// MaxFileBytes bounds a download; taskd.DefaultFileLimits.MaxFileBytes
	// when 0.
	MaxFileBytes int64
	// Stall bounds how long a download waits for its next bytes (its
	// answer's first, then each read); DefaultStall when zero. A whole
	// download has no time bound.
	Stall time.Duration
}

// Client reads one source account. It is safe for concurrent use.
type Client struct {
	base   *url.URL // {account_url}/api/admin/v2
	key    string
	http   *http.Client
	sem    chan struct{}
	retry  RetryPolicy
	sleep  func(context.Context, time.Duration) error
	jitter func() float64
	now    func() time.Time
	max    int64
	maxF   int64
	// budget is what the reads hold (Options.MaxHeldBytes); timeout
	// bounds a call's answer, the waits for the budget left out.
	budget  *budget
	timeout time.Duration
	// files makes downloads (http without its Timeout); stall bounds a
	// download's wait for its next bytes.
	files *http.Client
	stall time.Duration
}

// New is a client of the account at accountURL (its address, as
// Worksection's https://NAME.worksection.com or taskd's {public}/a/{slug})
// signing with adminKey.
func New(accountURL, adminKey string, opts Options) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(accountURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("source: the account URL must be an http or https address without credentials, query or fragment")
	}
	if adminKey == "" {
		return nil, errors.New("source: the administrative key is empty")
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/api/admin/v2"
	u.RawPath = ""
	c := &Client{base: u, key: adminKey, retry: opts.Retry, sleep: opts.Sleep, jitter: opts.Jitter, now: opts.Now,
		max: opts.MaxAnswerBytes, maxF: opts.MaxFileBytes}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	cp := *hc
	cp.CheckRedirect = c.sameHost
	// The client's Timeout is the call's own clock (callClock), which
	// stops while a read waits for the budget.
	c.timeout, cp.Timeout = cp.Timeout, 0
	c.http = &cp
	// Downloads: no bound on the whole, a bound on each wait (Stall).
	files := cp
	files.Timeout = 0
	c.files = &files
	c.stall = opts.Stall
	if c.stall <= 0 {
		c.stall = DefaultStall
	}
	n := opts.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	c.sem = make(chan struct{}, n)
	if c.retry.Attempts <= 0 {
		c.retry.Attempts = DefaultAttempts
	}
	if c.retry.BaseDelay <= 0 {
		c.retry.BaseDelay = DefaultBaseDelay
	}
	if c.retry.MaxDelay <= 0 {
		c.retry.MaxDelay = DefaultMaxDelay
	}
	if c.retry.MaxRetryAfter <= 0 {
		c.retry.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if c.sleep == nil {
		c.sleep = sleep
	}
	if c.jitter == nil {
		c.jitter = rand.Float64
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.max <= 0 {
		c.max = DefaultMaxAnswerBytes
	}
	held := opts.MaxHeldBytes
	if held <= 0 {
		held = c.max + DefaultAheadBytes
	}
	// The oldest read may hold an answer and the chunk being read.
	c.budget = newBudget(max(held, c.max)+readChunk, c.max+readChunk)
	if c.maxF <= 0 {
		c.maxF = taskd.DefaultFileLimits.MaxFileBytes
	}
	return c, nil
}

// Concurrency is how many requests the client makes at once, at most
// (Options.Concurrency).
func (c *Client) Concurrency() int { return cap(c.sem) }

// URL is the account's address the client was made with, without the key.
func (c *Client) URL() string {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/api/admin/v2")
	return u.String()
}

// sameHost refuses redirects away from the source's scheme and host, and
// more than five.
func (c *Client) sameHost(req *http.Request, via []*http.Request) error {
	if len(via) > 5 { // the n-th redirect finds the n requests made before it
		return errors.New("more than 5 redirects")
	}
	if req.URL.Scheme != c.base.Scheme || req.URL.Host != c.base.Host {
		return fmt.Errorf("a redirect to another host (%s) is not followed", req.URL.Host)
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// APIError is an error answer of the source: {"status":"error",...}, or an
// HTTP failure without one.
type APIError struct {
	Action     string
	HTTPStatus int
	Code       int // -1 when the answer carried none
	Message    string
	Details    string
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "source: %s: ", e.Action)
	if e.Code >= 0 {
		fmt.Fprintf(&b, "code %d: ", e.Code)
	}
	if e.Message != "" {
		b.WriteString(e.Message)
	} else {
		fmt.Fprintf(&b, "HTTP %d", e.HTTPStatus)
	}
	if e.Details != "" {
		fmt.Fprintf(&b, " (%s)", e.Details)
	}
	return b.String()
}

// retryable is a rate limit or a server failure.
func (e *APIError) retryable() bool {
	return e.Code == CodeRateLimit || e.HTTPStatus == http.StatusTooManyRequests || e.HTTPStatus >= 500
}

// ActionError wraps every other failure of a call with the action's name;
// it never carries the key, the hash or the signed URL.
type ActionError struct {
	Action string
	Err    error
}

func (e *ActionError) Error() string { return "source: " + e.Action + ": " + e.Err.Error() }
func (e *ActionError) Unwrap() error { return e.Err }

// param is one query parameter; order matters for the signature.
type param struct{ k, v string }

// phpEncode is PHP's urlencode, as http_build_query writes each part.
func phpEncode(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "~", "%7E") }

// signed is the URL of action with params: the query as the PHP SDK builds
// it (action first) and hash = md5(query + key).
func (c *Client) signed(action string, params []param) string {
	var q strings.Builder
	q.WriteString("action=" + phpEncode(action))
	for _, p := range params {
		q.WriteString("&" + phpEncode(p.k) + "=" + phpEncode(p.v))
	}
	s := q.String()
	return c.base.String() + "?" + s + "&hash=" + wire.Hash(s, c.key)
}

// clean makes an error of the transport safe to show: a *url.Error names
// the signed URL, so only its operation and cause are kept.
func clean(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("%s request timed out: %w", ue.Op, stripURL(ue.Err))
		}
		return fmt.Errorf("%s request: %w", ue.Op, stripURL(ue.Err))
	}
	return err
}

func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return stripURL(ue.Err)
	}
	return err
}

// envelope is the API's answer around data; HasData says whether the
// answer had data.
type envelope struct {
	Status     string
	StatusCode flexString
	Message    flexString
	Details    flexString
	HasData    bool
}

// do sends one signed GET, with retries. The data of a JSON answer with
// status ok is decoded by onData as it is read; with onRaw set, a 200
// answer that is not JSON goes to onRaw instead (a download). It returns
// the last error otherwise. What onData keeps is held against the
// client's budget until do returns, or, with a Lease in ctx, until it is
// released.
func (c *Client) do(ctx context.Context, action string, params []param, onData dataFunc, onRaw func(*http.Response) error) error {
	h, own := c.holdFor(ctx)
	if own {
		defer h.release()
	}
	var last error
	for attempt := 1; ; attempt++ {
		retryAfter, err := c.once(ctx, h, action, params, onData, onRaw)
		if err == nil {
			return nil
		}
		last = err
		if ctx.Err() != nil {
			return &ActionError{Action: action, Err: ctx.Err()}
		}
		if !retryable(err) || attempt >= c.retry.Attempts {
			if attempt > 1 {
				return &ActionError{Action: action, Err: fmt.Errorf("gave up after %d attempts: %w", attempt, last)}
			}
			return wrap(action, last)
		}
		d := c.backoff(attempt)
		if retryAfter >= 0 {
			d = min(retryAfter, c.retry.MaxRetryAfter)
		}
		if err := c.sleep(ctx, d); err != nil {
			return &ActionError{Action: action, Err: err}
		}
	}
}

func wrap(action string, err error) error {
	var ae *APIError
	if errors.As(err, &ae) {
		return err
	}
	var ac *ActionError
	if errors.As(err, &ac) {
		return err
	}
	return &ActionError{Action: action, Err: err}
}

// backoff is the wait after the attempt-th failure, jitter included.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.retry.BaseDelay
	for i := 1; i < attempt && d < c.retry.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, c.retry.MaxDelay)
	return d/2 + time.Duration(c.jitter()*float64(d/2))
}

// netError marks a transport failure, which is retried.
type netError struct{ err error }

func (e netError) Error() string { return e.err.Error() }
func (e netError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.retryable()
	}
	var ne netError
	return errors.As(err, &ne)
}

// once makes one attempt, whose JSON answer is read and held with h.
// retryAfter is the answer's Retry-After, -1 when absent.
func (c *Client) once(ctx context.Context, h *hold, action string, params []param, onData dataFunc, onRaw func(*http.Response) error) (retryAfter time.Duration, err error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return -1, ctx.Err()
	}
	defer func() { <-c.sem }()
	var clock *callClock
	if onRaw == nil && c.timeout > 0 {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		clock = startClock(c.timeout, cancel)
		defer clock.stop()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.signed(action, params), nil)
	if err != nil {
		return -1, errors.New("cannot make the request")
	}
	req.Header.Set("Accept", "application/json")
	hc := c.http
	if onRaw != nil {
		hc = c.files
	}
	res, err := hc.Do(req)
	if err != nil {
		return -1, netError{clean(err)}
	}
	defer res.Body.Close()
	retryAfter = c.parseRetryAfter(res.Header.Get("Retry-After"))
	if onRaw != nil && res.StatusCode == http.StatusOK && !isJSON(res.Header.Get("Content-Type")) {
		return retryAfter, onRaw(res)
	}
	r := newReading(ctx, res.Body, h, c.max, about(params))
	if clock != nil {
		r.pause = clock.pause
	}
	ok := false
	defer func() {
		if !ok { // what this attempt took goes back: its values are dropped
			r.give(r.taken)
		}
	}()
	env, derr := readAnswer(r, res.StatusCode == http.StatusOK && onRaw == nil, onData)
	var de dataError
	switch {
	case errors.As(derr, &de):
		return retryAfter, &ActionError{Action: action, Err: de.err}
	case derr != nil && (res.StatusCode >= 500 || res.StatusCode == http.StatusTooManyRequests):
		// A failure's answer that cannot be read: retried as the failure.
		return retryAfter, &APIError{Action: action, HTTPStatus: res.StatusCode, Code: -1}
	case errors.Is(derr, ErrAnswerTooLarge), errors.As(derr, new(netError)), errors.Is(derr, errReleased):
		return retryAfter, derr
	}
	if derr != nil || env.Status != "ok" || res.StatusCode != http.StatusOK {
		return retryAfter, apiError(action, res.StatusCode, env, derr)
	}
	if onRaw != nil {
		return retryAfter, errors.New("the answer is JSON, not a file")
	}
	if !env.HasData {
		// No data: decoded as null (an empty list; no object).
		if err := onData(noData(r)); err != nil {
			return retryAfter, &ActionError{Action: action, Err: err}
		}
	}
	r.settle()
	ok = true
	return retryAfter, nil
}

// about is the call's first id argument, for the errors of its answer:
// "id_task=101", or "".
func about(params []param) string {
	for _, p := range params {
		if strings.HasPrefix(p.k, "id_") {
			return p.k + "=" + oneLine(p.v, 70)
		}
	}
	return ""
}

// callClock bounds the time of a call's answer; pause stops it while the
// read waits for room in the memory budget, so that a read held back by
// the others is not taken for a slow source.
type callClock struct {
	mu    sync.Mutex
	t     *time.Timer
	left  time.Duration
	since time.Time
}

// timedOut is the cause of a call stopped by its clock; the transport
// returns it, and its Timeout makes it a timeout (clean).
type timedOut struct{ d time.Duration }

func (e timedOut) Error() string { return fmt.Sprintf("no whole answer in %v", e.d) }
func (e timedOut) Timeout() bool { return true }

func startClock(d time.Duration, cancel context.CancelCauseFunc) *callClock {
	c := &callClock{left: d, since: time.Now()}
	c.t = time.AfterFunc(d, func() { cancel(timedOut{d}) })
	return c
}

func (c *callClock) pause(waiting bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if waiting {
		if c.t.Stop() {
			c.left -= time.Since(c.since)
		}
		return
	}
	c.since = time.Now()
	c.t.Reset(max(c.left, 0))
}

func (c *callClock) stop() { c.t.Stop() }

func apiError(action string, status int, env envelope, derr error) error {
	if derr != nil {
		if status >= 500 || status == http.StatusTooManyRequests {
			return &APIError{Action: action, HTTPStatus: status, Code: -1}
		}
		if status != http.StatusOK {
			return &APIError{Action: action, HTTPStatus: status, Code: -1, Message: "the answer is not the API's JSON"}
		}
		return derr
	}
	code := -1
	if n, err := strconv.Atoi(string(env.StatusCode)); err == nil {
		code = n
	}
	msg := oneLine(string(env.Message), 300)
	if env.Status != "error" && env.Status != "ok" && msg == "" {
		msg = fmt.Sprintf("the answer's status is %q", oneLine(env.Status, 40))
	}
	return &APIError{Action: action, HTTPStatus: status, Code: code, Message: msg, Details: oneLine(string(env.Details), 300)}
}

func isJSON(ct string) bool {
	ct = strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	return ct == "application/json" || strings.HasSuffix(ct, "+json")
}

// parseRetryAfter reads seconds or an HTTP date; -1 when absent or bad.
func (c *Client) parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return -1
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		if n > int64(c.retry.MaxRetryAfter/time.Second) {
			return c.retry.MaxRetryAfter
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(c.now()), 0)
	}
	return -1
}

// call runs action and decodes its data with decode, as it is read.
func (c *Client) call(ctx context.Context, action string, params []param, decode dataFunc) error {
	return c.do(ctx, action, params, decode, nil)
}
