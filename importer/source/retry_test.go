package source

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd/wire"
)

// sleeps records the waits of a client instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func retryClient(t *testing.T, h http.HandlerFunc, o Options) (*Client, *sleeps) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s := &sleeps{}
	o.Sleep = s.sleep
	if o.Jitter == nil {
		o.Jitter = func() float64 { return 0.5 }
	}
	c, err := New(srv.URL, testKey, o)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

const okTeams = `{"status":"ok","data":[{"id":"1","title":"A","type":"company","client":0}]}`

// TestRetryPolicy: the rate limit (code 24 with HTTP 429, or HTTP 429
// alone) and server failures are retried with backoff, Retry-After is
// honoured (seconds or a date, capped), a source that keeps failing is
// given up on after the bounded attempts with a clear error, and other
// errors are not retried.
func TestRetryPolicy(t *testing.T) {
	ctx := context.Background()
	t.Run("429 and code 24 twice, then ok", func(t *testing.T) {
		var n atomic.Int32
		c, s := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch n.Add(1) {
			case 1:
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"status":"error","status_code":24,"message":"Too many requests"}`))
			case 2:
				w.WriteHeader(http.StatusOK) // code 24 in a 200 answer
				w.Write([]byte(`{"status":"error","status_code":"24","message":"Too many requests"}`))
			default:
				w.Write([]byte(okTeams))
			}
		}, Options{})
		teams, err := c.Teams(ctx)
		if err != nil || len(teams) != 1 {
			t.Fatalf("%v %v", teams, err)
		}
		eq(t, "waits", s.d, []time.Duration{7 * time.Second, 750 * time.Millisecond})
	})
	t.Run("Retry-After as a date, and capped", func(t *testing.T) {
		now := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
		var n atomic.Int32
		c, s := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
			switch n.Add(1) {
			case 1:
				w.Header().Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
				w.WriteHeader(http.StatusTooManyRequests)
			case 2:
				w.Header().Set("Retry-After", "86400")
				w.WriteHeader(http.StatusServiceUnavailable)
			default:
				w.Write([]byte(okTeams))
			}
		}, Options{Now: func() time.Time { return now }, Retry: RetryPolicy{MaxRetryAfter: time.Minute}})
		if _, err := c.Teams(ctx); err != nil {
			t.Fatal(err)
		}
		eq(t, "waits", s.d, []time.Duration{time.Minute, time.Minute})
	})
	t.Run("500 forever", func(t *testing.T) {
		var n atomic.Int32
		c, s := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"status":"error","status_code":99,"message":"Internal error"}`))
		}, Options{Retry: RetryPolicy{Attempts: 4, BaseDelay: time.Second, MaxDelay: 3 * time.Second}})
		_, err := c.Teams(ctx)
		if n.Load() != 4 {
			t.Errorf("%d attempts", n.Load())
		}
		if err == nil || err.Error() != "source: get_user_groups: gave up after 4 attempts: source: get_user_groups: code 99: Internal error" {
			t.Errorf("got %v", err)
		}
		var ae *APIError
		if !errors.As(err, &ae) || ae.HTTPStatus != 500 {
			t.Errorf("not an APIError: %v", err)
		}
		// Exponential, capped, with jitter 0.5: d/2 + d/4.
		eq(t, "waits", s.d, []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 2250 * time.Millisecond})
	})
	t.Run("a cut connection is retried", func(t *testing.T) {
		var n atomic.Int32
		c, s := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.Header().Set("Content-Length", "1000")
				w.Write([]byte(`{"status":"ok","data":[`))
				return // the body ends short
			}
			w.Write([]byte(okTeams))
		}, Options{})
		if _, err := c.Teams(ctx); err != nil {
			t.Fatal(err)
		}
		if len(s.d) != 1 {
			t.Errorf("waits %v", s.d)
		}
	})
	t.Run("refused connections", func(t *testing.T) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := ln.Addr().String()
		ln.Close()
		s := &sleeps{}
		c, _ := New("http://"+addr, testKey, Options{Sleep: s.sleep, Retry: RetryPolicy{Attempts: 3}})
		_, err := c.Users(ctx)
		if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") || len(s.d) != 2 {
			t.Errorf("got %v after %v", err, s.d)
		}
	})
	t.Run("errors of the request are not retried", func(t *testing.T) {
		var n atomic.Int32
		c, s := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"status":"error","status_code":2,"message":"Action hash is missed or invalid"}`))
		}, Options{})
		_, err := c.Users(ctx)
		if n.Load() != 1 || len(s.d) != 0 || err == nil || err.Error() != "source: get_users: code 2: Action hash is missed or invalid" {
			t.Errorf("%d attempts: %v", n.Load(), err)
		}
	})
	t.Run("a cancelled context stops the waits", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx)
		c, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
			cancel()
			w.WriteHeader(http.StatusBadGateway)
		}, Options{})
		if _, err := c.Users(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v", err)
		}
	})
}

// TestConcurrencyBound: no more requests are in flight than
// Options.Concurrency.
func TestConcurrencyBound(t *testing.T) {
	var in, peak atomic.Int32
	c, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
		n := in.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		in.Add(-1)
		w.Write([]byte(okTeams))
	}, Options{Concurrency: 3})
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			if _, err := c.Teams(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak %d in flight", p)
	}
}

// TestSecretsNeverInErrors: whatever fails, neither the key nor a hash
// made with it appears in an error.
func TestSecretsNeverInErrors(t *testing.T) {
	ctx := context.Background()
	hash := wire.Hash("action=get_users", testKey)
	check := func(t *testing.T, err error) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		if s := err.Error(); strings.Contains(s, testKey) || strings.Contains(s, hash) || strings.Contains(s, "hash=") {
			t.Errorf("the error shows a secret: %s", s)
		}
	}
	// A transport error (url.Error names the URL).
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	c, _ := New("http://"+addr, testKey, Options{Retry: RetryPolicy{Attempts: 1}})
	_, err := c.Users(ctx)
	check(t, err)
	// A timeout.
	slow, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) { time.Sleep(200 * time.Millisecond) },
		Options{HTTPClient: &http.Client{Timeout: 20 * time.Millisecond}, Retry: RetryPolicy{Attempts: 2}})
	_, err = slow.Users(ctx)
	check(t, err)
	// An answer that echoes the URL.
	echo, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`not json ` + r.URL.String()))
	}, Options{})
	_, err = echo.Users(ctx)
	check(t, err)
	// Too many redirects.
	loop, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.String(), http.StatusFound)
	}, Options{Retry: RetryPolicy{Attempts: 1}})
	_, err = loop.Users(ctx)
	check(t, err)
}
