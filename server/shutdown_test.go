package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/oauth"
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

// TestShutdownFlushesCountsOfRequestsInFlight: a request still being
// answered when the shutdown starts is counted after it started (here its
// account's count, taken once its body is read and its client
// authenticated), and that count reaches the database too: the counts are
// flushed once the last request is answered, not when the shutdown begins.
func TestShutdownFlushesCountsOfRequestsInFlight(t *testing.T) {
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			db := testdb.New(t, backend).Open(t)
			acct := testaccount.New(t, db, testaccount.Options{})
			client, clientSecret, err := oauth.NewClient(acct.ID, "Slow client", []string{"https://app.example/cb"})
			if err != nil {
				t.Fatal(err)
			}
			if client, err = db.CreateClient(ctx, client); err != nil {
				t.Fatal(err)
			}
			srv, err := server.New(ctx, server.Config{Store: db, Sealer: testdb.Sealer(t), PublicURL: "http://127.0.0.1",
				Limits: server.Limits{TokenAccount: 100, Flush: time.Hour}, ShutdownTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			sctx, stop := context.WithCancel(ctx)
			defer stop()
			served := make(chan error, 1)
			go func() { served <- srv.Serve(sctx, ln) }()

			key := "token-account:" + strconv.FormatInt(acct.ID, 10)
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

			// The request's headers go now, asking to hear 100 Continue before
			// its body: the 100 says the handler runs and waits for the body.
			body := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"no-such-token"},
				"client_id": {client.ClientID}, "client_secret": {clientSecret}}.Encode()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := fmt.Fprintf(conn, "POST /oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\n"+
				"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\nExpect: 100-continue\r\n"+
				"Connection: close\r\n\r\n", len(body)); err != nil {
				t.Fatal(err)
			}
			answers := bufio.NewReader(conn)
			res, err := http.ReadResponse(answers, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusContinue {
				t.Fatalf("HTTP %d before the body, want 100", res.StatusCode)
			}

			// Shut down, and wait until the listener is closed: the shutdown
			// has begun, and the request is still in flight.
			stop()
			deadline := time.Now().Add(30 * time.Second)
			for {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					break
				}
				c.Close()
				if time.Now().After(deadline) {
					t.Fatal("the listener was still open 30 s after the shutdown began")
				}
				time.Sleep(10 * time.Millisecond)
			}

			// The body: the request is answered, and counted.
			if _, err := io.WriteString(conn, body); err != nil {
				t.Fatal(err)
			}
			res, err = http.ReadResponse(answers, nil)
			if err != nil {
				t.Fatalf("the request in flight at the shutdown was not answered: %v", err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest {
				t.Fatalf("token request: HTTP %d, want 400 (invalid_grant)", res.StatusCode)
			}
			if err := <-served; err != nil {
				t.Fatalf("serve: %v", err)
			}
			if n := hits(); n != 1 {
				t.Fatalf("%d hits of the client's account in the database after the shutdown, want the 1 counted during it", n)
			}
		})
	}
}
