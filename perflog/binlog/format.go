package binlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"time"
)

// Format constants (FORMAT.md).
const (
	// Version is the format version this package writes; it reads every
	// version up to it.
	Version = 2

	headerLen    = 64 // file header length in version 1
	frameHdrLen  = 32 // record header
	frameTailLen = 8  // trailing length and CRC
	minRecord    = frameHdrLen + frameTailLen
	noTime       = math.MinInt64
	syncMark     = 0x4352 // "RC" little-endian

	// Incompatible feature bits.
	featZstd     = 1 << 0
	featCircular = 1 << 1
	knownFeats   = featZstd | featCircular

	flagCompressed = 1 << 0
	// flagPrevDict (version 2): the compressed body of a SAMPLE record
	// was compressed with the previous SAMPLE record's payload of the
	// same epoch as its raw zstd dictionary, whose id is prevDictID of
	// that record's seq.
	flagPrevDict = 1 << 1
	knownFlags   = flagCompressed | flagPrevDict
	// minPrevDict is the smallest previous payload the writer uses as a
	// dictionary: below it, setting the dictionary up costs more CPU than
	// the bytes it saves are worth (on a 174-value system sample it made
	// the write 40 times slower, 0.67 ms against 0.70 ms of collecting).
	minPrevDict = 8 << 10
)

// prevDictID is the zstd dictionary id under which a SAMPLE record's
// payload serves the next one: derived from its seq, never 0.
func prevDictID(seq uint64) uint32 { return uint32(seq%0x7FFF0000) + 0x8000 }

// magic opens every log.
var magic = [8]byte{0x89, 'P', 'L', 'O', 'G', '\r', '\n', 0x1a}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var le = binary.LittleEndian

// Kind is a record's kind.
type Kind uint8

// Record kinds (FORMAT.md, "Kinds").
const (
	KindInfo   Kind = 1 // starts an epoch
	KindTitles Kind = 2 // names and help texts
	KindDefs   Kind = 3 // object definitions
	KindSample Kind = 4 // one sample
	KindGap    Kind = 5 // collection stopped and started again
	KindWrap   Kind = 6 // end of a lap of a circular log
)

