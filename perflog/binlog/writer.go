package binlog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/wintz"
)

// Mode is how a writer treats its file.
type Mode int

// Modes.
const (
	// Linear creates the file (truncating an existing one; a tool checks
	// before whether it may overwrite) and writes at its end.
	Linear Mode = iota
	// Append opens an existing log, recovers it to its last whole record
	// (truncating a torn tail) and goes on after it; a missing or empty
	// file is created as with Linear.
	Append
	// Circular creates a file that never grows past Options.MaxSize: the
	// oldest samples are overwritten (FORMAT.md, "Circular logs").
	Circular
)

// String names the mode.
func (m Mode) String() string {
	switch m {
	case Linear:
		return "linear"
	case Append:
		return "append"
	case Circular:
		return "circular"
	}
	return "mode" + strconv.Itoa(int(m))
}

// NameStyle is how rollover files are named (RolloverName).
type NameStyle int

// Name styles of rollover files.
const (
	NumberedNames NameStyle = iota // NAME_000001.ext (Windows' -v nnnnnn)
	DatedNames                     // NAME_MMddHHmm.ext (Windows' -v mmddhhmm)
)

// Rollover makes a writer start a new file, each a complete log, at a size
// or time limit. It applies to Linear mode; the zero Rollover is off.
type Rollover struct {
	// Size starts a new file before a record would make the current one
	// larger than Size bytes (0: no size limit).
	Size int64
	// Interval starts a new file with the first sample at least Interval
	// after the current file's first sample (sample times; 0: no limit).
	Interval time.Duration
	// Names is the naming style of the files.
	Names NameStyle
	// First is the number of the first file (NumberedNames); 0 means 1.
	First int
}

// Enabled reports whether r rolls files over at all.
func (r Rollover) Enabled() bool { return r.Size > 0 || r.Interval > 0 }

// Options configure a Writer.
type Options struct {
	// Host names the computer the samples come from; "" takes the system
	// name of the first block of the first sample.
	Host string
	// Location is the time zone of the log's text forms (relog to CSV);
	// nil is time.Local.
	Location *time.Location
	// Rule, when set, is Location's POSIX TZ rule as the samples' reader
	// read it (a BLG's TIME_ZONE_INFORMATION, another binary log's INFO
	// record): written as it is, instead of derived from Location year by
	// year. It is used only for a zone without an IANA name.
	Rule string
	// Titles names the title indexes of the samples; the log keeps the
	// names and help texts of the indexes it uses. nil stores none.
	Titles *titles.DB
	// Counters are the counter paths the log is made for (a tool shows
	// them when it is asked for none); nil means whole objects.
	Counters []string
	// Compress compresses records with zstd. The zero Options leave it
	// off; DefaultOptions turns it on, and tools start from there.
	Compress bool
	// Mode is Linear, Append or Circular.
	Mode Mode
	// MaxSize is a circular log's fixed size (required, at least 16 KiB);
	// for a linear log a limit at which WriteSample fails with ErrFull
	// (0: none).
	MaxSize int64
	// Rollover starts new files at a size or time limit (Linear only).
	Rollover Rollover
}

// DefaultOptions are the options a tool starts from: compression on, a
// linear log.
func DefaultOptions() Options { return Options{Compress: true} }

// ErrFull is returned by WriteSample and WriteGap when a linear log with a
// MaxSize has no room for the record.
var ErrFull = errors.New("the log has reached its maximum size")

// Epoch lengths (FORMAT.md, "Epochs").
const (
	linearEpoch = 16 << 20
	minCircular = 16 << 10
)

// INFO causes.
const (
	causeCreated  = 0
	causeAppended = 1
	causeEpoch    = 2
	causeRollover = 3
)

