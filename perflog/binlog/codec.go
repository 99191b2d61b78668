package binlog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// Offsets in PERF_DATA_BLOCK, PERF_OBJECT_TYPE and the definitions
// (winperf.h; perfdata has the same, unexported).
const (
	hTotalByteLength = 20
	hHeaderLength    = 24
	hNumObjectTypes  = 28

	oTotalByteLength  = 0
	oDefinitionLength = 4
	oHeaderLength     = 8
	oNameTitleIndex   = 12
	oHelpTitleIndex   = 20
	oNumCounters      = 32
	oNumInstances     = 40
	oPerfTime         = 48

	cNameIndex = 4
	cHelpIndex = 12

	instMin  = perfdata.InstanceDefSize
	cblkMin  = perfdata.CounterBlockLen
	objHdr   = perfdata.ObjectTypeSize
	blockHdr = perfdata.DataBlockSize
)

// Object layouts (FORMAT.md, "object").
const (
	layoutNone      = 0
	layoutSingle    = 1
	layoutInstances = 2
	layoutRaw       = 3
)

// key names an object across the samples of an epoch.
type key struct {
	block int
	name  uint32
	occ   int
}

// keyState is what the next sample's object of a key is coded against.
type keyState struct {
	perfTime    int64
	defID       uint64 // the writer's last definition id for the key
	insts, data strs
	// spare buffers, swapped with insts and data each sample.
	nextInsts, nextData strs
}

// state is an epoch's state, the same in the writer and the reader.
type state struct {
	keys    map[key]*keyState
	headers [][]byte // previous header of each block position
	occ     map[uint32]int
}

func newState() *state {
	return &state{keys: make(map[key]*keyState), occ: make(map[uint32]int)}
}

func (s *state) key(block int, name uint32) *keyState {
	k := key{block, name, s.occ[name]}
	s.occ[name]++
	ks := s.keys[k]
	if ks == nil {
		ks = &keyState{}
		s.keys[k] = ks
	}
	return ks
}

// defOf returns the definition bytes of an object (a copy with the
// changing fields zeroed), or nil when the object is too short.
func defOf(obj []byte) []byte {
	if len(obj) < objHdr {
		return nil
	}
	dl := le.Uint32(obj[oDefinitionLength:])
	if dl < objHdr || uint64(dl) > uint64(len(obj)) {
		return nil
	}
	d := append([]byte(nil), obj[:dl]...)
	clearVarying(d)
	return d
}

func clearVarying(d []byte) {
	le.PutUint32(d[oTotalByteLength:], 0)
	le.PutUint32(d[oNumInstances:], 0)
	le.PutUint64(d[oPerfTime:], 0)
}

// sameDef reports whether obj's definition equals d without copying.
func sameDef(obj, d []byte) bool {
	if len(obj) < len(d) || le.Uint32(obj[oDefinitionLength:]) != uint32(len(d)) {
		return false
	}
	return string(obj[4:oNumInstances]) == string(d[4:oNumInstances]) &&
		string(obj[oNumInstances+4:oPerfTime]) == string(d[oNumInstances+4:oPerfTime]) &&
		string(obj[oPerfTime+8:len(d)]) == string(d[oPerfTime+8:])
}

// defIndexes lists the title indexes a definition uses: pairs of name and
// help index (the object's, then each counter's).
func defIndexes(d []byte) [][2]uint32 {
	out := [][2]uint32{{le.Uint32(d[oNameTitleIndex:]), le.Uint32(d[oHelpTitleIndex:])}}
	hl := uint64(le.Uint32(d[oHeaderLength:]))
	n := uint64(le.Uint32(d[oNumCounters:]))
	pos := hl
	for i := uint64(0); i < n && pos+16 <= uint64(len(d)); i++ {
		bl := uint64(le.Uint32(d[pos:]))
		out = append(out, [2]uint32{le.Uint32(d[pos+cNameIndex:]), le.Uint32(d[pos+cHelpIndex:])})
		if bl < 16 {
			break
		}
		pos += bl
	}
	return out
}

