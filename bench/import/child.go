package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/taskd/taskd/importer"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// build compiles ./cmd/taskd of the module of the working directory
// into out.
func build(ctx context.Context, out string) error {
	mod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(mod)) == 0 {
		return fmt.Errorf("go env GOMOD: %v (run from the module)", err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/taskd")
	cmd.Dir = filepath.Dir(string(bytes.TrimSpace(mod)))
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/taskd: %w\n%s", err, b)
	}
	return nil
}

// measured is one run of a child process.
type measured struct {
	wall    time.Duration
	peakRSS int64 // bytes: the child's ru_maxrss
	stdout  []byte
	// liveHeap is the largest live heap a garbage collection left
	// (GODEBUG=gctrace=1 in env), in bytes; 0 without the trace.
	liveHeap int64
}

// gcLine is a line of GODEBUG=gctrace=1: "… 4->4->2 MB, 5 MB goal …",
// the heap at the start and end of a collection and the live heap.
var gcLine = regexp.MustCompile(`(?m)^gc \d+ .* (\d+)->(\d+)->(\d+) MB`)

// maxLive is the largest live heap of the trace lines in stderr.
func maxLive(stderr []byte) int64 {
	var top int64
	for _, m := range gcLine.FindAllSubmatch(stderr, -1) {
		if n, err := strconv.ParseInt(string(m[3]), 10, 64); err == nil && n<<20 > top {
			top = n << 20
		}
	}
	return top
}

// measure runs bin with args (and env added to this process's) to its
// end and returns its wall time and peak resident set.
func measure(ctx context.Context, bin string, env []string, args ...string) (measured, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	m := measured{wall: time.Since(start), stdout: stdout.Bytes(), liveHeap: maxLive(stderr.Bytes())}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			m.peakRSS = ru.Maxrss << 10 // kilobytes on Linux
		}
	}
	if err != nil {
		return m, fmt.Errorf("%s %s: %w\n%s", filepath.Base(bin), args[0], err, stderr.Bytes())
	}
	if m.peakRSS == 0 {
		return m, errors.New("no rusage on this system")
	}
	return m, nil
}

// destination is where an import writes: a fresh data directory, and
// with PostgreSQL a fresh database on the server of adminURL.
type destination struct {
	data, db string
	drop     func()
}

func newDestination(ctx context.Context, adminURL, name string) (*destination, error) {
	dir, err := os.MkdirTemp("", "taskd-import-bench-dst")
	if err != nil {
		return nil, err
	}
	d := &destination{data: dir, drop: func() { os.RemoveAll(dir) }}
	if adminURL == "" {
		return d, nil
	}
	admin, err := sql.Open("pgx", adminURL)
	if err != nil {
		d.drop()
		return nil, err
	}
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		admin.Close()
		d.drop()
		return nil, fmt.Errorf("create database: %w", err)
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		admin.Close()
		d.drop()
		return nil, err
	}
	u.Path = "/" + name
	d.db = u.String()
	d.drop = func() {
		admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		admin.Close()
		os.RemoveAll(dir)
	}
	return d, nil
}

// runImport runs "taskd import" of the account at accountURL (its key
// key) into a new account of dst, with extra arguments, and returns the
// measurement and the summary it printed. A failed import is measured
// too: its error comes with what was measured.
func runImport(ctx context.Context, bin, accountURL, key string, dst *destination, gctrace bool, extra ...string) (measured, importer.Summary, error) {
	args := []string{"import", "--from", accountURL, "--account", "moved", "--owner-email", "owner@moved.example",
		"--data", dst.data, "--json"}
	if dst.db != "" {
		args = append(args, "--db", dst.db)
	}
	args = append(args, extra...)
	env := []string{"TASKD_KEY=" + key}
	if gctrace {
		env = append(env, "GODEBUG=gctrace=1")
	}
	m, err := measure(ctx, bin, env, args...)
	var sum importer.Summary
	if err != nil {
		return m, sum, err
	}
	if err := json.Unmarshal(m.stdout, &sum); err != nil {
		return m, sum, fmt.Errorf("the summary: %w: %.300s", err, m.stdout)
	}
	return m, sum, nil
}