// Writer writes a log. It is not safe for concurrent use.
type Writer struct {
	opts      Options
	base      string // the path given to Create
	path      string // the current file
	f         *os.File
	hdr       fileHeader
	pos       int64 // where the next record goes
	seq       uint64
	enc       *encoder // the epoch's encoder
	defs      []newDef // the definitions the sample coded last introduced
	titled    map[uint32]bool
	epochLen  int64
	info      bool // an INFO record is due before the next record
	cause     uint64
	perfFreq  int64
	zoneName  string
	rule      string // the zone's POSIX rule for ruleYear (zoneRule)
	ruleYear  int    // 0 before the first
	iana      string
	zenc      *zstd.Encoder
	zdict     *zstd.Encoder // for samples with the previous one as dictionary; never without one
	prev      []byte        // the epoch's last SAMPLE payload, the next one's dictionary
	prevSeq   uint64
	hasPrev   bool
	wrote     bool // a record was written to the current file
	samples   int  // samples in the current file
	fileNo    int
	fileStart time.Time
	names     map[string]bool
	broken    error
	out, pl   []byte
	zbuf      []byte
	zpad      []byte // zbuf padded (frameRecord)
}

// Create opens a log for writing in opts.Mode (see Mode). For a rollover
// series, path is the base name (NAME.ext) and the files are named by
// RolloverName.
func Create(path string, opts Options) (*Writer, error) {
	if opts.Location == nil {
		opts.Location = time.Local
	}
	w := &Writer{opts: opts, base: path, titled: make(map[uint32]bool), names: make(map[string]bool)}
	w.zoneName, w.iana = zoneNames(opts.Location)
	if opts.Compress {
		z, err := zstd.NewWriter(nil, zstdOptions()...)
		if err != nil {
			return nil, err
		}
		w.zenc = z
	}
	switch opts.Mode {
	case Linear:
		if opts.Rollover.Enabled() {
			w.fileNo = opts.Rollover.First
			if w.fileNo == 0 {
				w.fileNo = 1
			}
			if opts.Rollover.Names == DatedNames {
				// The first file is named after its first sample.
				return w, nil
			}
			if err := w.createFile(RolloverName(path, w.fileNo, time.Time{}, NumberedNames), causeCreated); err != nil {
				return nil, err
			}
			return w, nil
		}
		if err := w.createFile(path, causeCreated); err != nil {
			return nil, err
		}
	case Circular:
		if opts.MaxSize < minCircular {
			return nil, fmt.Errorf("%s: a circular log needs a maximum size of at least %d bytes, not %d", path, minCircular, opts.MaxSize)
		}
		if opts.Rollover.Enabled() {
			return nil, fmt.Errorf("%s: a circular log cannot roll over to new files", path)
		}
		if err := w.createFile(path, causeCreated); err != nil {
			return nil, err
		}
	case Append:
		if opts.Rollover.Enabled() {
			return nil, fmt.Errorf("%s: appending and rollover cannot be combined", path)
		}
		if err := w.openAppend(path); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s: unknown log mode %d", path, opts.Mode)
	}
	return w, nil
}

// createFile creates (truncating) the file at path with a new header.
func (w *Writer) createFile(path string, cause uint64) error {
	f, err := openLocked(path)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return err
	}
	h := fileHeader{version: Version, length: headerLen, created: stamp(time.Now())}
	if w.opts.Compress {
		h.incompat |= featZstd
	}
	if w.opts.Mode == Circular {
		h.incompat |= featCircular
		h.maxSize = uint64(w.opts.MaxSize)
	}
	h.circular, h.zstd = h.incompat&featCircular != 0, h.incompat&featZstd != 0
	if _, err := f.WriteAt(encodeHeader(h), 0); err != nil {
		f.Close()
		return err
	}
	w.f, w.path, w.hdr, w.pos, w.seq = f, path, h, headerLen, 0
	w.wrote, w.samples = false, 0
	w.names[path] = true
	w.newEpoch(cause)
	return nil
}

// openLocked opens (creating) the file at path for writing and takes its
// exclusive lock, without truncating it first: a second writer of the same
// log is refused before it can damage the first one's file. A new log is
// private to its user (mode 0600); a symbolic link is never followed,
// so nobody can point a writer (root's collector, say) at another file.
func openLocked(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: logs are not written through links", path)
	}
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: another writer has the log open", path)
		}
		return nil, fmt.Errorf("%s: lock: %w", path, err)
	}
	return f, nil
}

