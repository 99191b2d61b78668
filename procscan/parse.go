package procscan

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/perfcounters/perfcounters/proctext"
)

// This file holds the pure parsers of the per-process /proc files read by
// the Process, Process V2 and Thread objects. They work on the bytes of one
// read with the line and field toolkit of parse.go, never allocate, and
// never panic on malformed input; both the kept-descriptor path and the
// fs.FS path feed them.

// Stat is what /proc/PID/stat and /proc/PID/task/TID/stat give (fields
// of proc(5), numbered from 1).
type Stat struct {
	State      byte   // 3: the task state letter (R, S, D, Z, ...)
	PPID       int64  // 4
	MinFlt     uint64 // 10: minor faults
	MajFlt     uint64 // 12: major faults
	UTime      uint64 // 14: user time, USER_HZ ticks
	STime      uint64 // 15: system time, USER_HZ ticks
	Priority   int64  // 18: nice+20, or -1-rt_priority for real-time tasks
	Nice       int64  // 19
	NumThreads int64  // 20
	StartTime  uint64 // 22: USER_HZ ticks after boot
	VSize      uint64 // 23: bytes
	RSS        int64  // 24: pages
}

// errStatFormat reports a stat file that does not have the expected shape.
var errStatFormat = errors.New("malformed stat")

// parseStat parses a stat line and returns the comm bytes (a sub-slice of b).
// comm may itself contain ") ", so the comm ends at the last ')'.
func parseStat(b []byte, st *Stat) (comm []byte, err error) {
	open := bytes.IndexByte(b, '(')
	closeIdx := bytes.LastIndexByte(b, ')')
	if open < 0 || closeIdx <= open {
		return nil, fmt.Errorf("%w: no (comm) in %d bytes", errStatFormat, len(b))
	}
	comm = b[open+1 : closeIdx]
	// Field 3 is the state letter.
	state, rest := proctext.NextField(b[closeIdx+1:])
	if len(state) == 0 {
		return nil, fmt.Errorf("%w: no state after comm", errStatFormat)
	}
	*st = Stat{State: state[0]}
	// Fields 4.. are decimal numbers; field numbers are 1-based as in proc(5).
	for field := 4; field <= 24; field++ {
		var f []byte
		f, rest = proctext.NextField(rest)
		if len(f) == 0 {
			if field <= 22 {
				return nil, fmt.Errorf("%w: no field %d", errStatFormat, field)
			}
			break
		}
		// Signed fields (tpgid, priority, nice) may be negative; the
		// unsigned ones never are.
		var u uint64
		var s int64
		var ok bool
		if f[0] == '-' {
			s, ok = proctext.ParseInt(f)
		} else {
			u, ok = proctext.ParseUint(f)
			s = int64(u)
		}
		if !ok {
			return nil, fmt.Errorf("%w: field %d %.24q is not a number", errStatFormat, field, f)
		}
		switch field {
		case 4:
			st.PPID = s
		case 10:
			st.MinFlt = u
		case 12:
			st.MajFlt = u
		case 14:
			st.UTime = u
		case 15:
			st.STime = u
		case 18:
			st.Priority = s
		case 19:
			st.Nice = s
		case 20:
			st.NumThreads = s
		case 22:
			st.StartTime = u
		case 23:
			st.VSize = u
		case 24:
			st.RSS = s
		}
	}
	return comm, nil
}

// Mem is what /proc/PID/status tells about memory, in bytes. Kernel
// threads have none of these lines and keep zeros.
type Mem struct {
	VMPeak  uint64 // VmPeak
	VMSize  uint64 // VmSize
	VMHWM   uint64 // VmHWM
	VMRSS   uint64 // VmRSS
	RSSAnon uint64 // RssAnon
	VMData  uint64 // VmData
	VMStk   uint64 // VmStk
	VMSwap  uint64 // VmSwap
}

// maxKiB is the largest KiB count whose byte count fits 64 bits.
const maxKiB = (1<<64 - 1) / 1024

