package server_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/server"
)

// TestShutdownFlushesRateCounts: the rate-limit counts of the requests
// answered just before a server stops reach the database when it stops,
// though their flush was not yet due (here an hour away), so the other
// replicas go on counting them.
func TestShutdownFlushesRateCounts(t *testing.T) {
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			db := testdb.New(t, backend).Open(t)
			srv, err := server.New(ctx, server.Config{Store: db, Sealer: testdb.Sealer(t), PublicURL: "http://127.0.0.1",
				Limits: server.Limits{TokenAddress: 100, Flush: time.Hour}})
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			sctx, stop := context.WithCancel(ctx)
			defer stop()
			served := make(chan error, 1)
			go func() { served <- srv.Serve(sctx, ln) }()

			const key = "token-address:127.0.0.1" // the token endpoints' limiter, by client address
			hits := func() int {
				t.Helper()
				counts, err := db.Counts(ctx, key, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, c := range counts {
					n += c.Hits
				}
				return n
			}
			for range 3 {
				res, err := http.PostForm("http://"+ln.Addr().String()+"/oauth2/token", url.Values{"grant_type": {"password"}})
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != http.StatusBadRequest {
					t.Fatalf("token request: HTTP %d, want 400", res.StatusCode)
				}
			}
			if n := hits(); n != 0 {
				t.Fatalf("%d hits in the database before their flush was due", n)
			}
			stop()
			if err := <-served; err != nil {
				t.Fatalf("serve: %v", err)
			}
			if n := hits(); n != 3 {
				t.Fatalf("%d hits in the database after the shutdown, want the 3 counted before it", n)
			}
		})
	}
}