// openAppend opens an existing log to append to it.
func (w *Writer) openAppend(path string) error {
	f, err := openLocked(path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if fi.Size() < headerLen {
		// Empty, or cut inside the header by a crash while it was
		// created: nothing to keep, start the log anew. Anything else
		// short is not a log and is left alone.
		b := make([]byte, fi.Size())
		_, err := io.ReadFull(f, b)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !bytes.HasPrefix(magic[:], b[:min(len(b), len(magic))]) {
			return fmt.Errorf("%s: %w", path, errNotLog)
		}
		return w.createFile(path, causeCreated)
	}
	sc, err := scan(f, fi.Size(), path)
	if err != nil {
		f.Close()
		return err
	}
	w.f, w.path, w.hdr = f, path, sc.hdr
	w.pos, w.seq = int64(sc.hdr.length), 0
	if last := sc.newest(); last != nil {
		w.pos, w.seq = last.end(), last.seq+1
	}
	if !sc.hdr.circular && w.pos < fi.Size() {
		if err := f.Truncate(w.pos); err != nil {
			f.Close()
			return fmt.Errorf("%s: cutting the torn tail at byte %d: %w", path, w.pos, err)
		}
	}
	if !sc.hdr.zstd {
		w.zenc = nil // the file says records are not compressed
	}
	if sc.hdr.circular {
		w.opts.MaxSize = int64(sc.hdr.maxSize)
	}
	w.wrote = true
	w.names[path] = true
	w.newEpoch(causeAppended)
	return nil
}

// newEpoch resets the coding state: the next record starts an epoch.
func (w *Writer) newEpoch(cause uint64) {
	w.enc = newEncoder()
	w.hasPrev = false
	clear(w.titled)
	w.info, w.cause, w.epochLen = true, cause, 0
}

// Size returns the length of the current file's records: a linear log's
// file size.
func (w *Writer) Size() int64 {
	if w.f == nil {
		return 0
	}
	return w.pos
}

// Path returns the file being written (in a rollover series, the current
// one; "" before a dated series' first sample).
func (w *Writer) Path() string { return w.path }

// WriteSample appends a sample: its blocks byte for byte, its time, its
// gap mark and its problems.
func (w *Writer) WriteSample(s *pdh.Sample) error {
	if w.broken != nil {
		return w.broken
	}
	if len(s.Blocks) > 0 {
		_, w.perfFreq, _ = s.Blocks[0].Clocks() // not the whole header: this is per sample
		if w.opts.Host == "" {
			w.opts.Host = s.Blocks[0].Header().SystemName
		}
	}
	if ro := w.opts.Rollover; ro.Enabled() && w.opts.Mode == Linear {
		if w.f == nil || (ro.Interval > 0 && w.samples > 0 && !s.Time.Before(w.fileStart.Add(ro.Interval))) {
			if err := w.roll(s.Time); err != nil {
				return err
			}
		}
	}
	return w.place(func() ([]byte, int, error) { return w.composeSample(s) }, s.Time, true)
}

// WriteGap marks that collection stopped and started again at t: the
// reader marks the next sample as following a gap.
func (w *Writer) WriteGap(t time.Time, reason string) error {
	if w.broken != nil {
		return w.broken
	}
	if w.opts.Rollover.Enabled() && w.f == nil {
		if err := w.roll(t); err != nil {
			return err
		}
	}
	return w.place(func() ([]byte, int, error) {
		out, seq, err := w.appendInfo(w.out[:0], w.seq, t)
		if err == nil {
			out, err = w.appendRecord(out, KindGap, seq, stamp(t), appendString(nil, reason), 0)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: gap at %s: %w", w.path, t.UTC().Format(time.RFC3339Nano), err)
		}
		w.out = out
		return out, int(seq-w.seq) + 1, nil
	}, t, false)
}

// place composes records and writes them where they belong, starting a
// new epoch, lap or file as needed.
func (w *Writer) place(compose func() ([]byte, int, error), t time.Time, sample bool) error {
	circ := w.hdr.circular
	ring := int64(w.hdr.maxSize) - int64(w.hdr.length)
	if (circ && w.epochLen > ring/4) || (!circ && w.epochLen > linearEpoch) {
		w.newEpoch(causeEpoch)
	}
	recs, n, err := compose()
	if err != nil {
		w.newEpoch(causeEpoch)
		return err
	}
	size := int64(len(recs))
	switch {
	case circ:
		tooBig := func() error {
			w.newEpoch(causeEpoch)
			return fmt.Errorf("%s: a record of %d bytes does not fit the circular log of %d bytes (a record, with the definitions it needs, must fit in half of its ring)", w.path, size, w.hdr.maxSize)
		}
		if size > ring/2 {
			return tooBig()
		}
		if w.pos+size > int64(w.hdr.maxSize) {
			if err := w.wrap(); err != nil {
				return err
			}
			if recs, n, err = compose(); err != nil {
				w.newEpoch(causeEpoch)
				return err
			}
			if size = int64(len(recs)); size > ring/2 {
				return tooBig()
			}
		}
	case w.opts.Rollover.Size > 0 && w.samples > 0 && w.pos+size > w.opts.Rollover.Size:
		if err := w.roll(t); err != nil {
			return err
		}
		if recs, n, err = compose(); err != nil {
			w.newEpoch(causeEpoch)
			return err
		}
		size = int64(len(recs))
	case w.opts.MaxSize > 0 && !w.opts.Rollover.Enabled() && w.pos+size > w.opts.MaxSize:
		w.newEpoch(causeEpoch)
		return fmt.Errorf("%s: %w (%d bytes)", w.path, ErrFull, w.opts.MaxSize)
	}
	// The sample's records (with the INFO, TITLES and DEFS before it)
	// are one write: a writer killed at any moment leaves whole records
	// and at most one torn write at the end, which readers drop.
	if _, err := w.f.WriteAt(recs, w.pos); err != nil {
		w.cut(w.pos)
		w.broken = fmt.Errorf("%s: writing at byte %d: %w (the log ends at its last whole record)", w.path, w.pos, err)
		return w.broken
	}
	w.pos += size
	w.seq += uint64(n)
	w.epochLen += size
	w.info = false
	w.wrote = true
	if sample {
		if w.samples == 0 {
			w.fileStart = t
		}
		w.samples++
	}
	return nil
}

// wrap ends the lap of a circular log and starts the next at the ring's
// start, with a new epoch.
func (w *Writer) wrap() error {
	rest := int64(w.hdr.maxSize) - w.pos
	var b []byte
	if rest >= minRecord {
		body := int(rest) - minRecord
		b = appendFrame(make([]byte, 0, rest), KindWrap, 0, w.seq, noTime, make([]byte, body))
		if int64(len(b)) != rest {
			return fmt.Errorf("%s: wrap record of %d bytes for %d", w.path, len(b), rest)
		}
	} else {
		b = make([]byte, rest)
	}
	if _, err := w.f.WriteAt(b, w.pos); err != nil {
		w.broken = fmt.Errorf("%s: writing the wrap at byte %d: %w", w.path, w.pos, err)
		return w.broken
	}
	if rest >= minRecord {
		w.seq++
	}
	w.pos = int64(w.hdr.length)
	w.newEpoch(causeEpoch)
	return nil
}

// cut truncates a linear log's file after pos when a write there failed
// part way (a full disk), so that the file ends with its last whole record.
func (w *Writer) cut(pos int64) {
	if w.hdr.circular {
		return // a failed write inside the ring: what follows are older records
	}
	if fi, err := w.f.Stat(); err == nil && fi.Size() > pos {
		w.f.Truncate(pos)
	}
}

// roll closes the current file and starts the next of the series.
func (w *Writer) roll(t time.Time) error {
	if w.f != nil {
		if err := w.closeFile(); err != nil {
			return err
		}
		w.fileNo++
	}
	name := RolloverName(w.base, w.fileNo, t.In(w.opts.Location), w.opts.Rollover.Names)
	if w.opts.Rollover.Names == DatedNames {
		ext := filepath.Ext(name)
		stem := strings.TrimSuffix(name, ext)
		for i := 2; w.names[name]; i++ {
			name = stem + "_" + strconv.Itoa(i) + ext
		}
	}
	cause := uint64(causeRollover)
	if len(w.names) == 0 {
		cause = causeCreated
	}
	return w.createFile(name, cause)
}

// composeSample returns the records of a sample (an INFO, TITLES and DEFS
// first where due) and how many there are.
func (w *Writer) composeSample(s *pdh.Sample) ([]byte, int, error) {
	pl, defs, err := w.encode(s)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: sample at %s: %w", w.path, s.Time.UTC().Format(time.RFC3339Nano), err)
	}
	fail := func(err error) ([]byte, int, error) {
		return nil, 0, fmt.Errorf("%s: sample at %s: %w", w.path, s.Time.UTC().Format(time.RFC3339Nano), err)
	}
	out, seq, err := w.appendInfo(w.out[:0], w.seq, s.Time)
	if err != nil {
		return fail(err)
	}
	if len(defs) > 0 {
		if tp := w.titlesPayload(defs); tp != nil {
			if out, err = w.appendRecord(out, KindTitles, seq, noTime, tp, 0); err != nil {
				return fail(err)
			}
			seq++
		}
		var dp []byte
		dp = binary.AppendUvarint(dp, uint64(len(defs)))
		for _, d := range defs {
			dp = binary.AppendUvarint(dp, d.id)
			dp = appendBytes(dp, d.def)
		}
		if out, err = w.appendRecord(out, KindDefs, seq, noTime, dp, 0); err != nil {
			return fail(err)
		}
		seq++
	}
	if out, err = w.appendRecord(out, KindSample, seq, stamp(s.Time), pl, int64(w.enc.last)); err != nil {
		return fail(err)
	}
	seq++
	w.out = out
	return out, int(seq - w.seq), nil
}

