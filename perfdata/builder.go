package perfdata

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf16"

	"github.com/perfcounters/perfcounters/utf16le"
)

// Builder writes a PERF_DATA_BLOCK into a reusable byte slice, the way
// Windows lays one out: header, system name padded to 8, then objects, each
// with its definitions and either one counter block or its instances. After
// the first collections have grown the buffer, building allocates nothing:
// names are encoded straight into the buffer and values are written in place.
//
// A Builder is not safe for concurrent use.
type Builder struct {
	buf       []byte
	committed int    // end of the last finished object
	numObj    uint32 // finished objects

	// the object being built
	open     bool
	objStart int
	layout   *Layout
	single   bool
	singleAt int // offset of the single counter block, 0 = not yet written
	codePage uint32
	numInst  int
	err      error
}

// NewBuilder returns a Builder that reuses buf's capacity. Call Reset
// before building.
func NewBuilder(buf []byte) *Builder {
	return &Builder{buf: buf[:0]}
}

// Reset starts a new block: it writes the PERF_DATA_BLOCK header and the
// system name. LittleEndian, Version and Revision are always written as 1;
// the lengths and the object count are patched by Bytes. Previously returned
// slices become invalid.
func (b *Builder) Reset(h Header) {
	b.buf = b.buf[:0]
	nameBytes := utf16le.EncodedLen(h.SystemName) + 2
	hl := align8(DataBlockSize + nameBytes)
	b.buf = grow(b.buf, hl)
	p := b.buf
	copy(p[hSignature:], signature[:])
	le.PutUint32(p[hLittleEndian:], 1)
	le.PutUint32(p[hVersion:], 1)
	le.PutUint32(p[hRevision:], 1)
	le.PutUint32(p[hTotalByteLength:], uint32(hl))
	le.PutUint32(p[hHeaderLength:], uint32(hl))
	le.PutUint32(p[hNumObjectTypes:], 0)
	le.PutUint32(p[hDefaultObject:], uint32(h.DefaultObject))
	putSystemTime(p[hSystemTime:], h.SystemTime)
	le.PutUint64(p[hPerfTime:], uint64(h.PerfTime))
	le.PutUint64(p[hPerfFreq:], uint64(h.PerfFreq))
	le.PutUint64(p[hPerfTime100nSec:], uint64(h.PerfTime100nSec))
	le.PutUint32(p[hSystemNameLength:], uint32(nameBytes))
	le.PutUint32(p[hSystemNameOffset:], DataBlockSize)
	utf16le.AppendNUL(p[:DataBlockSize], h.SystemName) // writes in place: capacity is there
	b.committed = hl
	b.numObj = 0
	b.open = false
	b.err = nil
}

// grow extends p by n zero bytes.
func grow(p []byte, n int) []byte {
	l := len(p)
	p = slices.Grow(p, n)[:l+n]
	clear(p[l:])
	return p
}

