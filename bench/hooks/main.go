// Command hooks measures webhook delivery end to end against a running
// taskd: it starts receivers on loopback, registers a webhook for each on
// post_task, makes changes through the administrative API and reports how
// fast and how completely the events arrive.
//
// Scenarios:
//
//	burst  --changes N tasks posted by --clients clients as fast as they go,
//	       to --webhooks receivers: events delivered/s, and how long after
//	       the last change the last delivery came
//	rate   --rate changes per second for --warmup, then for --duration,
//	       open loop, to --webhooks receivers: change→receipt p50/p99 of
//	       the changes after the warm-up (every change counts towards
//	       missing and duplicate events), and the p99 of each second
//	backlog --changes N tasks posted while the webhooks are disabled, so
//	       that N × --webhooks deliveries are held; then they are enabled:
//	       taskd's peak RSS (with --pid) while it holds and drains them
//
// Latency is measured from the moment the change was sent, so it includes
// the API call. Every receiver counts the connections taskd opens to it and
// the events it gets twice; with --pid the taskd process's CPU time over
// the run is reported. Prints one line, or one JSON object with --json, and
// exits non-zero when an event is missing.
//
//	go run ./bench/hooks --url http://127.0.0.1:PORT/a/acme --key KEY --project 1 \
//	    --scenario burst --webhooks 10 --changes 2000 --clients 8
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskd/taskd/bench/internal/admin"
	"github.com/taskd/taskd/bench/internal/proc"
)

type config struct {
	url, key, project, scenario string
	webhooks, changes, clients  int
	dead                        int // destinations that stop answering well: half hang, half fail
	rate                        int
	duration, warmup, wait      time.Duration
	pids                        string
	json                        bool
}

func main() {
	var c config
	flag.StringVar(&c.url, "url", "", "account URL, e.g. http://127.0.0.1:8080/a/acme; several, comma-separated, for replicas: calls go round-robin")
	flag.StringVar(&c.key, "key", "", "administrative API key")
	flag.StringVar(&c.project, "project", "", "id_project to post tasks in (default: a new project)")
	flag.StringVar(&c.scenario, "scenario", "burst", "burst or rate")
	flag.IntVar(&c.webhooks, "webhooks", 10, "receivers, one webhook each")
	flag.IntVar(&c.dead, "dead", 0, "more webhooks whose destinations, once registered, hang (half) or answer 500 (half); not counted in the figures")
	flag.IntVar(&c.changes, "changes", 2000, "burst: tasks to post")
	flag.IntVar(&c.clients, "clients", 8, "burst: concurrent API clients")
	flag.IntVar(&c.rate, "rate", 500, "rate: changes per second")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "rate: how long to make changes after the warm-up")
	flag.DurationVar(&c.warmup, "warmup", time.Second, "rate: how long to make changes first without measuring them (cold pools and caches)")
	flag.DurationVar(&c.wait, "wait", 60*time.Second, "how long to wait for the last events")
	flag.StringVar(&c.pids, "pid", "", "taskd's process ids, comma-separated, to report their CPU time and peak RSS")
	flag.BoolVar(&c.json, "json", false, "print the result as JSON")
	flag.Parse()
	res, err := run(context.Background(), c)
	if res != nil {
		res.print(os.Stdout, c.json)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hooks:", err)
		os.Exit(1)
	}
}

// receiver is one destination: it records when each event arrived.
type receiver struct {
	srv   *http.Server
	url   string
	mu    sync.Mutex
	got   map[string]time.Time // task id → first receipt
	dups  int
	conns atomic.Int64
	// mode: 0 answers OK; 1 hangs until the bench ends; 2 answers 500.
	mode    atomic.Int32
	release chan struct{}
}

func newReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{got: map[string]time.Time{}, url: "http://" + ln.Addr().String() + "/", release: make(chan struct{})}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.conns.Add(1)
		}
	}}
	go r.srv.Serve(ln)
	return r, nil
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	switch r.mode.Load() {
	case 1:
		<-r.release
		return
	case 2:
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	at := time.Now()
	body, _ := io.ReadAll(req.Body)
	var events []struct {
		Object struct {
			ID string `json:"id"`
		} `json:"object"`
	}
	json.Unmarshal(body, &events)
	r.mu.Lock()
	for _, e := range events {
		if _, seen := r.got[e.Object.ID]; seen {
			r.dups++
		} else {
			r.got[e.Object.ID] = at
		}
	}
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"status":"OK"}`))
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// client calls the administrative API with the key's hash, on its
// account URLs in turn.
type client struct {
	urls []string
	key  string
	c    *http.Client
	next *atomic.Uint64
}

func (a client) call(params url.Values) (map[string]any, error) {
	return admin.Call(a.c, a.urls[a.next.Add(1)%uint64(len(a.urls))], a.key, params)
}

// register adds an enabled webhook for post_task at the URL and returns its id.
func (a client) register(dest string) (string, error) {
	body, err := a.call(url.Values{"action": {"add_webhook"}, "url": {dest}, "events": {"post_task"}})
	if err != nil {
		return "", err
	}
	id := strconv.Itoa(int(body["id"].(float64)))
	_, err = a.call(url.Values{"action": {"enable_webhook"}, "id": {id}})
	return id, err
}

// closedLoop makes changes 1..n from clients goroutines, each sending the
// next as soon as its last is answered, and counts the failures.
func closedLoop(clients, n int, post func(int) error, errs *atomic.Int64) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := int(next.Add(1)); i <= n; i = int(next.Add(1)) {
				if post(i) != nil {
					errs.Add(1)
				}
			}
		})
	}
	wg.Wait()
}

func run(ctx context.Context, c config) (*result, error) {
	if c.url == "" || c.key == "" {
		return nil, errors.New("--url and --key are required")
	}
	var urls []string
	for u := range strings.SplitSeq(c.url, ",") {
		urls = append(urls, strings.TrimRight(u, "/"))
	}
	var pids []int
	for p := range strings.SplitSeq(c.pids, ",") {
		if n, err := strconv.Atoi(p); err == nil {
			pids = append(pids, n)
		}
	}
	a := client{urls: urls, key: c.key, next: new(atomic.Uint64), c: &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	if c.project == "" {
		body, err := a.call(url.Values{"action": {"post_project"}, "title": {"Webhook bench"}})
		if err != nil {
			return nil, err
		}
		c.project = body["data"].(map[string]any)["id"].(string)
	}
	var recvs []*receiver
	var hookIDs []string
	for range c.webhooks {
		r, err := newReceiver()
		if err != nil {
			return nil, err
		}
		defer r.srv.Close()
		id, err := a.register(r.url)
		if err != nil {
			return nil, err
		}
		defer a.call(url.Values{"action": {"delete_webhook"}, "id": {id}})
		recvs = append(recvs, r)
		hookIDs = append(hookIDs, id)
	}
	for i := range c.dead {
		r, err := newReceiver()
		if err != nil {
			return nil, err
		}
		defer r.srv.Close()
		defer close(r.release)
		id, err := a.register(r.url)
		if err != nil {
			return nil, err
		}
		defer a.call(url.Values{"action": {"delete_webhook"}, "id": {id}})
		r.mode.Store(int32(1 + i%2)) // checked and enabled; now it goes bad
	}
	for _, r := range recvs {
		r.conns.Store(0) // the URL checks do not count
	}
	cpu0 := proc.CPUSeconds(pids...)
	sent := map[string]time.Time{}
	type call struct{ start, answered time.Time }
	var calls []call // when each change's API call was sent and answered
	var mu sync.Mutex
	post := func(n int) error {
		start := time.Now()
		body, err := a.call(url.Values{"action": {"post_task"}, "id_project": {c.project}, "title": {"hook bench " + strconv.Itoa(n)}})
		if err != nil {
			return err
		}
		id := body["data"].(map[string]any)["id"].(string)
		mu.Lock()
		sent[id] = start
		calls = append(calls, call{start, time.Now()})
		mu.Unlock()
		return nil
	}
	began := time.Now()
	var errs atomic.Int64
	switch c.scenario {
	case "burst":
		closedLoop(c.clients, c.changes, post, &errs)
	case "backlog":
		for _, id := range hookIDs {
			if _, err := a.call(url.Values{"action": {"disable_webhook"}, "id": {id}}); err != nil {
				return nil, err
			}
		}
		closedLoop(c.clients, c.changes, post, &errs)
		for _, id := range hookIDs {
			if _, err := a.call(url.Values{"action": {"enable_webhook"}, "id": {id}}); err != nil {
				return nil, err
			}
		}
	case "rate":
		tick := time.NewTicker(time.Second / time.Duration(c.rate))
		defer tick.Stop()
		var wg sync.WaitGroup
		for n := 1; time.Since(began) < c.warmup+c.duration; n++ {
			<-tick.C
			wg.Go(func() {
				if post(n) != nil {
					errs.Add(1)
				}
			})
		}
		wg.Wait()
	default:
		return nil, fmt.Errorf("unknown scenario %q", c.scenario)
	}
	lastChange := time.Now()
	want := len(sent) * len(recvs)
	deadline := time.Now().Add(c.wait)
	peak := proc.RSS(pids...)
	for {
		peak = max(peak, proc.RSS(pids...))
		got := 0
		for _, r := range recvs {
			got += r.count()
		}
		if got >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	res := &result{Scenario: c.scenario, Webhooks: len(recvs), Dead: c.dead, Changes: len(sent), Errors: int(errs.Load())}
	if c.scenario == "rate" {
		res.Rate, res.Warmup = c.rate, c.warmup.String()
	}
	var measureFrom time.Duration // rate: the warm-up's changes are not measured
	if c.scenario == "rate" {
		measureFrom = c.warmup
	}
	var lat []time.Duration
	var bySecond [][]time.Duration // latencies by the second the change was sent in
	var last time.Time
	for _, r := range recvs {
		r.mu.Lock()
		for id, at := range r.got {
			if s, ok := sent[id]; ok {
				res.Delivered++
				if s.Sub(began) >= measureFrom {
					lat = append(lat, at.Sub(s))
				}
				sec := int(s.Sub(began) / time.Second)
				for len(bySecond) <= sec {
					bySecond = append(bySecond, nil)
				}
				bySecond[sec] = append(bySecond[sec], at.Sub(s))
			}
			if at.After(last) {
				last = at
			}
		}
		res.Duplicates += r.dups
		r.mu.Unlock()
		res.Connections += int(r.conns.Load())
	}
	res.Missing = want - res.Delivered
	if res.Delivered > 0 {
		res.PerSecond = float64(res.Delivered) / last.Sub(began).Seconds()
		res.LastAfterChangesMS = ms(last.Sub(lastChange))
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		res.P50MS, res.P99MS = ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100])
		var took []time.Duration
		for _, c := range calls {
			if c.start.Sub(began) >= measureFrom {
				took = append(took, c.answered.Sub(c.start))
			}
		}
		sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
		res.CallP99MS = ms(took[len(took)*99/100])
		if c.scenario == "rate" {
			for _, l := range bySecond {
				sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
				p99 := 0.0
				if len(l) > 0 {
					p99 = ms(l[len(l)*99/100])
				}
				res.P99BySecondMS = append(res.P99BySecondMS, p99)
			}
		}
	}
	if len(pids) > 0 {
		res.CPUSeconds = proc.CPUSeconds(pids...) - cpu0
		res.PeakRSSMB = float64(peak) / (1 << 20)
	}
	if res.Missing > 0 || res.Errors > 0 {
		return res, fmt.Errorf("%d events missing, %d changes failed", res.Missing, res.Errors)
	}
	return res, nil
}

// result is one run's figures.
type result struct {
	Scenario           string    `json:"scenario"`
	Webhooks           int       `json:"webhooks"`
	Dead               int       `json:"dead_webhooks,omitempty"`
	Changes            int       `json:"changes"`
	Rate               int       `json:"rate,omitempty"`
	Warmup             string    `json:"warmup,omitempty"` // rate: not measured, but checked for missing and duplicate events
	Errors             int       `json:"errors"`
	Delivered          int       `json:"delivered"`
	Missing            int       `json:"missing"`
	Duplicates         int       `json:"duplicates"`
	PerSecond          float64   `json:"events_per_second"`
	LastAfterChangesMS float64   `json:"last_delivery_after_last_change_ms"`
	P50MS              float64   `json:"p50_ms"`
	P99MS              float64   `json:"p99_ms"`
	CallP99MS          float64   `json:"api_call_p99_ms"`            // the change's own API call, part of the latency
	P99BySecondMS      []float64 `json:"p99_by_second_ms,omitempty"` // rate: p99 of the changes sent in each second
	Connections        int       `json:"new_connections"`
	CPUSeconds         float64   `json:"taskd_cpu_seconds,omitempty"`
	PeakRSSMB          float64   `json:"taskd_peak_rss_mb,omitempty"`
}

func (r *result) print(w io.Writer, asJSON bool) {
	if asJSON {
		json.NewEncoder(w).Encode(r)
		return
	}
	rate := ""
	if r.Rate > 0 {
		rate = fmt.Sprintf(" at %d/s (%s warm-up)", r.Rate, r.Warmup)
	}
	if r.Dead > 0 {
		rate += fmt.Sprintf(" (+%d dead)", r.Dead)
	}
	fmt.Fprintf(w, "%-5s %2d webhooks, %5d changes%s: %7.0f events/s, last %6.0f ms after the last change, p50 %5.0f ms, p99 %5.0f ms (API call p99 %.0f ms), %d delivered, %d missing, %d duplicates, %d new connections, taskd CPU %.1f s, peak RSS %.0f MB\n",
		r.Scenario, r.Webhooks, r.Changes, rate, r.PerSecond, r.LastAfterChangesMS, r.P50MS, r.P99MS, r.CallP99MS, r.Delivered, r.Missing, r.Duplicates, r.Connections, r.CPUSeconds, r.PeakRSSMB)
	if len(r.P99BySecondMS) > 0 {
		fmt.Fprintf(w, "      p99 by second of the run (ms): %.0f\n", r.P99BySecondMS)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
