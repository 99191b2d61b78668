package perfdata

import (
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/utf16le"
)

// Parse validates the whole block in b — header, every object, counter
// definition, instance and counter block, every length, offset and count
// against the structure that encloses it and against b — and returns a
// zero-copy view of it. After a nil error no accessor can fail or panic on
// the block's bytes. b may be longer than the block (a registry buffer);
// the view ends at TotalByteLength. Parse does not allocate unless it fails.
//
// Lengths Windows keeps at multiples of 8 are not required to be (see
// CheckAlignment): readers of registry data accept what Perflib passes on.
func Parse(b []byte) (Block, error) {
	total, hl, err := checkHeader(b, true)
	if err != nil {
		return Block{}, err
	}
	b = b[:total:total]
	n := le.Uint32(b[hNumObjectTypes:])
	end, err := walkObjects(b, int(hl), n, int(total))
	if err != nil {
		return Block{}, err
	}
	if end != int(total) {
		return Block{}, ferr(hTotalByteLength, sDataBlock, "TotalByteLength", int64(total), "the %d objects end at offset %d", n, end)
	}
	return Block{b: b}, nil
}

// ParseHeader validates and decodes only the PERF_DATA_BLOCK header at the
// start of b: the signature, byte order, version, TotalByteLength,
// HeaderLength and the system name, with the same bounds checks as Parse
// (the name must lie inside HeaderLength, HeaderLength inside
// TotalByteLength). It is for callers that need the time fields, the system
// name or the object count of a block without reading the whole of it (for
// example to group block files into samples).
//
// b must hold the 88-byte structure and the system name
// (SystemNameOffset+SystemNameLength bytes, a few hundred in real data); the
// objects need not be present, so TotalByteLength may exceed len(b). When b
// is too short for the name, the error is a *FormatError that wraps
// ErrMoreData and whose Value is the number of bytes needed: read that many
// and call ParseHeader again. A nil error does not mean the objects are
// valid; Parse checks those.
func ParseHeader(b []byte) (Header, error) {
	if _, _, err := checkHeader(b, false); err != nil {
		return Header{}, err
	}
	return decodeHeader(b), nil
}

// checkHeader validates the header at the start of b and returns
// TotalByteLength and HeaderLength. whole: b must hold TotalByteLength bytes
// (Parse); otherwise only the fixed structure and the system name.
func checkHeader(b []byte, whole bool) (total, hl uint32, err error) {
	if len(b) < DataBlockSize {
		e := ferr(0, sDataBlock, "", DataBlockSize, "truncated: %d bytes, the header needs %d", len(b), DataBlockSize)
		if !whole {
			e.Err = ErrMoreData
		}
		return 0, 0, e
	}
	if [8]byte(b[:8]) != signature {
		return 0, 0, ferr(hSignature, sDataBlock, "Signature", int64(le.Uint64(b)), "not \"PERF\" in UTF-16")
	}
	if v := le.Uint32(b[hLittleEndian:]); v != 1 {
		return 0, 0, ferr(hLittleEndian, sDataBlock, "LittleEndian", int64(v), "big-endian blocks not supported")
	}
	if v := le.Uint32(b[hVersion:]); v != 1 {
		return 0, 0, ferr(hVersion, sDataBlock, "Version", int64(v), "unsupported version (want 1)")
	}
	total = le.Uint32(b[hTotalByteLength:])
	if total < DataBlockSize {
		return 0, 0, ferr(hTotalByteLength, sDataBlock, "TotalByteLength", int64(total), "smaller than the %d-byte header", DataBlockSize)
	}
	if whole && uint64(total) > uint64(len(b)) {
		return 0, 0, ferr(hTotalByteLength, sDataBlock, "TotalByteLength", int64(total), "runs past the end of the data (%d bytes): truncated", len(b))
	}
	hl = le.Uint32(b[hHeaderLength:])
	if hl < DataBlockSize || hl > total {
		return 0, 0, ferr(hHeaderLength, sDataBlock, "HeaderLength", int64(hl), "outside %d..TotalByteLength %d", DataBlockSize, total)
	}
	nl, no := le.Uint32(b[hSystemNameLength:]), le.Uint32(b[hSystemNameOffset:])
	if nl != 0 {
		if nl%2 != 0 {
			return 0, 0, ferr(hSystemNameLength, sDataBlock, "SystemNameLength", int64(nl), "odd length for a UTF-16 name")
		}
		if no < DataBlockSize {
			return 0, 0, ferr(hSystemNameOffset, sDataBlock, "SystemNameOffset", int64(no), "name overlaps the %d-byte header", DataBlockSize)
		}
		if uint64(no)+uint64(nl) > uint64(hl) {
			return 0, 0, ferr(hSystemNameLength, sDataBlock, "SystemNameLength", int64(nl), "name at offset %d runs past HeaderLength %d", no, hl)
		}
		if need := uint64(no) + uint64(nl); need > uint64(len(b)) {
			e := ferr(hSystemNameLength, sDataBlock, "", int64(need), "truncated: the system name ends at offset %d, past the %d bytes given", need, len(b))
			e.Err = ErrMoreData
			return 0, 0, e
		}
	}
	return total, hl, nil
}

