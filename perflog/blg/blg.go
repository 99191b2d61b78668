// Package blg reads Windows' binary performance logs (.blg, as written by
// perfmon, logman, typeperf -f BIN and relog on Windows Vista and later) on
// any system, without Windows' PDH. An open Log is a recorded pdh.Source.
//
// The layout was established clean-room from real files and the CSV that
// Windows wrote from the same samples; FORMAT.md beside this file says what
// is known, how each fact was established and what is inferred.
//
// Two sample encodings exist. A wildcard collection (Object(*)\*) stores
// each object as the raw PERF_DATA_BLOCK Windows' Perflib returned; those
// blocks are handed over unchanged. Explicitly listed counters are stored as
// PDH_RAW_COUNTER values; for those, Sample builds one PERF_DATA_BLOCK per
// machine and object whose counters, bases and clocks reproduce the raw
// values, so that pdh computes the values Windows computed.
//
// Writer writes such logs, in the form Windows 10 writes them (FORMAT.md
// section 8): a log of listed counters (typeperf -f BLG, relog -f blg)
// that Windows' Performance Monitor, relog and the tools built on them
// open.
package blg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/utf16le"
)

var le = binary.LittleEndian

// Sizes and limits of the container.
const (
	bufferHeaderSize = 72 // WMI_BUFFER_HEADER
	eventHeaderSize  = 48 // EVENT_TRACE_HEADER
	payloadPrefix    = 24 // log GUID, fragment number, fragment count
	minBufferSize    = 4 << 10
	maxBufferSize    = 1 << 24
	// maxRecord bounds one reassembled PDH record (all its fragments).
	maxRecord = 64 << 20
	// maxFragments bounds the fragments of one record.
	maxFragments = maxRecord / 64
	// maxTitleBytes bounds the title table (event 0x24) kept in memory.
	maxTitleBytes = 16 << 20
)

// PDH event types (the Class.Type byte of the event header).
const (
	EventCounterList = 0x20 // the logged counters
	EventSample      = 0x22 // one sample
	EventIndex       = 0x23 // summary written when the log is closed
	EventTitles      = 0x24 // the machine's counter-name table
)

// providerGUID is PDH's event provider {933f3bb3-943e-490d-9ced-3cbb14c14479}
// as it is stored (GUID byte order).
var providerGUID = [16]byte{0xb3, 0x3b, 0x3f, 0x93, 0x3e, 0x94, 0x0d, 0x49, 0x9c, 0xed, 0x3c, 0xbb, 0x14, 0xc1, 0x44, 0x79}

// FormatError is a structural error in a log: where (byte offset in the
// file), in which structure and field, and the value found.
type FormatError struct {
	File      string
	Offset    int64
	Structure string
	Field     string
	Value     int64
	Msg       string
}

func (e *FormatError) Error() string {
	where := e.File
	if where == "" {
		where = "binary log"
	}
	s := fmt.Sprintf("%s: offset %d: %s", where, e.Offset, e.Structure)
	if e.Field != "" {
		s += fmt.Sprintf(" field %s = %d", e.Field, e.Value)
	}
	return s + ": " + e.Msg
}

// ErrNotBLG is wrapped by the error returned for a file that is not a
// binary log at all.
var ErrNotBLG = errors.New("not a Windows binary performance log (.blg)")

// Header is what the log-file header (the first buffer) says about the log.
type Header struct {
	BufferSize      uint32
	OSVersion       [4]byte // major, minor, sub, subminor of the writer's trace version
	OSBuild         uint32  // ProviderVersion: the writer's Windows build
	Processors      uint32
	PointerSize     uint32
	Start, End      time.Time // StartTime, EndTime (UTC)
	PerfFreq        int64
	BuffersWritten  uint32
	LogInstanceName string // LoggerName: the log's GUID in text
	OriginalPath    string // LogFileName: the path the log was written to
	Zone            Zone

	// The fields below are kept so that a log written back from this
	// header (Writer) has the same bytes; readers do not need them.

	TraceVersion    uint16 // the system trace header's Version (0 Windows 10, 2 Vista, 1 Server 2003)
	TimerResolution uint32 // in 100 ns (156250 in every file)
	MaximumFileSize uint32 // in MB; 0 none
	LogFileMode     uint32 // EVENT_TRACE_* logging mode flags
	StartBuffers    uint32
	EventsLost      uint32
	CPUSpeed        uint32 // CpuSpeedInMHz
	BootTime        int64  // FILETIME (UTC)
	ReservedFlags   uint32 // the clock type (2: system time)
	BuffersLost     uint32
	// RecordSize is the header record's size as stored (the Server 2003
	// writer counts 2 bytes after the strings); a writer writes at least
	// what the strings need.
	RecordSize uint16
	// EventHeaderType is the HeaderType byte of the PDH events (0x14
	// Windows 10, 0x0A Vista and Server 2003); 0 when the log has none.
	EventHeaderType byte
}

