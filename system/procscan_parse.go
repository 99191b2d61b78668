package system

import (
	"errors"
	"fmt"
	"slices"
)

// This file holds the pure parsers of the per-process /proc files read by
// the Process, Process V2 and Thread objects. They work on the bytes of one
// read, never allocate, and never panic on malformed input; both the kept-
// descriptor path and the fs.FS path feed them.

// procStat is what /proc/PID/stat and /proc/PID/task/TID/stat give us.
type procStat struct {
	state      byte
	ppid       int64
	minflt     uint64
	majflt     uint64
	utime      uint64 // USER_HZ ticks
	stime      uint64
	priority   int64 // kernel "priority": nice+20, or -1-rt_priority for real-time tasks
	nice       int64
	numThreads int64
	starttime  uint64 // USER_HZ ticks after boot
	vsize      uint64 // bytes
	rss        int64  // pages
}

// errStatFormat reports a stat file that does not have the expected shape.
var errStatFormat = errors.New("malformed stat")

// parseStat parses a stat line and returns the comm bytes (a sub-slice of b).
// comm may itself contain ") ", so the comm ends at the last ')'.
func parseStat(b []byte, st *procStat) (comm []byte, err error) {
	open := -1
	for i, c := range b {
		if c == '(' {
			open = i
			break
		}
	}
	closeIdx := -1
	for i := len(b) - 1; i > open; i-- {
		if b[i] == ')' {
			closeIdx = i
			break
		}
	}
	if open < 0 || closeIdx < 0 {
		return nil, fmt.Errorf("%w: no (comm) in %d bytes", errStatFormat, len(b))
	}
	comm = b[open+1 : closeIdx]
	p := closeIdx + 1
	// Field 3 is the state letter.
	for p < len(b) && b[p] == ' ' {
		p++
	}
	if p >= len(b) {
		return nil, fmt.Errorf("%w: no state after comm at offset %d", errStatFormat, p)
	}
	*st = procStat{state: b[p]}
	p++
	// Fields 4.. are decimal numbers; field numbers are 1-based as in proc(5).
	for field := 4; field <= 24; field++ {
		v, neg, next, ok := parseDec(b, p)
		if !ok {
			if field <= 22 {
				return nil, fmt.Errorf("%w: field %d at offset %d is not a number", errStatFormat, field, p)
			}
			break
		}
		p = next
		u := v
		s := int64(v)
		if neg {
			s = -s
			u = 0
		}
		switch field {
		case 4:
			st.ppid = s
		case 10:
			st.minflt = u
		case 12:
			st.majflt = u
		case 14:
			st.utime = u
		case 15:
			st.stime = u
		case 18:
			st.priority = s
		case 19:
			st.nice = s
		case 20:
			st.numThreads = s
		case 22:
			st.starttime = u
		case 23:
			st.vsize = u
		case 24:
			st.rss = s
		}
	}
	return comm, nil
}

// parseDec skips spaces from p and parses an optionally negative decimal
// number. ok is false when no digit follows; values past 2^64 saturate.
func parseDec(b []byte, p int) (v uint64, neg bool, next int, ok bool) {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t') {
		p++
	}
	if p < len(b) && b[p] == '-' {
		neg = true
		p++
	}
	start := p
	for p < len(b) && b[p] >= '0' && b[p] <= '9' {
		d := uint64(b[p] - '0')
		if v > (^uint64(0)-d)/10 {
			v = ^uint64(0)
		} else {
			v = v*10 + d
		}
		p++
	}
	return v, neg, p, p > start
}

// procMem is what /proc/PID/status tells about memory, in bytes. Kernel
// threads have none of these lines and keep zeros.
type procMem struct {
	vmPeak, vmSize, vmHWM, vmRSS, rssAnon, vmData, vmStk, vmSwap uint64
}

// parseStatus picks the memory lines of /proc/PID/status ("VmPeak:\t  123 kB").
// ok is false when a wanted line's value is not a number.
func parseStatus(b []byte, m *procMem) (ok bool) {
	*m = procMem{}
	ok = true
	for p := 0; p < len(b); {
		end := p
		for end < len(b) && b[end] != '\n' {
			end++
		}
		line := b[p:end]
		p = end + 1
		colon := -1
		for i, c := range line {
			if c == ':' {
				colon = i
				break
			}
		}
		if colon < 2 || line[0] != 'V' && line[0] != 'R' {
			continue
		}
		var dst *uint64
		switch string(line[:colon]) {
		case "VmPeak":
			dst = &m.vmPeak
		case "VmSize":
			dst = &m.vmSize
		case "VmHWM":
			dst = &m.vmHWM
		case "VmRSS":
			dst = &m.vmRSS
		case "RssAnon":
			dst = &m.rssAnon
		case "VmData":
			dst = &m.vmData
		case "VmStk":
			dst = &m.vmStk
		case "VmSwap":
			dst = &m.vmSwap
		default:
			continue
		}
		if v, neg, _, isNum := parseDec(line, colon+1); isNum && !neg {
			*dst = v * 1024 // the kernel prints these in kB (KiB)
		} else {
			ok = false
		}
	}
	return ok
}