// encode returns the SAMPLE payload of s and the definitions it
// introduces, coded by the epoch's encoder: a log's bytes depend only on
// the samples it is given.
func (w *Writer) encode(s *pdh.Sample) ([]byte, []newDef, error) {
	pl, err := w.enc.encodeSample(w.pl[:0], s)
	if err != nil {
		return nil, nil, err
	}
	w.pl = pl
	w.defs = w.enc.appendNewDefs(w.defs[:0])
	return pl, w.defs, nil
}

// titlesPayload lists the names and help texts of the indexes of defs
// not yet written in the epoch; nil when there are none.
func (w *Writer) titlesPayload(defs []newDef) []byte {
	db := w.opts.Titles
	if db == nil {
		return nil
	}
	var body []byte
	n := 0
	for _, d := range defs {
		for _, ih := range defIndexes(d.def) {
			idx, help := ih[0], ih[1]
			if w.titled[idx] {
				continue
			}
			name := db.Name(idx)
			if name == "" {
				continue
			}
			w.titled[idx] = true
			body = binary.AppendUvarint(body, uint64(idx))
			body = appendString(body, name)
			body = binary.AppendUvarint(body, uint64(help))
			body = appendString(body, db.Help(help))
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return append(binary.AppendUvarint(nil, uint64(n)), body...)
}

// appendInfo appends the INFO record when one is due.
func (w *Writer) appendInfo(out []byte, seq uint64, t time.Time) ([]byte, uint64, error) {
	if !w.info {
		return out, seq, nil
	}
	at := t
	if at.IsZero() {
		at = time.Now()
	}
	_, off := at.In(w.opts.Location).Zone()
	if off < -maxUTCOffset || off > maxUTCOffset {
		return nil, 0, fmt.Errorf("time zone %q is %d seconds from UTC at %s: a log's zone is at most %d seconds either way (FORMAT.md, Limits)",
			w.opts.Location, off, at.UTC().Format(time.RFC3339), maxUTCOffset)
	}
	var b []byte
	b = appendString(b, w.opts.Host)
	b = appendString(b, w.zoneName)
	b = appendString(b, w.iana)
	b = binary.AppendVarint(b, int64(off))
	b = binary.AppendVarint(b, w.perfFreq)
	if w.opts.Counters == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(w.opts.Counters)))
		for _, c := range w.opts.Counters {
			b = appendString(b, c)
		}
	}
	b = appendString(b, "perfc binlog")
	b = binary.AppendUvarint(b, w.cause)
	b = appendString(b, w.zoneRule(at))
	out, err := w.appendRecord(out, KindInfo, seq, stamp(at), b, 0)
	return out, seq + 1, err
}

