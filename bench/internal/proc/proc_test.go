package proc

import (
	"os"
	"testing"
)

func TestStatCPU(t *testing.T) {
	// A command name with spaces and a parenthesis, utime 250 and stime 50.
	stat := "4242 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0 100 0 0"
	if got := statCPU([]byte(stat)); got != 3.0 {
		t.Errorf("statCPU = %v, want 3.0 (300 ticks)", got)
	}
	if got := statCPU([]byte("1 (x) S 1 2")); got != 0 {
		t.Errorf("statCPU of a short line = %v, want 0", got)
	}
}

func TestThisProcess(t *testing.T) {
	pid := os.Getpid()
	sum := 0
	for i := range 50_000_000 { // some CPU time to see
		sum += i
	}
	if sum == 0 {
		t.Fatal("no work done")
	}
	if cpu := CPUSeconds(pid); cpu <= 0 {
		t.Errorf("CPUSeconds of this process = %v, want more than 0", cpu)
	}
	if rss := RSS(pid); rss < 1<<20 {
		t.Errorf("RSS of this process = %d bytes, want at least a MiB", rss)
	}
	if cpu, rss := CPUSeconds(-1), RSS(-1); cpu != 0 || rss != 0 {
		t.Errorf("a process that does not exist: %v s, %d bytes; want 0, 0", cpu, rss)
	}
}
