package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/taskd/taskd/bench/internal/proc"
	"github.com/taskd/taskd/wire"
)

// statusOK is what every successful response body contains.
var statusOK = []byte(`"status":"ok"`)

// requestFunc returns the next request a client sends.
type requestFunc func(ctx context.Context) (*http.Request, error)

// newHTTPClient returns the one client all load clients share: keep-alive
// connections, one idle connection kept per client, no compression, no
// proxy, no redirects, and dials refused unless they reach a loopback address.
func newHTTPClient(clients int, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: loopbackOnly}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         dialer.DialContext,
			MaxIdleConns:        clients,
			MaxIdleConnsPerHost: clients,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// loopbackOnly is a dialer control that refuses any non-loopback address,
// whatever a host name resolved to.
func loopbackOnly(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("dial %s: refusing a non-loopback address", address)
	}
	return nil
}

// adminEndpoint is the administrative API address of an account URL.
func adminEndpoint(accountURL string) string { return accountURL + "/api/admin/v2/" }

// getTasksURL is the signed get_tasks URL for a project.
func getTasksURL(accountURL, key, project string) string {
	q := "action=get_tasks&id_project=" + project
	return adminEndpoint(accountURL) + "?" + q + "&hash=" + wire.Hash(q, key)
}

// getRequest sends GET u every time.
func getRequest(u string) requestFunc {
	return func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	}
}

// postTaskRequest creates a task titled "load N", N counting up from 1 across
// all clients, authenticated with the Admin header.
func postTaskRequest(endpoint, key, project string) requestFunc {
	var seq atomic.Int64
	prefix := "action=post_task&id_project=" + project + "&title=load+"
	return func(ctx context.Context) (*http.Request, error) {
		body := prefix + strconv.FormatInt(seq.Add(1), 10)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", wire.AdminHeader(key, "post_task", time.Now()))
		return req, nil
	}
}

// fetch sends one request, reads the whole body into buf and checks it.
func fetch(client *http.Client, req *http.Request, buf *bytes.Buffer) error {
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, snippet(buf.Bytes()))
	}
	if !bytes.Contains(buf.Bytes(), statusOK) {
		return fmt.Errorf(`no "status":"ok" in body: %s`, snippet(buf.Bytes()))
	}
	return nil
}

// snippet is the start of a body, for error messages.
func snippet(b []byte) string {
	const limit = 200
	b = bytes.TrimSpace(b)
	if len(b) > limit {
		return string(b[:limit]) + "…"
	}
	return string(b)
}

// clientStats is what one client saw. Only its own goroutine writes it.
type clientStats struct {
	latencies      []time.Duration // measured requests, successful or not
	bytes          int64           // body bytes of measured successes
	successes      int64
	failures       int64
	warmupFailures int64
	firstErr       error
	lastDone       time.Time // when the last measured request finished
}

// window is the run's schedule and request budget, shared by all clients.
type window struct {
	measure time.Time    // requests started from here on are counted
	end     time.Time    // no request starts from here on
	limit   int64        // most measured requests; 0 means no limit
	issued  atomic.Int64 // measured requests started
}

// take reports whether a request may start at now and whether it counts.
func (w *window) take(now time.Time) (ok, measured bool) {
	if !now.Before(w.end) {
		return false, false
	}
	if now.Before(w.measure) {
		return true, false
	}
	if w.limit > 0 && w.issued.Add(1) > w.limit {
		return false, false
	}
	return true, true
}

// drive runs cfg.clients clients through the warm-up and the measured time
// and merges what they saw.
func drive(ctx context.Context, client *http.Client, next requestFunc, cfg config) *result {
	start := time.Now()
	w := &window{measure: start.Add(cfg.warmup), limit: cfg.requests}
	w.end = w.measure.Add(cfg.duration)
	capacity := 1 << 14
	if cfg.requests > 0 {
		capacity = int(min(cfg.requests/int64(cfg.clients)+1, int64(capacity)))
	}
	stats := make([]clientStats, cfg.clients)
	var wg sync.WaitGroup
	for i := range stats {
		stats[i].latencies = make([]time.Duration, 0, capacity)
		wg.Go(func() { loop(ctx, client, next, w, &stats[i]) })
	}
	// taskd's CPU time from the start of the measured time to the end of
	// its last request.
	cpu0 := make(chan float64, 1)
	if cfg.pid > 0 {
		go func() {
			time.Sleep(time.Until(w.measure))
			cpu0 <- proc.CPUSeconds(cfg.pid)
		}()
	}
	wg.Wait()
	r := merge(stats, w.measure)
	if cfg.pid > 0 {
		r.CPUSeconds = proc.CPUSeconds(cfg.pid) - <-cpu0
		if r.Requests > 0 {
			r.CPUMicrosPerRequest = r.CPUSeconds * 1e6 / float64(r.Requests)
		}
	}
	return r
}

// loop is one client: it sends requests back to back until the window closes.
func loop(ctx context.Context, client *http.Client, next requestFunc, w *window, st *clientStats) {
	var buf bytes.Buffer
	for ctx.Err() == nil {
		begin := time.Now()
		ok, measured := w.take(begin)
		if !ok {
			return
		}
		err := send(ctx, client, next, &buf)
		done := time.Now()
		switch {
		case err != nil && !measured:
			st.warmupFailures++
		case err != nil:
			st.failures++
		case measured:
			st.successes++
			st.bytes += int64(buf.Len())
		}
		if err != nil && st.firstErr == nil {
			st.firstErr = err
		}
		if measured {
			st.latencies = append(st.latencies, done.Sub(begin))
			st.lastDone = done
		}
	}
}

// send builds, sends and checks one request.
func send(ctx context.Context, client *http.Client, next requestFunc, buf *bytes.Buffer) error {
	req, err := next(ctx)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	return fetch(client, req, buf)
}
