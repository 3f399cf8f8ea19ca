package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write puts the named files with their contents in a new directory.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runLine(rps, p99, cpu string) string {
	return "# taskd bench …\nscenario=ceiling clients=16 duration=5.00s requests=1 failures=0 warmup_failures=0 rps=1000.0 p50=1.00ms p99=2.00ms max=3.00ms body_bytes=40000\n" +
		"scenario=post_task clients=16 duration=5.00s requests=1 failures=0 warmup_failures=0 rps=" + rps + " p50=1.00ms p99=" + p99 + "ms max=9.00ms body_bytes=40 cpu_s=" + cpu + " cpu_us=" + p99 + "\n" +
		"post_task/ceiling=" + rps[:2] + ".0%\n"
}

func TestMediansAndRatio(t *testing.T) {
	dir := write(t, map[string]string{
		"base-run-1.txt":   runLine("100.0", "10.00", "4.0"),
		"base-run-2.txt":   runLine("300.0", "30.00", "6.0"),
		"base-run-3.txt":   runLine("200.0", "20.00", "5.0"),
		"head-run-1.txt":   runLine("400.0", "10.00", "2.0"),
		"head-run-2.txt":   runLine("500.0", "20.00", "3.0"),
		"base-hooks-1.txt": `{"scenario":"burst","events_per_second":1000,"p99_ms":50,"taskd_cpu_seconds":4.2,"missing":0,"duplicates":0}` + "\n" + `{"scenario":"burst","dead_webhooks":10,"events_per_second":800,"taskd_cpu_seconds":5}` + "\n",
		"head-hooks-1.txt": `{"scenario":"burst","events_per_second":1500,"p99_ms":40,"taskd_cpu_seconds":3.7,"missing":0,"duplicates":0}` + "\n" + `{"scenario":"burst","dead_webhooks":10,"events_per_second":400,"taskd_cpu_seconds":5}` + "\n",
	})
	tab, err := readDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := tab.print(&out); err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for line := range strings.Lines(out.String()) {
		f := strings.Split(strings.TrimSpace(line), "  ")
		var cells []string
		for _, c := range f {
			if c = strings.TrimSpace(c); c != "" {
				cells = append(cells, c)
			}
		}
		rows[cells[0]] = cells[1:]
	}
	for fig, want := range map[string][]string{
		// median of 3 rounds is the middle one, of 2 the mean; the ratio is head over base
		"post_task rps":                     {"200", "100 300 200", "450", "400 500", "2.25×"},
		"post_task p99, ms":                 {"20.0", "10.0 30.0 20.0", "15.0", "10.0 20.0", "0.75×"},
		"post_task taskd CPU, s":            {"5.00", "4.00 6.00 5.00", "2.50", "2.00 3.00", "0.50×"},
		"post_task taskd CPU a request, µs": {"20.0", "10.0 30.0 20.0", "15.0", "10.0 20.0", "0.75×"},
		"post_task share of ceiling, %":     {"20.0", "10.0 30.0 20.0", "45.0", "40.0 50.0", "2.25×"},
		"burst events/s":                    {"1000", "1000", "1500", "1500", "1.50×"},
		"burst taskd CPU, s":                {"4.20", "4.20", "3.70", "3.70", "0.88×"},
		"dead events/s":                     {"800", "800", "400", "400", "0.50×"},
	} {
		if got := rows[fig]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: %q, want %q\n%s", fig, got, want, out.String())
		}
	}
	if _, ok := rows["ceiling taskd CPU, s"]; ok {
		t.Error("the ceiling has no taskd CPU, but a row was printed for it")
	}
	if header := rows["figure"]; len(header) == 0 || header[0] != "base median" || header[len(header)-1] != "head/base" {
		t.Errorf("header %q: base must come first, head/base last", header)
	}
	if lost := tab.lost(); lost != "" {
		t.Errorf("nothing was lost, but lost() says %q", lost)
	}
}

func TestLostEventsAreReported(t *testing.T) {
	dir := write(t, map[string]string{
		"base-hooks-1.txt": `{"scenario":"rate","events_per_second":500,"missing":0,"duplicates":0}` + "\n",
		"head-hooks-1.txt": `{"scenario":"rate","events_per_second":900,"missing":3,"duplicates":0}` + "\n",
	})
	tab, err := readDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if lost := tab.lost(); !strings.Contains(lost, "head: rate lost or duplicated 3") {
		t.Errorf("lost() = %q, want head's 3 missing events named", lost)
	}
}

func TestFailedRequestsRefuseTheRound(t *testing.T) {
	dir := write(t, map[string]string{
		"head-run-1.txt": "scenario=post_task clients=16 duration=5.00s requests=10 failures=2 rps=1.0 p50=1ms p99=1ms\n",
	})
	if _, err := readDir(dir); err == nil || !strings.Contains(err.Error(), "2 failed requests") {
		t.Errorf("readDir: %v, want the failed requests named", err)
	}
}

func TestBadInputIsAnError(t *testing.T) {
	for name, body := range map[string]string{
		"not JSON":       "{\"scenario\":\n",
		"no scenario":    "{}\n",
		"bad number":     "scenario=get_tasks rps=fast\n",
		"bad percentage": "get_tasks/ceiling=many%\n",
	} {
		dir := write(t, map[string]string{"head-run-1.txt": body})
		if _, err := readDir(dir); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
	if _, err := readDir(t.TempDir()); err == nil {
		t.Error("an empty directory read without an error")
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := append([]float64(nil), tc.in...)
		if got := median(in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Errorf("median changed its input: %v", in)
			}
		}
	}
}
