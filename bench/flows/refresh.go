package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/taskd/taskd/bench/internal/proc"
)

// refreshLoad is --refresh-load: refresh grants back to back, as many
// clients at once, for d, on PostgreSQL (a database created for the run
// on admin's server, dropped after it) or, with admin empty, SQLite. Each
// client holds its own grant, made by an authorization-code flow of its
// own, and presents the refresh token its last grant gave (the token
// rotates). It prints one line in the load generator's form, with
// taskd's CPU time over the measured time (bench/abstat reads it).
func refreshLoad(ctx context.Context, bin, admin string, clients int, d, warmup time.Duration) error {
	dbURL := ""
	if admin != "" {
		name := fmt.Sprintf("flows_refresh_%d_%d", time.Now().Unix(), os.Getpid())
		conn, err := sql.Open("pgx", admin)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
			return fmt.Errorf("create database: %w", err)
		}
		defer conn.ExecContext(context.Background(), `DROP DATABASE "`+name+`" WITH (FORCE)`)
		if dbURL, err = withDatabase(admin, name); err != nil {
			return err
		}
	}
	// The token endpoint's limits are far below this load.
	srv, err := startServer(ctx, bin, dbURL, "--token-rate-limit", "0", "--token-rate-limit-address", "0")
	if err != nil {
		return err
	}
	defer srv.stop()
	tokens := make([]string, clients)
	quiet := func(_ string, do func() error) error { return do() }
	for i := range tokens {
		if err := srv.authorizationCode(ctx, quiet); err != nil {
			return fmt.Errorf("grant %d: %w", i+1, err)
		}
		tokens[i] = srv.refresh
	}
	start := time.Now()
	measure, end := start.Add(warmup), start.Add(warmup+d)
	pid := srv.cmd.Process.Pid
	cpu0 := make(chan float64, 1)
	go func() {
		time.Sleep(time.Until(measure))
		cpu0 <- proc.CPUSeconds(pid)
	}()
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  int
		firstErr  error
		last      time.Time
		wg        sync.WaitGroup
	)
	for i := range tokens {
		wg.Go(func() {
			c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			token := tokens[i]
			for {
				begin := time.Now()
				if !begin.Before(end) {
					return
				}
				next, err := srv.tokenSet(ctx, c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}})
				done := time.Now()
				mu.Lock()
				if !begin.Before(measure) {
					latencies = append(latencies, done.Sub(begin))
					if done.After(last) {
						last = done
					}
				}
				if err != nil {
					failures++
					firstErr = firstOf(firstErr, err)
				}
				mu.Unlock()
				if err != nil {
					return // the chain is broken: its token is spent or unknown
				}
				token = next
			}
		})
	}
	wg.Wait()
	cpu := proc.CPUSeconds(pid) - <-cpu0
	if failures > 0 {
		return fmt.Errorf("%d refresh grants failed, the first: %w", failures, firstErr)
	}
	slices.Sort(latencies)
	n := len(latencies)
	if n == 0 {
		return fmt.Errorf("no refresh grant in the measured time")
	}
	secs := last.Sub(measure).Seconds()
	pct := func(p float64) float64 {
		return float64(latencies[min(n-1, max(0, int(p*float64(n)+0.999999)-1))]) / float64(time.Millisecond)
	}
	fmt.Printf("scenario=refresh clients=%d duration=%.2fs requests=%d failures=0 warmup_failures=0 rps=%.1f p50=%.2fms p99=%.2fms max=%.2fms body_bytes=0 cpu_s=%.2f cpu_us=%.0f\n",
		clients, secs, n, float64(n)/secs, pct(0.50), pct(0.99), pct(1), cpu, cpu*1e6/float64(n))
	return nil
}

// firstOf is the first error of the two that is not nil.
func firstOf(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
