package system

// The Windows meaning of what procscan reads: times, priorities and
// thread states on the scales of the Process and Thread objects.

// ticksTo100ns converts USER_HZ ticks to 100-nanosecond units.
func ticksTo100ns(ticks uint64, hz int64) uint64 {
	if hz <= 0 {
		hz = DefaultUserHZ
	}
	if 10_000_000%hz == 0 {
		return ticks * uint64(10_000_000/hz)
	}
	return ticks * 10_000_000 / uint64(hz)
}

// startFileTime is the FILETIME at which a task with this starttime
// (USER_HZ ticks after boot) began, given the boot time as FILETIME.
func startFileTime(boot, starttime uint64, hz int64) uint64 {
	return boot + ticksTo100ns(starttime, hz)
}

// basePriority maps a Linux scheduling priority to the Windows base
// priority scale (0..31, normal = 8) by priority class: real-time policies
// (stat "priority" below zero) are REALTIME (24); otherwise nice decides:
// nice >= 10 IDLE (4), 1..9 BELOW_NORMAL (6), 0 NORMAL (8), -1..-9
// ABOVE_NORMAL (10), <= -10 HIGH (13).
func basePriority(priority, nice int64) uint32 {
	switch {
	case priority < 0:
		return 24
	case nice >= 10:
		return 4
	case nice > 0:
		return 6
	case nice == 0:
		return 8
	case nice > -10:
		return 10
	}
	return 13
}

// Windows thread states (KTHREAD_STATE values shown by Thread State).
const (
	threadInitialized = 0
	threadReady       = 1
	threadRunning     = 2
	threadStandby     = 3
	threadTerminated  = 4
	threadWait        = 5
	threadTransition  = 6
	threadUnknown     = 7
)

// threadState maps a Linux task state letter to a Windows thread state.
// Linux R means running or runnable and is reported as Running; every kind
// of sleep or stop (S, D, I, T, t, P) is Wait, as a suspended or blocked
// Windows thread is; zombies and dead tasks (Z, X, x) are Terminated;
// W (waking, kernels 2.6.33-3.13) is Ready.
func threadState(c byte) uint32 {
	switch c {
	case 'R':
		return threadRunning
	case 'S', 'D', 'I', 'T', 't', 'P', 'K':
		return threadWait
	case 'Z', 'X', 'x':
		return threadTerminated
	case 'W':
		return threadReady
	}
	return threadUnknown
}
