package engine

import (
	"os"
	"time"
)

// unixToFileTimeSecs is the number of seconds from 1601-01-01 UTC, the
// origin of Windows FILETIME, to the Unix epoch.
const unixToFileTimeSecs = 11_644_473_600

// FileTime converts t to a Windows FILETIME: 100 ns units since 1601-01-01
// UTC, the unit of PerfTime100nSec.
func FileTime(t time.Time) int64 {
	// Whole seconds first: a time.Duration spans only ±292 years.
	return (t.Unix()+unixToFileTimeSecs)*10_000_000 + int64(t.Nanosecond())/100
}

// systemClock reads the wall clock and the host's monotonic clock.
type systemClock struct{}

// SystemClock returns the host's clock. Ticks are nanoseconds of
// CLOCK_MONOTONIC (PerfFreq = 1e9): immune to wall-clock steps and shared by
// every process on the host, so blocks taken by different perfc processes
// can be differenced, as QueryPerformanceCounter values can on Windows.
func SystemClock() Clock { return systemClock{} }

func (systemClock) Wall() time.Time { return time.Now() }
func (systemClock) Freq() int64     { return 1_000_000_000 }
func (systemClock) Ticks() int64    { return monotonicNanos() }

func hostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return h
}