// walkObjects validates n objects starting at offset at, all within
// b[:limit], and returns where the last one ends. Offsets in errors are
// offsets into b.
func walkObjects(b []byte, at int, n uint32, limit int) (int, error) {
	for i := uint32(0); i < n; i++ {
		l, err := validateObject(b, at, limit)
		if err != nil {
			return 0, err
		}
		at += l // l >= 64: the walk always advances
	}
	return at, nil
}

// validateObject checks the object at b[at:] within b[:limit] and returns
// its TotalByteLength.
func validateObject(b []byte, at, limit int) (int, error) {
	if limit-at < ObjectTypeSize {
		return 0, ferr(at, sObject, "", 0, "truncated: %d bytes left, the structure needs %d", limit-at, ObjectTypeSize)
	}
	o := b[at:limit]
	total := le.Uint32(o[oTotalByteLength:])
	if total < ObjectTypeSize {
		return 0, ferr(at+oTotalByteLength, sObject, "TotalByteLength", int64(total), "smaller than the %d-byte structure", ObjectTypeSize)
	}
	if uint64(total) > uint64(len(o)) {
		return 0, ferr(at+oTotalByteLength, sObject, "TotalByteLength", int64(total), "runs past the enclosing data (%d bytes left)", len(o))
	}
	o = o[:total]
	defLen := le.Uint32(o[oDefinitionLength:])
	hdrLen := le.Uint32(o[oHeaderLength:])
	if defLen > total {
		return 0, ferr(at+oDefinitionLength, sObject, "DefinitionLength", int64(defLen), "past TotalByteLength %d", total)
	}
	if hdrLen < ObjectTypeSize || hdrLen > defLen {
		return 0, ferr(at+oHeaderLength, sObject, "HeaderLength", int64(hdrLen), "outside %d..DefinitionLength %d", ObjectTypeSize, defLen)
	}
	nc := le.Uint32(o[oNumCounters:])
	if uint64(nc)*CounterDefSize > uint64(defLen-hdrLen) {
		return 0, ferr(at+oNumCounters, sObject, "NumCounters", int64(nc), "%d definitions do not fit between HeaderLength %d and DefinitionLength %d", nc, hdrLen, defLen)
	}
	p := hdrLen
	var maxEnd uint64 // furthest byte any counter reads from a counter block
	maxAt := 0        // the CounterOffset field of that counter
	var stride uint32 // the ByteLength of every definition
	for i := uint32(0); i < nc; i++ {
		if defLen-p < CounterDefSize {
			return 0, ferr(at+int(p), sCounter, "", 0, "definition %d truncated at DefinitionLength %d", i, defLen)
		}
		bl := le.Uint32(o[p+cByteLength:])
		if bl < CounterDefSize {
			return 0, ferr(at+int(p+cByteLength), sCounter, "ByteLength", int64(bl), "smaller than the %d-byte structure", CounterDefSize)
		}
		if bl > defLen-p {
			return 0, ferr(at+int(p+cByteLength), sCounter, "ByteLength", int64(bl), "runs past DefinitionLength %d", defLen)
		}
		if i == 0 {
			stride = bl
		} else if bl != stride {
			return 0, ferr(at+int(p+cByteLength), sCounter, "ByteLength", int64(bl), "definition %d differs from the first definition's %d (all definitions of an object have one length)", i, stride)
		}
		e := uint64(le.Uint32(o[p+cCounterOffset:])) + uint64(le.Uint32(o[p+cCounterSize:]))
		if e > maxEnd {
			maxEnd, maxAt = e, at+int(p+cCounterOffset)
		}
		p += bl
	}
	ni := int32(le.Uint32(o[oNumInstances:]))
	// Every value read costs a consumer work; values may share bytes (real
	// data has a few such aliases), so bound their number by the object's
	// size: walking every value of every instance stays linear in the input.
	var blocks uint64
	switch {
	case ni > 0:
		blocks = uint64(ni)
	case ni == NoInstances:
		blocks = 1
	}
	if values := blocks * uint64(nc); values > uint64(total) {
		return 0, ferr(at+oNumCounters, sObject, "NumCounters", int64(nc), "%d counters × %d counter blocks = %d values in a %d-byte object: more values than bytes", nc, blocks, values, total)
	}
	switch {
	case ni == NoInstances:
		if _, err := validateBlock(b, at+int(defLen), at+int(total), maxEnd, maxAt); err != nil {
			return 0, err
		}
	case ni == MetadataMultipleInstances || ni == MetadataNoInstances || ni == 0:
		// definitions only
	case ni < 0:
		return 0, ferr(at+oNumInstances, sObject, "NumInstances", int64(ni), "neither a count nor -1, -2 or -3")
	default:
		cp := le.Uint32(o[oCodePage:])
		q := at + int(defLen)
		end := at + int(total)
		for i := int32(0); i < ni; i++ {
			l, err := validateInstance(b, q, end, cp, maxEnd, maxAt)
			if err != nil {
				return 0, err
			}
			q += l
		}
	}
	return int(total), nil
}

