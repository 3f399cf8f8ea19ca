// Command idle counts the statements idle taskd replicas send PostgreSQL:
// it creates a fresh database, turns PostgreSQL's statement log on for it
// (bench/pglog), starts --replicas `taskd serve` processes on it with one
// account and one enabled webhook to a receiver on loopback, checks that
// one change is delivered, waits --settle for start-up work to end, then
// counts the statements logged over --duration and prints statements per
// second with the list grouped by text. The database is dropped at the end.
//
//	go build -o /tmp/taskd ./cmd/taskd
//	go run ./bench/idle --taskd /tmp/taskd --replicas 1 --duration 60s
//
// It needs a PostgreSQL server on this machine whose log it may read
// (/var/log/postgresql/postgresql-*-main.log, or TASKD_PG_LOG) and a
// superuser URL (--admin-url, default TASKD_TEST_POSTGRES).
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/taskd/taskd/bench/internal/admin"
	"github.com/taskd/taskd/bench/pglog"
)

type config struct {
	taskd, adminURL, logPath string
	replicas, top            int
	settle, duration         time.Duration
	keep                     bool
}

func main() {
	var c config
	flag.StringVar(&c.taskd, "taskd", "", "the taskd binary to run (required)")
	flag.StringVar(&c.adminURL, "admin-url", os.Getenv("TASKD_TEST_POSTGRES"), "a PostgreSQL superuser's URL (default $TASKD_TEST_POSTGRES)")
	flag.StringVar(&c.logPath, "log", "", "PostgreSQL's log file (default: pglog.DefaultPath)")
	flag.IntVar(&c.replicas, "replicas", 1, "taskd processes on the database")
	flag.DurationVar(&c.settle, "settle", 10*time.Second, "wait after start-up and the first delivery before counting")
	flag.DurationVar(&c.duration, "duration", 60*time.Second, "how long to count")
	flag.IntVar(&c.top, "top", 20, "statement texts to list")
	flag.BoolVar(&c.keep, "keep", false, "keep the database afterwards")
	flag.Parse()
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "idle:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	if c.taskd == "" || c.adminURL == "" {
		return errors.New("--taskd and --admin-url are required")
	}
	if c.logPath == "" {
		p, err := pglog.DefaultPath()
		if err != nil {
			return err
		}
		c.logPath = p
	}
	name := fmt.Sprintf("idle_%d_%d", time.Now().Unix(), os.Getpid())
	admin, err := sql.Open("pgx", c.adminURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	if !c.keep {
		defer admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
	}
	if err := pglog.Enable(ctx, c.adminURL, name); err != nil {
		return err
	}
	u, err := url.Parse(c.adminURL)
	if err != nil {
		return err
	}
	u.Path = "/" + name
	dbURL := u.String()

	tmp, err := os.MkdirTemp("", "taskd-idle")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	data := filepath.Join(tmp, "data")
	out, err := exec.CommandContext(ctx, c.taskd, "account", "create", "--data", data, "--db", dbURL, "--slug", "idle",
		"--owner-email", "idle@example.com", "--owner-password", "bench-password").Output()
	if err != nil {
		return fmt.Errorf("account create: %w", err)
	}
	var created struct {
		Key string `json:"api_key"`
	}
	if err := json.Unmarshal(out, &created); err != nil || created.Key == "" {
		return fmt.Errorf("account create printed %q", out)
	}

	var bases []string
	for i := range c.replicas {
		base, stop, err := serve(c.taskd, data, dbURL, filepath.Join(tmp, "serve"+strconv.Itoa(i)))
		if err != nil {
			return err
		}
		defer stop()
		bases = append(bases, base)
	}
	var got atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	a := client{url: bases[0] + "/a/idle", key: created.Key}
	body, err := a.call(url.Values{"action": {"add_webhook"}, "url": {"http://" + ln.Addr().String() + "/"}, "events": {"post_task"}})
	if err != nil {
		return err
	}
	id := strconv.Itoa(int(body["id"].(float64)))
	if _, err := a.call(url.Values{"action": {"enable_webhook"}, "id": {id}}); err != nil {
		return err
	}
	body, err = a.call(url.Values{"action": {"post_project"}, "title": {"Idle bench"}})
	if err != nil {
		return err
	}
	project := body["data"].(map[string]any)["id"].(string)
	if _, err := a.call(url.Values{"action": {"post_task"}, "id_project": {project}, "title": {"one change"}}); err != nil {
		return err
	}
	for deadline := time.Now().Add(30 * time.Second); got.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return errors.New("the change was not delivered within 30 s")
		}
	}
	time.Sleep(c.settle)

	mark, err := pglog.Mark(c.logPath)
	if err != nil {
		return err
	}
	time.Sleep(c.duration)
	counts, err := pglog.Count(c.logPath, mark, name)
	if err != nil {
		return err
	}
	secs := c.duration.Seconds()
	fmt.Printf("idle replicas=%d webhooks=1 duration=%s statements=%d (%.2f/s, %.2f/s per replica) begin/commit/rollback=%d (%.2f/s)\n",
		c.replicas, c.duration, len(counts.Statements), float64(len(counts.Statements))/secs,
		float64(len(counts.Statements))/secs/float64(c.replicas), counts.Transactions, float64(counts.Transactions)/secs)
	byText := map[string]int{}
	for _, s := range counts.Statements {
		byText[squeeze(s.Text)]++
	}
	texts := make([]string, 0, len(byText))
	for t := range byText {
		texts = append(texts, t)
	}
	sort.Slice(texts, func(i, j int) bool {
		if byText[texts[i]] != byText[texts[j]] {
			return byText[texts[i]] > byText[texts[j]]
		}
		return texts[i] < texts[j]
	})
	for i, t := range texts {
		if i == c.top {
			fmt.Printf("  … %d more texts\n", len(texts)-i)
			break
		}
		fmt.Printf("  %5d  %s\n", byText[t], t)
	}
	if got.Load() != 1 {
		fmt.Printf("note: the receiver got %d requests\n", got.Load())
	}
	return nil
}

var spaces = regexp.MustCompile(`\s+`)

// squeeze shortens a statement's first line for the listing.
func squeeze(s string) string {
	s = spaces.ReplaceAllString(s, " ")
	if len(s) > 110 {
		s = s[:110] + "…"
	}
	return s
}

var listening = regexp.MustCompile(`listening on (http://[0-9.:]+)`)

// serve starts one `taskd serve` and returns its base URL and a function
// that stops it.
func serve(bin, data, dbURL, logPrefix string) (string, func(), error) {
	cmd := exec.Command(bin, "serve", "--dev", "--addr", "127.0.0.1:0", "--data", data, "--db", dbURL, "--log-level", "warn")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	errf, err := os.Create(logPrefix + ".err")
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = errf
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		errf.Close()
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case base := <-found:
		return base, stop, nil
	case <-time.After(30 * time.Second):
		stop()
		msg, _ := os.ReadFile(logPrefix + ".err")
		return "", nil, fmt.Errorf("taskd did not start: %s", msg)
	}
}

// client calls the administrative API with the key's hash.
type client struct{ url, key string }

func (a client) call(params url.Values) (map[string]any, error) {
	return admin.Call(http.DefaultClient, a.url, a.key, params)
}
