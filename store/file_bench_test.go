package store_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/memstat"
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
			before := memstat.Peak(b)
			var writing, reading time.Duration
			b.SetBytes(size)
			for b.Loop() {
				start := time.Now()
				f, err := db.CreateFile(ctx, owner, "big.bin", "application/octet-stream", io.LimitReader(memstat.Pattern{}, size), limits)
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
			b.ReportMetric(float64(memstat.Peak(b)-before)/(1<<20), "peak-RSS-growth-MB")
		})
	}
}