// validateInstance checks the instance at b[q:] and its counter block,
// within b[:end], and returns their combined length (at least 28).
func validateInstance(b []byte, q, end int, cp uint32, maxEnd uint64, maxAt int) (int, error) {
	if end-q < InstanceDefSize {
		return 0, ferr(q, sInstance, "", 0, "truncated: %d bytes left in the object, the structure needs %d", end-q, InstanceDefSize)
	}
	in := b[q:end]
	bl := le.Uint32(in[iByteLength:])
	if bl < InstanceDefSize {
		return 0, ferr(q+iByteLength, sInstance, "ByteLength", int64(bl), "smaller than the %d-byte structure", InstanceDefSize)
	}
	if uint64(bl) > uint64(len(in)) {
		return 0, ferr(q+iByteLength, sInstance, "ByteLength", int64(bl), "runs past the end of the object (%d bytes left)", len(in))
	}
	if nl := le.Uint32(in[iNameLength:]); nl != 0 {
		no := le.Uint32(in[iNameOffset:])
		if no < InstanceDefSize {
			return 0, ferr(q+iNameOffset, sInstance, "NameOffset", int64(no), "name overlaps the %d-byte structure", InstanceDefSize)
		}
		if uint64(no)+uint64(nl) > uint64(bl) {
			return 0, ferr(q+iNameLength, sInstance, "NameLength", int64(nl), "name at offset %d runs past ByteLength %d", no, bl)
		}
		if cp == 0 && nl%2 != 0 {
			return 0, ferr(q+iNameLength, sInstance, "NameLength", int64(nl), "odd length for a UTF-16 name")
		}
	}
	cl, err := validateBlock(b, q+int(bl), end, maxEnd, maxAt)
	if err != nil {
		return 0, err
	}
	return int(bl) + cl, nil
}

// validateBlock checks the counter block at b[at:] within b[:end] and that
// every counter value (ending at most at maxEnd) lies inside it.
func validateBlock(b []byte, at, end int, maxEnd uint64, maxAt int) (int, error) {
	if end-at < CounterBlockLen {
		return 0, ferr(at, sBlock, "", 0, "truncated: %d bytes left in the object, the structure needs %d", end-at, CounterBlockLen)
	}
	bl := le.Uint32(b[at:])
	if bl < CounterBlockLen {
		return 0, ferr(at, sBlock, "ByteLength", int64(bl), "smaller than its own %d-byte length field", CounterBlockLen)
	}
	if uint64(bl) > uint64(end-at) {
		return 0, ferr(at, sBlock, "ByteLength", int64(bl), "runs past the end of the object (%d bytes left)", end-at)
	}
	if maxEnd > uint64(bl) {
		return 0, ferr(maxAt, sCounter, "CounterOffset", int64(le.Uint32(b[maxAt:])), "value ends at %d, past the ByteLength %d of the counter block at offset %#x", maxEnd, bl, at)
	}
	return int(bl), nil
}

