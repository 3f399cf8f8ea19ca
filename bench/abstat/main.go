// Command abstat summarizes an A/B run of bench/ab.sh: for every figure the
// rounds of each build gave, it prints the two medians and their ratio.
//
// It reads the directory bench/ab.sh wrote, one file a round, build and
// suite, named BUILD-SUITE-ROUND.txt (base-run-1.txt, head-hooks-2.txt …),
// holding what bench/run.sh printed (key=value lines and the shares of the
// ceiling) or what bench/hooks.sh printed with JSON=1 (a JSON object a
// scenario). Builds are listed in the order of their names' first
// appearance, base first when there is one.
//
//	go run ./bench/abstat DIR
//
// It exits with 1 when a webhook scenario lost or duplicated an event in
// any round, so that a faster build that drops events never looks better.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: abstat DIR")
		os.Exit(2)
	}
	t, err := readDir(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "abstat:", err)
		os.Exit(2)
	}
	if err := t.print(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "abstat:", err)
		os.Exit(2)
	}
	if lost := t.lost(); lost != "" {
		fmt.Fprintln(os.Stderr, "abstat:", lost)
		os.Exit(1)
	}
}

// table holds every figure's values by build, in the order figures were
// first seen.
type table struct {
	builds  []string
	figures []string
	values  map[string]map[string][]float64 // figure → build → one value a round
}

func newTable() *table { return &table{values: map[string]map[string][]float64{}} }

// add records one round's value of a figure for a build.
func (t *table) add(build, figure string, v float64) {
	if !slices.Contains(t.builds, build) {
		t.builds = append(t.builds, build)
	}
	byBuild, ok := t.values[figure]
	if !ok {
		byBuild = map[string][]float64{}
		t.values[figure] = byBuild
		t.figures = append(t.figures, figure)
	}
	byBuild[build] = append(byBuild[build], v)
}

// readDir reads every BUILD-SUITE-ROUND.txt file of dir.
func readDir(dir string) (*table, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*-*-*.txt"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no BUILD-SUITE-ROUND.txt files in %s", dir)
	}
	slices.Sort(names)
	t := newTable()
	for _, build := range []string{"base", "head"} { // base first, then head, then the rest
		for _, name := range names {
			if strings.HasPrefix(filepath.Base(name), build+"-") {
				t.builds = append(t.builds, build)
				break
			}
		}
	}
	for _, name := range names {
		build, _, _ := strings.Cut(filepath.Base(name), "-")
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		err = t.read(build, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return t, nil
}

// read adds the figures of one bench script's output for build.
func (t *table) read(build string, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "scenario="):
			if err := t.readLoad(build, line); err != nil {
				return err
			}
		case strings.HasPrefix(line, "{"):
			if err := t.readHooks(build, line); err != nil {
				return err
			}
		case strings.Contains(line, "/ceiling="):
			name, pct, _ := strings.Cut(line, "/ceiling=")
			v, err := strconv.ParseFloat(strings.TrimSuffix(pct, "%"), 64)
			if err != nil {
				return fmt.Errorf("share of the ceiling in %q: %w", line, err)
			}
			t.add(build, name+" share of ceiling, %", v)
		}
	}
	return sc.Err()
}

// loadFigures are the figures of a load generator line that abstat
// reports, with their names in the table.
var loadFigures = []struct{ key, name string }{
	{"rps", "rps"},
	{"p50", "p50, ms"},
	{"p99", "p99, ms"},
	{"cpu_s", "taskd CPU, s"},
	{"cpu_us", "taskd CPU a request, µs"},
}

