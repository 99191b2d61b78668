package collect

import (
	"errors"

	"golang.org/x/sys/unix"
)

// waitExit waits until process pid has exited without reaping it: its pid,
// and so its process group id, stay reserved until the exec.Cmd's Wait, so
// that the group can still be killed safely in between.
func waitExit(pid int) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
