package blg

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
)

// Writer writes a Windows binary performance log, the form Windows 10's
// relog and typeperf -f BIN write (FORMAT.md, "Writing"): the log-file
// header in the first buffer, the counter list (event 0x20), then one
// sample record (event 0x22) per sample, in buffers of Header.BufferSize
// bytes. Close completes the header (EndTime, BuffersWritten).
//
// A Writer is not safe for concurrent use. A log whose writer did not
// Close it reads back up to the last buffer Flush wrote, with the header's
// end time unset.
type Writer struct {
	w      io.WriterAt
	closer io.Closer
	path   string
	hdr    Header
	loc    *time.Location
	guid   [16]byte
	buf    []byte // the buffer being filled
	index  int64  // its number in the file (0: the header buffer)
	used   int    // its bytes in use
	flushd int    // its bytes already written (0: none, not even its padding)
	list   []Counter
	listed bool
	rec    []byte // scratch: the record being encoded
	names  []byte // scratch: a raw list's names
	count  int    // samples written
	// size is the file's size as written; padLater: the buffer being
	// filled was extended, its padding not yet written (pad).
	size     int64
	padLater bool
	err      error // a failed write: the log is unusable
}

// Defaults of a written log's header, taken from the Windows 10 log of
// the corpus (CounterSamples.blg, FORMAT.md "Writing").
var (
	defaultVersion = [4]byte{10, 0, 1, 5}
)

const (
	defaultBuild        = 14393
	defaultTimerRes     = 156250
	defaultLogFileMode  = 0x30020801
	defaultEventHdrType = 0x14
	defaultReserved     = 2
	fragmentData        = 8000 // the most data bytes of one event (FORMAT.md §1)
	eventVersion        = 60
	padByte             = 0xFF
)

// Create creates the log at path (an existing file is replaced) with the
// header h (see NewWriter).
func Create(path string, h Header) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	if h.OriginalPath == "" {
		h.OriginalPath = path
	}
	w, err := NewWriter(f, h)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.closer, w.path = f, path
	return w, nil
}

// NewWriter starts a log on w with the header h. Zero fields take the
// values Windows 10 writes: BufferSize 65536, PointerSize 8, Version
// 10.0.1.5, build 14393, one processor, TimerResolution 156250, Start
// now, PerfFreq 10,000,000 (the 100-ns clock), a new LogInstanceName
// (the log's GUID); BuffersWritten and End are set by Close. Zone is the
// log's time zone: every time stamp in the log is local time in it
// (ZoneOf makes one from a time.Location).
func NewWriter(w io.WriterAt, h Header) (*Writer, error) {
	if h.BufferSize == 0 {
		h.BufferSize = 64 << 10
	}
	if h.BufferSize < minBufferSize || h.BufferSize > maxBufferSize || h.BufferSize%8 != 0 {
		return nil, fmt.Errorf("blg: buffer size %d: want a multiple of 8 in %d..%d", h.BufferSize, minBufferSize, maxBufferSize)
	}
	if h.PointerSize == 0 {
		h.PointerSize = 8
	}
	if h.PointerSize != 4 && h.PointerSize != 8 {
		return nil, fmt.Errorf("blg: pointer size %d: want 4 or 8", h.PointerSize)
	}
	if h.OSVersion == ([4]byte{}) {
		h.OSVersion = defaultVersion
		if h.OSBuild == 0 {
			h.OSBuild = defaultBuild
		}
		if h.LogFileMode == 0 {
			h.LogFileMode = defaultLogFileMode
		}
		if h.ReservedFlags == 0 {
			h.ReservedFlags = defaultReserved
		}
		if h.StartBuffers == 0 {
			h.StartBuffers = 1
		}
	}
	if h.Processors == 0 {
		h.Processors = 1
	}
	if h.TimerResolution == 0 {
		h.TimerResolution = defaultTimerRes
	}
	if h.PerfFreq == 0 {
		h.PerfFreq = 10_000_000
	}
	if h.Start.IsZero() {
		h.Start = time.Now()
	}
	if h.EventHeaderType == 0 {
		h.EventHeaderType = defaultEventHdrType
	}
	wr := &Writer{w: w, hdr: h, loc: h.Zone.Location()}
	if h.LogInstanceName == "" {
		if _, err := rand.Read(wr.guid[:]); err != nil {
			return nil, err
		}
		wr.guid[7] = wr.guid[7]&0x0f | 0x40 // version 4, as stored (Data3 little-endian)
		wr.guid[8] = wr.guid[8]&0x3f | 0x80
		wr.hdr.LogInstanceName = guidText(wr.guid)
	} else {
		g, err := parseGUID(h.LogInstanceName)
		if err != nil {
			return nil, fmt.Errorf("blg: LogInstanceName: %w", err)
		}
		wr.guid = g
	}
	if len(wr.headerRecord()) > int(h.BufferSize)-bufferHeaderSize {
		return nil, fmt.Errorf("blg: the log-file header (%d bytes) does not fit a buffer of %d", len(wr.headerRecord()), h.BufferSize)
	}
	if err := wr.writeHeader(); err != nil {
		return nil, err
	}
	wr.index, wr.size = 1, int64(h.BufferSize)
	return wr, nil
}

