package main

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

// TestFlagsReadTheirEnvironment: every kind of flag takes its value from
// TASKD_<NAME> (dashes as underscores), the command line wins over the
// environment, and a bad value in the environment is refused naming the
// variable and its flag.
func TestFlagsReadTheirEnvironment(t *testing.T) {
	type values struct {
		s    string
		b    bool
		n    int
		d    time.Duration
		rest string
	}
	parse := func(vars map[string]string, args ...string) (values, error) {
		var v values
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.StringVar(&v.s, "public-url", "", "")
		fs.BoolVar(&v.b, "trust-proxy", false, "")
		fs.IntVar(&v.n, "webhook-workers", 16, "")
		fs.DurationVar(&v.d, "webhook-lease", 30*time.Second, "")
		fs.StringVar(&v.rest, "log-level", "info", "")
		err := parseFlags(fs, env{getenv: func(k string) string { return vars[k] }, stdout: io.Discard, stderr: io.Discard}, args)
		return v, err
	}
	got, err := parse(map[string]string{"TASKD_PUBLIC_URL": "https://x.example", "TASKD_TRUST_PROXY": "true",
		"TASKD_WEBHOOK_WORKERS": "3", "TASKD_WEBHOOK_LEASE": "2m", "TASKD_LOG_LEVEL": "warn"})
	if err != nil || got != (values{"https://x.example", true, 3, 2 * time.Minute, "warn"}) {
		t.Errorf("from the environment: %+v, %v", got, err)
	}
	got, err = parse(map[string]string{"TASKD_WEBHOOK_WORKERS": "3", "TASKD_LOG_LEVEL": "warn"}, "--webhook-workers", "5")
	if err != nil || got.n != 5 || got.rest != "warn" {
		t.Errorf("the command line over the environment: %+v, %v", got, err)
	}
	_, err = parse(map[string]string{"TASKD_WEBHOOK_LEASE": "soon"})
	if err == nil || !strings.Contains(err.Error(), "TASKD_WEBHOOK_LEASE (--webhook-lease)") || errors.Is(err, errHelp) {
		t.Errorf("a bad value in the environment: %v", err)
	}
}
