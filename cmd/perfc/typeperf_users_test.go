package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/asuser"
)

// TestTypeperfSilentAboutOtherUsers is issue 33's "no warning about other
// users' processes as an unprivileged user": Alice reads every process's
// IO, memory and handle counters (the files of root's processes are
// denied to her) and typeperf prints its rows with no warning, the way
// pidstat says nothing of the processes it may not read.
func TestTypeperfSilentAboutOtherUsers(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		cmd := exec.Command(os.Getenv("PERFC_BIN"), "typeperf", `\Process(*)\IO Read Bytes/sec`, `\Process(*)\Handle Count`,
			`\Process(*)\Working Set`, "-si", "1", "-sc", "2")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("typeperf: %v\n%s", err, stderr.String())
		}
		if stderr.Len() != 0 {
			t.Errorf("typeperf as %s warned:\n%s", step, stderr.String())
		}
		if n := strings.Count(stdout.String(), "\n"); n < 3 {
			t.Errorf("want a header and two rows, got:\n%s", stdout.String())
		}
		return
	}
	if _, err := os.Stat("/proc/self/io"); err != nil {
		t.Skip("no /proc/PID/io on this kernel")
	}
	r, _, bin := usersWithPerfc(t)
	if out, err := r.Run(asuser.Alice, "TestTypeperfSilentAboutOtherUsers", "alice", "PERFC_BIN="+bin); err != nil {
		t.Fatalf("alice: %s", asuser.Failed(out, err))
	}
}