// Header is the header the log has (BuffersWritten and End as of the
// last Flush or Close).
func (w *Writer) Header() Header { return w.hdr }

// Path is the file Create made ("" for NewWriter).
func (w *Writer) Path() string { return w.path }

// guidText writes a GUID stored in GUID byte order as Windows spells it
// in the header's LoggerName (lower case, no braces).
func guidText(g [16]byte) string {
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x", le.Uint32(g[0:]), le.Uint16(g[4:]), le.Uint16(g[6:]), g[8:10], g[10:16])
}

// parseGUID reads a GUID's text (braces optional) into GUID byte order.
func parseGUID(s string) ([16]byte, error) {
	var g [16]byte
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return g, fmt.Errorf("%q is not a GUID", s)
	}
	hex := strings.ReplaceAll(s, "-", "")
	var raw [16]byte
	for i := range raw {
		v, ok := hexByte(hex[2*i], hex[2*i+1])
		if !ok {
			return g, fmt.Errorf("%q is not a GUID", s)
		}
		raw[i] = v
	}
	le.PutUint32(g[0:], uint32(raw[0])<<24|uint32(raw[1])<<16|uint32(raw[2])<<8|uint32(raw[3]))
	le.PutUint16(g[4:], uint16(raw[4])<<8|uint16(raw[5]))
	le.PutUint16(g[6:], uint16(raw[6])<<8|uint16(raw[7]))
	copy(g[8:], raw[8:])
	return g, nil
}

func hexByte(a, b byte) (byte, bool) {
	h := func(c byte) (byte, bool) {
		switch {
		case c >= '0' && c <= '9':
			return c - '0', true
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10, true
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	x, ok1 := h(a)
	y, ok2 := h(b)
	return x<<4 | y, ok1 && ok2
}

// appendUTF16 appends s as UTF-16LE and a NUL.
func appendUTF16(b []byte, s string) []byte {
	n := len(b)
	b = slices.Grow(b, 2*len(s)+2)[:n+2*len(s)]
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			ascii = false
			break
		}
		b[n+2*i], b[n+2*i+1] = c, 0
	}
	if ascii {
		return append(b, 0, 0)
	}
	b = b[:n]
	for _, r := range s {
		if r1, r2 := utf16.EncodeRune(r); r1 != '\uFFFD' {
			b = le.AppendUint16(b, uint16(r1))
			b = le.AppendUint16(b, uint16(r2))
			continue
		}
		if r > 0xFFFF || r < 0 {
			r = '\uFFFD'
		}
		b = le.AppendUint16(b, uint16(r))
	}
	return append(b, 0, 0)
}