// span is one fragment of a record: its data's file offset and length.
type span struct {
	off int64
	n   int
}

// record is one PDH record, possibly in fragments.
type record struct {
	typ   byte
	at    int64  // file offset of the first fragment's event header
	stamp int64  // the first fragment's event timestamp (FILETIME, local time)
	first span   // the first fragment's data
	more  []span // the other fragments' (few records have any)
	size  int
}

// fragments is the number of fragments of the record.
func (r *record) fragments() int { return 1 + len(r.more) }

// scanned is the result of walking the container.
type scanned struct {
	hdr     Header
	records []record
	notes   []string
}

// maxPresized bounds the records scan makes room for before it finds
// them.
const maxPresized = 1 << 18

// scan walks every buffer of the file and collects the PDH records.
func scan(r *reader, name string) (*scanned, error) {
	size := r.size
	ferr := func(off int64, st, field string, v int64, msg string, args ...any) error {
		return &FormatError{File: name, Offset: off, Structure: st, Field: field, Value: v, Msg: fmt.Sprintf(msg, args...)}
	}
	if size < bufferHeaderSize+32 {
		return nil, fmt.Errorf("%s: %d bytes, too short for a binary log: %w", orLog(name), size, ErrNotBLG)
	}
	h, err := r.bytes(0, bufferHeaderSize+32)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the first buffer header: %w", orLog(name), err)
	}
	bs := le.Uint32(h[0:])
	if bs < minBufferSize || bs > maxBufferSize || bs%8 != 0 || h[bufferHeaderSize+3] != 0xC0 {
		return nil, fmt.Errorf("%s: %w: the file starts with %q, not an event-trace buffer header (buffer size 4 KiB..16 MiB, a trace header marked 0xC0 at offset %d)",
			orLog(name), ErrNotBLG, printable(h[:16]), bufferHeaderSize)
	}
	if int64(bs) > size {
		return nil, fmt.Errorf("%s: %d bytes, shorter than the buffer size %d its header declares (truncated, or %w)", orLog(name), size, bs, ErrNotBLG)
	}
	s := &scanned{}
	buf, err := readBuffer(r, 0, int(bs))
	if err != nil {
		return nil, err
	}
	if err := s.parseLogHeader(buf, name); err != nil {
		return nil, err
	}
	var pending *record // &pend while a record is being joined
	var pend record
	var pendNext, pendCount uint32
	for b := int64(bs); b < size; b += int64(bs) {
		if size-b < int64(bs) {
			s.notes = append(s.notes, fmt.Sprintf("the file ends %d bytes into a buffer at offset %d (truncated); that part is ignored", size-b, b))
			break
		}
		if buf, err = readBuffer(r, b, int(bs)); err != nil {
			return nil, err
		}
		if got := le.Uint32(buf[0:]); got != bs {
			return nil, ferr(b, "buffer header", "BufferSize", int64(got), "differs from the first buffer's size %d", bs)
		}
		used := int(le.Uint32(buf[0x30:]))
		if used < bufferHeaderSize || used > int(bs) {
			// Unused buffers of a preallocated file hold no offset.
			if used == 0 {
				continue
			}
			return nil, ferr(b+0x30, "buffer header", "Offset", int64(used), "outside the buffer (%d..%d)", bufferHeaderSize, bs)
		}
		for off := bufferHeaderSize; off+eventHeaderSize <= used; {
			at := b + int64(off)
			es := int(le.Uint16(buf[off:]))
			if es == 0xFFFF || (es == 0 && buf[off+3] != 0xC0) {
				break // padding up to the end of the buffer
			}
			if buf[off+3] != 0xC0 {
				return nil, ferr(at+3, "event header", "MarkerFlags", int64(buf[off+3]), "not 0xC0: no event starts here")
			}
			if es < eventHeaderSize || off+es > used {
				return nil, ferr(at, "event header", "Size", int64(es), "outside %d..%d", eventHeaderSize, used-off)
			}
			ev := buf[off : off+es]
			off += (es + 7) &^ 7
			if [16]byte(ev[24:40]) != providerGUID {
				continue // not a PDH event
			}
			if es < eventHeaderSize+payloadPrefix {
				return nil, ferr(at, "event header", "Size", int64(es), "too short for the PDH payload prefix (%d)", eventHeaderSize+payloadPrefix)
			}
			typ := ev[4]
			if s.hdr.EventHeaderType == 0 {
				s.hdr.EventHeaderType = ev[2]
			}
			fr, fc := le.Uint32(ev[64:]), le.Uint32(ev[68:])
			if fc == 0 || fc > maxFragments {
				return nil, ferr(at+68, "PDH event", "fragment count", int64(fc), "outside 1..%d", maxFragments)
			}
			if fr == 0 || fr > fc {
				return nil, ferr(at+64, "PDH event", "fragment", int64(fr), "outside 1..%d (the fragment count)", fc)
			}
			data := span{off: at + eventHeaderSize + payloadPrefix, n: es - eventHeaderSize - payloadPrefix}
			if fr == 1 {
				if pending != nil {
					s.notes = append(s.notes, fmt.Sprintf("record at offset %d: fragments %d..%d missing; record skipped", pending.at, pendNext, pendCount))
				}
				pend = record{typ: typ, at: at, stamp: int64(le.Uint64(ev[16:])), first: data}
				pending = &pend
				pendNext, pendCount = 1, fc
			} else if pending == nil || fr != pendNext || fc != pendCount || typ != pending.typ {
				return nil, ferr(at+64, "PDH event", "fragment", int64(fr), "fragment %d of %d (event type 0x%02x) does not continue the record before it", fr, fc, typ)
			}
			if fr > 1 {
				pending.more = append(pending.more, data)
			}
			pending.size += data.n
			if pending.size > maxRecord {
				return nil, ferr(pending.at, "PDH record", "size", int64(pending.size), "larger than %d bytes", maxRecord)
			}
			pendNext++
			if fr == fc {
				s.records = append(s.records, *pending)
				pending = nil
			}
		}
		if b == int64(bs) && len(s.records) > 0 {
			// The first buffer of events tells how many records the
			// others hold, about: room for them at once, not copied as
			// the slice doubles (up to maxPresized; a size that is not
			// the file's, given to Read, costs no more than that).
			s.records = slices.Grow(s.records, int(min(int64(len(s.records))*((size-b)/int64(bs)), maxPresized)))
		}
	}
	if pending != nil {
		s.notes = append(s.notes, fmt.Sprintf("the last record (offset %d) is incomplete: fragments %d..%d missing; it is ignored", pending.at, pendNext, pendCount))
	}
	return s, nil
}