// BeginObject starts an object: it writes PERF_OBJECT_TYPE and the counter
// definitions, with CounterOffset and CounterSize taken from l, which must
// be the layout of counters.
func (b *Builder) BeginObject(o ObjectSpec, l *Layout, counters []CounterSpec) error {
	if b.open {
		return errors.New("perfdata: BeginObject: previous object not ended")
	}
	if len(b.buf) < DataBlockSize {
		return errors.New("perfdata: BeginObject before Reset")
	}
	if l == nil || l.Len() != len(counters) {
		return fmt.Errorf("perfdata: BeginObject: layout does not match %d counters", len(counters))
	}
	start := len(b.buf)
	defLen := ObjectTypeSize + CounterDefSize*len(counters)
	b.buf = grow(b.buf, defLen)
	p := b.buf[start:]
	le.PutUint32(p[oDefinitionLength:], uint32(defLen))
	le.PutUint32(p[oHeaderLength:], ObjectTypeSize)
	le.PutUint32(p[oNameTitleIndex:], o.NameIndex)
	le.PutUint32(p[oHelpTitleIndex:], o.HelpIndex)
	le.PutUint32(p[oDetailLevel:], o.DetailLevel)
	le.PutUint32(p[oNumCounters:], uint32(len(counters)))
	le.PutUint32(p[oDefaultCounter:], uint32(o.DefaultCounter))
	le.PutUint32(p[oCodePage:], o.CodePage)
	le.PutUint64(p[oPerfTime:], uint64(o.PerfTime))
	le.PutUint64(p[oPerfFreq:], uint64(o.PerfFreq))
	for i, c := range counters {
		d := p[ObjectTypeSize+CounterDefSize*i:]
		le.PutUint32(d[cByteLength:], CounterDefSize)
		le.PutUint32(d[cNameIndex:], c.NameIndex)
		le.PutUint32(d[cHelpIndex:], c.HelpIndex)
		le.PutUint32(d[cDefaultScale:], uint32(c.DefaultScale))
		le.PutUint32(d[cDetailLevel:], c.DetailLevel)
		le.PutUint32(d[cCounterType:], uint32(c.Type))
		le.PutUint32(d[cCounterSize:], l.slots[i].size)
		le.PutUint32(d[cCounterOffset:], l.slots[i].off)
	}
	b.open = true
	b.objStart = start
	b.layout = l
	b.single = o.Single
	b.singleAt = 0
	b.codePage = o.CodePage
	b.numInst = 0
	b.err = nil
	return nil
}

// block appends one zeroed counter block and returns its Values.
func (b *Builder) block() Values {
	at := len(b.buf)
	n := int(b.layout.dataSize)
	b.buf = grow(b.buf, n)
	le.PutUint32(b.buf[at:], uint32(n))
	return Values{b: b.buf[at : at+n : at+n], l: b.layout}
}

// Instance appends an instance (PERF_INSTANCE_DEFINITION, its name, padding
// to 8) and its zeroed counter block, and returns the block's Values. The
// Values stay valid until the next call that appends to the builder.
// uniqueID is NoUniqueID for instances identified by name. Misuse (no open
// object, a Single object) is reported by EndObject; the Values returned
// then write nowhere.
func (b *Builder) Instance(name string, parentTitleIndex, parentInstance uint32, uniqueID int32) Values {
	if !b.open || b.single {
		if b.err == nil {
			b.err = errors.New("perfdata: Instance on a single-instance object or with no object begun")
		}
		return Values{}
	}
	at := len(b.buf)
	var nameLen int
	if b.codePage == 0 {
		b.buf = utf16le.AppendNUL(grow(b.buf, InstanceDefSize), name)
	} else {
		b.buf = append(append(grow(b.buf, InstanceDefSize), name...), 0)
	}
	nameLen = len(b.buf) - at - InstanceDefSize
	bl := align8(len(b.buf) - at)
	b.buf = grow(b.buf, bl-(len(b.buf)-at))
	p := b.buf[at:]
	le.PutUint32(p[iByteLength:], uint32(bl))
	le.PutUint32(p[iParentTitleIndex:], parentTitleIndex)
	le.PutUint32(p[iParentInstance:], parentInstance)
	le.PutUint32(p[iUniqueID:], uint32(uniqueID))
	le.PutUint32(p[iNameOffset:], InstanceDefSize)
	le.PutUint32(p[iNameLength:], uint32(nameLen))
	b.numInst++
	return b.block()
}

// Single returns the counter block of a Single object, appending it on the
// first call; later calls return the same block.
func (b *Builder) Single() Values {
	if !b.open || !b.single {
		if b.err == nil {
			b.err = errors.New("perfdata: Single on a multi-instance object or with no object begun")
		}
		return Values{}
	}
	if b.singleAt == 0 {
		b.singleAt = len(b.buf)
		return b.block()
	}
	n := int(b.layout.dataSize)
	return Values{b: b.buf[b.singleAt : b.singleAt+n : b.singleAt+n], l: b.layout}
}

