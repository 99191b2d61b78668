// Package proctest is what tests need of other processes: waiting for one
// to end without polling or sleeping (the tests of V1 providers check that
// a provider's whole process group, grandchildren included, is gone), and
// finding the programs of Debian's packages a test compares with (Tool).
// Only test code imports it.
package proctest

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Exited reports whether process pid has exited within limit (a zombie
// counts as exited: it runs no more code and holds no pipe). It waits on a
// pidfd, not by polling.
func Exited(t testing.TB, pid int, limit time.Duration) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true
	}
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(limit.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatalf("poll pidfd of %d: %v", pid, err)
		}
		return n > 0
	}
}

// Tool returns the path of program name, which Debian's package pkg
// installs: a test that runs it (promtool, prometheus, sar, free) is
// skipped where it is missing, except under CI=true, where .ci/run
// installs it and its absence fails the test.
func Tool(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (Debian package %s); CI needs it", name, pkg)
		}
		t.Skipf("%s not installed (Debian package %s)", name, pkg)
	}
	return p
}
