package source

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// countingWriter counts the bytes written to it.
type countingWriter struct {
	n int
	b strings.Builder
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return w.b.Write(p)
}

// fileServer answers the download action with content as a file and any
// other path with "the page"; it records every request's path and query.
type fileServer struct {
	mu   sync.Mutex
	seen []string
}

func (s *fileServer) handler(content string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.URL.Path+" "+r.URL.Query().Get("action")+" "+r.URL.Query().Get("id_file"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/octet-stream")
		if r.URL.Path != "/api/admin/v2" {
			w.Write([]byte("the page"))
			return
		}
		w.Write([]byte(content))
	}
}

func (s *fileServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// TestFilePageIsNeverFetched: a file comes by the download action on the
// account's own URL; its page, on another host or the source's own, is
// never asked for.
func TestFilePageIsNeverFetched(t *testing.T) {
	other := &fileServer{}
	page := httptest.NewServer(other.handler("elsewhere"))
	t.Cleanup(page.Close)
	src := &fileServer{}
	c, _ := retryClient(t, src.handler("the file"), Options{})
	for _, p := range []string{page.URL + "/download/501", c.URL() + "/download/501", "/download/501"} {
		var w countingWriter
		size, _, err := c.Download(context.Background(), File{ID: "501", Page: p, Size: 8}, &w)
		if err != nil || size != 8 || w.b.String() != "the file" {
			t.Errorf("page %s: %d %q %v", p, size, w.b.String(), err)
		}
	}
	eq(t, "the source's requests", src.requests(), []string{"/api/admin/v2 download 501", "/api/admin/v2 download 501", "/api/admin/v2 download 501"})
	eq(t, "the other host's requests", other.requests(), []string(nil))
}

// TestDownloadAnnouncedOverBound: a download whose Content-Length is over
// MaxFileBytes is refused before a byte reaches the writer; one at the
// bound is taken.
func TestDownloadAnnouncedOverBound(t *testing.T) {
	const bound = 1000
	for _, tc := range []struct {
		size int
		ok   bool
	}{{bound, true}, {bound + 1, false}, {bound * 3 / 2, false}} {
		t.Run(strconv.Itoa(tc.size), func(t *testing.T) {
			c, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Header().Set("Content-Length", strconv.Itoa(tc.size))
				w.Write([]byte(strings.Repeat("x", tc.size)))
			}, Options{MaxFileBytes: bound})
			var w countingWriter
			size, _, err := c.Download(context.Background(), File{ID: "1", Size: -1}, &w)
			if tc.ok {
				if err != nil || size != int64(tc.size) || w.n != tc.size {
					t.Errorf("%d bytes written, %d: %v", w.n, size, err)
				}
				return
			}
			if !errors.Is(err, ErrTooLarge) || w.n != 0 {
				t.Errorf("%d bytes written: %v", w.n, err)
			}
		})
	}
}

// TestDownloadRetriedOnlyBeforeItsFirstByte: a download that fails before
// its first byte (a 503, a body cut before it starts) is retried; once
// bytes reached the writer, the error is returned at once.
func TestDownloadRetriedOnlyBeforeItsFirstByte(t *testing.T) {
	const content = "0123456789abcdefghij"
	// cut sends the headers of the whole file and only its first n bytes.
	cut := func(w http.ResponseWriter, n int) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(content)))
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(content[:n]))
		w.(http.Flusher).Flush()
	}
	whole := func(w http.ResponseWriter) { cut(w, len(content)) }
	for _, tc := range []struct {
		name   string
		first  func(w http.ResponseWriter)
		tries  int32
		err    string
		output string
	}{
		{"a 503", func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) }, 2, "", content},
		{"cut before the first byte", func(w http.ResponseWriter) { cut(w, 0) }, 2, "", content},
		{"cut after 10 bytes", func(w http.ResponseWriter) { cut(w, 10) }, 1, "after 10 bytes", content[:10]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			c, s := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 1 {
					tc.first(w)
					return
				}
				whole(w)
			}, Options{})
			var w countingWriter
			size, _, err := c.Download(context.Background(), File{ID: "1", Size: int64(len(content))}, &w)
			if tc.err == "" && (err != nil || size != int64(len(content))) {
				t.Errorf("%d: %v", size, err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("got %v", err)
			}
			if n.Load() != tc.tries || len(s.d) != int(tc.tries)-1 || w.b.String() != tc.output {
				t.Errorf("%d tries, waits %v, wrote %q", n.Load(), s.d, w.b.String())
			}
		})
	}
}