// fileTime is t as a FILETIME (0 for the zero time).
func fileTime(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return perfdata.FileTime(t)
}

// headerRecord is the log-file header record: a 32-byte system trace
// header and TRACE_LOGFILE_HEADER with its two strings (FORMAT.md §1).
func (w *Writer) headerRecord() []byte {
	h := &w.hdr
	p := int(h.PointerSize)
	tz := 32 + 56 + 2*p
	rest := 32 + (tz-32+tziSize+7)&^7
	b := make([]byte, rest+32, rest+32+2*(len(h.LogInstanceName)+len(h.OriginalPath)+2))
	le.PutUint16(b[0:], h.TraceVersion)
	b[2] = 1
	if p == 8 {
		b[2] = 2
	}
	b[3] = 0xC0
	le.PutUint64(b[16:], uint64(fileTime(h.Start))) // SystemTime: the log's start (every file)
	t := b[32:]
	le.PutUint32(t[0:], h.BufferSize)
	copy(t[4:8], h.OSVersion[:])
	le.PutUint32(t[8:], h.OSBuild)
	le.PutUint32(t[12:], h.Processors)
	le.PutUint64(t[16:], uint64(fileTime(h.End)))
	le.PutUint32(t[24:], h.TimerResolution)
	le.PutUint32(t[28:], h.MaximumFileSize)
	le.PutUint32(t[32:], h.LogFileMode)
	le.PutUint32(t[36:], h.BuffersWritten)
	le.PutUint32(t[40:], h.StartBuffers)
	le.PutUint32(t[44:], h.PointerSize)
	le.PutUint32(t[48:], h.EventsLost)
	le.PutUint32(t[52:], h.CPUSpeed)
	putTZI(b[tz:tz+tziSize], h.Zone)
	le.PutUint64(b[rest:], uint64(h.BootTime))
	le.PutUint64(b[rest+8:], uint64(h.PerfFreq))
	le.PutUint64(b[rest+16:], uint64(fileTime(h.Start)))
	le.PutUint32(b[rest+24:], h.ReservedFlags)
	le.PutUint32(b[rest+28:], h.BuffersLost)
	b = appendUTF16(b, h.LogInstanceName)
	b = appendUTF16(b, h.OriginalPath)
	for len(b) < int(h.RecordSize) && len(b) < 0xFFFF {
		b = append(b, 0)
	}
	le.PutUint16(b[4:], uint16(len(b)))
	return b
}

// writeHeader writes buffer 0: the buffer header and the header record.
func (w *Writer) writeHeader() error {
	rec := w.headerRecord()
	buf := make([]byte, w.hdr.BufferSize)
	for i := range buf {
		buf[i] = padByte
	}
	used := bufferHeaderSize + (len(rec)+7)&^7
	w.bufferHeader(buf, used, 0)
	copy(buf[bufferHeaderSize:], rec)
	clear(buf[bufferHeaderSize+len(rec) : used])
	le.PutUint16(buf[0x34:], 1) // BufferFlag, BufferType of the header buffer (2016, Vista)
	le.PutUint16(buf[0x36:], 4)
	return w.writeAt(buf, 0)
}

// bufferHeader fills the 72-byte buffer header of buffer number i with
// used bytes in use. Only BufferSize and Offset are read by anyone
// (FORMAT.md §1); the others are set as Windows 10 sets them where the
// meaning is clear.
func (w *Writer) bufferHeader(buf []byte, used int, i int64) {
	clear(buf[:bufferHeaderSize])
	le.PutUint32(buf[0:], w.hdr.BufferSize)
	le.PutUint32(buf[4:], uint32(used))    // SavedOffset
	le.PutUint32(buf[8:], uint32(used))    // CurrentOffset
	le.PutUint64(buf[0x18:], uint64(i))    // SequenceNumber
	le.PutUint32(buf[0x30:], uint32(used)) // Offset
}

