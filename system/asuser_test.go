package system

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/perfcounters/perfcounters/internal/asuser"
)

// TestOtherUsersIOUnavailable reads the live /proc as an unprivileged user
// (asuser.Alice): the IO counters of a root process and of another user's
// (asuser.Bob's) process cannot be read (/proc/PID/io is denied), so they
// must be reported unavailable for exactly those instances, without a
// reason (Linux tools are silent about them), and never as a valid 0; Alice's own process keeps its values.
func TestOtherUsersIOUnavailable(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		if step == "collect" {
			collectAsOtherUser(t)
		}
		return
	}
	if _, err := os.Stat("/proc/self/io"); err != nil {
		t.Skip("no /proc/PID/io on this kernel")
	}
	r := asuser.New(t)
	bob := exec.Command("sleep", "60")
	bob.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: asuser.Bob.UID, Gid: asuser.Bob.GID, Groups: []uint32{}}}
	if err := bob.Start(); err != nil {
		t.Fatalf("starting a process as %s: %v", asuser.Bob.Name, err)
	}
	defer func() { bob.Process.Kill(); bob.Wait() }()
	out, err := r.Run(asuser.Alice, "TestOtherUsersIOUnavailable", "collect",
		"ROOT_PID="+strconv.Itoa(os.Getpid()), "BOB_PID="+strconv.Itoa(bob.Process.Pid))
	if err != nil {
		t.Fatal(asuser.Failed(out, err))
	}
}

// collectAsOtherUser is the step run as Alice.
func collectAsOtherUser(t *testing.T) {
	_, c, p := liveProcessObjects(t)
	o := p.Process()
	w := newRecWriter(t, o.Set)
	if err := o.Collect(c, &w.p, w); err != nil {
		t.Fatal(err)
	}
	insts := w.done()
	ioCounters := []int{procIOReadOps, procIOWriteOps, procIODataOps, procIOReadBytes, procIOWriteBytes, procIODataBytes}
	position := func(pid int) int {
		for i, in := range insts[1 : len(insts)-1] {
			if in.vals[procIDProcess] == uint64(pid) {
				return i + 1
			}
		}
		t.Fatalf("no Process instance for pid %d", pid)
		return -1
	}
	ioUnavailable := func(pos int) bool {
		for _, m := range w.p.missing {
			if m.inst == pos && slices.Equal(m.counters, ioCounters) {
				return true
			}
		}
		return false
	}
	for _, env := range []string{"ROOT_PID", "BOB_PID"} {
		pid, err := strconv.Atoi(os.Getenv(env))
		if err != nil {
			t.Fatalf("%s: %v", env, err)
		}
		if pos := position(pid); !ioUnavailable(pos) {
			t.Errorf("%s %d (instance %d): IO counters not reported unavailable (marks %v)", env, pid, pos, w.p.missing)
		}
	}
	if pos := position(os.Getpid()); ioUnavailable(pos) {
		t.Errorf("own process %d: IO counters reported unavailable, but its /proc/PID/io is readable", os.Getpid())
	}
	// Linux tools say nothing of other users' files: the cells are blank
	// and no reason is given.
	for _, r := range w.p.reasons {
		if strings.HasPrefix(r, "IO counters") {
			t.Errorf("a reason speaks of other users' io files: %q", r)
		}
	}
}