func orLog(name string) string {
	if name == "" {
		return "binary log"
	}
	return name
}

// printable shows the first bytes of a file in a message.
func printable(b []byte) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		out = append(out, c)
	}
	return string(out)
}

// Offsets in the log-file header record of buffer 0 (a system trace header
// of 32 bytes followed by TRACE_LOGFILE_HEADER, as documented in evntrace.h).
const (
	lhRecord      = bufferHeaderSize
	lhTrace       = lhRecord + 32
	lhBufferSize  = lhTrace + 0
	lhVersion     = lhTrace + 4
	lhProviderVer = lhTrace + 8
	lhProcessors  = lhTrace + 12
	lhEndTime     = lhTrace + 16
	lhTimerRes    = lhTrace + 24
	lhMaxFileSize = lhTrace + 28
	lhLogFileMode = lhTrace + 32
	lhBuffersWrit = lhTrace + 36
	lhStartBuf    = lhTrace + 40
	lhPointerSize = lhTrace + 44
	lhEventsLost  = lhTrace + 48
	lhCPUSpeed    = lhTrace + 52
	tziSize       = 172
)

func (s *scanned) parseLogHeader(buf []byte, name string) error {
	ferr := func(off int, st, field string, v int64, msg string, args ...any) error {
		return &FormatError{File: name, Offset: int64(off), Structure: st, Field: field, Value: v, Msg: fmt.Sprintf(msg, args...)}
	}
	used := int(le.Uint32(buf[0x30:]))
	if used < lhTrace || used > len(buf) {
		return ferr(0x30, "buffer header", "Offset", int64(used), "the first buffer holds no log-file header")
	}
	ht := buf[lhRecord+2]
	if ht != 1 && ht != 2 {
		return fmt.Errorf("%w: %w", ferr(lhRecord+2, "log-file header", "HeaderType", int64(ht), "not a system trace header (1 or 2)"), ErrNotBLG)
	}
	recSize := int(le.Uint16(buf[lhRecord+4:]))
	if recSize < 32+56+2*4+tziSize+32 || lhRecord+recSize > used {
		return ferr(lhRecord+4, "log-file header", "Size", int64(recSize), "outside %d..%d", 32+56+8+tziSize+32, used-lhRecord)
	}
	rec := buf[:lhRecord+recSize]
	h := &s.hdr
	h.RecordSize = uint16(recSize)
	h.BufferSize = le.Uint32(rec[lhBufferSize:])
	copy(h.OSVersion[:], rec[lhVersion:lhVersion+4])
	h.OSBuild = le.Uint32(rec[lhProviderVer:])
	h.Processors = le.Uint32(rec[lhProcessors:])
	h.End = fileTimeUTC(int64(le.Uint64(rec[lhEndTime:])))
	h.BuffersWritten = le.Uint32(rec[lhBuffersWrit:])
	h.PointerSize = le.Uint32(rec[lhPointerSize:])
	h.TraceVersion = le.Uint16(rec[lhRecord:])
	h.TimerResolution = le.Uint32(rec[lhTimerRes:])
	h.MaximumFileSize = le.Uint32(rec[lhMaxFileSize:])
	h.LogFileMode = le.Uint32(rec[lhLogFileMode:])
	h.StartBuffers = le.Uint32(rec[lhStartBuf:])
	h.EventsLost = le.Uint32(rec[lhEventsLost:])
	h.CPUSpeed = le.Uint32(rec[lhCPUSpeed:])
	if h.PointerSize != 4 && h.PointerSize != 8 {
		return ferr(lhPointerSize, "log-file header", "PointerSize", int64(h.PointerSize), "not 4 or 8")
	}
	tz := lhTrace + 56 + 2*int(h.PointerSize) // after LoggerName and LogFileName, two pointers
	if tz+tziSize+40 > len(rec) {
		return ferr(lhRecord+4, "log-file header", "Size", int64(recSize), "too short for the time zone")
	}
	h.Zone = parseTZI(rec[tz : tz+tziSize])
	rest := lhTrace + (tz+tziSize-lhTrace+7)&^7 // BootTime is 8-aligned
	h.BootTime = int64(le.Uint64(rec[rest:]))
	h.PerfFreq = int64(le.Uint64(rec[rest+8:]))
	h.Start = fileTimeUTC(int64(le.Uint64(rec[rest+16:])))
	h.ReservedFlags = le.Uint32(rec[rest+24:])
	h.BuffersLost = le.Uint32(rec[rest+28:])
	strs := rec[rest+32:]
	n := utf16le.IndexNUL(strs)
	if n >= 0 {
		h.LogInstanceName = utf16le.DecodeLenient(strs[:n])
		strs = strs[n+2:]
		if m := utf16le.IndexNUL(strs); m >= 0 {
			h.OriginalPath = utf16le.DecodeLenient(strs[:m])
		}
	}
	return nil
}

// fileTimeUTC converts a FILETIME to UTC; 0 and negative values give the
// zero time.
func fileTimeUTC(ft int64) time.Time {
	if ft <= 0 {
		return time.Time{}
	}
	return perfdata.FileTimeToTime(ft)
}

// Read reads a log from r (size bytes). name is used in messages.
func Read(r io.ReaderAt, size int64, name string) (*Log, error) {
	return read(&reader{r: r, size: size, window: windowSize}, name)
}