func (w *Writer) writeAt(b []byte, off int64) error {
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.WriteAt(b, off); err != nil {
		w.err = fmt.Errorf("blg: writing %d bytes at offset %d: %w", len(b), off, err)
	}
	return w.err
}

// writeRecord writes one PDH record of event type typ, time stamp stamp
// (local FILETIME), in fragments of at most 8,000 bytes.
func (w *Writer) writeRecord(typ byte, stamp int64, data []byte) error {
	if w.err != nil {
		return w.err
	}
	n := max(1, (len(data)+fragmentData-1)/fragmentData)
	if n > maxFragments {
		return fmt.Errorf("blg: a record of %d bytes is too large", len(data))
	}
	for k := range n {
		part := data[k*fragmentData : min(len(data), (k+1)*fragmentData)]
		es := eventHeaderSize + payloadPrefix + len(part)
		if es > 0xFFFE || bufferHeaderSize+es > int(w.hdr.BufferSize) {
			return fmt.Errorf("blg: an event of %d bytes does not fit a buffer of %d", es, w.hdr.BufferSize)
		}
		if w.used+es > int(w.hdr.BufferSize) {
			if err := w.endBuffer(); err != nil {
				return err
			}
		}
		if w.buf == nil {
			w.buf = make([]byte, w.hdr.BufferSize)
		}
		if w.used == 0 {
			w.used, w.flushd = bufferHeaderSize, 0
		}
		ev := w.buf[w.used : w.used+es]
		clear(ev[:eventHeaderSize+payloadPrefix])
		le.PutUint16(ev[0:], uint16(es))
		ev[2] = w.hdr.EventHeaderType
		ev[3] = 0xC0
		ev[4] = typ
		le.PutUint16(ev[6:], eventVersion)
		le.PutUint64(ev[16:], uint64(stamp))
		copy(ev[24:40], providerGUID[:])
		copy(ev[48:64], w.guid[:])
		le.PutUint32(ev[64:], uint32(k+1))
		le.PutUint32(ev[68:], uint32(n))
		copy(ev[72:], part)
		end := w.used + (es+7)&^7
		clear(w.buf[w.used+es : min(end, len(w.buf))])
		w.used = min(end, int(w.hdr.BufferSize))
	}
	return nil
}

// endBuffer writes the buffer being filled, whole, and starts the next.
func (w *Writer) endBuffer() error {
	if w.used == 0 {
		return nil
	}
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.pad(); err != nil {
		return err
	}
	w.index++
	w.used, w.flushd = 0, 0
	return nil
}

// pad writes the padding of the buffer being filled when its first
// flush left it to the file's zeros (flush).
func (w *Writer) pad() error {
	if !w.padLater {
		return w.err
	}
	w.padLater = false
	for i := w.used; i < len(w.buf); i++ {
		w.buf[i] = padByte
	}
	return w.writeAt(w.buf[w.used:], w.index*int64(w.hdr.BufferSize)+int64(w.used))
}

// truncater is a file that can be extended (os.File).
type truncater interface{ Truncate(size int64) error }

// flush writes what the buffer being filled holds: whole the first time
// (its padding included, so the file ends on a buffer boundary), then
// its header and what was added since.
func (w *Writer) flush() error {
	if w.used == 0 || w.flushd == w.used {
		return w.err
	}
	w.bufferHeader(w.buf, w.used, w.index)
	off := w.index * int64(w.hdr.BufferSize)
	end := off + int64(w.hdr.BufferSize)
	if w.flushd == 0 && w.used < len(w.buf) && end > w.size {
		// The first flush of a buffer that is not full: the file is
		// extended to the buffer's end (zeros, which end a buffer's
		// records as padding does) and the records written; the
		// padding follows when the buffer is done (pad), not a
		// buffer's worth of bytes each time a sample starts one.
		if t, ok := w.w.(truncater); ok && t.Truncate(end) == nil {
			w.size, w.padLater = end, true
			if err := w.writeAt(w.buf[:w.used], off); err != nil {
				return err
			}
			w.flushd = w.used
			return nil
		}
	}
	if w.flushd == 0 {
		for i := w.used; i < len(w.buf); i++ {
			w.buf[i] = padByte
		}
		if err := w.writeAt(w.buf, off); err != nil {
			return err
		}
		w.size = max(w.size, end)
	} else {
		if err := w.writeAt(w.buf[:bufferHeaderSize], off); err != nil {
			return err
		}
		if err := w.writeAt(w.buf[w.flushd:w.used], off+int64(w.flushd)); err != nil {
			return err
		}
	}
	w.flushd = w.used
	return nil
}

