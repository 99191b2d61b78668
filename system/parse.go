package system

import (
	"bytes"

	"github.com/perfcounters/perfcounters/proctext"
)

// The parsers in this package work on the bytes of one /proc or /sys file,
// walk them without copying, and write numbers into caller-owned, reused
// structures: nothing is allocated per value.

// parseCPUList parses a kernel CPU list such as "0-3,8,10-11" (the format of
// /sys/devices/system/cpu/online and node*/cpulist), appending to dst. It
// refuses ranges wider than maxCPUs so a corrupt file cannot size an
// allocation.
func parseCPUList(b []byte, dst []int) ([]int, bool) {
	b = proctext.TrimSpace(b)
	if len(b) == 0 {
		return dst, true
	}
	for len(b) > 0 {
		var part []byte
		if i := bytes.IndexByte(b, ','); i >= 0 {
			part, b = b[:i], b[i+1:]
		} else {
			part, b = b, nil
		}
		lo, hi := part, part
		if i := bytes.IndexByte(part, '-'); i >= 0 {
			lo, hi = part[:i], part[i+1:]
		}
		l, ok1 := proctext.ParseUint(lo)
		h, ok2 := proctext.ParseUint(hi)
		if !ok1 || !ok2 || h < l || h >= maxCPUs {
			return dst, false
		}
		if uint64(len(dst))+h-l >= maxCPUs {
			return dst, false // more CPUs than any kernel has: a corrupt list
		}
		for c := l; c <= h; c++ {
			dst = append(dst, int(c))
		}
	}
	return dst, true
}

// maxCPUs bounds CPU numbers accepted from /proc and /sys (the kernel's
// NR_CPUS limit is 8192 on the largest configurations).
const maxCPUs = 1 << 16

// userHZTo100ns converts USER_HZ ticks to 100 ns units exactly, without
// overflowing for any tick count that fits the result.
func userHZTo100ns(t uint64, hz int64) uint64 {
	h := uint64(hz)
	if 10_000_000%h == 0 {
		return t * (10_000_000 / h)
	}
	return t/h*10_000_000 + t%h*10_000_000/h
}

// parseKeyValues parses "Key: value [kB]" (/proc/meminfo) or "key value"
// (/proc/vmstat, /proc/net/snmp6) lines. For each line whose key equals
// keys[k], dst[k] receives the value and found[k] is set. Keys not present
// leave dst untouched and found false; so does a value that is not a
// number, which is recorded in bad.
func parseKeyValues(b []byte, keys []string, dst []uint64, found []bool, bad *badFields) {
	for k := range found {
		found[k] = false
	}
	bad.reset()
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		key, rest := proctext.NextField(line)
		if n := len(key); n > 0 && key[n-1] == ':' {
			key = key[:n-1]
		}
		for k, want := range keys {
			if string(key) == want {
				f, _ := proctext.NextField(rest)
				if v, ok := proctext.ParseUint(f); ok {
					dst[k], found[k] = v, true
				} else {
					bad.add(lineNo, key, f)
				}
				break
			}
		}
	}
}

// badField is one malformed value a parser met: the line (1-based), the
// field's name as the file spells it (or its position), and the text found.
type badField struct {
	line  int
	field string
	text  string
}

// badFields collects the malformed values of one file. Parsers skip the
// value (it is not written, so no 0 is passed off as a reading) and record
// it here; the collect function reports them through its Collection and
// marks the counters they feed unavailable. It is reused between samples.
type badFields struct {
	list []badField
	n    int // all malformed values met, kept or not
}

// maxBadFields bounds the entries kept per file: a file that is garbage
// throughout costs one reason per kept entry, not one per line.
const maxBadFields = 8

func (b *badFields) reset() { b.list, b.n = b.list[:0], 0 }

// add records a malformed value; field is formatted only here, on the
// error path.
func (b *badFields) add(line int, field, text []byte) {
	b.n++
	if len(b.list) < maxBadFields {
		if len(text) > 40 {
			text = text[:40]
		}
		b.list = append(b.list, badField{line: line, field: string(field), text: string(text)})
	}
}

// report gives one partial-data reason per kept entry, naming the file,
// the line and the field, and one more for those not kept.
func (b *badFields) report(col Collection, file string) {
	for _, f := range b.list {
		partialf(col, "%s line %d: %s: %q is not a number", file, f.line, f.field, f.text)
	}
	if b.n > len(b.list) {
		partialf(col, "%s: %d further malformed values", file, b.n-len(b.list))
	}
}

// has reports whether a malformed value of the named field was kept.
func (b *badFields) has(field string) bool {
	for _, f := range b.list {
		if f.field == field {
			return true
		}
	}
	return false
}