// failingWriter refuses every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("the disk is full") }

// TestDownloadWriterFailureNotRetried: the writer's own failure is not the
// source's, and is not retried.
func TestDownloadWriterFailureNotRetried(t *testing.T) {
	var n atomic.Int32
	c, s := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte("the file"))
	}, Options{})
	_, _, err := c.Download(context.Background(), File{ID: "1", Size: -1}, failingWriter{})
	if err == nil || !strings.Contains(err.Error(), "the disk is full") || n.Load() != 1 || len(s.d) != 0 {
		t.Errorf("%d tries, waits %v: %v", n.Load(), s.d, err)
	}
}

// TestRedirectBound: five redirects are followed, a sixth is refused
// without being asked for.
func TestRedirectBound(t *testing.T) {
	for _, hops := range []int{5, 6} {
		t.Run(strconv.Itoa(hops), func(t *testing.T) {
			var mu sync.Mutex
			var seen []string
			c, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen = append(seen, r.URL.Path)
				mu.Unlock()
				n := 0
				if p, ok := strings.CutPrefix(r.URL.Path, "/hop/"); ok {
					n, _ = strconv.Atoi(p)
				}
				if n < hops {
					http.Redirect(w, r, fmt.Sprintf("/hop/%d?%s", n+1, r.URL.RawQuery), http.StatusFound)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(okTeams))
			}, Options{Retry: RetryPolicy{Attempts: 1}})
			_, err := c.Teams(context.Background())
			mu.Lock()
			defer mu.Unlock()
			if hops == 5 {
				if err != nil || len(seen) != 6 {
					t.Errorf("%v after %v", err, seen)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "more than 5 redirects") || len(seen) != 6 {
				t.Errorf("%v after %v", err, seen)
			}
		})
	}
}

// TestRedirectToPlainHTTPRefused: an https source's redirect to http on
// the same host is refused and nothing is sent in the clear; one to https
// on the same host is followed. The source is https://example.com (a name
// the test server's certificate holds), dialled to loopback servers: its
// port 443 to a TLS server, its port 80 to a plain one.
func TestRedirectToPlainHTTPRefused(t *testing.T) {
	var plain atomic.Int32
	clear := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plain.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(okTeams))
	}))
	t.Cleanup(clear.Close)
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/down/api/admin/v2":
			http.Redirect(w, r, "http://example.com/api/admin/v2?"+r.URL.RawQuery, http.StatusFound)
		case "/moved/api/admin/v2":
			http.Redirect(w, r, "https://example.com/api/admin/v2?"+r.URL.RawQuery, http.StatusFound)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(okTeams))
		}
	}))
	t.Cleanup(tls.Close)
	tr := tls.Client().Transport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		to := map[string]string{"example.com:443": tls.Listener.Addr().String(), "example.com:80": clear.Listener.Addr().String()}[addr]
		if to == "" {
			return nil, fmt.Errorf("no server for %s", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, to)
	}
	client := func(path string) *Client {
		c, err := New("https://example.com"+path, testKey, Options{HTTPClient: &http.Client{Transport: tr}, Retry: RetryPolicy{Attempts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	if _, err := client("/moved").Teams(ctx); err != nil {
		t.Errorf("a redirect to https on the same host: %v", err)
	}
	_, err := client("/down").Teams(ctx)
	if err == nil || !strings.Contains(err.Error(), "not followed") || plain.Load() != 0 {
		t.Errorf("https to http: %v, %d requests in the clear", err, plain.Load())
	}
}