// Flush writes the samples written so far to the file, so that a reader
// (or a crash) finds them. Windows' logger flushes its buffers every
// second or so; the writer's tools call Flush after each sample.
func (w *Writer) Flush() error { return w.flush() }

// Close writes what is left and completes the header: the end time
// (now, when the log is closed, as Windows records it, unless the
// Header given to NewWriter set one) and the number of buffers. It closes the file Create opened.
func (w *Writer) Close() error {
	err := w.flush()
	if err == nil {
		err = w.pad()
	}
	if err == nil {
		w.hdr.BuffersWritten = uint32(w.index)
		if w.used > 0 {
			w.hdr.BuffersWritten++
		}
		if w.hdr.End.IsZero() {
			w.hdr.End = time.Now()
		}
		rec := w.headerRecord()
		err = w.writeAt(rec, bufferHeaderSize)
	}
	if w.closer != nil {
		if cerr := w.closer.Close(); err == nil {
			err = cerr
		}
		w.closer = nil
	}
	if w.err == nil {
		w.err = errors.New("blg: the log is closed")
	}
	return err
}

// localFileTime is t as a FILETIME of the log's local time.
func (w *Writer) localFileTime(t time.Time) int64 {
	_, off := t.In(w.loc).Zone()
	return perfdata.FileTime(t) + int64(off)*10_000_000
}

// Entry flags of the counter list (FORMAT.md §2, 0x20).
const (
	flagListed   = 0x20000000
	flagWildInst = 0x00000001
	flagWhole    = 0x10
)

// identityMark in an entry's unused field marks an Identity entry:
// "pfID".
const identityMark = 0x44496670

// listHeader is the counter list's 8-byte header, the same in every file.
var listHeader = []byte{0xff, 0x06, 0x00, 0x00, 0x08, 0x00, 0x02, 0x00}

// WriteList writes the counter list (event 0x20), stamped t (Windows
// stamps it as the first sample is taken): the counters every sample
// gives values of, in order. It is written once, before the first
// sample. A Counter whose Name is "*" is a whole object (its samples
// carry PERF_DATA_BLOCKs); one whose Instance is "*" has every instance;
// others one value. Flags 0 takes the flags Windows 10 writes.
func (w *Writer) WriteList(t time.Time, list []Counter) error {
	return w.writeList(w.localFileTime(t), list)
}

