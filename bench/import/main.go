// Command import measures "taskd import" (issue 36) from a taskd on the
// same machine: for each fraction of the size asked (--fractions), it
// fills a source account of that size through the store (not measured),
// serves it in this process on loopback with every request counted, and
// runs the real "taskd import" as a child process into a fresh
// destination (SQLite, or --postgres), then prints the import's wall
// time, the requests it made to the source, the child's peak resident
// set (ru_maxrss) and the objects it read per second. The baseline, in
// the same run, is the peak resident set of "taskd version" (and the
// fraction 0: an import of an account with its members and nothing else).
//
//	go build -o /tmp/taskd ./cmd/taskd
//	flock /tmp/bench.lock go run ./bench/import --taskd /tmp/taskd \
//	    --tasks 10000 --comments 20000 --files 500 --file-bytes 262144 --fractions 0,0.1,1
//
// With --base, each source is imported with that binary first, then with
// --taskd, and the ratios of their times and peaks are printed: the
// comparison the noise of a shared machine allows.
//
// With --hostile, after the fractions (an ordinary run, the baseline of
// the same sitting), it imports from a hostile source (issue 46, item 6):
// a loopback server whose get_tasks, get_all_tasks and get_comments
// answers are each --hostile-mib MiB of valid JSON, once per
// --concurrency, and prints the peak resident set of each import, or the
// error it stopped with:
//
//	flock /tmp/bench.lock go run ./bench/import --taskd /tmp/taskd \
//	    --fractions 0.1 --hostile --concurrency 1,8
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd/importer"
)

// config is what the flags ask for.
type config struct {
	taskd     string    // the binary; built from the module when empty
	size      size      // the full size
	fractions []float64 // of the full size, one import each
	postgres  string    // a server URL for the destinations; SQLite when empty
	gctrace   bool      // run the imports with GODEBUG=gctrace=1 and report their largest live heap
	again     bool      // run each import a second time, when nothing changed
	base      string    // a binary to measure first on the same sources, for comparison
	// hostile, when set, imports from a hostile source too (hostile.go),
	// once per concurrency, with --max-answer maxAnswer when positive.
	hostile     *hostileSize
	concurrency []int
	maxAnswer   int
}

func main() {
	var c config
	flag.StringVar(&c.taskd, "taskd", "", "the taskd binary to measure (default: go build ./cmd/taskd into a temporary directory)")
	flag.IntVar(&c.size.tasks, "tasks", 10000, "tasks and subtasks of the full account")
	flag.IntVar(&c.size.comments, "comments", 20000, "comments of the full account, spread over its tasks")
	flag.IntVar(&c.size.files, "files", 500, "files of the full account, attached to tasks and comments in turn")
	flag.Int64Var(&c.size.fileBytes, "file-bytes", 256<<10, "bytes of each file")
	flag.IntVar(&c.size.perProject, "per-project", 200, "tasks per project")
	flag.IntVar(&c.size.members, "members", 5, "members besides the owner, who author the tasks and comments in turn")
	fractions := flag.String("fractions", "0,0.1,1", "the sizes imported, as fractions of the full one, comma-separated")
	flag.BoolVar(&c.gctrace, "gctrace", false, "run the imports with GODEBUG=gctrace=1 and print the largest live heap a collection left")
	flag.StringVar(&c.base, "base", "", "a taskd binary to measure too, before --taskd, on the same source and in a destination of its own (a baseline)")
	flag.BoolVar(&c.again, "again", false, "run each import a second time into the same account (nothing changed in the source) and measure it too")
	pg := flag.Bool("postgres", false, "import into fresh PostgreSQL databases on the server of $TASKD_TEST_POSTGRES (dropped after)")
	hostile := flag.Bool("hostile", false, "after the fractions, import from a hostile source whose get_tasks, get_all_tasks and get_comments answers are --hostile-mib MiB each, once per --concurrency")
	var hs hostileSize
	hostileMiB := flag.Int64("hostile-mib", 60, "MiB of each large answer of the hostile source")
	flag.IntVar(&hs.tasks, "hostile-tasks", 16, "tasks of the hostile source's project, each with its large get_comments answer")
	commentKiB := flag.Int64("hostile-comment-kib", 1024, "KiB of text of each comment of the hostile source")
	concurrency := flag.String("concurrency", "1,8", "with --hostile: the values of taskd import --concurrency, comma-separated, one import each")
	flag.IntVar(&c.maxAnswer, "max-answer", 0, "with --hostile: pass --max-answer MiB to taskd import (0: its default)")
	flag.Parse()
	if *hostile {
		hs.answerBytes, hs.commentBytes = *hostileMiB<<20, *commentKiB<<10
		c.hostile = &hs
		var err error
		if c.concurrency, err = parseInts(*concurrency); err != nil || len(c.concurrency) == 0 || hs.answerBytes <= 0 || hs.commentBytes <= 0 || hs.tasks < 1 {
			fmt.Fprintf(os.Stderr, "import: --concurrency, --hostile-mib, --hostile-tasks and --hostile-comment-kib must be positive (%v)\n", err)
			os.Exit(2)
		}
	}
	for f := range strings.SplitSeq(*fractions, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 0 {
			fmt.Fprintf(os.Stderr, "import: --fractions: %q is not a fraction\n", f)
			os.Exit(2)
		}
		c.fractions = append(c.fractions, v)
	}
	if *pg {
		if c.postgres = os.Getenv("TASKD_TEST_POSTGRES"); c.postgres == "" {
			fmt.Fprintln(os.Stderr, "import: --postgres needs TASKD_TEST_POSTGRES")
			os.Exit(2)
		}
	}
	if c.size.perProject < 4 || c.size.tasks < 0 || c.size.comments < 0 || c.size.files < 0 || c.size.fileBytes < 0 {
		fmt.Fprintln(os.Stderr, "import: sizes must not be negative, and --per-project at least 4")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "import:", err)
		os.Exit(1)
	}
}

