package system

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/perfcounters/perfcounters/proctext"
)

// The parsers of the control-group files (Documentation/admin-guide/
// cgroup-v2.rst and cgroup-v1/*.rst of the kernel) and of the pressure
// files (Documentation/accounting/psi.rst). Each is a pure function of the
// bytes of one file; a malformed value is an error naming the line and
// the field, never a 0 passed off as a reading.

// psiLine is one line of a pressure file: the averages in hundredths of a
// percent (avg10=1.25 is 125) and the total stall time in microseconds.
type psiLine struct {
	Avg10, Avg60, Avg300 uint64
	Total                uint64
}

// psi is a pressure file: the "some" line and, where the kernel writes
// one, the "full" line (cpu has one from Linux 5.13; irq has only "full").
type psi struct {
	Some, Full       psiLine
	HasSome, HasFull bool
}

// parsePressure parses a pressure file:
//
//	some avg10=0.00 avg60=0.00 avg300=0.00 total=0
//	full avg10=0.00 avg60=0.00 avg300=0.00 total=0
//
// Unknown lines and unknown keys are skipped (the format is documented as
// extensible); a known key with a malformed value is an error.
func parsePressure(b []byte) (psi, error) {
	var p psi
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		kind, rest := proctext.NextField(line)
		var dst *psiLine
		switch string(kind) {
		case "some":
			dst, p.HasSome = &p.Some, true
		case "full":
			dst, p.HasFull = &p.Full, true
		default:
			continue
		}
		err := keyValues(rest, func(k, v []byte) error {
			var x uint64
			var good bool
			switch string(k) {
			case "avg10", "avg60", "avg300":
				x, good = parseCentis(v)
			case "total":
				x, good = proctext.ParseUint(v)
			default:
				return nil
			}
			if !good {
				return fmt.Errorf("%s: %.40q is not a number", k, v)
			}
			switch string(k) {
			case "avg10":
				dst.Avg10 = x
			case "avg60":
				dst.Avg60 = x
			case "avg300":
				dst.Avg300 = x
			case "total":
				dst.Total = x
			}
			return nil
		})
		if err != nil {
			return psi{}, fmt.Errorf("line %d: %w", lineNo, err)
		}
	}
	if !p.HasSome && !p.HasFull {
		return psi{}, fmt.Errorf("no \"some\" or \"full\" line")
	}
	return p, nil
}

// parseCentis parses a percentage with up to two decimals ("12.34") into
// hundredths (1234). The kernel prints the averages as %lu.%02lu.
func parseCentis(b []byte) (uint64, bool) { return parseCentisUpTo(b, 100_000) }

// parseCentisUpTo parses a number with up to two decimals into hundredths,
// refusing an integer part above max.
func parseCentisUpTo(b []byte, max uint64) (uint64, bool) {
	ip, fp, dot := bytes.Cut(b, []byte("."))
	i, ok := proctext.ParseUint(ip)
	if !ok || i > max {
		return 0, false
	}
	var f uint64
	if dot {
		if len(fp) == 0 || len(fp) > 2 {
			return 0, false
		}
		if f, ok = proctext.ParseUint(fp); !ok {
			return 0, false
		}
		if len(fp) == 1 {
			f *= 10
		}
	}
	return i*100 + f, true
}

// ioTotals are the I/O counts of a group summed over its devices.
type ioTotals struct {
	ReadBytes, WriteBytes, ReadOps, WriteOps uint64
}

// parseIOStat parses cgroup v2 io.stat, one line per device:
//
//	8:0 rbytes=90112 wbytes=0 rios=3 wios=0 dbytes=0 dios=0
//
// and sums the devices. Keys it does not use are skipped.
func parseIOStat(b []byte) (ioTotals, error) {
	var t ioTotals
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		dev, rest := proctext.NextField(line)
		if len(dev) == 0 {
			continue
		}
		if !isDevNumber(dev) {
			return ioTotals{}, fmt.Errorf("line %d: %.40q is not a device number MAJ:MIN", lineNo, dev)
		}
		err := keyValues(rest, func(k, v []byte) error {
			var dst *uint64
			switch string(k) {
			case "rbytes":
				dst = &t.ReadBytes
			case "wbytes":
				dst = &t.WriteBytes
			case "rios":
				dst = &t.ReadOps
			case "wios":
				dst = &t.WriteOps
			default:
				return nil
			}
			x, ok := proctext.ParseUint(v)
			if !ok {
				return fmt.Errorf("%s: %.40q is not a number", k, v)
			}
			*dst += x
			return nil
		})
		if err != nil {
			return ioTotals{}, fmt.Errorf("line %d: %w", lineNo, err)
		}
	}
	return t, nil
}