// EndObject finishes the object: it patches TotalByteLength and
// NumInstances (-1 for Single objects, whose counter block is added zeroed
// if Single was never called). If the object was misused, it is dropped
// and the error returned.
func (b *Builder) EndObject() error {
	if !b.open {
		return errors.New("perfdata: EndObject with no object begun")
	}
	if b.err != nil {
		err := b.err
		b.AbortObject()
		return err
	}
	if b.single && b.singleAt == 0 {
		b.Single()
	}
	total := len(b.buf) - b.objStart
	if uint64(len(b.buf)) > 0xFFFFFFFF {
		b.AbortObject()
		return fmt.Errorf("perfdata: block exceeds 4 GiB")
	}
	p := b.buf[b.objStart:]
	le.PutUint32(p[oTotalByteLength:], uint32(total))
	n := int32(b.numInst)
	blocks := uint64(b.numInst)
	if b.single {
		n, blocks = NoInstances, 1
	}
	// Parse's bound on values per byte: only counters without bytes of
	// their own (PERF_SIZE_ZERO types) in many instances can exceed it.
	if nc := uint64(le.Uint32(p[oNumCounters:])); nc*blocks > uint64(total) {
		b.AbortObject()
		return fmt.Errorf("perfdata: %d counters × %d instances = %d values in a %d-byte object: more values than bytes", nc, blocks, nc*blocks, total)
	}
	le.PutUint32(p[oNumInstances:], uint32(n))
	b.open = false
	b.committed = len(b.buf)
	b.numObj++
	return nil
}

// AbortObject drops the object begun last, so that a failing provider costs
// only its own object.
func (b *Builder) AbortObject() {
	if b.open {
		b.buf = b.buf[:b.objStart]
	}
	b.open = false
	b.err = nil
}

// AppendObjects appends n already-encoded objects (a V1 provider's output,
// no PERF_DATA_BLOCK header). They are validated as Parse would validate
// them and must fill objs exactly; on error nothing is appended.
func (b *Builder) AppendObjects(objs []byte, n uint32) error {
	if b.open {
		return errors.New("perfdata: AppendObjects while an object is open")
	}
	if len(b.buf) < DataBlockSize {
		return errors.New("perfdata: AppendObjects before Reset")
	}
	end, err := walkObjects(objs, 0, n, len(objs))
	if err != nil {
		return err
	}
	if end != len(objs) {
		return ferr(end, sObject, "", 0, "%d bytes after the last of %d objects", len(objs)-end, n)
	}
	if uint64(len(b.buf))+uint64(len(objs)) > 0xFFFFFFFF {
		return fmt.Errorf("perfdata: block exceeds 4 GiB")
	}
	b.buf = append(b.buf, objs...)
	b.committed = len(b.buf)
	b.numObj += n
	return nil
}

// Restamp writes the times of the block built since Reset again: the
// header's SystemTime, PerfTime, PerfFreq and PerfTime100nSec from h,
// and the PerfTime and PerfFreq of the object begun last. The rest of
// the block (names, objects, instances, values) stays as it is, and so do
// the Values returned for it: a block rebuilt for the next sample of the
// same instances needs only its times and its values written.
func (b *Builder) Restamp(h Header, objTime, objFreq int64) {
	if len(b.buf) < DataBlockSize {
		return
	}
	p := b.buf
	putSystemTime(p[hSystemTime:], h.SystemTime)
	le.PutUint64(p[hPerfTime:], uint64(h.PerfTime))
	le.PutUint64(p[hPerfFreq:], uint64(h.PerfFreq))
	le.PutUint64(p[hPerfTime100nSec:], uint64(h.PerfTime100nSec))
	if b.objStart >= DataBlockSize && b.objStart+ObjectTypeSize <= len(p) {
		o := p[b.objStart:]
		le.PutUint64(o[oPerfTime:], uint64(objTime))
		le.PutUint64(o[oPerfFreq:], uint64(objFreq))
	}
}