// procIO is /proc/PID/io.
type procIO struct {
	rchar, wchar, syscr, syscw uint64
}

// parseIO parses /proc/PID/io ("rchar: 123"). ok is false when a wanted
// line's value is not a number, or a wanted line is missing.
func parseIO(b []byte, io *procIO) (ok bool) {
	*io = procIO{}
	var seen uint8
	for p := 0; p < len(b); {
		end := p
		for end < len(b) && b[end] != '\n' {
			end++
		}
		line := b[p:end]
		p = end + 1
		colon := -1
		for i, c := range line {
			if c == ':' {
				colon = i
				break
			}
		}
		if colon < 0 {
			continue
		}
		var dst *uint64
		var bit uint8
		switch string(line[:colon]) {
		case "rchar":
			dst, bit = &io.rchar, 1
		case "wchar":
			dst, bit = &io.wchar, 2
		case "syscr":
			dst, bit = &io.syscr, 4
		case "syscw":
			dst, bit = &io.syscw, 8
		default:
			continue
		}
		if v, neg, _, isNum := parseDec(line, colon+1); isNum && !neg {
			*dst = v
			seen |= bit
		}
	}
	return seen == 15
}

// parseSchedstat returns the third field of /proc/PID/task/TID/schedstat:
// how many times the thread was switched onto a CPU.
func parseSchedstat(b []byte) (pcount uint64, ok bool) {
	p := 0
	for i := 0; i < 3; i++ {
		var v uint64
		v, _, p, ok = parseDec(b, p)
		if !ok {
			return 0, false
		}
		pcount = v
	}
	return pcount, true
}

// cpuIdle is what the Idle process needs from /proc/stat: per-CPU idle
// time (idle + iowait, USER_HZ ticks).
type cpuIdle struct {
	perCPU []uint64 // reused across samples
	total  uint64
}

// parseProcStatIdle parses /proc/stat into ci, reusing ci.perCPU.
func parseProcStatIdle(b []byte, ci *cpuIdle) error {
	ci.perCPU = ci.perCPU[:0]
	ci.total = 0
	for p := 0; p < len(b); {
		end := p
		for end < len(b) && b[end] != '\n' {
			end++
		}
		line := b[p:end]
		p = end + 1
		switch {
		case len(line) > 3 && line[0] == 'c' && line[1] == 'p' && line[2] == 'u' && line[3] >= '0' && line[3] <= '9':
			_, _, q, _ := parseDec(line, 3)
			var f [5]uint64 // user nice system idle iowait
			n := 0
			for ; n < 5; n++ {
				v, _, next, ok := parseDec(line, q)
				if !ok {
					break
				}
				f[n], q = v, next
			}
			if n < 4 {
				return fmt.Errorf("/proc/stat: %.20q: %d fields, want at least 4", line, n)
			}
			idle := f[3] + f[4]
			ci.perCPU = append(ci.perCPU, idle)
			ci.total += idle
		}
	}
	if len(ci.perCPU) == 0 {
		return errors.New("/proc/stat: no cpuN line")
	}
	return nil
}

// parsePID returns the decimal process or thread id that a /proc directory
// entry name spells, or false for anything else ("self", "net", "01").
func parsePID(name []byte) (int32, bool) {
	if len(name) == 0 || len(name) > 10 || name[0] == '0' {
		return 0, false
	}
	var v int64
	for _, c := range name {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if v > 1<<31-1 {
		return 0, false
	}
	return int32(v), true
}

// appendDirentPIDs appends the numeric names in a buffer of linux_dirent64
// records (getdents64 output) to dst.
func appendDirentPIDs(dst []int32, buf []byte) []int32 {
	// struct linux_dirent64 { u64 d_ino; s64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
	for p := 0; p+19 <= len(buf); {
		reclen := int(buf[p+16]) | int(buf[p+17])<<8
		if reclen < 19 || p+reclen > len(buf) {
			return dst
		}
		name := buf[p+19 : p+reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if pid, ok := parsePID(name); ok {
			dst = append(dst, pid)
		}
		p += reclen
	}
	return dst
}

// countDirentNumbers counts the all-digit names ("0", "17") in a buffer of
// linux_dirent64 records.
func countDirentNumbers(buf []byte) int {
	n := 0
	for p := 0; p+19 <= len(buf); {
		reclen := int(buf[p+16]) | int(buf[p+17])<<8
		if reclen < 19 || p+reclen > len(buf) {
			return n
		}
		name := buf[p+19 : p+reclen]
		digits := 0
		for _, c := range name {
			if c == 0 {
				break
			}
			if c < '0' || c > '9' {
				digits = -1
				break
			}
			digits++
		}
		if digits > 0 {
			n++
		}
		p += reclen
	}
	return n
}

// orderTIDs sorts thread ids ascending with the main thread (tid == pid)
// first, so that thread positions (the Thread instance names) do not depend
// on the directory order of the file system.
func orderTIDs(pid int32, tids []int32) {
	slices.Sort(tids)
	if i, ok := slices.BinarySearch(tids, pid); ok && i > 0 {
		copy(tids[1:i+1], tids[:i])
		tids[0] = pid
	}
}