// keyValues calls f with the key and the value of each key=value field of
// fields (separated by blanks), in order: a field without '=' is an
// error, and so is one f returns.
func keyValues(fields []byte, f func(k, v []byte) error) error {
	for len(fields) > 0 {
		var kv []byte
		kv, fields = proctext.NextField(fields)
		if len(kv) == 0 {
			break
		}
		k, v, ok := bytes.Cut(kv, []byte("="))
		if !ok {
			return fmt.Errorf("%.40q is not key=value", kv)
		}
		if err := f(k, v); err != nil {
			return err
		}
	}
	return nil
}

// isDevNumber reports whether b is "MAJ:MIN".
func isDevNumber(b []byte) bool {
	maj, min, ok := bytes.Cut(b, []byte(":"))
	if !ok {
		return false
	}
	_, ok1 := proctext.ParseUint(maj)
	_, ok2 := proctext.ParseUint(min)
	return ok1 && ok2
}

// parseBlkioStat parses a cgroup v1 blkio "rwstat" file
// (blkio.throttle.io_service_bytes[_recursive], ..._io_serviced[_recursive]):
//
//	8:0 Read 90112
//	8:0 Write 0
//	8:0 Sync 90112
//	8:0 Async 0
//	8:0 Discard 0
//	8:0 Total 90112
//	Total 90112
//
// and returns Read and Write summed over the devices (the last line, the
// kernel's own total, counts reads and writes together and is skipped).
func parseBlkioStat(b []byte) (read, write uint64, err error) {
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		dev, rest := proctext.NextField(line)
		if len(dev) == 0 || string(dev) == "Total" {
			continue
		}
		if !isDevNumber(dev) {
			return 0, 0, fmt.Errorf("line %d: %.40q is not a device number MAJ:MIN", lineNo, dev)
		}
		op, rest := proctext.NextField(rest)
		v, _ := proctext.NextField(rest)
		var dst *uint64
		switch string(op) {
		case "Read":
			dst = &read
		case "Write":
			dst = &write
		default:
			continue
		}
		x, ok := proctext.ParseUint(v)
		if !ok {
			return 0, 0, fmt.Errorf("line %d: %s: %.40q is not a number", lineNo, op, v)
		}
		*dst += x
	}
	return read, write, nil
}

// parseCPUMax parses cgroup v2 cpu.max ("max 100000" or "50000 100000"):
// the quota and the period in microseconds; limited is false for "max".
func parseCPUMax(b []byte) (quota, period uint64, limited bool, err error) {
	q, rest := proctext.NextField(b)
	p, _ := proctext.NextField(rest)
	period, ok := proctext.ParseUint(p)
	if !ok || period == 0 {
		return 0, 0, false, fmt.Errorf("line 1 field 2: %.40q is not a period in microseconds", p)
	}
	if string(q) == "max" {
		return 0, period, false, nil
	}
	quota, ok = proctext.ParseUint(q)
	if !ok {
		return 0, 0, false, fmt.Errorf("line 1 field 1: %.40q is not a quota in microseconds", q)
	}
	return quota, period, true, nil
}

// parseLimit parses a single-value limit file: a number of bytes, or
// "max" (v2) for none. v1 writes no limit as a huge number
// (PAGE_COUNTER_MAX pages in bytes), which the caller compares against
// v1Unlimited.
func parseLimit(b []byte) (v uint64, limited bool, err error) {
	f, _ := proctext.NextField(b)
	if string(f) == "max" {
		return 0, false, nil
	}
	v, ok := proctext.ParseUint(f)
	if !ok {
		return 0, false, fmt.Errorf("line 1: %.40q is not a number", f)
	}
	return v, true, nil
}

// v1Unlimited is the smallest value a cgroup v1 memory limit takes when
// none is set: PAGE_COUNTER_MAX (LONG_MAX / PAGE_SIZE pages) times the page
// size, 9223372036854771712 with 4 KiB pages; with 64 KiB pages it is
// 9223372036854710272. Anything at or above 2^62 is taken as no limit:
// no host has 4 EiB of memory.
const v1Unlimited = 1 << 62

