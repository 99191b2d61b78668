package system

import (
	"time"

	"golang.org/x/sys/unix"
)

// SinceBoot returns the time since the host booted, suspended time
// included: CLOCK_BOOTTIME, the clock whose value /proc/uptime prints
// (in 10 ms steps). A live host passes it to WithUptime, so that the boot
// time and the disk percentage bases need no file read and have
// nanosecond resolution.
func SinceBoot() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
