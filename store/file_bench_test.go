package store_test

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store/storetest"
)

// BenchmarkFileStream stores a 200 MB file and reads it back through the
// store, reporting the throughput each way and how much the process's
// peak resident memory (VmHWM) grew: a file streamed in chunks should
// leave it flat, whatever its size.
func BenchmarkFileStream(b *testing.B) {
	const size = 200 << 20
	for _, backend := range testdb.Backends() {
		b.Run(backend, func(b *testing.B) {
			db := testdb.New(b, backend).Open(b)
			ctx := context.Background()
			_, owner := storetest.NewAccount(b, db, "files")
			limits := taskd.FileLimits{MaxFileBytes: 1 << 30, MaxAccountBytes: 100 << 30}
			before := peakRSS(b)
			var writing, reading time.Duration
			b.SetBytes(size)
			for b.Loop() {
				start := time.Now()
				f, err := db.CreateFile(ctx, owner, "big.bin", "application/octet-stream", io.LimitReader(pattern{}, size), limits)
				if err != nil {
					b.Fatal(err)
				}
				writing += time.Since(start)
				start = time.Now()
				n, err := io.Copy(io.Discard, db.OpenFile(ctx, f))
				if err != nil || n != size {
					b.Fatalf("read %d bytes: %v", n, err)
				}
				reading += time.Since(start)
				if err := db.DeleteFile(ctx, owner, f.ID); err != nil {
					b.Fatal(err)
				}
			}
			mb := float64(size) / (1 << 20) * float64(b.N)
			b.ReportMetric(mb/writing.Seconds(), "write-MB/s")
			b.ReportMetric(mb/reading.Seconds(), "read-MB/s")
			b.ReportMetric(float64(peakRSS(b)-before)/(1<<20), "peak-RSS-growth-MB")
		})
	}
}

// pattern reads bytes that do not compress, forever.
type pattern struct{}

func (pattern) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i*7 + i>>8)
	}
	return len(p), nil
}

// peakRSS is the process's peak resident memory so far, in bytes.
func peakRSS(b *testing.B) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
