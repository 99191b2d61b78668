package blg

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
)

// Counter is one entry of the log's counter list (event 0x20): a counter
// path as it was given to the log, with the counter's type and time base
// where the log knows them (explicitly listed counters).
type Counter struct {
	Machine  string // with the leading backslashes, as stored
	Object   string
	Instance string // "" none, "*" every instance
	Parent   string
	Index    uint32 // instance index (the #n of duplicate names)
	Name     string // counter name, "*" every counter
	Type     countertype.Type
	TimeBase int64 // frequency of the counter's time stamps
	Scale    int32 // default scale
	Flags    uint32
	// Identity marks an entry perfc's writer adds beside a listed
	// counter of every instance of Process or Thread: the counters that
	// identify an instance between samples (ID Process, ID Thread,
	// Elapsed Time), so that perfc's reader pairs instances as the
	// query that recorded them did, not by name#n. Counters leaves
	// them out; Windows' tools show them as ordinary counters. It is
	// stored as a mark in the entry's field at offset 8, which no
	// reader uses (FORMAT.md §2).
	Identity bool
}

// Path is the counter's path as Windows writes it.
func (c Counter) Path() string {
	p := c.Machine + `\` + c.Object
	if c.Instance != "" {
		inst := c.Instance
		if c.Parent != "" {
			inst = c.Parent + "/" + inst
		}
		if c.Index > 0 {
			inst += fmt.Sprintf("#%d", c.Index)
		}
		p += "(" + inst + ")"
	}
	return p + `\` + c.Name
}

// explicit reports a counter stored as PDH_RAW_COUNTER values (not as whole
// PERF_DATA_BLOCKs of a wildcard object).
func (c Counter) explicit() bool { return c.Name != "*" }

// Log is an open binary log. It is a recorded pdh.Source: Sample returns the
// samples in the order written. A Log is not safe for concurrent use.
type Log struct {
	r       *reader
	closer  io.Closer
	name    string
	hdr     Header
	loc     *time.Location
	list    []Counter
	samples []int    // the sample records' places in records
	records []record // every PDH record, in file order (Dump)
	db      *titles.DB
	plan    *rawlog.Plan
	slots   []int // the plan's counter for each list entry; -1 for a whole-object entry
	// listExplicit: every entry of the counter list names its counter.
	listExplicit bool
	rows         *rawlog.Rows // the values of the sample being decoded
	pos          int
	notes        []string
	buf          []byte
	// decoded keeps samples already decoded, by position, up to
	// maxDecoded bytes of blocks: a tool reads a log more than once
	// (relog: its objects, then its rows), and rebuilding the blocks of
	// listed counters costs far more than reading the record.
	decoded     []*pdh.Sample
	decodedSize int
	once        bool           // ReadOnce: keep no decoded samples
	instKeys    []string       // instanceKey's, by list entry
	names       [][]cachedName // instanceName's, by list entry
	zone        zoneSpan       // localTime's last offset
}

// maxDecoded bounds the blocks a Log keeps decoded.
const maxDecoded = 64 << 20

var _ pdh.Source = (*Log)(nil)
var _ pdh.Recorded = (*Log)(nil)

func read(r *reader, name string) (*Log, error) {
	s, err := scan(r, name)
	if err != nil {
		return nil, err
	}
	l := &Log{r: r, name: name, hdr: s.hdr, notes: s.notes, records: s.records}
	l.loc = s.hdr.Zone.Location()
	var titleData, scratch []byte
	var titleMachine string
	titleSize, samples := 0, 0
	for i := range s.records {
		switch s.records[i].typ {
		case EventTitles:
			titleSize += s.records[i].size
		case EventSample:
			samples++
		}
	}
	l.samples = make([]int, 0, samples)
	if titleSize <= maxTitleBytes {
		titleData = make([]byte, 0, titleSize+2)
	}
	for i := range s.records {
		rec := &s.records[i]
		switch rec.typ {
		case EventSample:
			l.samples = append(l.samples, i)
		case EventCounterList:
			if l.list != nil {
				l.notes = append(l.notes, fmt.Sprintf("a second counter list at offset %d is ignored", rec.at))
				continue
			}
			b, _, err := readRecord(r, rec, nil)
			if err != nil {
				return nil, l.errorf(rec.at, err)
			}
			if l.list, err = parseCounterList(b, rec.at+eventHeaderSize+payloadPrefix, name); err != nil {
				return nil, err
			}
		case EventTitles:
			if len(titleData)+rec.size > maxTitleBytes {
				return nil, &FormatError{File: name, Offset: rec.at, Structure: "title table", Field: "size", Value: int64(len(titleData) + rec.size), Msg: fmt.Sprintf("larger than %d bytes", maxTitleBytes)}
			}
			b, buf, err := readRecord(r, rec, scratch)
			if err != nil {
				return nil, l.errorf(rec.at, err)
			}
			scratch = buf
			m, pairs, err := splitTitles(b, rec.at+eventHeaderSize+payloadPrefix, name)
			if err != nil {
				return nil, err
			}
			if titleMachine == "" {
				titleMachine = m
			}
			titleData = append(titleData, pairs...)
		}
	}
	var table *titles.DB
	if len(titleData) > 0 {
		table, err = titles.ParseMultiSZ(append(titleData, 0, 0))
		if err != nil {
			return nil, fmt.Errorf("%s: title table of %s: %w", orLog(name), titleMachine, err)
		}
	}
	var listed []rawlog.Counter
	l.slots = make([]int, len(l.list))
	l.listExplicit = true
	for k, c := range l.list {
		l.listExplicit = l.listExplicit && c.explicit()
		l.slots[k] = -1
		if c.explicit() {
			l.slots[k] = len(listed)
			listed = append(listed, rawlog.Counter{Machine: c.Machine, Object: c.Object, Instance: c.Instance, Parent: c.Parent,
				Index: c.Index, Name: c.Name, Type: c.Type, TimeBase: c.TimeBase, Scale: c.Scale})
		}
	}
	if l.db, err = rawlog.Titles(listed, table); err != nil {
		return nil, fmt.Errorf("%s: %w", orLog(name), err)
	}
	if l.plan, err = rawlog.NewPlan(listed, l.db); err != nil {
		return nil, fmt.Errorf("%s: %w", orLog(name), err)
	}
	if len(l.samples) > 0 && l.list == nil {
		return nil, &FormatError{File: name, Offset: l.records[l.samples[0]].at, Structure: "sample record", Msg: "the log has samples but no counter list (event 0x20)"}
	}
	return l, nil
}

func (l *Log) errorf(off int64, err error) error {
	return fmt.Errorf("%s: record at offset %d: %w", orLog(l.name), off, err)
}

// splitTitles reads one title-table record: the machine name, then
// index/name string pairs (UTF-16, each NUL-terminated), closed by an empty
// string. It returns the pairs re-encoded, to be joined into one Counter
// MULTI_SZ.
func splitTitles(b []byte, at int64, name string) (string, []byte, error) {
	var machine string
	start := -1
	off := 0
	for i := 0; off < len(b); i++ {
		n := utf16le.IndexNUL(b[off:])
		if n < 0 {
			if isZero(b[off:]) {
				break
			}
			return "", nil, &FormatError{File: name, Offset: at + int64(off), Structure: "title table", Field: "string", Value: int64(i), Msg: "string without NUL"}
		}
		if n == 0 {
			break // the closing empty string
		}
		if i == 0 {
			machine = utf16le.DecodeLenient(b[off : off+n])
			start = off + n + 2
		}
		off += n + 2
	}
	if start < 0 || start > off {
		return machine, nil, nil
	}
	// The pairs are the strings after the machine's, as they lie.
	return machine, b[start:off], nil
}

// Counter-list entry layout (offsets in an entry).
const (
	clHeader      = 8
	ceLength      = 0
	ceFlags       = 4
	ceUnused      = 8
	ceType        = 12
	ceTimeBase    = 16
	ceScale       = 24
	ceMachine     = 28
	ceObject      = 32
	ceInstance    = 36
	ceParent      = 40
	ceIndex       = 44
	ceCounter     = 48
	ceStrings     = 52
	maxListLength = 1 << 20
)

// parseCounterList decodes event 0x20.
func parseCounterList(b []byte, at int64, name string) ([]Counter, error) {
	ferr := func(off int, st, field string, v int64, msg string, args ...any) error {
		return &FormatError{File: name, Offset: at + int64(off), Structure: st, Field: field, Value: v, Msg: fmt.Sprintf(msg, args...)}
	}
	if len(b) < clHeader {
		return nil, ferr(0, "counter list", "length", int64(len(b)), "shorter than its %d-byte header", clHeader)
	}
	out := []Counter{}
	for off := clHeader; off < len(b); {
		if len(b)-off < ceStrings {
			if isZero(b[off:]) {
				break
			}
			return nil, ferr(off, "counter list entry", "length", int64(len(b)-off), "only %d bytes left, an entry needs %d", len(b)-off, ceStrings)
		}
		n := int(le.Uint32(b[off+ceLength:]))
		if n < ceStrings || n > len(b)-off {
			return nil, ferr(off, "counter list entry", "Length", int64(n), "outside %d..%d", ceStrings, len(b)-off)
		}
		if len(out) >= maxListLength {
			return nil, ferr(off, "counter list", "entries", int64(len(out)), "too many")
		}
		e := b[off : off+n]
		strs := e[ceStrings:]
		str := func(field string, fo int, optional bool) (string, error) {
			v := int32(le.Uint32(e[fo:]))
			if v == -1 && optional {
				return "", nil
			}
			if v < 0 || int(v) >= len(strs) {
				return "", ferr(off+fo, "counter list entry", field, int64(v), "string offset outside the entry's %d string bytes", len(strs))
			}
			k := utf16le.IndexNUL(strs[v:])
			if k < 0 || int(v)%2 != 0 {
				return "", ferr(off+fo, "counter list entry", field, int64(v), "string has no NUL inside the entry")
			}
			return utf16le.DecodeLenient(strs[v : int(v)+k]), nil
		}
		var c Counter
		var err error
		if c.Machine, err = str("machine", ceMachine, false); err != nil {
			return nil, err
		}
		if c.Object, err = str("object", ceObject, false); err != nil {
			return nil, err
		}
		if c.Instance, err = str("instance", ceInstance, true); err != nil {
			return nil, err
		}
		if c.Parent, err = str("parent", ceParent, true); err != nil {
			return nil, err
		}
		if c.Name, err = str("counter", ceCounter, false); err != nil {
			return nil, err
		}
		c.Flags = le.Uint32(e[ceFlags:])
		c.Identity = le.Uint32(e[ceUnused:]) == identityMark
		c.Type = countertype.Type(le.Uint32(e[ceType:]))
		c.TimeBase = int64(le.Uint64(e[ceTimeBase:]))
		c.Scale = int32(le.Uint32(e[ceScale:]))
		c.Index = le.Uint32(e[ceIndex:])
		if c.Index > 1<<20 {
			return nil, ferr(off+ceIndex, "counter list entry", "instance index", int64(c.Index), "too large")
		}
		if c.Object == "" || c.Name == "" {
			return nil, ferr(off, "counter list entry", "object/counter", 0, "empty object or counter name in %q", c.Path())
		}
		out = append(out, c)
		off += n
	}
	return out, nil
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Header returns what the log-file header says.
func (l *Log) Header() Header { return l.hdr }

// List returns the log's counter list (event 0x20).
func (l *Log) List() []Counter { return l.list }

// Location is the time zone of the machine that wrote the log, with its
// Windows names; text logs written from this log use it.
func (l *Log) Location() *time.Location { return l.loc }

// ZoneRule is the POSIX TZ rule of the log's zone, as its
// TIME_ZONE_INFORMATION states it ("" when it has no daylight time): what
// a writer of the same samples records as it is.
func (l *Log) ZoneRule() string { return l.hdr.Zone.Rule() }

// Notes says what the reader skipped or repaired (a truncated buffer, an
// incomplete last record).
func (l *Log) Notes() []string { return l.notes }

// Close closes the file opened by Open.
func (l *Log) Close() error {
	if l.closer != nil {
		return l.closer.Close()
	}
	return nil
}

// Titles is the title database that names the indexes of the samples.
func (l *Log) Titles() *titles.DB { return l.db }

// Counters returns the paths of the log's counter list when every entry
// names its counter (a log of listed counters, as typeperf and logman
// write from -c); nil when the log holds whole objects (Object(*)\*
// entries), whose counters are every counter their blocks hold.
func (l *Log) Counters() []string {
	if len(l.list) == 0 || !l.listExplicit {
		return nil
	}
	out := make([]string, 0, len(l.list))
	for _, c := range l.list {
		if c.Identity {
			continue
		}
		// Written as a path pdh parses back: names with ( ) / # \ in
		// them are escaped (Path writes them as Windows stores them).
		out = append(out, counterpath.Path{Machine: strings.TrimLeft(c.Machine, `\`), Object: c.Object, Parent: c.Parent,
			Instance: c.Instance, Index: int(c.Index), HasIndex: c.Index > 0, Counter: c.Name}.String())
	}
	return out
}

// Recorded returns the Log itself.
func (l *Log) Recorded() pdh.Recorded { return l }

// Len is the number of samples.
func (l *Log) Len() int { return len(l.samples) }

// Pos is the position of the sample the next Sample returns.
func (l *Log) Pos() int { return l.pos }

// Seek makes the next Sample return sample i.
func (l *Log) Seek(i int) error {
	if i < 0 || i > len(l.samples) {
		return fmt.Errorf("%s: sample %d out of range 0..%d", orLog(l.name), i, len(l.samples))
	}
	l.pos = i
	return nil
}

// Time is the time of sample i: the time stamp of its record, written in
// the local time of the logging machine, converted to UTC with the log's
// time zone.
func (l *Log) Time(i int) time.Time { return l.localTime(l.records[l.samples[i]].stamp) }

// localTime converts a FILETIME holding local wall-clock time to UTC.
// A wall-clock time more than a day away from the zone's changes of
// offset (daylight saving time) is that of one instant only, the last
// offset's: it is converted with it, without time.Date's work.
func (l *Log) localTime(ft int64) time.Time {
	w := fileTimeUTC(ft)
	if z := &l.zone; z.ok {
		if u := w.Unix() - z.off; u >= z.lo && u < z.hi {
			return w.Add(-time.Duration(z.off) * time.Second).UTC()
		}
	}
	t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), l.loc).UTC()
	if !w.IsZero() {
		lt := t.In(l.loc)
		_, off := lt.Zone()
		start, end := lt.ZoneBounds()
		z := zoneSpan{off: int64(off), lo: math.MinInt64, hi: math.MaxInt64, ok: true}
		if !start.IsZero() {
			z.lo = start.Unix() + 86400
		}
		if !end.IsZero() {
			z.hi = end.Unix() - 86400
		}
		l.zone = z
	}
	return t
}

// zoneSpan is the offset of the log's zone over a span of instants
// (Unix seconds lo..hi) whose wall-clock times no other offset gives.
type zoneSpan struct {
	off, lo, hi int64
	ok          bool
}

// Sample returns the next sample. A sample that cannot be decoded is an
// error naming its record; the position still advances, so a caller may
// go on with the next one. Values the log marks as failed (a machine that
// did not answer) are the sample's Problems, not errors. objects is
// ignored.
func (l *Log) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.pos >= len(l.samples) {
		return nil, io.EOF
	}
	if l.pos < len(l.decoded) && l.decoded[l.pos] != nil {
		l.pos++
		return ownCopy(l.decoded[l.pos-1]), nil
	}
	rec, b, err := l.nextRecord()
	if err != nil {
		return nil, err
	}
	s, err := l.decodeSample(b, rec)
	if err != nil {
		return nil, l.sampleError(rec, err)
	}
	l.keep(l.pos-1, s)
	return s, nil
}

// ReadOnce tells the log that its reader goes through the samples once,
// in order (relog to a text log does): it then keeps no decoded samples
// for a second reading. A later second reading works as before, decoding
// again. Samples already kept stay kept.
func (l *Log) ReadOnce() { l.once = true }

// keep keeps sample i (a value: its blocks are its own) while the kept
// blocks stay within maxDecoded bytes, unless ReadOnce was called.
func (l *Log) keep(i int, s *pdh.Sample) {
	if l.once {
		return
	}
	size := 0
	for _, blk := range s.Blocks {
		size += len(blk.Bytes())
	}
	if l.decodedSize+size > maxDecoded {
		return
	}
	if l.decoded == nil {
		l.decoded = make([]*pdh.Sample, len(l.samples))
	}
	l.decoded[i] = ownCopy(s)
	l.decodedSize += size
}

// ownCopy is a kept sample for a caller, who may change its slices.
func ownCopy(s *pdh.Sample) *pdh.Sample {
	c := *s
	c.Blocks = slices.Clone(s.Blocks)
	c.Problems = slices.Clone(s.Problems)
	return &c
}

// nextRecord reads the record of the sample at the position, which it
// advances either way. b is valid until the next read.
func (l *Log) nextRecord() (rec *record, b []byte, err error) {
	rec = &l.records[l.samples[l.pos]]
	l.pos++
	b, l.buf, err = readRecord(l.r, rec, l.buf)
	if err != nil {
		return rec, nil, l.errorf(rec.at, err)
	}
	return rec, b, nil
}

// sampleError places err, the decoding of the sample just read, in the
// log.
func (l *Log) sampleError(rec *record, err error) error {
	return fmt.Errorf("%s: sample %d (record at offset %d): %w", orLog(l.name), l.pos, rec.at, err)
}