// zoneRule is the INFO record's zone rule for a record written at t: ""
// when the zone has an IANA name (which carries its rules), else the
// POSIX TZ rule of the zone's year at t (wintz.Rule), so that a zone
// known only by its rules (a BLG's, a text log's) reads back with its
// daylight-saving changes and names. It is derived once a year.
func (w *Writer) zoneRule(t time.Time) string {
	if w.iana != "" {
		return ""
	}
	if w.opts.Rule != "" {
		return w.opts.Rule
	}
	y := t.In(w.opts.Location).Year()
	if w.ruleYear != y {
		w.rule, _ = wintz.Rule(w.opts.Location, y)
		w.ruleYear = y
	}
	return w.rule
}

// appendRecord frames a payload, compressed when the log compresses and
// that makes it shorter. A SAMPLE payload is compressed with the epoch's
// previous SAMPLE payload as its dictionary (flagPrevDict): consecutive
// samples repeat most of their delta-encoded bytes, which per-record
// compression alone cannot see. rebuilt is what the record rebuilds (a
// SAMPLE's blocks, else 0), so that the record is long enough for what
// it makes a reader produce (recordAllowance).
func (w *Writer) appendRecord(out []byte, kind Kind, seq uint64, t int64, pl []byte, rebuilt int64) ([]byte, error) {
	rec, stored, err := w.frameRecord(out, kind, seq, t, pl, rebuilt)
	if err != nil {
		return nil, err
	}
	if kind == KindSample {
		w.prev, w.prevSeq, w.hasPrev = append(w.prev[:0], stored...), seq, true
	}
	return rec, nil
}

