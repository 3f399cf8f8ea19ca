// Package metrics keeps counters and latency histograms and writes them in
// the Prometheus text format for GET /metrics. It is deliberately small:
// taskd needs a handful of series, not a client library.
package metrics

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Registry holds every series of one process.
type Registry struct {
	mu       sync.Mutex
	counters map[string]*family
	gauges   map[string]*family
	histos   map[string]*histoFamily
	start    time.Time
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{counters: map[string]*family{}, gauges: map[string]*family{}, histos: map[string]*histoFamily{}, start: time.Now()}
}

type family struct {
	help   string
	values map[string]float64 // by rendered label set
}

// buckets are the latency bounds, in seconds.
var buckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

type histo struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

type histoFamily struct {
	help   string
	series map[string]*histo
}

// Add increases the counter name{labels} by v. labels alternate names and
// values.
func (r *Registry) Add(name, help string, v float64, labels ...string) {
	key := render(labels)
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.counters[name]
	if f == nil {
		f = &family{help: help, values: map[string]float64{}}
		r.counters[name] = f
	}
	f.values[key] += v
}

// Set sets the gauge name{labels} to v, e.g. taskd_build_info{…} 1.
func (r *Registry) Set(name, help string, v float64, labels ...string) {
	key := render(labels)
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.gauges[name]
	if f == nil {
		f = &family{help: help, values: map[string]float64{}}
		r.gauges[name] = f
	}
	f.values[key] = v
}

// Observe records a duration in the histogram name{labels}.
func (r *Registry) Observe(name, help string, d time.Duration, labels ...string) {
	key := render(labels)
	sec := d.Seconds()
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.histos[name]
	if f == nil {
		f = &histoFamily{help: help, series: map[string]*histo{}}
		r.histos[name] = f
	}
	h := f.series[key]
	if h == nil {
		h = &histo{counts: make([]uint64, len(buckets)+1)}
		f.series[key] = h
	}
	i, _ := slices.BinarySearch(buckets, sec)
	h.counts[i]++
	h.sum += sec
	h.n++
}

// render makes the {a="b",…} part of a series; values are escaped.
func render(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(labels); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(labels[i])
		b.WriteString(`="`)
		b.WriteString(escape(labels[i+1]))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

var escaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// escape quotes a label value as the text format requires.
func escape(v string) string {
	if !strings.ContainsAny(v, "\\\"\n") {
		return v
	}
	return escaper.Replace(v)
}

// withLabel adds one label to a rendered label set.
func withLabel(set, name, value string) string {
	l := name + `="` + value + `"`
	if set == "" {
		return "{" + l + "}"
	}
	return set[:len(set)-1] + "," + l + "}"
}

// WriteTo writes every series in the Prometheus text format, sorted, then
// a few process figures.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	r.mu.Lock()
	writeFamilies(&b, "counter", r.counters)
	writeFamilies(&b, "gauge", r.gauges)
	for _, name := range sortedKeys(r.histos) {
		f := r.histos[name]
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s histogram\n", name, f.help, name)
		for _, k := range sortedKeys(f.series) {
			h := f.series[k]
			var cum uint64
			for i, le := range buckets {
				cum += h.counts[i]
				fmt.Fprintf(&b, "%s_bucket%s %d\n", name, withLabel(k, "le", num(le)), cum)
			}
			fmt.Fprintf(&b, "%s_bucket%s %d\n", name, withLabel(k, "le", "+Inf"), h.n)
			fmt.Fprintf(&b, "%s_sum%s %s\n%s_count%s %d\n", name, k, num(h.sum), name, k, h.n)
		}
	}
	r.mu.Unlock()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(&b, "# HELP go_goroutines Goroutines that exist now.\n# TYPE go_goroutines gauge\ngo_goroutines %d\n", runtime.NumGoroutine())
	fmt.Fprintf(&b, "# HELP go_memstats_heap_alloc_bytes Bytes of allocated heap objects.\n# TYPE go_memstats_heap_alloc_bytes gauge\ngo_memstats_heap_alloc_bytes %d\n", ms.HeapAlloc)
	fmt.Fprintf(&b, "# HELP process_uptime_seconds Seconds since the process started.\n# TYPE process_uptime_seconds gauge\nprocess_uptime_seconds %s\n", num(time.Since(r.start).Seconds()))
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// writeFamilies writes counters or gauges, sorted by name and labels.
func writeFamilies(b *strings.Builder, kind string, fams map[string]*family) {
	for _, name := range sortedKeys(fams) {
		f := fams[name]
		fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, f.help, name, kind)
		for _, k := range sortedKeys(f.values) {
			fmt.Fprintf(b, "%s%s %s\n", name, k, num(f.values[k]))
		}
	}
}

func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Handler serves the registry at GET /metrics.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		r.WriteTo(w)
	})
}