// Block is a validated PERF_DATA_BLOCK (see Parse). The zero Block has no objects.
type Block struct{ b []byte }

// Bytes returns the block's bytes (TotalByteLength of them).
func (b Block) Bytes() []byte { return b.b }

// Clone returns the block in memory of its own: a reader that builds or
// reads blocks in memory it writes again (a builder, a file window) hands
// out clones, so that a block once handed out never changes. The copy of
// a validated block is valid; it is not parsed again.
func (b Block) Clone() Block {
	if b.b == nil {
		return Block{}
	}
	return Block{b: append(make([]byte, 0, len(b.b)), b.b...)}
}

// Header decodes the PERF_DATA_BLOCK header.
func (b Block) Header() Header {
	if len(b.b) < DataBlockSize {
		return Header{}
	}
	return decodeHeader(b.b)
}

// decodeHeader decodes a header checked by checkHeader.
func decodeHeader(p []byte) Header {
	return Header{
		LittleEndian:    le.Uint32(p[hLittleEndian:]),
		Version:         le.Uint32(p[hVersion:]),
		Revision:        le.Uint32(p[hRevision:]),
		TotalByteLength: le.Uint32(p[hTotalByteLength:]),
		HeaderLength:    le.Uint32(p[hHeaderLength:]),
		NumObjectTypes:  le.Uint32(p[hNumObjectTypes:]),
		DefaultObject:   int32(le.Uint32(p[hDefaultObject:])),
		SystemTime:      getSystemTime(p[hSystemTime:]),
		PerfTime:        int64(le.Uint64(p[hPerfTime:])),
		PerfFreq:        int64(le.Uint64(p[hPerfFreq:])),
		PerfTime100nSec: int64(le.Uint64(p[hPerfTime100nSec:])),
		SystemName:      utf16le.DecodeLenient(systemNameBytes(p)),
	}
}

// Clocks returns the header's PerfTime, PerfFreq and PerfTime100nSec
// without decoding the rest of it (zeros for a block shorter than a
// header).
func (b Block) Clocks() (perfTime, perfFreq, perfTime100nSec int64) {
	if len(b.b) < DataBlockSize {
		return 0, 0, 0
	}
	p := b.b
	return int64(le.Uint64(p[hPerfTime:])), int64(le.Uint64(p[hPerfFreq:])), int64(le.Uint64(p[hPerfTime100nSec:]))
}

// SystemNameBytes returns the system name as stored (UTF-16LE), without
// its terminating NUL.
func (b Block) SystemNameBytes() []byte { return systemNameBytes(b.b) }

func systemNameBytes(p []byte) []byte {
	if len(p) < DataBlockSize {
		return nil
	}
	nl, no := le.Uint32(p[hSystemNameLength:]), le.Uint32(p[hSystemNameOffset:])
	if nl == 0 || uint64(no)+uint64(nl) > uint64(len(p)) {
		return nil
	}
	return trimNUL16(p[no : no+nl])
}

// NumObjects is NumObjectTypes.
func (b Block) NumObjects() int {
	if len(b.b) < DataBlockSize {
		return 0
	}
	return int(le.Uint32(b.b[hNumObjectTypes:]))
}

// Objects iterates over the objects:
//
//	for it := b.Objects(); it.Next(); { o := it.Object() }
func (b Block) Objects() ObjectIter {
	if len(b.b) < DataBlockSize {
		return ObjectIter{}
	}
	return ObjectIter{b: b.b, off: int(le.Uint32(b.b[hHeaderLength:])), n: b.NumObjects()}
}

// Object returns the first object with the given title index.
func (b Block) Object(titleIndex uint32) (Object, bool) {
	for it := b.Objects(); it.Next(); {
		if o := it.Object(); o.NameIndex() == titleIndex {
			return o, true
		}
	}
	return Object{}, false
}

// ObjectIter walks a block's objects without allocating.
type ObjectIter struct {
	b   []byte
	off int
	n   int
	cur Object
}

