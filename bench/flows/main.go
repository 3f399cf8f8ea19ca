// Command flows counts the statements PostgreSQL receives for each step of
// a browser's and a client's flows through taskd: the OAuth
// authorization-code flow (sign-in page, sign-in, account choice, consent,
// token), a refresh grant, post_task, update_task, post_comment, and
// get_tasks uncached and cached.
//
// It creates a fresh database, makes the server log every statement sent
// to it (bench/pglog), creates an account and an OAuth client with the
// taskd CLI, starts `taskd serve` on the database and runs each flow over
// HTTP as a browser and a client would: cookies, the CSRF tokens of the
// forms, PKCE. Between steps it pauses like a person (--pause, default
// 1.5 s, so that connections idle over a second and pgx's "-- ping" shows
// when the driver sends it).
//
// Background loops (webhook dispatcher, mail outbox, digests, notifier)
// send statements too. Before the flows the server is watched idle for
// --idle; statements whose text was seen then are background and are listed
// apart, never counted. A step counts the statements logged while its
// request was in flight. Statements logged between steps that were not
// seen idle (the rate-limit counts, flushed in the background) are counted
// for the flow they belong to, and listed as "after the step".
//
// With --refresh-load D it measures instead how fast refresh grants run:
// --clients grants, each from its own authorization-code flow, refreshed
// back to back for D, and prints one line as bench/load does (rps, p50,
// p99, taskd's CPU in all and a grant); bench/ab.sh's "refresh" suite.
//
// Usage:
//
//	go build -o /tmp/taskd ./cmd/taskd
//	go run ./bench/flows --taskd /tmp/taskd --admin postgres://postgres@127.0.0.1:5432/postgres
//	go run ./bench/flows --taskd /tmp/taskd --refresh-load 10s --clients 16   # PostgreSQL of $TASKD_TEST_POSTGRES
//	go run ./bench/flows --taskd /tmp/taskd --refresh-load 10s --sqlite
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/taskd/taskd/bench/pglog"
)

func main() {
	bin := flag.String("taskd", "", "the taskd binary to measure (required)")
	admin := flag.String("admin", os.Getenv("TASKD_TEST_POSTGRES"), "a superuser's postgres:// URL (default $TASKD_TEST_POSTGRES)")
	logPath := flag.String("log", "", "PostgreSQL's log file (default: pglog.DefaultPath)")
	pause := flag.Duration("pause", 1500*time.Millisecond, "pause between steps, as a person would")
	idle := flag.Duration("idle", 4*time.Second, "how long to watch the idle server for background statements")
	rounds := flag.Int("rounds", 2, "how many times to run every flow (the first warms caches)")
	verbose := flag.Bool("v", true, "print each statement's text")
	refresh := flag.Duration("refresh-load", 0, "instead of counting statements, run refresh grants back to back for this long and print their rate and taskd's CPU")
	clients := flag.Int("clients", 16, "--refresh-load: grants refreshed at once")
	warmup := flag.Duration("warmup", time.Second, "--refresh-load: time before the measurement")
	sqlite := flag.Bool("sqlite", false, "--refresh-load: on SQLite instead of PostgreSQL")
	flag.Parse()
	if *refresh > 0 {
		if *bin == "" || (*admin == "" && !*sqlite) || *clients < 1 {
			fmt.Fprintln(os.Stderr, "flows: --refresh-load needs --taskd, --admin (or --sqlite) and --clients of 1 or more")
			os.Exit(2)
		}
		if *sqlite {
			*admin = ""
		}
		if err := refreshLoad(context.Background(), *bin, *admin, *clients, *refresh, *warmup); err != nil {
			fmt.Fprintln(os.Stderr, "flows:", err)
			os.Exit(1)
		}
		return
	}
	if *bin == "" || *admin == "" {
		fmt.Fprintln(os.Stderr, "flows: --taskd and --admin (or TASKD_TEST_POSTGRES) are required")
		os.Exit(2)
	}
	if *logPath == "" {
		p, err := pglog.DefaultPath()
		if err != nil {
			fmt.Fprintln(os.Stderr, "flows:", err)
			os.Exit(1)
		}
		*logPath = p
	}
	b := &bench{bin: *bin, admin: *admin, log: *logPath, pause: *pause, verbose: *verbose}
	if err := b.run(context.Background(), *idle, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "flows:", err)
		os.Exit(1)
	}
}

// bench is one run: a database, a server, and what was counted.
type bench struct {
	bin, admin, log string
	pause           time.Duration
	verbose         bool

	db         string // the database's name
	background map[string]bool
	srv        *server
}

