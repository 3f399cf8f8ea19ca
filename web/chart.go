package web

import (
	"fmt"
	"time"

	"github.com/taskd/taskd"
)

// chart is the last 24 hours of a webhook's deliveries as SVG bars: one
// column per hour, successes and failures stacked, mean latency in the title.
type chart struct {
	Bars    []bar
	OK      int
	Failed  int
	Latency time.Duration // mean over the day
	Empty   bool
}

type bar struct {
	X, OKY, OKH, FailY, FailH int
	Title                     string
}

const chartHeight = 60

func newChart(stats []taskd.AttemptStats, now time.Time) chart {
	start := now.Truncate(time.Hour).Add(-23 * time.Hour)
	by := map[int64]taskd.AttemptStats{}
	peak := 1
	var c chart
	var total time.Duration
	for _, s := range stats {
		by[s.Hour.Unix()] = s
		peak = max(peak, s.OK+s.Failed)
		c.OK += s.OK
		c.Failed += s.Failed
		total += s.Latency * time.Duration(s.OK+s.Failed)
	}
	if n := c.OK + c.Failed; n > 0 {
		c.Latency = total / time.Duration(n)
	}
	c.Empty = c.OK+c.Failed == 0
	for i := range 24 {
		h := start.Add(time.Duration(i) * time.Hour)
		s := by[h.Unix()]
		okH := s.OK * chartHeight / peak
		failH := s.Failed * chartHeight / peak
		c.Bars = append(c.Bars, bar{X: i * 12, OKY: chartHeight - okH, OKH: okH, FailY: chartHeight - okH - failH, FailH: failH,
			Title: fmt.Sprintf("%s UTC: %d delivered, %d failed, mean %d ms", h.UTC().Format("15:04"), s.OK, s.Failed, s.Latency.Milliseconds())})
	}
	return c
}