func (w *Writer) writeList(stamp int64, list []Counter) error {
	if w.listed {
		return errors.New("blg: the counter list is written once")
	}
	if len(list) == 0 {
		return errors.New("blg: a counter list needs a counter")
	}
	b := append(w.rec[:0], listHeader...)
	for k, c := range list {
		if c.Machine == "" || c.Object == "" || c.Name == "" {
			return fmt.Errorf("blg: counter %d (%s): machine, object and counter name are needed", k, c.Path())
		}
		if !strings.HasPrefix(c.Machine, `\\`) {
			c.Machine = `\\` + c.Machine
		}
		if c.Flags == 0 {
			switch {
			case c.Name == "*":
				c.Flags = flagWhole
				c.Type, c.TimeBase = 0x10, 0
			case c.Instance == "*":
				c.Flags = flagListed | flagWildInst
			default:
				c.Flags = flagListed
			}
		}
		start := len(b)
		b = append(b, make([]byte, ceStrings)...)
		e := b[start:]
		le.PutUint32(e[ceFlags:], c.Flags)
		le.PutUint32(e[ceUnused:], uint32(k))
		if c.Identity {
			le.PutUint32(e[ceUnused:], identityMark)
		}
		le.PutUint32(e[ceType:], uint32(c.Type))
		le.PutUint64(e[ceTimeBase:], uint64(c.TimeBase))
		le.PutUint32(e[ceScale:], uint32(c.Scale))
		le.PutUint32(e[ceIndex:], c.Index)
		str := func(field int, s string, optional bool) {
			if s == "" && optional {
				le.PutUint32(b[start+field:], 0xFFFFFFFF)
				return
			}
			le.PutUint32(b[start+field:], uint32(len(b)-start-ceStrings))
			b = appendUTF16(b, s)
		}
		str(ceMachine, c.Machine, false)
		str(ceObject, c.Object, false)
		str(ceInstance, c.Instance, true)
		str(ceParent, c.Parent, true)
		str(ceCounter, c.Name, false)
		for (len(b)-start)%8 != 0 {
			b = append(b, 0)
		}
		le.PutUint32(b[start+ceLength:], uint32(len(b)-start))
		list[k] = c
	}
	w.rec = b
	if err := w.writeRecord(EventCounterList, stamp, b); err != nil {
		return err
	}
	w.list, w.listed = append([]Counter(nil), list...), true
	return nil
}

// Item is one instance's raw value of a counter in a sample: a
// PDH_RAW_COUNTER (rawlog.Value; Second is the base or the time stamp of
// the counter's time base, as FORMAT.md §2 says).
type Item struct {
	Instance string // the instance's name, "name#n" for a duplicate; ignored for a counter of one instance
	Value    rawlog.Value
	// Time is the value's own time stamp (a counter of one instance);
	// zero: the sample's.
	Time  time.Time
	stamp int64 // Time as a local FILETIME, when read from a log
}

// Entry is what one sample holds for one counter of the list.
type Entry struct {
	// Items are the counter's values: one for a counter of one instance
	// (none: it had no value, written with Status), every instance's
	// for a counter with instance "*".
	Items []Item
	// Status is the CStatus written for a counter of one instance that
	// has no item (0: PDH_CSTATUS_NO_INSTANCE or _NO_OBJECT), and of the
	// whole list of a counter with instance "*".
	Status uint32
	// Block is the PERF_DATA_BLOCK of a whole-object counter (Name "*").
	Block []byte
}

// PDH statuses the writer gives a missing value.
const (
	cstatusNoInstance = 0x800007D1
	cstatusNoObject   = 0xC0000BB8
)

// WriteSample writes one sample (event 0x22) taken at t: entries[k] is
// what it holds for the list's counter k.
func (w *Writer) WriteSample(t time.Time, entries []Entry) error {
	return w.writeSample(w.localFileTime(t), entries)
}