// Next advances to the next object and reports whether there is one.
func (it *ObjectIter) Next() bool {
	if it.n <= 0 {
		return false
	}
	it.n--
	total := int(le.Uint32(it.b[it.off:]))
	it.cur = newObject(it.b[it.off : it.off+total : it.off+total])
	it.off += total
	return true
}

// Object is the object Next moved to.
func (it *ObjectIter) Object() Object { return it.cur }

// Object is a validated PERF_OBJECT_TYPE with its definitions and data.
type Object struct {
	b      []byte
	stride int // the ByteLength of every definition (Parse checks they agree)
}

func newObject(b []byte) Object {
	o := Object{b: b}
	if le.Uint32(b[oNumCounters:]) > 0 {
		o.stride = int(le.Uint32(b[le.Uint32(b[oHeaderLength:]):]))
	}
	return o
}

func (o Object) u32(off int) uint32 {
	if len(o.b) < ObjectTypeSize {
		return 0
	}
	return le.Uint32(o.b[off:])
}

// Bytes returns the object's bytes (TotalByteLength of them), ready to be
// appended to another block.
func (o Object) Bytes() []byte { return o.b }

// TotalByteLength is the object's length, definitions and data included.
func (o Object) TotalByteLength() uint32 { return o.u32(oTotalByteLength) }

// DefinitionLength is the offset of the first instance or counter block.
func (o Object) DefinitionLength() uint32 { return o.u32(oDefinitionLength) }

// NameIndex is ObjectNameTitleIndex.
func (o Object) NameIndex() uint32 { return o.u32(oNameTitleIndex) }

// HelpIndex is ObjectHelpTitleIndex.
func (o Object) HelpIndex() uint32 { return o.u32(oHelpTitleIndex) }

// DetailLevel is the object's detail level.
func (o Object) DetailLevel() uint32 { return o.u32(oDetailLevel) }

// NumCounters is the number of counter definitions.
func (o Object) NumCounters() int { return int(o.u32(oNumCounters)) }

// DefaultCounter is the 0-based definition position of the default
// counter, bases counted; -1 = none. It is not validated.
func (o Object) DefaultCounter() int32 { return int32(o.u32(oDefaultCounter)) }

// NumInstances is the raw field: a count, or NoInstances,
// MetadataMultipleInstances or MetadataNoInstances.
func (o Object) NumInstances() int32 { return int32(o.u32(oNumInstances)) }

// InstanceCount is the number of instances Instances yields.
func (o Object) InstanceCount() int { return max(int(o.NumInstances()), 0) }

// SingleInstance reports a single-instance object (NumInstances -1, or -3
// in a metadata-only result).
func (o Object) SingleInstance() bool {
	n := o.NumInstances()
	return n == NoInstances || n == MetadataNoInstances
}

// Metadata reports a metadata-only result (NumInstances -2 or -3): no data follows the definitions.
func (o Object) Metadata() bool {
	n := o.NumInstances()
	return n == MetadataMultipleInstances || n == MetadataNoInstances
}

// CodePage is 0 for UTF-16 instance names, otherwise the code page of 8-bit names.
func (o Object) CodePage() uint32 { return o.u32(oCodePage) }

// PerfTime is the object timer (PERF_OBJECT_TIMER counters).
func (o Object) PerfTime() int64 {
	if len(o.b) < ObjectTypeSize {
		return 0
	}
	return int64(le.Uint64(o.b[oPerfTime:]))
}

// PerfFreq is the object timer's frequency.
func (o Object) PerfFreq() int64 {
	if len(o.b) < ObjectTypeSize {
		return 0
	}
	return int64(le.Uint64(o.b[oPerfFreq:]))
}

// CounterDef is one PERF_COUNTER_DEFINITION.
type CounterDef struct {
	NameIndex, HelpIndex uint32
	DefaultScale         int32
	DetailLevel          uint32
	Type                 countertype.Type
	Size, Offset         uint32 // CounterSize, CounterOffset (from the start of the counter block)
}

// defAt returns the offset of definition i within the object.
func (o Object) defAt(i int) int {
	return int(le.Uint32(o.b[oHeaderLength:])) + o.stride*i
}

