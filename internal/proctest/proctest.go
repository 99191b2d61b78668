// Package proctest lets tests wait for another process to end without
// polling or sleeping: the tests of V1 providers check that a provider's
// whole process group (grandchildren included) is gone. Only test code
// imports it.
package proctest

import (
	"errors"
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
