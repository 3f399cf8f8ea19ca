package api

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

// streamServer serves one streamed answer of n items, each about 100
// bytes, failing with fail after them when fail is set.
func streamServer(t *testing.T, n int, fail error) *httptest.Server {
	t.Helper()
	lanes := newStreams(1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeStream(w, r, slog.New(slog.DiscardHandler), lanes, func(put func(any) error) error {
			for i := range n {
				if err := put(map[string]any{"id": i, "name": strings.Repeat("x", 80), "html": "<b>&</b>"}); err != nil {
					return err
				}
			}
			return fail
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestStreamedAnswerIsTheEnvelope: a streamed list, short or long, is the
// bytes json.Marshal writes of the whole envelope, with its headers.
func TestStreamedAnswerIsTheEnvelope(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 3, 5000} {
		res, err := http.Get(streamServer(t, n, nil).URL)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatalf("%d items: %v", n, err)
		}
		items := make([]any, n)
		for i := range items {
			items[i] = map[string]any{"id": i, "name": strings.Repeat("x", 80), "html": "<b>&</b>"}
		}
		want, _ := render(ok(items))
		if string(body) != string(want) {
			t.Errorf("%d items: streamed answer differs from the marshalled envelope (%d and %d bytes)", n, len(body), len(want))
		}
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json; charset=utf-8" ||
			res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%d items: HTTP %d, headers %v", n, res.StatusCode, res.Header)
		}
	}
}

// TestStreamErrorBeforeSending: an error before anything was sent answers
// the error envelope, as a call that is not streamed does: after a few
// items, and after some 40 KB of them too (the first 64 KiB are held back,
// so an answer that fails within them is still whole).
func TestStreamErrorBeforeSending(t *testing.T) {
	t.Parallel()
	for _, n := range []int{10, 300} {
		items := make([]any, n)
		for i := range items {
			items[i] = map[string]any{"id": i, "name": strings.Repeat("x", 80), "html": "<b>&</b>"}
		}
		if b, _ := render(ok(items)); n == 300 && (len(b) <= 8<<10 || len(b) >= 60<<10) {
			t.Fatalf("%d items make %d bytes; the test means an error between 8 and 60 KB", n, len(b))
		}
		res, err := http.Get(streamServer(t, n, taskd.Internal("read", errors.New("disk on fire"))).URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusInternalServerError || string(body) != `{"status":"error","status_code":99,"message":"Internal error"}`+"\n" {
			t.Errorf("%d items: HTTP %d %.80s, want 500 and the internal error's envelope", n, res.StatusCode, body)
		}
	}
}

// TestStreamErrorMidway: an error after the first bytes were sent leaves
// an answer no client takes for whole: reading it fails, and what was read
// is no JSON and has no closing.
func TestStreamErrorMidway(t *testing.T) {
	t.Parallel()
	res, err := http.Get(streamServer(t, 5000, taskd.Internal("read", errors.New("connection lost"))).URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err == nil {
		t.Errorf("the cut answer read to its end without an error (%d bytes)", len(body))
	}
	if len(body) < streamHold {
		t.Errorf("only %d bytes arrived; the test means an error after the first %d", len(body), streamHold)
	}
	if json.Valid(body) || strings.HasSuffix(strings.TrimSpace(string(body)), "]}") {
		t.Errorf("the cut answer reads as a whole one: ...%s", body[max(len(body)-40, 0):])
	}
	if !strings.HasPrefix(string(body), `{"status":"ok","data":[`) {
		t.Errorf("the answer began %.40s", body)
	}
}