// walkInstances splits the bytes after an object's definition into n
// instance definitions and counter blocks; ok is false when they do not
// walk that way. end is where the last counter block ends.
func walkInstances(obj []byte, start uint64, n int, insts, data *strs) (end uint64, ok bool) {
	pos := start
	size := uint64(len(obj))
	for range n {
		if pos+instMin > size {
			return 0, false
		}
		il := uint64(le.Uint32(obj[pos:]))
		if il < instMin || pos+il+cblkMin > size {
			return 0, false
		}
		cb := pos + il
		cl := uint64(le.Uint32(obj[cb:]))
		if cl < cblkMin || cl > maxCounterBlock || cb+cl > size {
			return 0, false
		}
		insts.add(obj[pos:cb])
		data.add(obj[cb : cb+cl])
		pos = cb + cl
	}
	return pos, true
}

// encoder codes samples for a writer.
type encoder struct {
	st      *state
	defs    map[string]uint64
	defList [][]byte // definitions by id-1
	newDefs []uint64 // ids defined by the sample being coded
	words   wordEnc
	index   map[uint64]int // instance definitions of the previous list by hash
	seed    maphash.Seed
	bases   []int
	last    int // bytes of the previous sample's blocks (sampleBudget)

}

func newEncoder() *encoder {
	return &encoder{st: newState(), defs: make(map[string]uint64), seed: maphash.MakeSeed()}
}

// newDef is a definition the sample just coded introduced.
type newDef struct {
	id  uint64
	def []byte
}

// appendNewDefs appends the definitions the last sample coded introduced.
func (e *encoder) appendNewDefs(dst []newDef) []newDef {
	for _, id := range e.newDefs {
		dst = append(dst, newDef{id, e.defList[id-1]})
	}
	return dst
}

// defID returns the id of obj's definition, defining it when new.
func (e *encoder) defID(obj []byte) (uint64, error) {
	// Fast path: the definition of the same key last time is usual; a map
	// lookup needs the zeroed copy.
	d := defOf(obj)
	if d == nil {
		return 0, fmt.Errorf("object of %d bytes: too short for its definition", len(obj))
	}
	if id, ok := e.defs[string(d)]; ok {
		return id, nil
	}
	return e.addDef(d), nil
}

// addDef gives the definition d the next id.
func (e *encoder) addDef(d []byte) uint64 {
	e.defList = append(e.defList, d)
	id := uint64(len(e.defList))
	e.defs[string(d)] = id
	e.newDefs = append(e.newDefs, id)
	return id
}

// encodeSample appends the SAMPLE payload of s to dst. New definitions
// are listed in e.newDefs (reset first).
func (e *encoder) encodeSample(dst []byte, s *pdh.Sample) ([]byte, error) {
	e.newDefs = e.newDefs[:0]
	return e.code(dst, s)
}

// code appends the SAMPLE payload of s to dst.
func (e *encoder) code(dst []byte, s *pdh.Sample) ([]byte, error) {
	var flags uint64
	if s.Gap {
		flags |= 1
	}
	dst = binary.AppendUvarint(dst, flags)
	dst = appendProblems(dst, s.Problems)
	dst = binary.AppendUvarint(dst, uint64(len(s.Blocks)))
	start := len(dst)
	size := 0
	for bi, blk := range s.Blocks {
		var err error
		if dst, err = e.encodeBlock(dst, bi, blk.Bytes()); err != nil {
			return nil, fmt.Errorf("block %d: %w", bi, err)
		}
		size += len(blk.Bytes())
	}
	dst = appendProblemMachines(dst, s.Problems)
	// Pad the payload (readers ignore bytes after its fields) when the
	// sample rebuilds more than a reader allows for its length.
	for sampleBudget(e.last, len(dst)-start) < size {
		need := (size - sampleBudget(e.last, 0) + 255) / 256
		dst = append(dst, make([]byte, max(need-(len(dst)-start), 1))...)
	}
	e.last = size
	return dst, nil
}

