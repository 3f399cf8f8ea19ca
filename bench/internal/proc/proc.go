// Package proc reads what the benchmarks report of taskd's processes from
// Linux's /proc: their CPU time and resident memory.
package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ticksPerSecond is Linux's USER_HZ, the unit of /proc's CPU times: 100 on
// every architecture Go runs Linux on.
const ticksPerSecond = 100

// CPUSeconds is the processes' user and system CPU time together; a
// process whose figures cannot be read counts 0.
func CPUSeconds(pids ...int) float64 {
	total := 0.0
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		total += statCPU(b)
	}
	return total
}

// statCPU reads utime and stime (fields 14 and 15) of a /proc/PID/stat
// text, in seconds. The command name (field 2) is in parentheses and may
// hold spaces, so the fields are counted after its closing one.
func statCPU(stat []byte) float64 {
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / ticksPerSecond
}

// RSS is the largest resident memory of the processes in bytes; 0 when
// none can be read.
func RSS(pids ...int) int64 {
	var most int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				most = max(most, kb<<10)
			}
		}
	}
	return most
}
