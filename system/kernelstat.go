package system

import (
	"fmt"

	"github.com/perfcounters/perfcounters/proctext"
)

// cpuTimes are one "cpu" line of /proc/stat, in USER_HZ ticks, in the
// file's field order (proc(5)). The kernel counts guest time twice: a
// tick spent running a guest's virtual CPU is added to user and guest
// (or, for a niced vCPU thread, to nice and guest_nice), so Guest and
// GuestNice are parts of User and Nice, not shares of their own
// (kernel/sched/cputime.c, account_guest_time).
type cpuTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal, Guest, GuestNice uint64
	// Bad is set when a number of the line is malformed: the times are
	// then not a reading, and the counters made from them are unavailable.
	Bad bool
}

// kernelStat is what the objects use from /proc/stat.
type kernelStat struct {
	Total        cpuTimes   // the aggregate "cpu" line
	CPUs         []cpuTimes // the "cpuN" lines in file order (the online CPUs)
	IDs          []int      // N of each cpuN line
	Intr         uint64     // first number of "intr": all interrupts since boot
	Ctxt         uint64     // context switches since boot
	BootTime     uint64     // btime, seconds since the Unix epoch
	Processes    uint64     // forks since boot
	ProcsRunning uint64
	ProcsBlocked uint64
	// Has says which of the single-number lines above were read; a line
	// that is missing or malformed leaves its value 0 and its bit clear.
	Has statLines
	// Bad lists the malformed numbers met (file, line, field).
	Bad badFields
}

// statLines is a set of the single-number lines of /proc/stat.
type statLines uint8

const (
	hasIntr statLines = 1 << iota
	hasCtxt
	hasBtime
	hasProcesses
	hasProcsRunning
	hasProcsBlocked
)

// parseKernelStat parses /proc/stat into dst, reusing dst's slices. Fields
// missing from older kernels (steal, iowait...) read as zero. A malformed
// number does not fail the parse: it is recorded in dst.Bad and its line
// is marked (cpuTimes.Bad, or a clear bit in dst.Has) so that no 0 is
// passed off as a reading. The error is for a file without the aggregate
// cpu line, which is no /proc/stat at all.
func parseKernelStat(b []byte, dst *kernelStat) error {
	dst.CPUs = dst.CPUs[:0]
	dst.IDs = dst.IDs[:0]
	dst.Has = 0
	dst.Bad.reset()
	sawTotal := false
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		key, rest := proctext.NextField(line)
		switch {
		case len(key) >= 3 && string(key[:3]) == "cpu":
			var t cpuTimes
			fs := [...]*uint64{&t.User, &t.Nice, &t.System, &t.Idle, &t.IOWait, &t.IRQ, &t.SoftIRQ, &t.Steal, &t.Guest, &t.GuestNice}
			for _, p := range fs {
				var f []byte
				f, rest = proctext.NextField(rest)
				if len(f) == 0 {
					break
				}
				v, ok := proctext.ParseUint(f)
				if !ok {
					dst.Bad.add(lineNo, key, f)
					t.Bad = true
					break
				}
				*p = v
			}
			if t.Bad {
				t = cpuTimes{Bad: true}
			}
			if len(key) == 3 {
				dst.Total, sawTotal = t, true
				continue
			}
			id, ok := proctext.ParseUint(key[3:])
			if !ok || id >= maxCPUs {
				dst.Bad.add(lineNo, []byte("cpu name"), key)
				continue
			}
			dst.CPUs = append(dst.CPUs, t)
			dst.IDs = append(dst.IDs, int(id))
		default:
			var p *uint64
			var bit statLines
			switch string(key) {
			case "intr":
				p, bit = &dst.Intr, hasIntr
			case "ctxt":
				p, bit = &dst.Ctxt, hasCtxt
			case "btime":
				p, bit = &dst.BootTime, hasBtime
			case "processes":
				p, bit = &dst.Processes, hasProcesses
			case "procs_running":
				p, bit = &dst.ProcsRunning, hasProcsRunning
			case "procs_blocked":
				p, bit = &dst.ProcsBlocked, hasProcsBlocked
			default:
				continue
			}
			f, _ := proctext.NextField(rest)
			if v, ok := proctext.ParseUint(f); ok {
				*p = v
				dst.Has |= bit
			} else {
				*p = 0
				dst.Bad.add(lineNo, key, f)
			}
		}
	}
	if !sawTotal {
		return fmt.Errorf("/proc/stat: no aggregate cpu line")
	}
	return nil
}

// parsePerCPUTable parses /proc/interrupts or /proc/softirqs: a header of
// "CPUn" column names, then one row per source whose leading numbers are
// per-column counts (rows such as "ERR:" carry fewer numbers). It sums each
// column into sums, indexed like ids (the CPU numbers wanted); columns of
// CPUs not in ids are ignored, and so are rows with fewer numbers than
// columns (ERR and MIS are system-wide counts, not per CPU). sums must have len(ids) entries.
func parsePerCPUTable(b []byte, ids []int, sums []uint64, colBuf []int) ([]int, error) {
	for i := range sums {
		sums[i] = 0
	}
	header, b := proctext.NextLine(b)
	// cols[j] = index into ids of header column j, or -1.
	cols := colBuf[:0]
	for rest := header; ; {
		var f []byte
		f, rest = proctext.NextField(rest)
		if len(f) == 0 {
			break
		}
		if len(f) < 4 || string(f[:3]) != "CPU" {
			return cols, fmt.Errorf("header: bad column %q", f)
		}
		n, ok := proctext.ParseUint(f[3:])
		if !ok {
			return cols, fmt.Errorf("header: bad column %q", f)
		}
		cols = append(cols, indexOf(ids, int(n)))
	}
	for len(b) > 0 {
		var line []byte
		line, b = proctext.NextLine(b)
		_, rest := proctext.NextField(line) // "24:" or "TIMER:"
		if !fullRow(rest, len(cols)) {
			continue // "ERR:" and "MIS:" hold one system-wide number
		}
		for j := range cols {
			var f []byte
			f, rest = proctext.NextField(rest)
			v, ok := proctext.ParseUint(f)
			if !ok {
				break // description text or a short row
			}
			if k := cols[j]; k >= 0 {
				sums[k] += v
			}
		}
	}
	return cols, nil
}

// fullRow reports whether row starts with n numbers.
func fullRow(row []byte, n int) bool {
	for range n {
		var f []byte
		f, row = proctext.NextField(row)
		if _, ok := proctext.ParseUint(f); !ok {
			return false
		}
	}
	return true
}

// indexOf returns the position of v in s, or -1. CPU ids come sorted from
// /proc/stat, so a binary search keeps hundreds of CPUs cheap.
func indexOf(s []int, v int) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s) && s[lo] == v {
		return lo
	}
	// Not sorted (should not happen): fall back to a scan.
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