func (b *bench) run(ctx context.Context, idle time.Duration, rounds int) error {
	b.db = fmt.Sprintf("flows_%d_%d", time.Now().Unix(), os.Getpid())
	conn, err := sql.Open("pgx", b.admin)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE DATABASE "`+b.db+`"`); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	defer func() {
		if _, err := conn.ExecContext(context.Background(), `DROP DATABASE "`+b.db+`" WITH (FORCE)`); err != nil {
			fmt.Fprintln(os.Stderr, "flows: drop database:", err)
		}
	}()
	if err := pglog.Enable(ctx, b.admin, b.db); err != nil {
		return err
	}
	dbURL, err := withDatabase(b.admin, b.db)
	if err != nil {
		return err
	}
	b.srv, err = startServer(ctx, b.bin, dbURL)
	if err != nil {
		return err
	}
	defer b.srv.stop()
	if err := b.srv.seed(ctx); err != nil {
		return err
	}
	if err := b.watchIdle(idle); err != nil {
		return err
	}
	fmt.Printf("# flows: %s, database %s, pause %s between steps; BEGIN/COMMIT not counted\n", b.bin, b.db, b.pause)
	fmt.Printf("# background (seen idle for %s, never counted): %d distinct statements\n", idle, len(b.background))
	if b.verbose {
		for t := range b.background {
			fmt.Printf("#   bg: %s\n", t)
		}
	}
	for r := 1; r <= rounds; r++ {
		fmt.Printf("\n## round %d\n", r)
		for _, f := range b.srv.flows() {
			if err := b.measure(ctx, f); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
	}
	return nil
}

// watchIdle records the statements the idle server sends.
func (b *bench) watchIdle(d time.Duration) error {
	time.Sleep(b.pause)
	from, err := pglog.Mark(b.log)
	if err != nil {
		return err
	}
	time.Sleep(d)
	c, err := pglog.Count(b.log, from, b.db)
	if err != nil {
		return err
	}
	b.background = map[string]bool{}
	for _, s := range c.Statements {
		if s.Text != "-- ping" { // a ping belongs to whoever uses the connection next
			b.background[s.Text] = true
		}
	}
	return nil
}

// rareLoops are the first lines of statements of background loops that
// may not run while the server is watched idle: the notification digest,
// and the fallback polls of the webhook dispatcher (WebhookWork, every
// 10 s) and the mail outbox (every 15 s), which an idle watch shorter than
// their period can miss.
var rareLoops = regexp.MustCompile(`FROM notifications GROUP BY person_id|FROM mail_outbox|FROM webhooks w WHERE|pg_try_advisory|MIN\(CASE WHEN due > \$1 THEN due END\) OVER \(\)`)

func (b *bench) isBackground(text string) bool {
	return b.background[text] || rareLoops.MatchString(text)
}

// flow is a named sequence of steps; run calls step for each.
type flow struct {
	name string
	run  func(ctx context.Context, step func(name string, do func() error) error) error
}

// tally is what one window of the log held.
type tally struct {
	counted, background []string
	tx                  int
}

func (b *bench) window(from, to int64) (tally, error) {
	var t tally
	if to <= from {
		return t, nil
	}
	f, err := os.Open(b.log)
	if err != nil {
		return t, err
	}
	defer f.Close()
	buf := make([]byte, to-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		return t, err
	}
	c, err := pglog.Parse(strings.NewReader(string(buf)), b.db)
	if err != nil {
		return t, err
	}
	t.tx = c.Transactions
	for i, s := range c.Statements {
		if s.Text == "-- ping" {
			// pgx pings a connection idle over a second before reusing it:
			// the ping is the request's when the connection's next
			// statement is.
			mine := false
			for _, n := range c.Statements[i+1:] {
				if n.PID == s.PID {
					mine = n.Text != "-- ping" && !b.isBackground(n.Text)
					break
				}
			}
			if mine {
				t.counted = append(t.counted, s.Text)
			} else {
				t.background = append(t.background, s.Text)
			}
			continue
		}
		if b.isBackground(s.Text) {
			t.background = append(t.background, s.Text)
		} else {
			t.counted = append(t.counted, s.Text)
		}
	}
	return t, nil
}

// measure runs a flow, pausing before each step, and prints what each step
// sent, and what was sent between steps, not seen idle.
func (b *bench) measure(ctx context.Context, f flow) error {
	total := 0
	fmt.Printf("\n### %s\n", f.name)
	type pending struct {
		name     string
		from, to int64
	}
	var last *pending
	// settle counts the last step once the pause after it has passed.
	settle := func(pause time.Duration) error {
		if last == nil {
			return nil
		}
		time.Sleep(pause)
		end, err := pglog.Mark(b.log)
		if err != nil {
			return err
		}
		in, err := b.window(last.from, last.to)
		if err != nil {
			return err
		}
		after, err := b.window(last.to, end)
		if err != nil {
			return err
		}
		n := len(in.counted) + len(after.counted)
		total += n
		fmt.Printf("%-30s %2d statements (%d in the request, %d after it; %d BEGIN/COMMIT; %d background not counted)\n",
			last.name, n, len(in.counted), len(after.counted), in.tx, len(in.background)+len(after.background))
		if b.verbose {
			for _, t := range in.counted {
				fmt.Printf("    %s\n", t)
			}
			for _, t := range after.counted {
				fmt.Printf("    after: %s\n", t)
			}
		}
		last = nil
		return nil
	}
	time.Sleep(b.pause)
	err := f.run(ctx, func(name string, do func() error) error {
		if err := settle(b.pause); err != nil {
			return err
		}
		from, err := pglog.Mark(b.log)
		if err != nil {
			return err
		}
		if err := do(); err != nil {
			return fmt.Errorf("step %s: %w", name, err)
		}
		time.Sleep(20 * time.Millisecond) // the log is written as statements arrive
		to, err := pglog.Mark(b.log)
		if err != nil {
			return err
		}
		last = &pending{name, from, to}
		return nil
	})
	if err != nil {
		return err
	}
	if err := settle(max(b.pause, 2500*time.Millisecond)); err != nil { // wait out background flushes
		return err
	}
	fmt.Printf("%-30s %2d statements\n", "TOTAL "+f.name, total)
	return nil
}