// appendProblemMachines appends the machines of the problems that name
// one (a computer of a fleet that did not answer, or its objects): after
// the blocks, where a reader that does not know the field ignores it.
// Nothing is appended when no problem names a machine, so such samples
// are coded as before the field existed.
func appendProblemMachines(dst []byte, ps []pdh.Problem) []byte {
	n := 0
	for _, p := range ps {
		if p.Machine != "" {
			n++
		}
	}
	if n == 0 {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	for i, p := range ps {
		if p.Machine != "" {
			dst = binary.AppendUvarint(dst, uint64(i))
			dst = appendString(dst, p.Machine)
		}
	}
	return dst
}

func appendProblems(dst []byte, ps []pdh.Problem) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ps)))
	for _, p := range ps {
		dst = binary.AppendUvarint(dst, uint64(p.Object))
		dst = appendString(dst, p.ObjectName)
		dst = appendString(dst, p.Reason)
		partial := byte(0)
		if p.Partial {
			partial = 1
		}
		dst = append(dst, partial)
		dst = binary.AppendUvarint(dst, uint64(len(p.Missing)))
		for _, m := range p.Missing {
			dst = binary.AppendVarint(dst, int64(m.Instance))
			dst = binary.AppendUvarint(dst, uint64(len(m.Counters)))
			for _, c := range m.Counters {
				dst = binary.AppendUvarint(dst, uint64(c))
			}
		}
	}
	return dst
}

// encodeBlock appends the coded block b at position bi of its sample.
func (e *encoder) encodeBlock(dst []byte, bi int, b []byte) ([]byte, error) {
	if len(b) < blockHdr {
		return nil, fmt.Errorf("%d bytes: shorter than a PERF_DATA_BLOCK header", len(b))
	}
	hl := uint64(le.Uint32(b[hHeaderLength:]))
	nobj := int(le.Uint32(b[hNumObjectTypes:]))
	if hl < blockHdr || hl > uint64(len(b)) {
		return nil, fmt.Errorf("HeaderLength %d outside the block's %d bytes", hl, len(b))
	}
	st := e.st
	for len(st.headers) <= bi {
		st.headers = append(st.headers, nil)
	}
	dst = binary.AppendUvarint(dst, hl)
	base := st.headers[bi]
	if uint64(len(base)) != hl {
		base = nil
	}
	e.words.encode(b[:hl], base)
	dst = e.words.finish(dst)
	st.headers[bi] = append(st.headers[bi][:0], b[:hl]...)

	// Walk the objects first, to count them.
	pos := hl
	type span struct{ lo, hi uint64 }
	spans := make([]span, 0, nobj)
	for range nobj {
		if pos+objHdr > uint64(len(b)) {
			break
		}
		tl := uint64(le.Uint32(b[pos+oTotalByteLength:]))
		if tl < objHdr || pos+tl > uint64(len(b)) {
			break
		}
		spans = append(spans, span{pos, pos + tl})
		pos += tl
	}
	clear(st.occ)
	dst = binary.AppendUvarint(dst, uint64(len(spans)))
	for _, sp := range spans {
		var err error
		if dst, err = e.encodeObject(dst, bi, b[sp.lo:sp.hi]); err != nil {
			return nil, fmt.Errorf("object at offset %d: %w", sp.lo, err)
		}
	}
	return appendBytes(dst, b[pos:]), nil
}

