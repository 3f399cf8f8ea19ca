package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// TestDebugServesProfilesOnLoopbackOnly: --debug-addr refuses an address
// others could reach, and on loopback serves Go's profile index.
func TestDebugServesProfilesOnLoopbackOnly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:6060", "example.com:6060", "nonsense"} {
		if _, err := serveDebug(ctx, addr, log); err == nil {
			t.Errorf("--debug-addr %s accepted", addr)
		}
	}
	addr, err := serveDebug(ctx, "127.0.0.1:0", log)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get("http://" + addr.String() + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine") {
		t.Fatalf("profile index: %d %.200s", res.StatusCode, body)
	}
}
