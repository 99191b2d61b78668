package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestTypeperfLinuxObjects: typeperf lists the Control Group and Pressure
// objects and samples a group's CPU share, with no code of its own for
// them (issue 31).
func TestTypeperfLinuxObjects(t *testing.T) {
	mounts, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	out, errs, code := runPerfc(t, "typeperf", "-q")
	if code != 0 {
		t.Fatalf("typeperf -q: exit %d: %s", code, errs)
	}
	for _, p := range []string{`\Control Group(*)\Current % Processor Time`, `\Control Group(*)\Memory Working Set Bytes`, `\Pressure(*)\% Some Stall Time`} {
		if !strings.Contains(out, p+"\n") {
			t.Errorf("typeperf -q does not list %s", p)
		}
	}
	if !strings.Contains(string(mounts), " /sys/fs/cgroup") || !strings.Contains(string(mounts), "cgroup") {
		t.Skip("no control-group hierarchy under /sys/fs/cgroup")
	}
	out, errs, code = runPerfc(t, "typeperf", `\Control Group(/)\Current % Processor Time`, "-sc", "2", "-si", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], `\Control Group(/)\Current % Processor Time`) {
		t.Fatalf("output:\n%s", out)
	}
	// The second sample has a rate: a percentage of the host, 0 to 100.
	cells := strings.Split(lines[2], ",")
	if len(cells) != 2 {
		t.Fatalf("row %q", lines[2])
	}
	v, err := strconv.ParseFloat(strings.Trim(cells[1], `"`), 64)
	if err != nil || v < 0 || v > 100 {
		t.Errorf("root group's share %q (%v), want 0..100", cells[1], err)
	}
}
