//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeRunsWithAPrivateUmask: started under umask 022, taskd serve
// runs with umask 077 (read from /proc), and the files it made in its data
// directory are its user's alone.
func TestServeRunsWithAPrivateUmask(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	cmd := exec.Command("sh", "-c", `umask 022; exec "$0" "$@"`, os.Args[0], "serve", "--dev", "--addr", "127.0.0.1:0",
		"--log-level", "error", "--data", data)
	cmd.Env = append(os.Environ(), "TASKD_TEST_AS_TASKD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if listenRE.MatchString(sc.Text()) {
				listening <- true
			}
		}
		close(listening)
	}()
	select {
	case ok := <-listening:
		if !ok {
			t.Fatal("taskd serve exited at start")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("taskd serve did not start")
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
	if err != nil {
		t.Skipf("no /proc status: %v", err)
	}
	var umask string
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			umask = strings.TrimSpace(v)
		}
	}
	if umask != "0077" {
		t.Fatalf("taskd serve runs with umask %q, want 0077", umask)
	}
	for _, name := range []string{"", "taskd.db", "taskd.db-wal", "master.key"} {
		st, err := os.Stat(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		if perm := st.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s has mode %04o", filepath.Join("data", name), perm)
		}
	}
}