// Counter returns definition i, 0 <= i < NumCounters (it panics otherwise,
// like a slice index). It is O(1): Parse checks that all definitions of an
// object have one ByteLength (40 in all Windows data).
func (o Object) Counter(i int) CounterDef {
	if uint(i) >= uint(o.NumCounters()) {
		panic("perfdata: counter index out of range")
	}
	return counterAt(o.b[o.defAt(i):])
}

func counterAt(d []byte) CounterDef {
	d = d[:CounterDefSize]
	return CounterDef{
		NameIndex:    le.Uint32(d[cNameIndex:]),
		HelpIndex:    le.Uint32(d[cHelpIndex:]),
		DefaultScale: int32(le.Uint32(d[cDefaultScale:])),
		DetailLevel:  le.Uint32(d[cDetailLevel:]),
		Type:         countertype.Type(le.Uint32(d[cCounterType:])),
		Size:         le.Uint32(d[cCounterSize:]),
		Offset:       le.Uint32(d[cCounterOffset:]),
	}
}

// AppendCounters appends all definitions to dst in one linear walk (reuse
// dst to avoid allocating).
func (o Object) AppendCounters(dst []CounterDef) []CounterDef {
	if len(o.b) < ObjectTypeSize {
		return dst
	}
	p := int(le.Uint32(o.b[oHeaderLength:]))
	for i := o.NumCounters(); i > 0; i-- {
		dst = append(dst, counterAt(o.b[p:]))
		p += o.stride
	}
	return dst
}

// BaseOf returns the definition index of counter i's base (or precision
// timestamp): i+1 when counter i's type needs a base and definition i+1 is
// a base, else -1. Real data repeats the parent's title index on the base,
// so position, not index, identifies it.
func (o Object) BaseOf(i int) int {
	if uint(i+1) >= uint(o.NumCounters()) {
		return -1
	}
	if o.Counter(i).Type.NeedsBase() && o.Counter(i+1).Type.IsBase() { // O(1) each
		return i + 1
	}
	return -1
}

// Instances iterates over the instances (none unless NumInstances > 0):
//
//	for it := o.Instances(); it.Next(); { in := it.Instance() }
func (o Object) Instances() InstanceIter {
	n := o.NumInstances()
	if n <= 0 {
		return InstanceIter{}
	}
	return InstanceIter{b: o.b, off: int(o.DefinitionLength()), n: int(n), cp: o.CodePage()}
}

// SingleBlock is the counter block of a single-instance object
// (NumInstances -1); the zero CounterBlock (all values 0) otherwise.
func (o Object) SingleBlock() CounterBlock {
	if o.NumInstances() != NoInstances {
		return CounterBlock{}
	}
	at := int(o.DefinitionLength())
	return CounterBlock{b: o.b[at : at+int(le.Uint32(o.b[at:]))]}
}

// InstanceIter walks an object's instances without allocating.
type InstanceIter struct {
	b   []byte
	off int
	n   int
	cp  uint32
	cur Instance
}

// Next advances to the next instance and reports whether there is one.
func (it *InstanceIter) Next() bool {
	if it.n <= 0 {
		return false
	}
	it.n--
	bl := int(le.Uint32(it.b[it.off:]))
	cl := int(le.Uint32(it.b[it.off+bl:]))
	end := it.off + bl + cl
	it.cur = Instance{b: it.b[it.off:end:end], bl: bl, cp: it.cp}
	it.off = end
	return true
}

// Instance is the instance Next moved to.
func (it *InstanceIter) Instance() Instance { return it.cur }

// Instance is one PERF_INSTANCE_DEFINITION with its name and counter block.
type Instance struct {
	b  []byte // definition, name, padding, counter block
	bl int    // ByteLength: where the counter block starts
	cp uint32 // the object's CodePage
}

func (in Instance) u32(off int) uint32 {
	if len(in.b) < InstanceDefSize {
		return 0
	}
	return le.Uint32(in.b[off:])
}

// NameBytes returns the name as stored, without its NUL (UTF-16LE, or 8-bit
// text when the object has a CodePage). Zero copy.
func (in Instance) NameBytes() []byte {
	nl := in.u32(iNameLength)
	if nl == 0 {
		return nil
	}
	no := in.u32(iNameOffset)
	if uint64(no)+uint64(nl) > uint64(in.bl) {
		return nil
	}
	name := in.b[no : no+nl]
	if in.cp != 0 {
		for i, c := range name {
			if c == 0 {
				return name[:i]
			}
		}
		return name
	}
	return trimNUL16(name)
}