func (e *encoder) encodeObject(dst []byte, bi int, obj []byte) ([]byte, error) {
	if len(obj) < objHdr {
		return nil, fmt.Errorf("object of %d bytes: shorter than PERF_OBJECT_TYPE", len(obj))
	}
	ks := e.st.key(bi, le.Uint32(obj[oNameTitleIndex:]))
	id := ks.defID
	if id == 0 || !sameDef(obj, e.defList[id-1]) {
		var err error
		if id, err = e.defID(obj); err != nil {
			return nil, err
		}
		ks.defID = id
	}
	def := e.defList[id-1]
	ni := int32(le.Uint32(obj[oNumInstances:]))
	pt := int64(le.Uint64(obj[oPerfTime:]))
	dl := uint64(len(def))

	cur, curData := &ks.nextInsts, &ks.nextData
	cur.reset()
	curData.reset()
	layout := layoutNone
	end := dl
	switch {
	case ni == perfdata.NoInstances:
		layout = layoutRaw
		if dl+cblkMin <= uint64(len(obj)) {
			cl := uint64(le.Uint32(obj[dl:]))
			if cl >= cblkMin && dl+cl <= uint64(len(obj)) {
				curData.add(obj[dl : dl+cl])
				layout, end = layoutSingle, dl+cl
			}
		}
	case ni > 0:
		layout = layoutRaw
		if uint64(ni) <= uint64(len(obj))/instMin {
			if e2, ok := walkInstances(obj, dl, int(ni), cur, curData); ok {
				layout, end = layoutInstances, e2
			}
		}
	}
	if layout == layoutRaw {
		cur.reset()
		curData.reset()
		end = uint64(len(obj))
	}
	dst = binary.AppendUvarint(dst, id)
	dst = binary.AppendUvarint(dst, uint64(layout))
	dst = binary.AppendVarint(dst, int64(ni))
	dst = binary.AppendVarint(dst, pt-ks.perfTime)
	switch layout {
	case layoutSingle:
		var base []byte
		if ks.data.n() > 0 {
			base = ks.data.get(0)
		}
		dst = binary.AppendUvarint(dst, uint64(len(curData.get(0))))
		e.words.encode(curData.get(0), base)
		dst = e.words.finish(dst)
	case layoutInstances:
		dst = e.encodeInstances(dst, ks)
	case layoutRaw:
		dst = appendBytes(dst, obj[dl:])
	}
	dst = appendBytes(dst, obj[end:])
	ks.perfTime = pt
	ks.insts, ks.nextInsts = ks.nextInsts, ks.insts
	ks.data, ks.nextData = ks.nextData, ks.data
	if layout != layoutInstances {
		ks.insts.reset()
	}
	return dst, nil
}

// encodeInstances codes the instance list (when it changed) and the
// counter blocks of a layout-2 object: ks.nextInsts/nextData hold the
// current ones, ks.insts/data the previous ones.
func (e *encoder) encodeInstances(dst []byte, ks *keyState) []byte {
	cur, prev := &ks.nextInsts, &ks.insts
	n := cur.n()
	same := n == prev.n() && string(cur.buf) == string(prev.buf)
	if same {
		for i := range n {
			if cur.off[i] != prev.off[i] {
				same = false
				break
			}
		}
	}
	// bases[i] is the previous counter block index of instance i, -1 none.
	bases := slices.Grow(e.bases[:0], n)[:n]
	e.bases = bases
	if same {
		dst = append(dst, 0)
		for i := range bases {
			bases[i] = i
		}
	} else {
		dst = append(dst, 1)
		dst = binary.AppendUvarint(dst, uint64(n))
		if e.index == nil {
			e.index = make(map[uint64]int)
		}
		clear(e.index)
		for j := prev.n() - 1; j >= 0; j-- {
			e.index[maphash.Bytes(e.seed, prev.get(j))] = j
		}
		for i := range n {
			b := cur.get(i)
			j, ok := e.index[maphash.Bytes(e.seed, b)]
			if !ok || !bytes.Equal(prev.get(j), b) {
				j = -1
			}
			bases[i] = j
		}
		for i := 0; i < n; {
			if j := bases[i]; j >= 0 {
				k := 1
				for i+k < n && bases[i+k] == j+k {
					k++
				}
				dst = binary.AppendUvarint(dst, uint64(k)<<1)
				dst = binary.AppendUvarint(dst, uint64(j))
				i += k
				continue
			}
			k := 1
			for i+k < n && bases[i+k] < 0 {
				k++
			}
			dst = binary.AppendUvarint(dst, uint64(k)<<1|1)
			for x := i; x < i+k; x++ {
				dst = appendBytes(dst, cur.get(x))
			}
			i += k
		}
	}
	data, pdata := &ks.nextData, &ks.data
	prevLen := 0
	for i := range n {
		l := len(data.get(i))
		if i == 0 {
			dst = binary.AppendUvarint(dst, uint64(l))
		} else {
			dst = binary.AppendVarint(dst, int64(l-prevLen))
		}
		prevLen = l
	}
	for i := range n {
		var base []byte
		if j := bases[i]; j >= 0 && j < pdata.n() {
			base = pdata.get(j)
		}
		e.words.encode(data.get(i), base)
	}
	return e.words.finish(dst)
}
