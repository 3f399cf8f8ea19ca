package metrics

import (
	"strings"
	"testing"
	"time"
)

func TestExposition(t *testing.T) {
	r := New()
	r.Add("taskd_requests_total", "Requests.", 1, "route", "api", "code", "2xx")
	r.Add("taskd_requests_total", "Requests.", 2, "route", "api", "code", "2xx")
	r.Add("taskd_requests_total", "Requests.", 1, "route", `we"ird`, "code", "5xx")
	r.Observe("taskd_request_seconds", "Latency.", 3*time.Millisecond, "route", "api")
	r.Set("taskd_build_info", "Build.", 2, "version", "v1")
	r.Set("taskd_build_info", "Build.", 1, "version", "v1")
	r.Observe("taskd_request_seconds", "Latency.", 2*time.Second, "route", "api")
	var b strings.Builder
	r.WriteTo(&b)
	out := b.String()
	for _, want := range []string{
		"# TYPE taskd_requests_total counter\n",
		`taskd_requests_total{route="api",code="2xx"} 3` + "\n",
		`taskd_requests_total{route="we\"ird",code="5xx"} 1` + "\n",
		"# TYPE taskd_request_seconds histogram\n",
		`taskd_request_seconds_bucket{route="api",le="0.0025"} 0` + "\n",
		`taskd_request_seconds_bucket{route="api",le="0.005"} 1` + "\n",
		`taskd_request_seconds_bucket{route="api",le="2.5"} 2` + "\n",
		`taskd_request_seconds_bucket{route="api",le="+Inf"} 2` + "\n",
		`taskd_request_seconds_count{route="api"} 2` + "\n",
		"# TYPE taskd_build_info gauge\n",
		`taskd_build_info{version="v1"} 1` + "\n",
		"go_goroutines ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %q:\n%s", want, out)
		}
	}
}

// BenchmarkRecord is the cost one request adds: a counter and a histogram.
func BenchmarkRecord(b *testing.B) {
	r := New()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Add("taskd_http_requests_total", "Requests.", 1, "route", "/a/{slug}/api/admin/v2/{$}", "code", "2xx")
			r.Observe("taskd_http_request_duration_seconds", "Latency.", time.Millisecond, "route", "/a/{slug}/api/admin/v2/{$}")
		}
	})
}