func (w *Writer) writeSample(stamp int64, entries []Entry) error {
	if !w.listed {
		return errors.New("blg: a sample before the counter list")
	}
	if len(entries) != len(w.list) {
		return fmt.Errorf("blg: a sample of %d counters for a list of %d", len(entries), len(w.list))
	}
	b := append(w.rec[:0], 'B', 'L', 3, subSample, 0, 0, 0, 0)
	for k, e := range entries {
		c := &w.list[k]
		start := len(b)
		switch {
		case c.Name == "*":
			b = append(b, 'B', 'L', 3, subBlock, 0, 0, 0, 0)
			b = append(b, e.Block...)
		case c.Instance == "*":
			b = w.appendRawList(b, stamp, e)
		default:
			var v rawlog.Value
			at := stamp
			if len(e.Items) > 0 {
				v = e.Items[0].Value
				switch it := &e.Items[0]; {
				case it.stamp != 0:
					at = it.stamp
				case !it.Time.IsZero():
					at = w.localFileTime(it.Time)
				}
			} else {
				v.Status = e.Status
				if v.Status == 0 {
					v.Status = cstatusNoObject
					if c.Instance != "" {
						v.Status = cstatusNoInstance
					}
				}
			}
			b = append(b, 'B', 'L', 3, subRaw, 0, 0, 0, 0)
			b = le.AppendUint32(b, v.Status)
			b = le.AppendUint64(b, uint64(at))
			b = le.AppendUint32(b, 0)
			b = le.AppendUint64(b, uint64(v.First))
			b = le.AppendUint64(b, uint64(v.Second))
			b = le.AppendUint32(b, v.Multi)
			b = le.AppendUint32(b, 0)
		}
		if len(b)-start > 1<<31 {
			return fmt.Errorf("blg: counter %d: %d bytes in one sample", k, len(b)-start)
		}
		le.PutUint32(b[start+4:], uint32(len(b)-start))
	}
	if len(b) > maxRecord {
		return fmt.Errorf("blg: a sample of %d bytes (the most a reader takes is %d)", len(b), maxRecord)
	}
	le.PutUint32(b[4:], uint32(len(b)))
	w.rec = b
	if err := w.writeRecord(EventSample, stamp, b); err != nil {
		return err
	}
	w.count++
	return nil
}

// appendRawList appends the instance list of a counter with instance
// "*" (sub-record kind 2, FORMAT.md §2).
func (w *Writer) appendRawList(b []byte, stamp int64, e Entry) []byte {
	start := len(b)
	b = append(b, 'B', 'L', 3, subRawList, 0, 0, 0, 0)
	b = append(b, 0, 0, 0, 0) // size of what follows the header
	b = le.AppendUint32(b, uint32(len(e.Items)))
	b = le.AppendUint32(b, e.Status)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, uint64(stamp))
	names := w.names[:0]
	at := listHead + len(e.Items)*itemSize
	for _, it := range e.Items {
		b = le.AppendUint32(b, uint32(at+len(names)))
		b = le.AppendUint32(b, it.Value.Multi)
		b = le.AppendUint64(b, uint64(it.Value.First))
		b = le.AppendUint64(b, uint64(it.Value.Second))
		names = appendUTF16(names, it.Instance)
	}
	b = append(b, names...)
	for (len(b)-start)%8 != 0 {
		b = append(b, 0)
	}
	w.names = names
	le.PutUint32(b[start+8:], uint32(len(b)-start-subHeader))
	return b
}

// putTZI writes z as a 172-byte TIME_ZONE_INFORMATION. A name Windows
// keeps as a tzres.dll reference (FORMAT.md §1) is written as that
// reference, others as text (at most 31 UTF-16 units, as the structure
// holds).
func putTZI(b []byte, z Zone) {
	clear(b)
	name := func(p []byte, s string) {
		for ref, n := range tzres {
			if n == s {
				s = ref
				break
			}
		}
		u := appendUTF16(nil, s)
		if len(u) > 62 {
			u = u[:62]
		}
		copy(p, u)
	}
	st := func(p []byte, d perfdata.SystemTime) {
		for i, v := range []uint16{d.Year, d.Month, d.DayOfWeek, d.Day, d.Hour, d.Minute, d.Second, d.Milliseconds} {
			le.PutUint16(p[2*i:], v)
		}
	}
	le.PutUint32(b[0:], uint32(z.Bias))
	name(b[4:68], z.StandardName)
	st(b[68:84], z.StandardDate)
	le.PutUint32(b[84:], uint32(z.StandardBias))
	name(b[88:152], z.DaylightName)
	st(b[152:168], z.DaylightDate)
	le.PutUint32(b[168:], uint32(z.DaylightBias))
}
