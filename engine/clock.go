package engine

import (
	"os"
	"time"
)

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