// parseSingle parses a file of one unsigned number (memory.current,
// cpuacct.usage, pids.current).
func parseSingle(b []byte) (uint64, error) {
	f, _ := proctext.NextField(b)
	v, ok := proctext.ParseUint(f)
	if !ok {
		return 0, fmt.Errorf("line 1: %.40q is not a number", f)
	}
	return v, nil
}

// countLines counts the non-empty lines of b (cgroup.procs, cgroup.threads,
// tasks: one id per line).
func countLines(b []byte) uint64 {
	var n uint64
	for len(b) > 0 {
		var line []byte
		line, b = proctext.NextLine(b)
		if len(proctext.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}

// cgroupMount is one mounted control-group hierarchy.
type cgroupMount struct {
	dir         string // mount point, absolute
	v2          bool   // cgroup2 (unified)
	controllers []string
}

// parseCgroupMounts picks the control-group hierarchies out of
// /proc/self/mounts: cgroup2 file systems, and cgroup (v1) ones with the
// controllers of their options (cpu, cpuacct, memory, blkio, pids; others
// are kept but unused). The first mount of each hierarchy (v2, or a v1
// controller) wins; later mounts of the same one are bind mounts.
func parseCgroupMounts(b []byte) []cgroupMount {
	var out []cgroupMount
	seenV2 := false
	seen := map[string]bool{}
	for len(b) > 0 {
		var line []byte
		line, b = proctext.NextLine(b)
		_, rest := proctext.NextField(line)
		dir, rest := proctext.NextField(rest)
		fstype, rest := proctext.NextField(rest)
		opts, _ := proctext.NextField(rest)
		if len(dir) == 0 || len(dir) > 4096 {
			continue
		}
		switch string(fstype) {
		case "cgroup2":
			if seenV2 {
				continue
			}
			seenV2 = true
			out = append(out, cgroupMount{dir: unescapeMount(dir), v2: true})
		case "cgroup":
			var ctl []string
			for _, o := range strings.Split(string(opts), ",") {
				switch o {
				case "cpu", "cpuacct", "memory", "blkio", "pids":
					if !seen[o] {
						seen[o] = true
						ctl = append(ctl, o)
					}
				}
			}
			if len(ctl) > 0 {
				out = append(out, cgroupMount{dir: unescapeMount(dir), controllers: ctl})
			}
		}
	}
	return out
}

// containerPrefixes are the scope prefixes of the well-known runtimes'
// groups (systemd cgroup driver: docker-<id>.scope, libpod-<id>.scope,
// cri-containerd-<id>.scope, crio-<id>.scope).
var containerPrefixes = [...]string{"docker-", "libpod-", "cri-containerd-", "crio-"}

// shortenContainerIDs returns path with each 64-hex-digit container id of
// a well-known runtime cut to its first 12 digits (the short id docker ps,
// podman ps and crictl ps show): the components "docker-<id>.scope",
// "libpod-<id>.scope", "cri-containerd-<id>.scope", "crio-<id>.scope"
// (systemd cgroup driver) and a bare "<id>" (cgroupfs driver:
// /docker/<id>, /kubepods/burstable/pod.../<id>). Other paths come back
// unchanged (and unallocated).
func shortenContainerIDs(path string) string {
	if len(path) < 64 {
		return path
	}
	var sb []byte
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' {
			continue
		}
		comp := path[start:i]
		if short, ok := shortComponent(comp); ok {
			if sb == nil {
				sb = append(make([]byte, 0, len(path)), path[:start]...)
			}
			sb = append(sb, short...)
		} else if sb != nil {
			sb = append(sb, comp...)
		}
		if sb != nil && i < len(path) {
			sb = append(sb, '/')
		}
		start = i + 1
	}
	if sb == nil {
		return path
	}
	return string(sb)
}

// shortComponent shortens one path component holding a container id.
func shortComponent(c string) (string, bool) {
	if len(c) == 64 && isHex(c) {
		return c[:12], true
	}
	for _, p := range containerPrefixes {
		if rest, ok := strings.CutPrefix(c, p); ok {
			id, suffix, _ := strings.Cut(rest, ".")
			if len(id) == 64 && isHex(id) {
				if suffix != "" {
					return p + id[:12] + "." + suffix, true
				}
				return p + id[:12], true
			}
		}
	}
	return "", false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
