// Command load is a closed-loop load generator for taskd's administrative
// API. A fixed number of clients each send one request, wait for the whole
// response, check it and send the next, for a fixed time after a warm-up.
//
// Scenarios:
//
//	get_tasks  GET ?action=get_tasks&id_project=ID&hash=… (one precomputed URL)
//	post_task  POST action=post_task&id_project=ID&title=load+N with the Admin header
//	ceiling    the get_tasks request against a bare net/http server, started in
//	           this process, that answers a fixed body of --body-size bytes
//
// A response counts as a success when it is HTTP 200 and its body contains
// "status":"ok". The command prints one line (or, with --json, one JSON object)
// and exits non-zero when any request failed. Targets must be on loopback.
//
// Usage:
//
//	go run ./bench/load --url http://127.0.0.1:PORT/a/acme --key KEY \
//	    --scenario get_tasks --project 1 --clients 16 --duration 10s
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Scenario names.
const (
	scenarioGetTasks = "get_tasks"
	scenarioPostTask = "post_task"
	scenarioCeiling  = "ceiling"
)

// defaultBodySize is the ceiling body size when neither --body-size nor
// --url says otherwise.
const defaultBodySize = 30000

// errFailures is returned after printing the result of a run in which some
// requests failed.
var errFailures = errors.New("some requests failed")

// config is the parsed command line.
type config struct {
	url      string // account URL, e.g. http://127.0.0.1:8080/a/acme
	key      string // administrative API key
	scenario string
	project  string // id_project, a positive decimal id
	clients  int
	duration time.Duration
	warmup   time.Duration
	timeout  time.Duration
	requests int64 // most measured requests; 0 means no limit
	bodySize int   // ceiling body size; 0 means automatic
	pid      int   // taskd's process, whose CPU time is reported; 0: none
	json     bool
}

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// run parses args, runs the scenario and prints its result to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	res, err := runScenario(ctx, cfg)
	if err != nil {
		return err
	}
	if err := res.print(stdout, cfg.json); err != nil {
		return fmt.Errorf("print result: %w", err)
	}
	if res.Failures > 0 || res.WarmupFailures > 0 {
		fmt.Fprintf(stderr, "load: first failure: %v\n", res.firstErr)
		return fmt.Errorf("%d failures, %d during warm-up: %w", res.Failures, res.WarmupFailures, errFailures)
	}
	return nil
}

// parseFlags reads and checks the command line.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.url, "url", "", "account URL on loopback, e.g. http://127.0.0.1:8080/a/acme")
	fs.StringVar(&c.key, "key", "", "administrative API key of the account")
	fs.StringVar(&c.scenario, "scenario", "", "get_tasks, post_task or ceiling")
	fs.StringVar(&c.project, "project", "", "id_project for get_tasks and post_task (and for sizing the ceiling body)")
	fs.IntVar(&c.clients, "clients", 16, "concurrent clients")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "measured time")
	fs.DurationVar(&c.warmup, "warmup", time.Second, "time before the measurement whose requests are not counted")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "limit on each request")
	fs.Int64Var(&c.requests, "requests", 0, "stop after this many measured requests (0: no limit)")
	fs.IntVar(&c.bodySize, "body-size", 0, "ceiling body size in bytes (default: the size of one get_tasks response from --url, else 30000)")
	fs.IntVar(&c.pid, "pid", 0, "taskd's process id, to report its CPU time over the measured time (Linux)")
	fs.BoolVar(&c.json, "json", false, "print the result as a JSON object")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return c, c.check()
}

// check refuses incomplete or out-of-range settings.
func (c *config) check() error {
	switch c.scenario {
	case scenarioGetTasks, scenarioPostTask:
		if c.url == "" || c.key == "" || c.project == "" {
			return fmt.Errorf("--scenario %s needs --url, --key and --project", c.scenario)
		}
	case scenarioCeiling:
	case "":
		return errors.New("--scenario is required: get_tasks, post_task or ceiling")
	default:
		return fmt.Errorf("unknown --scenario %q: want get_tasks, post_task or ceiling", c.scenario)
	}
	if c.clients < 1 || c.duration <= 0 || c.warmup < 0 || c.timeout <= 0 || c.requests < 0 || c.bodySize < 0 || c.pid < 0 {
		return errors.New("--clients, --duration and --timeout must be positive; --warmup, --requests, --body-size and --pid not negative")
	}
	if c.project != "" {
		if n, err := strconv.ParseInt(c.project, 10, 64); err != nil || n < 1 || strconv.FormatInt(n, 10) != c.project {
			return fmt.Errorf("--project %q is not a positive decimal id", c.project)
		}
	}
	if c.url != "" {
		u, err := checkAccountURL(c.url)
		if err != nil {
			return fmt.Errorf("--url: %w", err)
		}
		c.url = u
	}
	return nil
}

// checkAccountURL accepts an absolute http(s) URL on a loopback host and
// returns it without a trailing slash.
func checkAccountURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("parse %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%q is not an http(s) URL", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("%q must not carry a query, fragment or user", raw)
	}
	if !isLoopbackHost(u.Hostname()) {
		return "", fmt.Errorf("host %q is not loopback (127.0.0.0/8, ::1 or localhost)", u.Hostname())
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// isLoopbackHost reports whether host is localhost or a loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// runScenario builds the scenario's requests and drives them.
func runScenario(ctx context.Context, cfg config) (*result, error) {
	client := newHTTPClient(cfg.clients, cfg.timeout)
	defer client.CloseIdleConnections()
	var next requestFunc
	switch cfg.scenario {
	case scenarioGetTasks:
		next = getRequest(getTasksURL(cfg.url, cfg.key, cfg.project))
	case scenarioPostTask:
		next = postTaskRequest(adminEndpoint(cfg.url), cfg.key, cfg.project)
	case scenarioCeiling:
		stop, fn, err := startCeiling(ctx, client, cfg)
		if err != nil {
			return nil, fmt.Errorf("ceiling: %w", err)
		}
		defer stop()
		next = fn
	}
	res := drive(ctx, client, next, cfg)
	res.Scenario, res.Clients = cfg.scenario, cfg.clients
	return res, nil
}
