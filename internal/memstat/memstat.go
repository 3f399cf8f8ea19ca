// Package memstat measures a process's memory for benchmarks: its peak
// resident set, and a source of bytes that costs no memory.
package memstat

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// PeakRSS is the process's peak resident memory so far (VmHWM), in bytes.
// It fails where /proc/self/status is not there.
func PeakRSS() (int64, error) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("memstat: no VmHWM in /proc/self/status")
}

// Pattern reads bytes that do not compress, forever, without holding any.
type Pattern struct{}

func (Pattern) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i*7 + i>>8)
	}
	return len(p), nil
}

// Peak is PeakRSS for a benchmark, which it skips where there is none.
func Peak(tb testing.TB) int64 {
	n, err := PeakRSS()
	if err != nil {
		tb.Skip(err)
	}
	return n
}
