package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// result is the summary of one run. Latencies are in milliseconds.
type result struct {
	Scenario       string  `json:"scenario"`
	Clients        int     `json:"clients"`
	DurationS      float64 `json:"duration_s"` // from the end of the warm-up to the last measured response
	Requests       int64   `json:"requests"`   // measured requests, successful or not
	Failures       int64   `json:"failures"`
	WarmupFailures int64   `json:"warmup_failures"`
	RPS            float64 `json:"rps"`
	P50Ms          float64 `json:"p50_ms"`
	P99Ms          float64 `json:"p99_ms"`
	MaxMs          float64 `json:"max_ms"`
	BodyBytes      int64   `json:"body_bytes"` // mean body size of the successful responses
	// With --pid: taskd's CPU time over the measured time, and per
	// measured request.
	CPUSeconds          float64 `json:"taskd_cpu_seconds,omitempty"`
	CPUMicrosPerRequest float64 `json:"taskd_cpu_us_per_request,omitempty"`

	firstErr error
}

// merge combines the clients' statistics; measure is when counting began.
func merge(stats []clientStats, measure time.Time) *result {
	var r result
	var all []time.Duration
	var bytes, successes int64
	last := measure
	for i := range stats {
		s := &stats[i]
		all = append(all, s.latencies...)
		bytes += s.bytes
		successes += s.successes
		r.Failures += s.failures
		r.WarmupFailures += s.warmupFailures
		if s.lastDone.After(last) {
			last = s.lastDone
		}
		if r.firstErr == nil {
			r.firstErr = s.firstErr
		}
	}
	slices.Sort(all)
	r.Requests = int64(len(all))
	r.DurationS = last.Sub(measure).Seconds()
	if r.DurationS > 0 {
		r.RPS = float64(r.Requests) / r.DurationS
	}
	r.P50Ms = ms(percentile(all, 0.50))
	r.P99Ms = ms(percentile(all, 0.99))
	if len(all) > 0 {
		r.MaxMs = ms(all[len(all)-1])
	}
	if successes > 0 {
		r.BodyBytes = bytes / successes
	}
	return &r
}

// percentile is the nearest-rank p-quantile (0 < p ≤ 1) of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// ms converts a duration to fractional milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// print writes the result as one line of key=value pairs, or as JSON.
func (r *result) print(w io.Writer, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(r)
	}
	cpu := ""
	if r.CPUSeconds > 0 {
		cpu = fmt.Sprintf(" cpu_s=%.2f cpu_us=%.0f", r.CPUSeconds, r.CPUMicrosPerRequest)
	}
	_, err := fmt.Fprintf(w, "scenario=%s clients=%d duration=%.2fs requests=%d failures=%d warmup_failures=%d "+
		"rps=%.1f p50=%.2fms p99=%.2fms max=%.2fms body_bytes=%d%s\n",
		r.Scenario, r.Clients, r.DurationS, r.Requests, r.Failures, r.WarmupFailures,
		r.RPS, r.P50Ms, r.P99Ms, r.MaxMs, r.BodyBytes, cpu)
	return err
}