// frameRecord appends the record of payload pl and returns the payload
// as a reader reads it (padded when the record is stored as it is). It
// keeps to the limits a reader applies (limits.go): a payload or record
// longer than a reader takes is refused; a record shorter than what it
// makes a reader produce allows is padded (a compressed body with a
// skippable frame before its Zstandard frame, a plain payload with zeros
// at its end).
func (w *Writer) frameRecord(out []byte, kind Kind, seq uint64, t int64, pl []byte, rebuilt int64) ([]byte, []byte, error) {
	if len(pl) > maxPayload {
		return nil, nil, fmt.Errorf("a %s payload of %d bytes: longer than a reader takes (%d bytes: FORMAT.md, Limits)", kind, len(pl), maxPayload)
	}
	if w.zenc != nil && len(pl) >= 64 {
		if z, flags, ok := w.compress(kind, pl); ok {
			if need := recordNeed(int64(len(pl)) + rebuilt); int64(frameLen(len(z))) < need {
				body := max(int64(len(z))+skipHdrLen, need-minRecord)
				if body > maxRecord {
					return nil, nil, errTooLong(kind, body)
				}
				k := uvarintLen(uint64(len(pl)))
				padded := append(w.zpad[:0], z[:k]...)
				padded = appendSkippable(padded, int(body)-len(z))
				padded = append(padded, z[k:]...)
				w.zpad, z = padded, padded
			}
			if frameLen(len(z)) > maxRecord {
				return nil, nil, errTooLong(kind, int64(len(z)))
			}
			return appendFrame(out, kind, flags, seq, t, z), pl, nil
		}
	}
	if need := recordNeed(rebuilt); int64(frameLen(len(pl))) < need {
		pl = append(pl, make([]byte, need-minRecord-int64(len(pl)))...)
	}
	if frameLen(len(pl)) > maxRecord {
		return nil, nil, errTooLong(kind, int64(len(pl)))
	}
	return appendFrame(out, kind, 0, seq, t, pl), pl, nil
}

func errTooLong(kind Kind, body int64) error {
	return fmt.Errorf("a %s record with a body of %d bytes: longer than a reader takes (%d bytes: FORMAT.md, Limits)", kind, body, maxRecord)
}

func uvarintLen(x uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], x)
}

