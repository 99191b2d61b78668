package binlog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/wintz"
)

// scanned is what a scan of a log found: its header and its whole
// records in the order they are read.
type scanned struct {
	name    string
	size    int64
	hdr     fileHeader
	records []frame // whole records, in order (seq order)
	notes   []string
}

// after says where the scan stands: after which record (by seq).
func (s *scanned) after() string {
	if len(s.records) == 0 {
		return "before the first record"
	}
	return fmt.Sprintf("after record %d", s.records[len(s.records)-1].seq)
}

// newest returns the record with the highest seq, nil if none.
func (s *scanned) newest() *frame {
	if len(s.records) == 0 {
		return nil
	}
	return &s.records[len(s.records)-1]
}

// window reads a file through a buffer that slides forward.
type window struct {
	r     io.ReaderAt
	size  int64
	start int64
	buf   []byte
}

// at returns n bytes at off, or nil when they are not in the file.
func (w *window) at(off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 || off+int64(n) > w.size {
		return nil, nil
	}
	if off >= w.start && off+int64(n) <= w.start+int64(len(w.buf)) {
		return w.buf[off-w.start : off-w.start+int64(n)], nil
	}
	want := max(n, 1<<20)
	if rest := w.size - off; int64(want) > rest {
		want = int(rest)
	}
	if cap(w.buf) < want {
		w.buf = make([]byte, want)
	}
	w.buf = w.buf[:want]
	got, err := w.r.ReadAt(w.buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		w.buf = w.buf[:0]
		return nil, err
	}
	w.buf, w.start = w.buf[:got], off
	if got < want {
		// The file is shorter than it was (cut while being read): it
		// ends here.
		w.size = off + int64(got)
	}
	if got < n {
		return nil, nil
	}
	return w.buf[:n], nil
}