// String names the kind as the listing of Dump shows it.
func (k Kind) String() string {
	switch k {
	case KindInfo:
		return "info"
	case KindTitles:
		return "titles"
	case KindDefs:
		return "defs"
	case KindSample:
		return "sample"
	case KindGap:
		return "gap"
	case KindWrap:
		return "wrap"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// fileHeader is the decoded file header.
type fileHeader struct {
	version  uint16
	length   uint16
	incompat uint32
	compat   uint32
	maxSize  uint64
	created  int64
	circular bool
	zstd     bool
}

func encodeHeader(h fileHeader) []byte {
	b := make([]byte, headerLen)
	copy(b, magic[:])
	le.PutUint16(b[8:], Version)
	le.PutUint16(b[10:], headerLen)
	le.PutUint32(b[12:], h.incompat)
	le.PutUint32(b[16:], h.compat)
	le.PutUint64(b[24:], h.maxSize)
	le.PutUint64(b[32:], uint64(h.created))
	le.PutUint32(b[60:], crc32.Checksum(b[:60], castagnoli))
	return b
}

// errNotLog says a file is not one of our logs (its magic is wrong).
var errNotLog = errors.New("not a perfcounters binary log (.plog): the file does not start with its magic bytes")

func decodeHeader(b []byte, size int64) (fileHeader, error) {
	var h fileHeader
	if len(b) < 8 || [8]byte(b[:8]) != magic {
		return h, errNotLog
	}
	if len(b) < 16 {
		return h, fmt.Errorf("file header: %d bytes, it needs at least 64", size)
	}
	h.version = le.Uint16(b[8:])
	h.length = le.Uint16(b[10:])
	if h.version == 0 || h.version > Version {
		return h, fmt.Errorf("file header: version %d: this reader knows versions 1 to %d (the log was written by a newer program)", h.version, Version)
	}
	switch h.version {
	case 1, 2: // version 2 adds a record flag (flagPrevDict), not header fields
		if h.length < headerLen || h.length%8 != 0 {
			return h, fmt.Errorf("file header: header length %d: version %d needs a multiple of 8, at least %d", h.length, h.version, headerLen)
		}
		if len(b) < headerLen {
			return h, fmt.Errorf("file header: %d bytes, it needs %d", size, headerLen)
		}
		if got, want := crc32.Checksum(b[:60], castagnoli), le.Uint32(b[60:]); got != want {
			return h, fmt.Errorf("file header: checksum 0x%08x, the header's bytes give 0x%08x (the header is damaged)", want, got)
		}
		h.incompat = le.Uint32(b[12:])
		h.compat = le.Uint32(b[16:])
		h.maxSize = le.Uint64(b[24:])
		h.created = int64(le.Uint64(b[32:]))
	}
	if u := h.incompat &^ knownFeats; u != 0 {
		return h, fmt.Errorf("file header: incompatible features 0x%x: this reader does not know 0x%x", h.incompat, u)
	}
	h.circular = h.incompat&featCircular != 0
	h.zstd = h.incompat&featZstd != 0
	if h.circular {
		if h.maxSize < uint64(h.length)+minRecord || h.maxSize > 1<<62 {
			return h, fmt.Errorf("file header: circular log with MaxSize %d (it needs room for a record after the %d-byte header)", h.maxSize, h.length)
		}
	}
	return h, nil
}

// frame is a record's header as found in a file.
type frame struct {
	off     int64 // where the record starts
	length  uint32
	kind    Kind
	flags   uint8
	seq     uint64
	time    int64
	bodyLen uint32
}

func (f *frame) end() int64 { return f.off + int64(f.length) }

// parseFrameHeader checks the 32-byte record header in b (sync, header CRC
// and the lengths) without the body.
func parseFrameHeader(b []byte, off int64) (frame, bool) {
	if len(b) < frameHdrLen || le.Uint16(b[6:]) != syncMark {
		return frame{}, false
	}
	if crc32.Checksum(b[:28], castagnoli) != le.Uint32(b[28:]) {
		return frame{}, false
	}
	f := frame{
		off: off, length: le.Uint32(b[0:]), kind: Kind(b[4]), flags: b[5],
		seq: le.Uint64(b[8:]), time: int64(le.Uint64(b[16:])), bodyLen: le.Uint32(b[24:]),
	}
	if f.length < minRecord || f.length%8 != 0 || f.length > maxRecord {
		return frame{}, false
	}
	padded := uint64(frameHdrLen) + uint64(f.bodyLen) + frameTailLen
	if padded > uint64(f.length) || uint64(f.length)-padded >= 8 {
		return frame{}, false
	}
	return f, true
}

// checkFrameTail checks the trailing length and CRC of a whole record in b
// (b holds exactly the record).
func checkFrameTail(b []byte) bool {
	n := len(b)
	if le.Uint32(b[n-8:]) != uint32(n) {
		return false
	}
	return crc32.Checksum(b[:n-8], castagnoli) == le.Uint32(b[n-4:])
}

// appendFrame appends a record holding body to dst.
func appendFrame(dst []byte, kind Kind, flags uint8, seq uint64, t int64, body []byte) []byte {
	n := frameLen(len(body))
	start := len(dst)
	dst = append(dst, make([]byte, frameHdrLen)...)
	h := dst[start:]
	le.PutUint32(h[0:], uint32(n))
	h[4] = byte(kind)
	h[5] = flags
	le.PutUint16(h[6:], syncMark)
	le.PutUint64(h[8:], seq)
	le.PutUint64(h[16:], uint64(t))
	le.PutUint32(h[24:], uint32(len(body)))
	le.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
	dst = append(dst, body...)
	for (len(dst)-start)%8 != 0 {
		dst = append(dst, 0)
	}
	sum := crc32.Checksum(dst[start:], castagnoli)
	dst = le.AppendUint32(dst, uint32(n))
	return le.AppendUint32(dst, sum)
}

// frameLen is the length of a record with a body of n bytes.
func frameLen(n int) int { return (frameHdrLen+n+7)&^7 + frameTailLen }

// fileTimeEpoch is the number of seconds from 1601-01-01 (FILETIME's
// epoch) to 1970-01-01 UTC.
const fileTimeEpoch = 11644473600

// stamp is a time as stored: a FILETIME (100-ns intervals since 1601,
// UTC), truncated to 100 ns and clamped to what an int64 holds (noTime + 1
// and below are clamped to noTime + 1; the low end is kept to the second);
// the zero time is noTime.
func stamp(t time.Time) int64 {
	if t.IsZero() {
		return noTime
	}
	const (
		maxSec  = math.MaxInt64 / 10_000_000 // seconds since 1601 of the last FILETIME
		maxTick = math.MaxInt64 % 10_000_000
		minSec  = math.MinInt64 / 10_000_000
	)
	sec := t.Unix() + fileTimeEpoch
	tick := int64(t.Nanosecond() / 100)
	switch {
	case t.Unix() > math.MaxInt64-fileTimeEpoch || sec > maxSec || sec == maxSec && tick > maxTick:
		return math.MaxInt64
	case sec < minSec:
		return noTime + 1
	}
	return sec*1e7 + tick
}

// timeOf is a stored time as a UTC time.
func timeOf(ft int64) time.Time {
	if ft == noTime {
		return time.Time{}
	}
	sec, rem := ft/1e7, ft%1e7
	if rem < 0 {
		sec, rem = sec-1, rem+1e7
	}
	return time.Unix(sec-fileTimeEpoch, rem*100).UTC()
}

// payload reads the fields of a record's payload, remembering the first
// error with the field it was reading.
type payload struct {
	b   []byte
	pos int
	err error
}

// fieldError is a malformed payload field: which, at which payload offset.
type fieldError struct {
	field string
	at    int
	what  string
}

func (e *fieldError) Error() string {
	return fmt.Sprintf("%s at payload offset %d: %s", e.field, e.at, e.what)
}

func (p *payload) fail(field, what string) {
	if p.err == nil {
		p.err = &fieldError{field: field, at: p.pos, what: what}
	}
	p.pos = len(p.b)
}

func (p *payload) left() int { return len(p.b) - p.pos }

func (p *payload) uvarint(field string) uint64 {
	if p.err != nil {
		return 0
	}
	v, n := binary.Uvarint(p.b[p.pos:])
	if n <= 0 {
		p.fail(field, "bad or missing varint")
		return 0
	}
	p.pos += n
	return v
}

func (p *payload) svarint(field string) int64 {
	if p.err != nil {
		return 0
	}
	v, n := binary.Varint(p.b[p.pos:])
	if n <= 0 {
		p.fail(field, "bad or missing varint")
		return 0
	}
	p.pos += n
	return v
}

// count reads a count of items each at least min bytes long, checked
// against what is left of the payload.
func (p *payload) count(field string, min int) int {
	v := p.uvarint(field)
	if p.err != nil {
		return 0
	}
	if min < 1 {
		min = 1
	}
	if v > uint64(p.left()/min) {
		p.fail(field, fmt.Sprintf("count %d exceeds what the remaining %d bytes can hold", v, p.left()))
		return 0
	}
	return int(v)
}

func (p *payload) bytes(field string) []byte {
	n := p.uvarint(field)
	if p.err != nil {
		return nil
	}
	if n > uint64(p.left()) {
		p.fail(field, fmt.Sprintf("length %d exceeds the remaining %d bytes", n, p.left()))
		return nil
	}
	b := p.b[p.pos : p.pos+int(n)]
	p.pos += int(n)
	return b
}

func (p *payload) str(field string) string { return string(p.bytes(field)) }

func (p *payload) u8(field string) uint8 {
	if p.err != nil {
		return 0
	}
	if p.left() < 1 {
		p.fail(field, "missing")
		return 0
	}
	v := p.b[p.pos]
	p.pos++
	return v
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}
