// Command live measures the pages' live streams (issue 35) on one
// replica: it serves taskd in this process on a fresh SQLite database (or
// --db, a PostgreSQL database it leaves data in), opens --streams Server-
// Sent Events streams for --people members over loopback, and prints the
// process's RSS before and after they open, then makes --changes changes
// one at a time and prints how long each took to reach every stream
// (p50/p99/max of the per-stream arrivals, and of "all reached").
//
//	flock /tmp/bench.lock go run ./bench/live --streams 1000 --people 100
//
// The streams' readers run in this process too, so the RSS holds both
// ends; the baseline is the same process before the streams open.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/server"
	"github.com/taskd/taskd/store"
)

func main() {
	streams := flag.Int("streams", 1000, "streams to open")
	people := flag.Int("people", 100, "members the streams belong to (each its own viewer)")
	changes := flag.Int("changes", 20, "changes to time")
	url := flag.String("db", "", "a postgres:// URL; empty: a fresh SQLite database")
	flag.Parse()
	if err := run(*streams, *people, *changes, *url); err != nil {
		fmt.Fprintln(os.Stderr, "live:", err)
		os.Exit(1)
	}
}

func run(streams, people, changes int, url string) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "taskd-live-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(ctx, store.Options{URL: url, DataDir: dir})
	if err != nil {
		return err
	}
	defer db.Close()
	key := make([]byte, 32)
	rand.Read(key)
	sealer, err := secret.NewSealer(key)
	if err != nil {
		return err
	}
	slug := "live" + secret.Token(4)
	slug = strings.ToLower(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return 'x'
	}, slug))
	acct, owner, err := db.CreateAccount(ctx, taskd.NewAccount{Slug: slug, Name: "Live bench", APIKey: []byte("sealed"),
		Owner: taskd.NewPerson{Email: slug + "@bench.example", PasswordHash: "x", FirstName: "Olga", LastName: "Owner"}})
	if err != nil {
		return fmt.Errorf("account: %w", err)
	}
	by := taskd.Actor{AccountID: acct.ID, Person: owner.Ref(), Role: taskd.RoleOwner}
	project, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Live")})
	if err != nil {
		return err
	}
	tokens := make([]string, people)
	for i := range people {
		p, err := db.AddMember(ctx, acct.ID, taskd.NewPerson{Email: fmt.Sprintf("p%d-%s@bench.example", i, slug), PasswordHash: "x",
			FirstName: "P", LastName: fmt.Sprint(i)}, taskd.RoleUser)
		if err != nil {
			return fmt.Errorf("member: %w", err)
		}
		tokens[i] = secret.Token(32)
		if err := db.CreateSession(ctx, secret.HashToken(tokens[i]), p.ID, time.Now().Add(time.Hour)); err != nil {
			return err
		}
	}
	srv, err := server.New(ctx, server.Config{Store: db, Sealer: sealer, PublicURL: "http://127.0.0.1"})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	serveCtx, stopServe := context.WithCancel(ctx)
	go func() { served <- srv.Serve(serveCtx, ln) }()
	defer func() { stopServe(); <-served }()
	base := "http://" + ln.Addr().String()

	before := rss()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}}
	arrived := make(chan arrival, streams*4)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i := range streams {
		req, _ := http.NewRequestWithContext(sctx, "GET", base+"/a/"+slug+"/live", nil)
		req.Header.Set("Cookie", "session="+tokens[i%people])
		res, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("stream %d: %w", i, err)
		}
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("stream %d: %s", i, res.Status)
		}
		go read(res, i, arrived)
	}
	// Every stream is in the hub: a stream answers 200 once it is.
	after := rss()
	fmt.Printf("streams %d (people %d) on %s\n", streams, people, map[bool]string{true: "SQLite", false: "PostgreSQL"}[url == ""])
	fmt.Printf("RSS before streams %.1f MB, with streams %.1f MB, per stream %.1f KB (target ≤ 200 MB)\n",
		mb(before), mb(after), float64(after-before)/1024/float64(streams))

	var each, all []time.Duration
	for c := range changes {
		name := fmt.Sprintf("change-%d", c)
		start := time.Now()
		if _, err := db.CreateTask(ctx, by, project.ID, 0, taskd.TaskInput{Name: new(name)}); err != nil {
			return err
		}
		got := map[int]bool{}
		deadline := time.After(10 * time.Second)
		for len(got) < streams {
			select {
			case a := <-arrived:
				if a.title == name && !got[a.stream] {
					got[a.stream] = true
					each = append(each, a.at.Sub(start))
				}
			case <-deadline:
				return fmt.Errorf("%s reached %d of %d streams in 10 s", name, len(got), streams)
			}
		}
		all = append(all, time.Since(start))
	}
	fmt.Printf("one change → a stream: p50 %v, p99 %v, max %v\n", pct(each, 50), pct(each, 99), pct(each, 100))
	fmt.Printf("one change → all %d streams: p50 %v, p99 %v, max %v (target ≤ 1 s)\n", streams, pct(all, 50), pct(all, 99), pct(all, 100))
	return nil
}

// arrival is a change's message on a stream.
type arrival struct {
	stream int
	title  string
	at     time.Time
}

// read passes on the titles of a stream's messages.
func read(res *http.Response, i int, out chan<- arrival) {
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if _, rest, ok := strings.Cut(line, `"title":"`); ok {
			title, _, _ := strings.Cut(rest, `"`)
			out <- arrival{stream: i, title: title, at: time.Now()}
		}
	}
}

var mu sync.Mutex

// rss is the process's resident set, in bytes, after a collection.
func rss() int64 {
	mu.Lock()
	defer mu.Unlock()
	runtime.GC()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			var kb int64
			fmt.Sscan(f[1], &kb)
			return kb * 1024
		}
	}
	return 0
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// pct is the p-th percentile of ds.
func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, len(s)*p/100)
	return s[i].Round(100 * time.Microsecond)
}