// AppendValues appends to dst the Values of each counter block of the
// object ended last (EndObject): its instances' in order, or its single
// block. They stay valid until the next call that appends to the builder
// or Reset, and let the block's values be written again (Values.Clear,
// Set) without building it again.
func (b *Builder) AppendValues(dst []Values) []Values {
	if b.open || b.layout == nil || b.objStart < DataBlockSize || b.objStart+ObjectTypeSize > b.committed {
		return dst
	}
	p := b.buf[:b.committed]
	n := int(b.layout.dataSize)
	if b.single {
		if b.singleAt > 0 && b.singleAt+n <= len(p) {
			dst = append(dst, Values{b: p[b.singleAt : b.singleAt+n : b.singleAt+n], l: b.layout})
		}
		return dst
	}
	at := b.objStart + int(le.Uint32(p[b.objStart+oDefinitionLength:]))
	for range b.numInst {
		if at+InstanceDefSize > len(p) {
			break
		}
		at += int(le.Uint32(p[at+iByteLength:]))
		if at+n > len(p) {
			break
		}
		dst = append(dst, Values{b: p[at : at+n : at+n], l: b.layout})
		at += n
	}
	return dst
}

// Bytes returns the finished block, with TotalByteLength and NumObjectTypes
// patched. An object still open is not included. The slice is valid until
// the next Reset.
func (b *Builder) Bytes() []byte {
	if len(b.buf) < DataBlockSize {
		return nil
	}
	p := b.buf[:b.committed]
	le.PutUint32(p[hTotalByteLength:], uint32(len(p)))
	le.PutUint32(p[hNumObjectTypes:], b.numObj)
	return p
}

// Values writes one counter block. Index i is the counter's position in the
// object's definition list. The zero Values writes nowhere.
type Values struct {
	b []byte
	l *Layout
}

// SetUint32 stores the low 32 bits of x at counter i's offset.
func (v Values) SetUint32(i int, x uint32) {
	if v.l == nil {
		return
	}
	s := v.l.slots[i]
	if s.size < 4 {
		return
	}
	le.PutUint32(v.b[s.off:], x)
}

// SetUint64 stores x at counter i's offset; a 4-byte counter gets the low
// 32 bits.
func (v Values) SetUint64(i int, x uint64) { v.Set(i, x) }

// Set stores x by the counter's size (DWORD values are truncated).
func (v Values) Set(i int, x uint64) {
	if v.l == nil {
		return
	}
	s := v.l.slots[i]
	switch {
	case s.size >= 8:
		le.PutUint64(v.b[s.off:], x)
	case s.size >= 4:
		le.PutUint32(v.b[s.off:], uint32(x))
	}
}

// Add adds x to counter i (wrapping, by the counter's size).
func (v Values) Add(i int, x uint64) {
	if v.l == nil {
		return
	}
	s := v.l.slots[i]
	switch {
	case s.size >= 8:
		le.PutUint64(v.b[s.off:], le.Uint64(v.b[s.off:])+x)
	case s.size >= 4:
		le.PutUint32(v.b[s.off:], le.Uint32(v.b[s.off:])+uint32(x))
	}
}

// SetMulti stores the item count that follows a PERF_MULTI_COUNTER value.
// It does nothing for other counters.
func (v Values) SetMulti(i int, n uint32) {
	if v.l == nil {
		return
	}
	if s := v.l.slots[i]; s.multi {
		le.PutUint32(v.b[s.off+s.size:], n)
	}
}

// SetText stores s in text counter i as UTF-16LE (or as its bytes when
// ascii is set, for PERF_TEXT_ASCII counters), truncated to the counter's
// size and NUL-padded.
func (v Values) SetText(i int, s string, ascii bool) {
	if v.l == nil {
		return
	}
	sl := v.l.slots[i]
	dst := v.b[sl.off : sl.off+sl.size]
	clear(dst)
	if ascii {
		copy(dst, s)
		return
	}
	n := 0
	for _, r := range s {
		var u [2]uint16
		k := 1
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			u[0], u[1] = uint16(r1), uint16(r2)
			k = 2
		} else {
			u[0] = uint16(r)
		}
		if n+2*k > len(dst) {
			break
		}
		for j := 0; j < k; j++ {
			le.PutUint16(dst[n:], u[j])
			n += 2
		}
	}
}

// Clear sets every counter of the block to zero, as Instance and Single
// return it; its ByteLength stays.
func (v Values) Clear() {
	if len(v.b) > 4 {
		clear(v.b[4:])
	}
}

// Bytes is the counter block itself (ByteLength DWORD included).
func (v Values) Bytes() []byte { return v.b }
