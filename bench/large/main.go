// Command large measures taskd on one large account (issue 34): 100,000
// tasks in 200 projects, 20,000 of them in one project, 1,000,000 events
// and 200,000 cost lines, and the same at other sizes (--tasks 10000: a
// tenth of everything) so that the growth shows. It fills the account
// straight into the database (not measured), then starts a taskd server
// per measured action, as a separate process, and reads over HTTP on
// loopback: the time of each call, and the server's peak resident memory
// (VmHWM in /proc/PID/status) against its resident memory before the
// first call (VmRSS), which is the growth the action costs.
//
//	go build -o /tmp/taskd ./cmd/taskd
//	go run ./bench/large --taskd /tmp/taskd --tasks 10000,100000
//	go run ./bench/large --taskd /tmp/taskd --base /tmp/taskd-old --postgres 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
//
// With --base, every action is measured on both binaries on the same
// data, the base's first (the newer binary may migrate the database, which
// the older one would then refuse): the same-run baseline. See bench/README.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	slug     = "large"
	email    = "large@example.com"
	password = "largepassword1"
)

type options struct {
	taskd, base string
	sizes       []int
	postgres    string
	runs        int
	requests    int
	only        map[string]bool
	keep        bool
	profiles    string
}

func main() {
	var o options
	var sizes, only string
	flag.StringVar(&o.taskd, "taskd", "", "the taskd binary to measure (required)")
	flag.StringVar(&o.base, "base", "", "a baseline taskd binary, measured alternately on the same data")
	flag.StringVar(&sizes, "tasks", "10000,100000", "account sizes, in tasks (events: 10×, cost lines: 2×)")
	flag.StringVar(&o.postgres, "postgres", "", "a PostgreSQL URL whose server gets a fresh database per size; SQLite when empty")
	flag.IntVar(&o.runs, "runs", 3, "calls of each whole-list action per server")
	flag.IntVar(&o.requests, "requests", 200, "calls of each page and search action per server (for p99)")
	flag.StringVar(&only, "only", "", "comma list of actions to run (default: all)")
	flag.BoolVar(&o.keep, "keep", false, "keep the data directories and databases")
	flag.StringVar(&o.profiles, "profile", "", "a directory for each action's CPU profile (its first 5 s) and heap profile (after it)")
	flag.Parse()
	if o.taskd == "" {
		fmt.Fprintln(os.Stderr, "large: --taskd is required")
		os.Exit(2)
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1000 {
			fmt.Fprintln(os.Stderr, "large: bad --tasks", s)
			os.Exit(2)
		}
		o.sizes = append(o.sizes, n)
	}
	if only != "" {
		o.only = map[string]bool{}
		for _, a := range strings.Split(only, ",") {
			o.only[a] = true
		}
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "large:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	for _, n := range o.sizes {
		if err := measureSize(ctx, o, n); err != nil {
			return fmt.Errorf("%d tasks: %w", n, err)
		}
	}
	return nil
}