// readLoad reads a load generator line (bench/run.sh):
// scenario=get_tasks … rps=123.4 p50=1.2ms p99=3.4ms … cpu_s=5.6.
func (t *table) readLoad(build, line string) error {
	kv := map[string]string{}
	for field := range strings.FieldsSeq(line) {
		k, v, _ := strings.Cut(field, "=")
		kv[k] = v
	}
	scenario := kv["scenario"]
	if f, _ := strconv.Atoi(kv["failures"]); f > 0 {
		return fmt.Errorf("scenario %s had %d failed requests", scenario, f)
	}
	for _, fig := range loadFigures {
		s, ok := kv[fig.key]
		if !ok {
			continue // cpu_s is missing from the ceiling's line
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "ms"), 64)
		if err != nil {
			return fmt.Errorf("%s of %s: %w", fig.key, scenario, err)
		}
		t.add(build, scenario+" "+fig.name, v)
	}
	return nil
}

// hooksResult is the part of bench/hooks' JSON that abstat reports.
type hooksResult struct {
	Scenario   string  `json:"scenario"`
	Dead       int     `json:"dead_webhooks"`
	PerSecond  float64 `json:"events_per_second"`
	P50MS      float64 `json:"p50_ms"`
	P99MS      float64 `json:"p99_ms"`
	CPUSeconds float64 `json:"taskd_cpu_seconds"`
	PeakRSSMB  float64 `json:"taskd_peak_rss_mb"`
	Errors     int     `json:"errors"`
	Missing    int     `json:"missing"`
	Duplicates int     `json:"duplicates"`
}

// readHooks reads one scenario's JSON object (bench/hooks.sh with JSON=1).
func (t *table) readHooks(build, line string) error {
	var h hooksResult
	if err := json.Unmarshal([]byte(line), &h); err != nil {
		return fmt.Errorf("a webhook scenario's result: %w", err)
	}
	if h.Scenario == "" {
		return errors.New("a webhook scenario's result names no scenario")
	}
	name := h.Scenario
	if h.Dead > 0 {
		name = "dead"
	}
	t.add(build, name+" events/s", h.PerSecond)
	t.add(build, name+" p50, ms", h.P50MS)
	t.add(build, name+" p99, ms", h.P99MS)
	t.add(build, name+" taskd CPU, s", h.CPUSeconds)
	if h.PeakRSSMB > 0 {
		t.add(build, name+" peak RSS, MB", h.PeakRSSMB)
	}
	t.add(build, name+" lost or duplicated", float64(h.Missing+h.Duplicates+h.Errors))
	return nil
}

// lost says which builds lost or duplicated events, or errs, or "".
func (t *table) lost() string {
	var bad []string
	for _, fig := range t.figures {
		if !strings.HasSuffix(fig, " lost or duplicated") {
			continue
		}
		for _, b := range t.builds {
			for _, v := range t.values[fig][b] {
				if v > 0 {
					bad = append(bad, fmt.Sprintf("%s: %s %g in a round", b, fig, v))
				}
			}
		}
	}
	return strings.Join(bad, "; ")
}

// median is the middle value of vs (the mean of the two middle ones for
// an even count); vs is not changed.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// print writes the table: a figure a row, each build's median and its
// rounds, and the last build's median over the first's.
func (t *table) print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := []string{"figure"}
	for _, b := range t.builds {
		header = append(header, b+" median", b+" rounds")
	}
	if len(t.builds) >= 2 {
		header = append(header, t.builds[len(t.builds)-1]+"/"+t.builds[0])
	}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for _, fig := range t.figures {
		row := []string{fig}
		var medians []float64
		for _, b := range t.builds {
			vs := t.values[fig][b]
			m := median(vs)
			medians = append(medians, m)
			rounds := make([]string, len(vs))
			for i, v := range vs {
				rounds[i] = number(v)
			}
			row = append(row, number(m), strings.Join(rounds, " "))
		}
		if len(medians) >= 2 {
			row = append(row, ratio(medians[len(medians)-1], medians[0]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	return tw.Flush()
}

// number formats a figure with the precision it needs to be read.
func number(v float64) string {
	switch {
	case v >= 100 || v <= -100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10 || v <= -10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// ratio is a/b as 1.23×, or "–" when b is zero.
func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + "×"
}