// result is one import measured.
type result struct {
	fraction float64
	size     size
	fill     time.Duration
	m        measured
	sum      importer.Summary
	requests string
	bin      string // the taskd measured
	// second is the run again, with --again.
	second *result
}

// run measures the baseline and one import per fraction, printing a line
// each to out.
func run(ctx context.Context, c config, out io.Writer) error {
	tmp, err := os.MkdirTemp("", "taskd-import-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := c.taskd
	if bin == "" {
		bin = filepath.Join(tmp, "taskd")
		if err := build(ctx, bin); err != nil {
			return err
		}
	}
	base, err := measure(ctx, bin, nil, "version")
	if err != nil {
		return err
	}
	dbName := "SQLite"
	if c.postgres != "" {
		dbName = "PostgreSQL"
	}
	fmt.Fprintf(out, "destination %s; baseline: taskd version peak RSS %.1f MiB\n", dbName, mib(base.peakRSS))
	bins := []string{bin}
	if c.base != "" {
		bins = []string{c.base, bin}
	}
	var ordinary int64 // the peak of the largest ordinary import, for the hostile runs
	for i, f := range c.fractions {
		rs, err := one(ctx, c, bins, f, fmt.Sprintf("taskd_import_bench_%d_%d", os.Getpid(), i))
		if err != nil {
			return fmt.Errorf("fraction %g: %w", f, err)
		}
		for _, r := range rs {
			r.print(out, base.peakRSS, len(bins) > 1)
			ordinary = r.m.peakRSS
		}
		if len(rs) == 2 {
			fmt.Fprintf(out, "  %s/%s: time %.2f×, peak RSS %.2f×\n", filepath.Base(rs[1].bin), filepath.Base(rs[0].bin),
				rs[1].m.wall.Seconds()/rs[0].m.wall.Seconds(), float64(rs[1].m.peakRSS)/float64(rs[0].m.peakRSS))
		}
	}
	if c.hostile != nil {
		return hostileRuns(ctx, c, bins, base.peakRSS, ordinary, out)
	}
	return nil
}

// hostileRuns imports the hostile source with each binary, once per
// concurrency, each into a fresh destination, and prints each run's peak
// resident set against taskd version's and the ordinary import's (when
// one ran), or the error the import stopped with.
func hostileRuns(ctx context.Context, c config, bins []string, baseRSS, ordinary int64, out io.Writer) error {
	h, err := newHostile(*c.hostile)
	if err != nil {
		return err
	}
	defer h.close()
	fmt.Fprintf(out, "hostile source: %d tasks, get_tasks and each get_comments %.0f MiB (comments of %d KiB)\n",
		c.hostile.tasks, mib(c.hostile.answerBytes), c.hostile.commentBytes>>10)
	for i, n := range c.concurrency {
		for j, bin := range bins {
			dst, err := newDestination(ctx, c.postgres, fmt.Sprintf("taskd_import_bench_%d_h%d_%d", os.Getpid(), i, j))
			if err != nil {
				return err
			}
			args := []string{"--concurrency", strconv.Itoa(n)}
			if c.maxAnswer > 0 {
				args = append(args, "--max-answer", strconv.Itoa(c.maxAnswer))
			}
			h.counts.reset()
			m, sum, err := runImport(ctx, bin, h.accountURL, h.key, dst, c.gctrace, args...)
			dst.drop()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			what := fmt.Sprintf("tasks=%d comments=%d", r(sum, "tasks"), r(sum, "comments"))
			if err != nil {
				what = "stopped: " + lastLine(err.Error())
			}
			vs := ""
			if ordinary > 0 {
				vs = fmt.Sprintf(", %.2f× the ordinary import", float64(m.peakRSS)/float64(ordinary))
			}
			live := ""
			if m.liveHeap > 0 {
				live = fmt.Sprintf(", largest live heap %d MiB", m.liveHeap>>20)
			}
			fmt.Fprintf(out, "  --concurrency %d with %s: %.2fs, %s\n    requests %s\n    peak RSS %.1f MiB (%.2f× taskd version%s)%s\n",
				n, filepath.Base(bin), m.wall.Seconds(), what, h.counts.String(), mib(m.peakRSS), float64(m.peakRSS)/float64(baseRSS), vs, live)
		}
	}
	return nil
}

// r is what an import created of a family.
func r(sum importer.Summary, family string) int {
	for _, c := range sum.Families {
		if c.Family == family {
			return c.Created
		}
	}
	return 0
}

// lastLine is the last non-empty line of s: the error a command printed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// one fills a source of the fraction f of the full size and imports it
// with each binary in turn, each into a fresh destination.
func one(ctx context.Context, c config, bins []string, f float64, dbName string) ([]result, error) {
	sz := c.size.scaled(f)
	start := time.Now()
	src, err := newSource(ctx, sz)
	if err != nil {
		return nil, err
	}
	defer src.close()
	fill := time.Since(start)
	var out []result
	for i, bin := range bins {
		r := result{fraction: f, size: sz, fill: fill, bin: bin}
		if err := r.measure(ctx, c, src, fmt.Sprintf("%s_%d", dbName, i)); err != nil {
			return out, fmt.Errorf("%s: %w", bin, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// measure imports src with r.bin into a fresh destination, and again with
// --again.
func (r *result) measure(ctx context.Context, c config, src *source, dbName string) error {
	dst, err := newDestination(ctx, c.postgres, dbName)
	if err != nil {
		return err
	}
	defer dst.drop()
	src.counts.reset()
	r.m, r.sum, err = runImport(ctx, r.bin, src.accountURL, src.key, dst, c.gctrace)
	if err != nil {
		return err
	}
	r.requests = src.counts.String()
	if n := r.created("tasks"); n != r.size.tasks {
		return fmt.Errorf("%d tasks created of %d: %+v", n, r.size.tasks, r.sum)
	}
	if n := r.created("comments"); n != r.size.comments {
		return fmt.Errorf("%d comments created of %d: %+v", n, r.size.comments, r.sum)
	}
	// A taskd whose import has no files family yet reads none.
	if n := r.created("files"); n >= 0 && n != r.size.files {
		return fmt.Errorf("%d files created of %d: %+v", n, r.size.files, r.sum)
	}
	if !c.again {
		return nil
	}
	src.counts.reset()
	again := result{fraction: r.fraction, size: r.size, bin: r.bin}
	if again.m, again.sum, err = runImport(ctx, r.bin, src.accountURL, src.key, dst, c.gctrace); err != nil {
		return fmt.Errorf("again: %w", err)
	}
	again.requests = src.counts.String()
	for _, fc := range again.sum.Families {
		if fc.Created+fc.Updated > 0 {
			return fmt.Errorf("again: %s: %d created, %d updated of an unchanged source", fc.Family, fc.Created, fc.Updated)
		}
	}
	r.second = &again
	return nil
}

// created is what the import made of a family; -1 when it has no such
// family.
func (r result) created(family string) int {
	for _, c := range r.sum.Families {
		if c.Family == family {
			return c.Created
		}
	}
	return -1
}

func (r result) print(out io.Writer, baseRSS int64, named bool) {
	by := ""
	if named {
		by = " with " + r.bin
	}
	fmt.Fprintf(out, "fraction %g: tasks %d comments %d files %d (%.1f MiB), filled in %.1fs%s\n",
		r.fraction, r.size.tasks, r.size.comments, r.size.files, mib(int64(r.size.files)*r.size.fileBytes), r.fill.Seconds(), by)
	r.printRun(out, baseRSS, "import")
	if r.second != nil {
		r.second.printRun(out, baseRSS, "again")
	}
}

// printRun prints one run of the import: its time, what it did, its
// requests and its memory.
func (r result) printRun(out io.Writer, baseRSS int64, name string) {
	read := 0
	var fams []string
	for _, c := range r.sum.Families {
		read += c.Read
		fams = append(fams, fmt.Sprintf("%s=%d", c.Family, c.Created))
	}
	files := "files not imported (no files family)"
	if r.created("files") >= 0 {
		files = "files imported"
	}
	fmt.Fprintf(out, "  %s %.2fs, %d objects read (%.0f/s), created %s; %s; %d skipped\n",
		name, r.m.wall.Seconds(), read, float64(read)/r.m.wall.Seconds(), strings.Join(fams, " "), files, len(r.sum.Skipped))
	fmt.Fprintf(out, "  requests %s\n", r.requests)
	live := ""
	if r.m.liveHeap > 0 {
		live = fmt.Sprintf(", largest live heap %d MiB", r.m.liveHeap>>20)
	}
	fmt.Fprintf(out, "  peak RSS %.1f MiB (%.2f× taskd version)%s\n", mib(r.m.peakRSS), float64(r.m.peakRSS)/float64(baseRSS), live)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
