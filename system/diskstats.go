package system

import (
	"fmt"
	"math/bits"
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

// parseDiskStats parses /proc/diskstats, reusing dst.
func parseDiskStats(b []byte, dst []diskStat) ([]diskStat, error) {
	dst = dst[:0]
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = nextLine(b)
		if len(trimSpace(line)) == 0 {
			continue
		}
		var d diskStat
		var f []byte
		var ok bool
		f, line = nextField(line)
		if d.Major, ok = parseUint(f); !ok {
			return dst, fmt.Errorf("/proc/diskstats line %d: bad major %q", lineNo, f)
		}
		f, line = nextField(line)
		if d.Minor, ok = parseUint(f); !ok {
			return dst, fmt.Errorf("/proc/diskstats line %d: bad minor %q", lineNo, f)
		}
		d.Name, line = nextField(line)
		if len(d.Name) == 0 {
			return dst, fmt.Errorf("/proc/diskstats line %d: no device name", lineNo)
		}
		for i := range d.F {
			f, line = nextField(line)
			if d.F[i], ok = parseUint(f); !ok {
				return dst, fmt.Errorf("/proc/diskstats line %d: %s: field %d: bad number %q", lineNo, d.Name, i+4, f)
			}
		}
		dst = append(dst, d)
	}
	return dst, nil
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
