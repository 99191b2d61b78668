package system

import (
	"fmt"
	"math/bits"

	"github.com/perfcounters/perfcounters/proctext"
)

// diskStat is one line of /proc/diskstats. Name points into the file
// buffer and is valid only until the next read.
type diskStat struct {
	Major, Minor uint64
	Name         []byte
	// Reads, ReadsMerged, SectorsRead, ReadMs, Writes, WritesMerged,
	// SectorsWritten, WriteMs, InFlight, IOMs, WeightedMs (the first eleven
	// statistics, present on every kernel since 2.6).
	F [11]uint64
	// Bad is set when a statistic of the line is malformed or missing: F
	// is then zero and no reading.
	Bad bool
}

const (
	dsReads = iota
	dsReadsMerged
	dsSectorsRead
	dsReadMs
	dsWrites
	dsWritesMerged
	dsSectorsWritten
	dsWriteMs
	dsInFlight
	dsIOMs
	dsWeightedMs
)

// parseDiskStats parses /proc/diskstats, reusing dst. A line whose
// statistics are malformed keeps its device with Bad set and no values; a
// line without a device (bad major, minor or name) is skipped. Both are
// recorded in bad. The error is always nil (kept for the callers' shape).
func parseDiskStats(b []byte, dst []diskStat, bad *badFields) ([]diskStat, error) {
	dst = dst[:0]
	bad.reset()
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		if len(proctext.TrimSpace(line)) == 0 {
			continue
		}
		var d diskStat
		var f []byte
		var ok bool
		f, line = proctext.NextField(line)
		if d.Major, ok = proctext.ParseUint(f); !ok {
			bad.add(lineNo, []byte("major"), f)
			continue
		}
		f, line = proctext.NextField(line)
		if d.Minor, ok = proctext.ParseUint(f); !ok {
			bad.add(lineNo, []byte("minor"), f)
			continue
		}
		d.Name, line = proctext.NextField(line)
		if len(d.Name) == 0 {
			bad.add(lineNo, []byte("device name"), nil)
			continue
		}
		for i := range d.F {
			f, line = proctext.NextField(line)
			if d.F[i], ok = proctext.ParseUint(f); !ok {
				bad.add(lineNo, fmt.Appendf(nil, "%s field %d", d.Name, i+4), f)
				d = diskStat{Major: d.Major, Minor: d.Minor, Name: d.Name, Bad: true}
				break
			}
		}
		dst = append(dst, d)
	}
	return dst, nil
}

// unavailableDisk marks the disk activity counters (from first on) of the
// instance just started unavailable.
func unavailableDisk(col Collection, first int) {
	cs := make([]int, dkNumCounters)
	for i := range cs {
		cs[i] = first + i
	}
	col.Unavailable(cs...)
}

// mulDiv returns a*b/c without intermediate overflow (saturating when the
// result does not fit).
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi >= c {
		return ^uint64(0)
	}
	q, _ := bits.Div64(hi, lo, c)
	return q
}