func measureSize(ctx context.Context, o options, n int) error {
	tmp, err := os.MkdirTemp("", "taskd-large-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(tmp)
	}
	st := storage{data: filepath.Join(tmp, "data")}
	driver, dsn, dbName := "sqlite", "file:"+filepath.Join(st.data, "taskd.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)", "sqlite"
	if o.postgres != "" {
		dbName = fmt.Sprintf("taskd_large_%d_%d", os.Getpid(), n)
		if st.db, err = createDatabase(ctx, o.postgres, dbName); err != nil {
			return err
		}
		if !o.keep {
			defer dropDatabase(context.Background(), o.postgres, dbName)
		}
		driver, dsn, dbName = "pgx", st.db, "postgres"
	}
	// The account is made by the oldest binary: a newer one migrates the
	// database, which an older one then refuses to open.
	bins := []string{o.taskd}
	if o.base != "" {
		bins = []string{o.base, o.taskd}
	}
	out, err := exec.CommandContext(ctx, bins[0], append([]string{"account", "create", "--slug", slug, "--name", "Large",
		"--owner-email", email, "--owner-password", password}, st.flags()...)...).Output()
	if err != nil {
		return fmt.Errorf("account create: %w", err)
	}
	var created struct {
		Key string `json:"api_key"`
		ID  string `json:"id"`
	}
	if err := json.Unmarshal(out, &created); err != nil {
		return fmt.Errorf("account create: %w: %s", err, out)
	}
	accountID, _ := strconv.ParseInt(created.ID, 10, 64)
	began := time.Now()
	sc := scaleOf(n)
	f, err := fill(ctx, driver, dsn, accountID, sc)
	if err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	fmt.Printf("# %s: %d tasks in %d projects (%d in one), %d events, %d cost lines, filled in %s\n",
		dbName, f.tasks, sc.projects, sc.bigProject, sc.events, sc.costs, time.Since(began).Round(time.Second))

	// Every action of the base, then every action of the new binary (which
	// may migrate the database on its first start).
	for _, bin := range bins {
		for _, act := range actions(f, o) {
			if o.only != nil && !o.only[act.name] {
				continue
			}
			prof := ""
			if o.profiles != "" {
				prof = filepath.Join(o.profiles, fmt.Sprintf("%s-%d-%s-%s", dbName, n, label(o, bin), act.name))
			}
			r, err := measure(ctx, bin, st, created.Key, act, prof)
			if err != nil {
				return fmt.Errorf("%s with %s: %w", act.name, bin, err)
			}
			fmt.Printf("db=%s tasks=%d bin=%s action=%s %s\n", dbName, n, label(o, bin), act.name, r)
		}
		if (o.only == nil || o.only["backup"]) && o.postgres == "" {
			line, err := backupUnderLoad(ctx, bin, st, created.Key, tmp)
			if err != nil {
				return fmt.Errorf("backup with %s: %w", bin, err)
			}
			fmt.Printf("db=%s tasks=%d bin=%s action=backup %s\n", dbName, n, label(o, bin), line)
		}
	}
	return nil
}

func label(o options, bin string) string {
	if bin == o.base {
		return "base"
	}
	return "new"
}

// action is one measured read: calls of do, each returning its answer.
type action struct {
	name  string
	calls int
	web   bool
	do    func(a account) ([]byte, error)
}

func actions(f filled, o options) []action {
	big := strconv.FormatInt(f.bigProject, 10)
	api := func(name string, calls int, pairs ...string) action {
		return action{name: name, calls: calls, do: func(a account) ([]byte, error) { return a.call(pairs...) }}
	}
	web := func(name, path string) action {
		return action{name: name, calls: o.requests, web: true, do: func(a account) ([]byte, error) { return a.page(path) }}
	}
	return []action{
		api("get_all_tasks", o.runs, "action", "get_all_tasks"),
		api("get_all_tasks_active", o.runs, "action", "get_all_tasks", "filter", "active"),
		api("get_events_30d", o.runs, "action", "get_events", "period", "30d"),
		api("get_tasks_big_project", o.runs, "action", "get_tasks", "id_project", big),
		api("search_tasks_name_has", o.requests, "action", "search_tasks", "filter", "name has 'Report'"),
		api("search_tasks_in_project", o.requests, "action", "search_tasks", "id_project", big, "filter", "name has 'Report'"),
		web("web_project_page", "/project/"+big+"/"),
		web("web_project_search", "/project/"+big+"/?q=report"),
	}
}

// result is what one action measured.
type result struct {
	times      []time.Duration
	bytes      int
	rss0, peak int64
}

func (r result) String() string {
	s := slices.Clone(r.times)
	slices.Sort(s)
	pct := func(p float64) time.Duration { return s[min(len(s)-1, int(float64(len(s))*p))] }
	var b strings.Builder
	fmt.Fprintf(&b, "calls=%d", len(s))
	if len(s) <= 5 {
		var ts []string
		for _, t := range r.times {
			ts = append(ts, ms(t))
		}
		fmt.Fprintf(&b, " times=%s", strings.Join(ts, ","))
	} else {
		fmt.Fprintf(&b, " p50=%s p99=%s max=%s", ms(pct(0.5)), ms(pct(0.99)), ms(s[len(s)-1]))
	}
	fmt.Fprintf(&b, " bytes=%d rss_before=%.1fMB peak_growth=%.1fMB", r.bytes, mb(r.rss0), mb(r.peak-r.rss0))
	return b.String()
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + "ms" }
func mb(n int64) float64        { return float64(n) / (1 << 20) }

// measure starts a server, warms it with small reads, and runs the
// action; with prof, it saves the CPU profile of the action's first 5 s
// to prof.cpu.pprof and the heap's after it to prof.heap.pprof.
func measure(ctx context.Context, bin string, st storage, key string, act action, prof string) (result, error) {
	s, err := start(ctx, bin, st, prof != "")
	if err != nil {
		return result{}, err
	}
	defer s.stop()
	a := account{server: s, slug: slug, key: key}
	if act.web {
		if err := a.signIn(email, password); err != nil {
			return result{}, err
		}
		if _, err := a.page("/"); err != nil {
			return result{}, err
		}
	}
	for _, warm := range [][]string{{"action", "get_projects"}, {"action", "get_task", "id_task", "1"}} {
		a.call(warm...) // a missing task 1 is no matter: the server is warm
	}
	var r result
	if r.rss0, _, err = s.memory(); err != nil {
		return r, err
	}
	cpu := make(chan error, 1)
	if prof != "" {
		go func() { cpu <- s.profile("profile", "seconds=5", prof+".cpu.pprof") }()
		time.Sleep(100 * time.Millisecond)
	}
	for range act.calls {
		began := time.Now()
		body, err := act.do(a)
		if err != nil {
			return r, err
		}
		r.times = append(r.times, time.Since(began))
		r.bytes = len(body)
	}
	_, r.peak, err = s.memory()
	if prof != "" && err == nil {
		if err = <-cpu; err == nil {
			err = s.profile("heap", "", prof+".heap.pprof")
		}
	}
	return r, err
}
