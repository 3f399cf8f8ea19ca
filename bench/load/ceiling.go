package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// startCeiling starts the ceiling server on a loopback port and returns a
// function that stops it and the request to drive it with: the get_tasks
// request, aimed at the ceiling server.
func startCeiling(ctx context.Context, client *http.Client, cfg config) (stop func(), next requestFunc, err error) {
	body, err := ceilingBody(ctx, client, cfg)
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: fixedBody(body), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) // returns http.ErrServerClosed when stopped
	target, err := ceilingURL(ln.Addr().String(), cfg)
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	return func() { srv.Close() }, getRequest(target), nil
}

// fixedBody answers every request with body as application/json, written
// in one piece as taskd writes its responses.
func fixedBody(body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
}

// ceilingURL is the get_tasks URL moved to the ceiling server at addr, so
// requests are the same size as in the get_tasks scenario.
func ceilingURL(addr string, cfg config) (string, error) {
	path, project := "/a/ceiling", cfg.project
	if cfg.url != "" {
		u, err := url.Parse(cfg.url)
		if err != nil {
			return "", fmt.Errorf("parse --url: %w", err)
		}
		path = u.EscapedPath()
	}
	if project == "" {
		project = "1"
	}
	return getTasksURL("http://"+addr+path, cfg.key, project), nil
}

// ceilingBody is the body the ceiling server answers with: --body-size bytes
// when given, else one real get_tasks response fetched from --url, else
// defaultBodySize bytes.
func ceilingBody(ctx context.Context, client *http.Client, cfg config) ([]byte, error) {
	switch {
	case cfg.bodySize > 0:
		return syntheticBody(cfg.bodySize)
	case cfg.url != "":
		if cfg.key == "" || cfg.project == "" {
			return nil, errors.New("sizing the body from --url needs --key and --project (or give --body-size)")
		}
		return fetchGetTasks(ctx, client, cfg)
	default:
		return syntheticBody(defaultBodySize)
	}
}

// fetchGetTasks returns the body of one get_tasks response from --url.
func fetchGetTasks(ctx context.Context, client *http.Client, cfg config) ([]byte, error) {
	req, err := getRequest(getTasksURL(cfg.url, cfg.key, cfg.project))(ctx)
	if err != nil {
		return nil, fmt.Errorf("build get_tasks request: %w", err)
	}
	var buf bytes.Buffer
	if err := fetch(client, req, &buf); err != nil {
		return nil, fmt.Errorf("fetch get_tasks from %s: %w", cfg.url, err)
	}
	return buf.Bytes(), nil
}

// syntheticBody is a JSON success envelope padded to exactly n bytes.
func syntheticBody(n int) ([]byte, error) {
	const head, tail = `{"status":"ok","data":"`, "\"}\n"
	pad := n - len(head) - len(tail)
	if pad < 0 {
		return nil, fmt.Errorf("--body-size %d is below the smallest envelope, %d bytes", n, len(head)+len(tail))
	}
	return []byte(head + strings.Repeat("x", pad) + tail), nil
}