func trimNUL16(b []byte) []byte {
	if n := utf16le.IndexNUL(b); n >= 0 {
		return b[:n]
	}
	return b[:len(b)&^1]
}

// Name decodes the name. UTF-16 names are decoded (unpaired surrogates
// become U+FFFD); 8-bit names are returned byte for byte.
func (in Instance) Name() string {
	if in.cp != 0 {
		return string(in.NameBytes())
	}
	return utf16le.DecodeLenient(in.NameBytes())
}

// ParentObjectTitleIndex is the title index of the parent object; 0 = none.
func (in Instance) ParentObjectTitleIndex() uint32 { return in.u32(iParentTitleIndex) }

// ParentObjectInstance is the 0-based position of the parent instance in the parent object.
func (in Instance) ParentObjectInstance() uint32 { return in.u32(iParentInstance) }

// UniqueID is the instance's numeric identifier, NoUniqueID when it is identified by name.
func (in Instance) UniqueID() int32 { return int32(in.u32(iUniqueID)) }

// Block is the instance's counter block.
func (in Instance) Block() CounterBlock {
	if in.bl > len(in.b) {
		return CounterBlock{}
	}
	return CounterBlock{b: in.b[in.bl:]}
}

// CounterBlock is a PERF_COUNTER_BLOCK: ByteLength then values. Reads
// outside it return 0, so a definition from another object cannot panic.
type CounterBlock struct{ b []byte }

// Bytes returns the block (ByteLength DWORD included).
func (c CounterBlock) Bytes() []byte { return c.b }

// ByteLength is the block's length field.
func (c CounterBlock) ByteLength() uint32 { return c.Uint32(0) }

// Value reads counter d's value by its CounterSize: 4 and 8 bytes as DWORD
// and ULONGLONG; other sizes little-endian, at most 8 bytes.
func (c CounterBlock) Value(d CounterDef) uint64 {
	off := uint64(d.Offset)
	if d.Size == 8 && off+8 <= uint64(len(c.b)) {
		return le.Uint64(c.b[off:])
	}
	if d.Size == 4 && off+4 <= uint64(len(c.b)) {
		return uint64(le.Uint32(c.b[off:]))
	}
	return c.valueN(d.Offset, d.Size)
}

// valueN reads a value of an unusual size, or returns 0 out of range.
func (c CounterBlock) valueN(off, size uint32) uint64 {
	n := uint64(min(size, 8))
	if uint64(off)+n > uint64(len(c.b)) {
		return 0
	}
	var v uint64
	for i := int(n) - 1; i >= 0; i-- {
		v = v<<8 | uint64(c.b[int(off)+i])
	}
	return v
}

// Uint32 reads the DWORD at off (0 outside the block).
func (c CounterBlock) Uint32(off uint32) uint32 {
	if uint64(off)+4 > uint64(len(c.b)) {
		return 0
	}
	return le.Uint32(c.b[off:])
}

// Uint64 reads the ULONGLONG at off (0 outside the block).
func (c CounterBlock) Uint64(off uint32) uint64 {
	if uint64(off)+8 > uint64(len(c.b)) {
		return 0
	}
	return le.Uint64(c.b[off:])
}

// Multi is the DWORD item count after a PERF_MULTI_COUNTER value (0 when
// the block has no room for it).
func (c CounterBlock) Multi(d CounterDef) uint32 {
	return c.Uint32(uint32(min(uint64(d.Offset)+uint64(d.Size), 0xFFFFFFFF)))
}

// Text decodes text counter d: UTF-16LE, or 8-bit for PERF_TEXT_ASCII,
// up to the first NUL.
func (c CounterBlock) Text(d CounterDef) string {
	off, end := uint64(d.Offset), uint64(d.Offset)+uint64(d.Size)
	if end > uint64(len(c.b)) {
		return ""
	}
	t := c.b[off:end]
	if d.Type.Subtype() == countertype.PERF_TEXT_ASCII {
		for i, ch := range t {
			if ch == 0 {
				t = t[:i]
				break
			}
		}
		return string(t)
	}
	return utf16le.DecodeLenient(t)
}