// compress returns the compressed body of pl (its length, then the
// Zstandard frame) and the record's flags; ok is false when compressing
// does not make it shorter or the body would claim more than a reader
// allows for its length (claimFits).
func (w *Writer) compress(kind Kind, pl []byte) (z []byte, flags uint8, ok bool) {
	flags = flagCompressed
	var dict []byte
	var dictID uint32
	if kind == KindSample && w.hasPrev && len(w.prev) >= minPrevDict {
		dict, dictID = w.prev, prevDictID(w.prevSeq)
	}
	z = binary.AppendUvarint(w.zbuf[:0], uint64(len(pl)))
	enc, used := w.zenc, false
	if dictID != 0 {
		// A second encoder that always holds a dictionary: one encoder
		// switching between dictionary and none is rebuilt each time.
		opt := zstd.WithEncoderDictRaw(dictID, dict)
		var err error
		if w.zdict == nil {
			w.zdict, err = zstd.NewWriter(nil, append(zstdOptions(), opt)...)
		} else {
			err = w.zdict.ResetWithOptions(nil, opt)
		}
		if err == nil {
			enc, used = w.zdict, true
		}
	}
	z = enc.EncodeAll(pl, z)
	if used {
		flags |= flagPrevDict
	}
	w.zbuf = z
	return z, flags, len(z) < len(pl) && claimFits(uint64(len(pl)), uint64(len(z)))
}

// zstdWindow is the writers' Zstandard window: the farthest back a match
// may reach, and what the encoder's history is sized by (the window and a
// 128 KiB block). A sample's payload and its dictionary (the previous
// payload) are rarely over a few hundred KiB together (600 processes and
// 600 threads: 100 KiB for the first sample, coded whole, then 12 KiB),
// so the default 8 MiB window bought nothing but 16 MiB of history a
// writer (32 with the dictionary encoder), and a garbage collector that
// let the heap grow to match.
const zstdWindow = 512 << 10

// zstdOptions are the options of a writer's Zstandard encoders: one
// goroutine, no checksum (each record has its CRC-32C), zstdWindow, and
// the fastest level. The default level's tables (about 1 MiB an encoder,
// as much again for a dictionary's) made 9 MiB of a collector set's 13 MiB
// heap at 600 processes; the fastest level's records of the same samples
// are 1-2 % larger (12 samples of every Process and Thread counter, and of
// the system objects).
func zstdOptions() []zstd.EOption {
	return []zstd.EOption{zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithWindowSize(zstdWindow),
		zstd.WithLowerEncoderMem(true), zstd.WithEncoderLevel(zstd.SpeedFastest)}
}

// Sync flushes the file to stable storage.
func (w *Writer) Sync() error {
	if w.f == nil {
		return nil
	}
	return w.f.Sync()
}

func (w *Writer) closeFile() error {
	if !w.wrote && w.broken == nil {
		// An empty log still says who wrote it.
		if err := w.place(func() ([]byte, int, error) {
			out, seq, err := w.appendInfo(w.out[:0], w.seq, time.Time{})
			if err != nil {
				return nil, 0, fmt.Errorf("%s: %w", w.path, err)
			}
			return out, int(seq - w.seq), nil
		}, time.Time{}, false); err != nil {
			w.f.Close()
			w.f = nil
			return err
		}
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return fmt.Errorf("%s: %w", w.path, err)
	}
	return nil
}

// Close finishes the log and closes its file.
func (w *Writer) Close() error {
	if w.zenc != nil {
		w.zenc.Close()
	}
	if w.zdict != nil {
		w.zdict.Close()
	}
	if w.f == nil {
		return nil
	}
	return w.closeFile()
}

// RolloverName is the name of file n (NumberedNames) or of the file
// started at t (DatedNames, t in the log's time zone) of a rollover series
// with base name base (NAME.ext): NAME_000001.ext or NAME_MMddHHmm.ext, as
// Windows names them for -v nnnnnn and -v mmddhhmm.
func RolloverName(base string, n int, t time.Time, style NameStyle) string {
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if style == DatedNames {
		return stem + "_" + t.Format("01021504") + ext
	}
	return fmt.Sprintf("%s_%06d%s", stem, n, ext)
}

// zoneNames returns the INFO record's zone name and IANA name of loc:
// both its IANA name when it has one (wintz's one decision, so that TZ
// given as a name, as ":name", as a path into zoneinfo or a link to one,
// or left to /etc/localtime records "Europe/Paris", the zone the text
// logs name), else loc's own name ("Local", a fixed zone's abbreviation)
// and "".
func zoneNames(loc *time.Location) (name, iana string) {
	if iana = wintz.IANAName(loc); iana != "" {
		return iana, iana
	}
	return loc.String(), ""
}

var _ io.Closer = (*Writer)(nil)