// scan reads a log's header and finds its whole records (FORMAT.md,
// "Reading", steps 1 to 3).
func scan(r io.ReaderAt, size int64, name string) (*scanned, error) {
	s := &scanned{name: name, size: size}
	hb := make([]byte, min(size, headerLen))
	if _, err := r.ReadAt(hb, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	h, err := decodeHeader(hb, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.hdr = h
	end := size
	if h.circular && int64(h.maxSize) < end {
		end = int64(h.maxSize)
	}
	w := &window{r: r, size: end}
	budget := 2*size + 1<<20 // bytes checksummed for candidates that fail
	pos := int64(h.length)
	var damagedAt int64 = -1
	for pos+minRecord <= w.size {
		hb, err := w.at(pos, frameHdrLen)
		if err != nil {
			return nil, fmt.Errorf("%s: reading at byte %d: %w", name, pos, err)
		}
		f, ok := parseFrameHeader(hb, pos)
		if ok && f.end() <= w.size && int64(f.length) <= budget+int64(minRecord) {
			rec, err := w.at(pos, int(f.length))
			if err != nil {
				return nil, fmt.Errorf("%s: reading at byte %d: %w", name, pos, err)
			}
			if rec != nil && checkFrameTail(rec) {
				if damagedAt >= 0 && !h.circular {
					s.notes = append(s.notes, fmt.Sprintf("bytes %d to %d are damaged and were skipped (%s)", damagedAt, pos, s.after()))
					damagedAt = -1
				}
				s.records = append(s.records, f)
				pos = f.end()
				continue
			}
			budget -= int64(f.length)
		}
		if damagedAt < 0 && !h.circular && hb != nil && allZero(hb) {
			// Zeros from a record's end to the file's end are space an
			// earlier writer reserved, not damage (FORMAT.md, "Zeros
			// where a record should start"); zeros followed by anything
			// else are.
			zero, err := zeroTo(w, pos)
			if err != nil {
				return nil, fmt.Errorf("%s: reading at byte %d: %w", name, pos, err)
			}
			if zero {
				pos = w.size
				break
			}
		}
		if damagedAt < 0 {
			damagedAt = pos
		}
		if budget < 0 {
			s.notes = append(s.notes, fmt.Sprintf("bytes %d to %d were not searched for records: too much damage", pos, end))
			break
		}
		pos += 8
	}
	end = w.size
	if damagedAt >= 0 && !h.circular {
		s.notes = append(s.notes, fmt.Sprintf("torn record at byte %d %s: the log ends at its last whole record", damagedAt, s.after()))
	} else if pos < end && !h.circular && damagedAt < 0 {
		// Fewer bytes than a record after the last one: reserved space
		// (of an earlier writer) when they are zeros, else a torn record.
		zero, err := zeroTo(w, pos)
		if err != nil {
			return nil, fmt.Errorf("%s: reading at byte %d: %w", name, pos, err)
		}
		if !zero {
			s.notes = append(s.notes, fmt.Sprintf("torn record at byte %d %s: the log ends at its last whole record", pos, s.after()))
		}
	}
	if h.circular {
		s.orderRing()
	}
	return s, nil
}

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// zeroTo reports whether the file from pos (a record's place) to its end
// is space an earlier writer reserved: zero bytes, a multiple of 8 of
// them (FORMAT.md, "Zeros where a record should start"). A
// record cut short is never that: its first 8 bytes are not all zero (its
// kind and sync mark), and a cut inside them leaves fewer than 8.
func zeroTo(w *window, pos int64) (bool, error) {
	if (w.size-pos)%8 != 0 {
		return false, nil
	}
	for pos < w.size {
		n := int(min(w.size-pos, 64<<10))
		b, err := w.at(pos, n)
		if err != nil {
			return false, err
		}
		if b == nil {
			return true, nil // the file was cut while read: it ends here
		}
		if !allZero(b) {
			return false, nil
		}
		pos += int64(n)
	}
	return true, nil
}

// orderRing orders a circular log's records by seq and keeps the newest
// one with those before it whose seqs are contiguous with it.
func (s *scanned) orderRing() {
	slices.SortFunc(s.records, func(a, b frame) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	n := len(s.records)
	if n == 0 {
		return
	}
	i := n - 1
	for i > 0 && s.records[i-1].seq+1 == s.records[i].seq {
		i--
	}
	s.records = s.records[i:]
}

// sampleRef locates a sample of the log.
type sampleRef struct {
	rec   int // index in records
	epoch int // index in records of the epoch's INFO
	gap   bool
	time  int64
}

// info is an INFO record's content.
type info struct {
	host, zone, iana string
	rule             string // POSIX TZ rule of a zone without an IANA name; "" none
	offset, perfFreq int64
	counters         []string
	hasCounters      bool
	writer           string
	cause            uint64
}

// Log is an open binary log: a recorded pdh.Source whose samples are the
// log's in time order. A Log is not safe for concurrent use.
type Log struct {
	r       io.ReaderAt
	closer  io.Closer
	sc      *scanned
	samples []sampleRef
	first   *info
	loc     *time.Location
	db      *titles.DB
	notes   []string
	pos     int
	zdec    *zstd.Decoder

	// decoding state: the decoder follows the records of one epoch.
	dec      *decoder
	decEpoch int
	decNext  int // next record index the decoder has not seen
	// failed maps an epoch to the first record of it that could not be
	// decoded: the samples after it cannot be either (their state is
	// lost), and are refused at once instead of decoding the epoch again.
	failed map[int]int
	// win reads the records' bodies through one buffer that slides
	// forward: a sample is a few hundred bytes to a few KiB, and a read
	// of the file for each costs more than decoding it.
	win window
	raw []byte
	// last is the sample the decoder decoded last (record lastRec), given
	// again while the decoder has not moved on: a tool that peeks at a
	// sample and seeks back (pdh's path checks) reads it twice.
	last    *pdh.Sample
	lastRec int
}

// errAllowance is the refusal of a record that would make decoding
// produce more than its length allows (recordAllowance).
func (l *Log) errAllowance(f *frame, n int64) error {
	return fmt.Errorf("%s: record seq %d at byte %d would produce %d bytes, more than a record of %d bytes may (%d: %d per byte and %d, FORMAT.md, Limits)",
		l.sc.name, f.seq, f.off, n, f.length, recordAllowance(int64(f.length)), allowPerByte, allowPerRecord)
}

var (
	_ pdh.Source   = (*Log)(nil)
	_ pdh.Recorded = (*Log)(nil)
)

// Open opens the log at path.
func Open(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	l, err := Read(f, fi.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	l.closer = f
	return l, nil
}

// Read reads a log of size bytes from r; name names it in messages.
func Read(r io.ReaderAt, size int64, name string) (*Log, error) {
	sc, err := scan(r, size, name)
	if err != nil {
		return nil, err
	}
	l := &Log{r: r, sc: sc, notes: sc.notes, db: titles.New(), decEpoch: -1, win: window{r: r, size: size}}
	if sc.hdr.zstd {
		l.zdec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(maxPayload))
		if err != nil {
			return nil, err
		}
	}
	if err := l.index(); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// index finds the decodable epochs and their samples and reads the INFO
// and TITLES records (FORMAT.md, "Reading", steps 4 and 5).
func (l *Log) index() error {
	recs := l.sc.records
	epoch := -1
	gap := false
	dropped := 0
	titleErrs := 0
	for i := range recs {
		f := &recs[i]
		if i > 0 && f.seq != recs[i-1].seq+1 {
			if epoch >= 0 && f.kind != KindInfo {
				l.notes = append(l.notes, fmt.Sprintf("record %d (seq %d) follows seq %d: records are missing, the samples up to the next log information record are left out", i, f.seq, recs[i-1].seq))
			}
			epoch = -1
		}
		switch f.kind {
		case KindInfo:
			b, err := l.payload(f)
			if err != nil {
				l.notes = append(l.notes, err.Error())
				epoch = -1
				continue
			}
			in, err := parseInfo(b)
			if err != nil {
				l.notes = append(l.notes, l.recordErr(i, f, err).Error())
				epoch = -1
				continue
			}
			epoch = i
			if l.first == nil {
				l.first = in
			}
		case KindTitles:
			if epoch < 0 {
				continue
			}
			b, err := l.payload(f)
			if err == nil {
				err = l.addTitles(b, &titleErrs)
			}
			if err != nil {
				l.notes = append(l.notes, l.recordErr(i, f, err).Error())
			}
		case KindGap:
			if epoch >= 0 {
				gap = true
			}
		case KindSample:
			if epoch < 0 {
				dropped++
				continue
			}
			l.samples = append(l.samples, sampleRef{rec: i, epoch: epoch, gap: gap, time: f.time})
			gap = false
		}
	}
	if dropped > 0 && !l.sc.hdr.circular {
		l.notes = append(l.notes, fmt.Sprintf("%d samples could not be decoded (their log information or definitions are lost) and are left out", dropped))
	}
	if titleErrs > 0 {
		l.notes = append(l.notes, fmt.Sprintf("%d title names in the log conflict with names stored before them and were not used", titleErrs))
	}
	if l.first == nil {
		l.first = &info{}
	}
	in := l.first
	l.loc = nil
	if in.iana != "" {
		if loc, err := time.LoadLocation(in.iana); err == nil {
			l.loc = loc
		}
	}
	if l.loc == nil && in.rule != "" {
		name := in.zone
		if name == "" {
			name = "Local"
		}
		if loc, err := wintz.RuleLocation(name, in.rule, int(in.offset), name); err == nil {
			l.loc = loc
		}
	}
	if l.loc == nil {
		name := in.zone
		if name == "" {
			name = "UTC"
		}
		l.loc = time.FixedZone(name, int(in.offset))
	}
	return nil
}

func (l *Log) recordErr(i int, f *frame, err error) error {
	return fmt.Errorf("%s: record %d (%s, seq %d) at byte %d: %w", l.sc.name, i, f.kind, f.seq, f.off, err)
}

// payload reads and, when compressed, decompresses a record's payload.
// The slice is valid until the next call.
func (l *Log) payload(f *frame) ([]byte, error) { return l.payloadAfter(f, nil) }

// samplePayload is the payload of a SAMPLE record decoded by d, whose
// previous sample's payload may be its dictionary; it becomes the next
// one's.
func (l *Log) samplePayload(f *frame, d *decoder) ([]byte, error) {
	b, err := l.payloadAfter(f, d)
	if err != nil {
		d.hasPrev = false
		return nil, err
	}
	if l.zdec != nil && l.sc.hdr.version >= 2 {
		// Only a compressed log's next sample may use this one as its
		// dictionary (a plain log's decoder keeps its state itself).
		d.prev = append(d.prev[:0], b...)
	}
	d.prevSeq, d.hasPrev = f.seq, true
	return b, nil
}

func (l *Log) payloadAfter(f *frame, d *decoder) ([]byte, error) {
	if f.flags&^knownFlags != 0 {
		return nil, fmt.Errorf("%s: record seq %d at byte %d: unknown flags 0x%02X", l.sc.name, f.seq, f.off, f.flags)
	}
	body, err := l.win.at(f.off+frameHdrLen, int(f.bodyLen))
	if err == nil && body == nil && f.bodyLen > 0 {
		err = io.ErrUnexpectedEOF // the file was cut after it was opened
	}
	if err != nil {
		return nil, fmt.Errorf("%s: record at byte %d: %w", l.sc.name, f.off, err)
	}
	if f.flags&flagCompressed == 0 {
		return body, nil
	}
	return l.inflate(body, f, d)
}

// inflate decompresses a compressed body.
func (l *Log) inflate(body []byte, f *frame, d *decoder) ([]byte, error) {
	where := func(what string) error {
		return fmt.Errorf("%s: record seq %d at byte %d: compressed body: %s", l.sc.name, f.seq, f.off, what)
	}
	if l.zdec == nil {
		return nil, where("the file header does not announce compression")
	}
	n, k := binary.Uvarint(body)
	if k <= 0 {
		return nil, where("bad payload length")
	}
	if !claimFits(n, uint64(len(body))) {
		return nil, where(fmt.Sprintf("payload length %d exceeds the limit for %d stored bytes (%d per byte and %d, at most %d: FORMAT.md, Limits)", n, len(body), claimPerByte, claimBase, maxPayload))
	}
	if int64(n) > recordAllowance(int64(f.length)) {
		return nil, l.errAllowance(f, int64(n))
	}
	zframe, ok := skipSkippable(body[k:]) // a writer's padding (FORMAT.md, Limits)
	if !ok {
		return nil, where("a skippable frame runs past the body")
	}
	if cap(l.raw) < int(n) {
		l.raw = make([]byte, 0, n)
	}
	zd := l.zdec
	if f.flags&flagPrevDict != 0 {
		switch {
		case f.kind != KindSample || l.sc.hdr.version < 2:
			return nil, where(fmt.Sprintf("a previous-sample dictionary on a %s record of a version %d log", f.kind, l.sc.hdr.version))
		case d == nil || !d.hasPrev:
			// The decoder follows its epoch record by record, so its
			// last sample is this one's previous; the dictionary id in
			// the frame checks it.
			return nil, where("compressed with the previous sample as dictionary, which is not at hand")
		}
		var err error
		zd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(maxPayload), zstd.WithDecoderDictRaw(prevDictID(d.prevSeq), d.prev))
		if err != nil {
			return nil, where(err.Error())
		}
		defer zd.Close()
	}
	out, err := zd.DecodeAll(zframe, l.raw[:0:n])
	if err != nil {
		return nil, where(err.Error())
	}
	if uint64(len(out)) != n {
		return nil, where(fmt.Sprintf("%d bytes decompressed, the record says %d", len(out), n))
	}
	l.raw = out
	return out, nil
}

func parseInfo(b []byte) (*info, error) {
	p := &payload{b: b}
	in := &info{}
	in.host = p.str("host")
	in.zone = p.str("zone name")
	in.iana = p.str("IANA zone name")
	in.offset = p.svarint("UTC offset")
	in.perfFreq = p.svarint("PerfFreq")
	in.hasCounters = p.u8("counter list flag") != 0
	if in.hasCounters {
		n := p.count("counter count", 1)
		in.counters = make([]string, 0, n)
		for i := 0; i < n && p.err == nil; i++ {
			in.counters = append(in.counters, p.str("counter path"))
		}
	}
	in.writer = p.str("writer")
	in.cause = p.uvarint("cause")
	if p.err == nil && p.left() > 0 { // logs written before the field have none
		in.rule = p.str("zone rule")
	}
	if p.err == nil && (in.offset < -maxUTCOffset || in.offset > maxUTCOffset) {
		p.fail("UTC offset", fmt.Sprintf("%d seconds", in.offset))
	}
	return in, p.err
}

// titleEntry is one TITLES entry.
type titleEntry struct {
	index, helpIndex uint32
	name, help       string
}

func parseTitles(b []byte) ([]titleEntry, error) {
	p := &payload{b: b}
	n := p.count("title count", 4)
	out := make([]titleEntry, 0, n)
	for i := 0; i < n && p.err == nil; i++ {
		var e titleEntry
		e.index = uint32(p.uvarint("title index"))
		e.name = p.str("title name")
		e.helpIndex = uint32(p.uvarint("help index"))
		e.help = p.str("help text")
		out = append(out, e)
	}
	return out, p.err
}

func (l *Log) addTitles(b []byte, conflicts *int) error {
	es, err := parseTitles(b)
	if err != nil {
		return err
	}
	for _, e := range es {
		if e.name == "" {
			continue
		}
		if l.db.SetAt(e.index, e.name, e.help) != nil {
			*conflicts++
		}
	}
	return nil
}

// Titles is a title database of the names and help texts stored in the
// log (the indexes are those of the blocks).
func (l *Log) Titles() *titles.DB { return l.db }

// Recorded returns the Log itself.
func (l *Log) Recorded() pdh.Recorded { return l }

// Len is the number of samples.
func (l *Log) Len() int { return len(l.samples) }

// Pos is the position of the sample the next Sample returns.
func (l *Log) Pos() int { return l.pos }

// Seek makes the next Sample return sample i.
func (l *Log) Seek(i int) error {
	if i < 0 || i > len(l.samples) {
		return fmt.Errorf("%s: sample %d out of range 0..%d", l.sc.name, i, len(l.samples))
	}
	l.pos = i
	return nil
}

// Time is the time of sample i (UTC).
func (l *Log) Time(i int) time.Time { return timeOf(l.samples[i].time) }

// Counters are the counter paths the log was made for; nil when it holds
// whole objects.
func (l *Log) Counters() []string {
	if !l.first.hasCounters {
		return nil
	}
	return slices.Clone(l.first.counters)
}

// Location is the time zone the log was written in.
func (l *Log) Location() *time.Location { return l.loc }

// ZoneRule is the POSIX TZ rule the log's INFO record states for a zone
// without an IANA name ("" when it has one, or none): what a writer of the
// same samples records as it is.
func (l *Log) ZoneRule() string {
	if l.first == nil || l.first.iana != "" {
		return ""
	}
	return l.first.rule
}

// Host is the computer the log's (oldest) samples come from.
func (l *Log) Host() string { return l.first.host }

// PerfFreq is the PerfFreq the log's (oldest) information record gives.
func (l *Log) PerfFreq() int64 { return l.first.perfFreq }

// Notes says what the reader skipped or repaired: a torn tail, damaged
// bytes, samples left out.
func (l *Log) Notes() []string { return l.notes }

// Close closes the file opened by Open.
func (l *Log) Close() error {
	if l.zdec != nil {
		l.zdec.Close()
		l.zdec = nil
	}
	if l.closer != nil {
		err := l.closer.Close()
		l.closer = nil
		return err
	}
	return nil
}

// Sample returns the next sample. A sample that cannot be decoded is an
// error naming its record; the position still advances. objects is
// ignored: every block is returned.
func (l *Log) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.pos >= len(l.samples) {
		return nil, io.EOF
	}
	ref := l.samples[l.pos]
	l.pos++
	if l.last != nil && l.lastRec == ref.rec && l.dec != nil && l.decNext == ref.rec+1 {
		c := *l.last
		c.Blocks = slices.Clone(c.Blocks)
		c.Problems = slices.Clone(c.Problems)
		return &c, nil
	}
	s, err := l.decodeAt(ref)
	if err != nil {
		return nil, err
	}
	s.Time = timeOf(ref.time)
	s.Gap = s.Gap || ref.gap
	c := *s
	c.Blocks = slices.Clone(s.Blocks)
	c.Problems = slices.Clone(s.Problems)
	l.last, l.lastRec = &c, ref.rec
	return s, nil
}

// decodeAt decodes the sample at ref, following its epoch from the INFO
// record (or from where the decoder stands in it).
func (l *Log) decodeAt(ref sampleRef) (*pdh.Sample, error) {
	if r, ok := l.failed[ref.epoch]; ok && ref.rec > r {
		f := &l.sc.records[ref.rec]
		return nil, l.recordErr(ref.rec, f, fmt.Errorf("not decodable: it depends on record %d, which is damaged", r))
	}
	s, err := l.follow(ref)
	if err != nil {
		if l.failed == nil {
			l.failed = make(map[int]int)
		}
		if r, ok := l.failed[ref.epoch]; !ok || l.decNext-1 < r {
			l.failed[ref.epoch] = l.decNext - 1
		}
		l.dec = nil
	}
	return s, err
}

// follow decodes the records of ref's epoch up to ref.
func (l *Log) follow(ref sampleRef) (*pdh.Sample, error) {
	l.last = nil // the decoder moves on: its last sample's blocks go
	if l.dec == nil || l.decEpoch != ref.epoch || l.decNext > ref.rec {
		l.dec, l.decEpoch, l.decNext = newDecoder(), ref.epoch, ref.epoch+1
	}
	recs := l.sc.records
	for l.decNext <= ref.rec {
		i := l.decNext
		f := &recs[i]
		l.decNext++
		switch f.kind {
		case KindDefs:
			b, err := l.payload(f)
			if err == nil {
				err = l.dec.addDefs(b)
			}
			if err != nil {
				return nil, l.recordErr(i, f, err)
			}
		case KindSample:
			b, err := l.samplePayload(f, l.dec)
			if err != nil {
				return nil, err
			}
			// What the record may still produce: its allowance less
			// the payload it decompressed to.
			l.dec.allow = recordAllowance(int64(f.length))
			if f.flags&flagCompressed != 0 {
				l.dec.allow -= int64(len(b))
			}
			s, err := l.dec.sample(b)
			if err != nil {
				return nil, l.recordErr(i, f, err)
			}
			if i == ref.rec {
				return s, nil
			}
		}
	}
	return nil, fmt.Errorf("%s: sample record %d not reached", l.sc.name, ref.rec)
}
