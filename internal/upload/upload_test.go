package upload

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// TestGateBoundsPersonAndAccount: a person has at most PerPerson uploads
// at once and an account PerAccount; a release frees one place, once.
func TestGateBoundsPersonAndAccount(t *testing.T) {
	g := New(Limits{PerPerson: 2, PerAccount: 3})
	enter := func(account, person int64) (func(), error) {
		t.Helper()
		return g.Enter(account, person)
	}
	a1, _ := enter(1, 10)
	if _, err := enter(1, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := enter(1, 10); taskd.ErrorKind(err) != taskd.KindRateLimited || taskd.AsError(err).RetryAfter <= 0 {
		t.Fatalf("a person's third upload: %v", err)
	}
	if _, err := enter(1, 11); err != nil { // the account's third
		t.Fatal(err)
	}
	if _, err := enter(1, 12); taskd.ErrorKind(err) != taskd.KindRateLimited {
		t.Fatalf("the account's fourth upload: %v", err)
	}
	if _, err := enter(2, 10); err == nil {
		t.Fatal("a person's uploads in another account count with theirs: a third was admitted")
	}
	a1()
	a1() // twice frees one place
	if _, err := enter(1, 12); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if _, err := enter(1, 13); err == nil {
		t.Fatal("a double release freed two places")
	}
	var none *Gate
	if release, err := none.Enter(1, 1); err != nil || release == nil {
		t.Fatal("a nil gate refuses")
	}
}

// TestGateUnderConcurrency: however many enter at once, no more than the
// bound are in.
func TestGateUnderConcurrency(t *testing.T) {
	g := New(Limits{PerPerson: 3})
	var mu sync.Mutex
	in, most := 0, 0
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			release, err := g.Enter(1, 1)
			if err != nil {
				return
			}
			mu.Lock()
			in++
			most = max(most, in)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			in--
			mu.Unlock()
			release()
		})
	}
	wg.Wait()
	if most > 3 || most == 0 {
		t.Fatalf("%d uploads in at once, want 1 to 3", most)
	}
}

// paced is a server that reads a paced body, under read and write timeouts
// shorter than an upload, and answers how many bytes it read.
func paced(t *testing.T, l Limits) string {
	t.Helper()
	g := New(l)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := g.Body(w, r)
		body.Pace()
		n, err := io.Copy(io.Discard, body)
		if err != nil {
			http.Error(w, "cut off after "+strconv.FormatInt(n, 10), http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, n)
	}))
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = 500*time.Millisecond, 500*time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// send posts size bytes in pieces every gap, then closes the body (or,
// with stall, stops sending) and returns the answer.
func send(t *testing.T, url string, piece, pieces int, gap time.Duration, stall bool) (int, string, error) {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		for range pieces {
			if _, err := pw.Write(bytes.Repeat([]byte("x"), piece)); err != nil {
				return
			}
			time.Sleep(gap)
		}
		if stall {
			time.Sleep(time.Minute)
		}
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", url, pr)
	req.ContentLength = int64(piece * (pieces + 1))
	if !stall {
		req.ContentLength = int64(piece * pieces)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), nil
}

// TestBodyKeepsItsPace: an upload that keeps its pace outlives the
// server's read and write timeouts and gets its answer; one that stalls is
// cut off once it falls behind.
func TestBodyKeepsItsPace(t *testing.T) {
	// Grace and Idle are twice the server's timeouts and ten times the gap
	// between pieces, so a loaded machine's late wake-up is no stall.
	url := paced(t, Limits{MinRate: 1 << 10, Grace: time.Second, Idle: time.Second})
	// 2 KiB every 100 ms for 1.5 s: 20 KiB/s, three times the timeouts.
	status, body, err := send(t, url, 2<<10, 15, 100*time.Millisecond, false)
	if err != nil || status != http.StatusOK || body != strconv.Itoa(15*2<<10) {
		t.Fatalf("an upload at its pace: %d %q %v", status, body, err)
	}
	start := time.Now()
	status, body, err = send(t, url, 100, 1, 0, true)
	if err == nil && status == http.StatusOK {
		t.Fatalf("a stalled upload was read to its end: %q", body)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("a stalled upload held its connection for %v", took)
	}
	// Ahead of its pace by minutes, an upload that pauses longer than
	// Idle is cut off all the same.
	start = time.Now()
	status, body, err = send(t, url, 100<<10, 2, 0, true) // 200 KiB at once: 200 s ahead at 1 KiB/s
	if err == nil && status == http.StatusOK {
		t.Fatalf("a stalled upload ahead of its pace was read to its end: %q", body)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("a stalled upload ahead of its pace held its connection for %v", took)
	}
}
