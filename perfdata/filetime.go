package perfdata

import "time"

// FileTimeUnixEpoch is 1970-01-01 00:00:00 UTC as a Windows FILETIME: the
// number of 100 ns intervals since 1601-01-01 UTC, the unit of
// PERF_DATA_BLOCK.PerfTime100nSec and of object timers at frequency 1e7.
const FileTimeUnixEpoch = 116_444_736_000_000_000

// FileTimeFreq is the frequency of a FILETIME: 10,000,000 ticks a second.
const FileTimeFreq = 10_000_000

// FileTime converts t to a FILETIME.
func FileTime(t time.Time) int64 {
	// Whole seconds first: a time.Duration spans only ±292 years.
	return t.Unix()*FileTimeFreq + int64(t.Nanosecond())/100 + FileTimeUnixEpoch
}

// FileTimeToTime converts a FILETIME to a UTC time.
func FileTimeToTime(ft int64) time.Time {
	d := ft - FileTimeUnixEpoch
	sec, rem := d/FileTimeFreq, d%FileTimeFreq
	if rem < 0 {
		sec, rem = sec-1, rem+FileTimeFreq
	}
	return time.Unix(sec, rem*100).UTC()
}