// parseStatus picks the memory lines of /proc/PID/status ("VmPeak:\t  123 kB").
// ok is false when a wanted line's value is not a number.
func parseStatus(b []byte, m *Mem) (ok bool) {
	*m = Mem{}
	ok = true
	for len(b) > 0 {
		var line []byte
		line, b = proctext.NextLine(b)
		if len(line) < 3 || line[0] != 'V' && line[0] != 'R' {
			continue
		}
		key, rest := proctext.NextField(line)
		var dst *uint64
		switch string(key) {
		case "VmPeak:":
			dst = &m.VMPeak
		case "VmSize:":
			dst = &m.VMSize
		case "VmHWM:":
			dst = &m.VMHWM
		case "VmRSS:":
			dst = &m.VMRSS
		case "RssAnon:":
			dst = &m.RSSAnon
		case "VmData:":
			dst = &m.VMData
		case "VmStk:":
			dst = &m.VMStk
		case "VmSwap:":
			dst = &m.VMSwap
		default:
			continue
		}
		f, _ := proctext.NextField(rest)
		if v, isNum := proctext.ParseUint(f); isNum && v <= maxKiB {
			*dst = v * 1024 // the kernel prints these in kB (KiB)
		} else {
			ok = false
		}
	}
	return ok
}

// IO is what /proc/PID/io gives: bytes and calls of read and write
// system calls.
type IO struct {
	RChar, WChar, SyscR, SyscW uint64
}

// parseIO parses /proc/PID/io ("rchar: 123"). ok is false when a wanted
// line's value is not a number, or a wanted line is missing.
func parseIO(b []byte, io *IO) (ok bool) {
	*io = IO{}
	var seen uint8
	for len(b) > 0 {
		var line []byte
		line, b = proctext.NextLine(b)
		key, rest := proctext.NextField(line)
		var dst *uint64
		var bit uint8
		switch string(key) {
		case "rchar:":
			dst, bit = &io.RChar, 1
		case "wchar:":
			dst, bit = &io.WChar, 2
		case "syscr:":
			dst, bit = &io.SyscR, 4
		case "syscw:":
			dst, bit = &io.SyscW, 8
		default:
			continue
		}
		f, _ := proctext.NextField(rest)
		if v, isNum := proctext.ParseUint(f); isNum {
			*dst = v
			seen |= bit
		}
	}
	return seen == 15
}

// parseSchedstat returns the third field of /proc/PID/task/TID/schedstat:
// how many times the thread was switched onto a CPU.
func parseSchedstat(b []byte) (pcount uint64, ok bool) {
	var f []byte
	for range 3 {
		f, b = proctext.NextField(b)
		if pcount, ok = proctext.ParseUint(f); !ok {
			return 0, false
		}
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
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		key, rest := proctext.NextField(line)
		if len(key) < 4 || string(key[:3]) != "cpu" {
			continue
		}
		if _, ok := proctext.ParseUint(key[3:]); !ok {
			return fmt.Errorf("/proc/stat line %d: %.24q is not a cpu name", lineNo, key)
		}
		var f [5]uint64 // user nice system idle iowait
		n := 0
		for ; n < 5; n++ {
			var fld []byte
			fld, rest = proctext.NextField(rest)
			v, ok := proctext.ParseUint(fld)
			if !ok {
				if len(fld) > 0 {
					return fmt.Errorf("/proc/stat line %d: %s field %d: %.24q is not a number", lineNo, key, n+1, fld)
				}
				break
			}
			f[n] = v
		}
		if n < 4 {
			return fmt.Errorf("/proc/stat line %d: %s: %d fields, want at least 4", lineNo, key, n)
		}
		idle := f[3] + f[4]
		ci.perCPU = append(ci.perCPU, idle)
		ci.total += idle
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

// countDirentProcs counts, in a buffer of linux_dirent64 records, the
// process entries (names parsePID accepts) and the other directories
// ("." and ".." included).
func countDirentProcs(buf []byte) (procs, dirs int) {
	for p := 0; p+19 <= len(buf); {
		reclen := int(buf[p+16]) | int(buf[p+17])<<8
		if reclen < 19 || p+reclen > len(buf) {
			return procs, dirs
		}
		name := buf[p+19 : p+reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if _, ok := parsePID(name); ok {
			procs++
		} else if buf[p+18] == dtDir {
			dirs++
		}
		p += reclen
	}
	return procs, dirs
}

// dtDir is DT_DIR, a directory's d_type in linux_dirent64.
const dtDir = 4
