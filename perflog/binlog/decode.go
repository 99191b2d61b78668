package binlog

import (
	"bytes"
	"fmt"
	"math"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// decoder rebuilds samples from SAMPLE payloads, following the records of
// one epoch in order.
type decoder struct {
	st   *state
	defs [][]byte // by id-1
	// budget bounds the bytes one sample may rebuild (FORMAT.md, "Limits"):
	// see sampleBudget.
	lastSize int
	budget   int
	// allow is what the record's allowance (recordAllowance) still lets
	// this sample rebuild: the sample's budget never exceeds it (capped
	// when it is what applies; limit is the sample's whole budget).
	allow  int64
	limit  int
	capped bool
	sizes  []int // size of each block of the previous sample (a capacity hint)
	// prev is the epoch's last SAMPLE payload (record seq prevSeq), the
	// dictionary of the next one when it says so (flagPrevDict).
	prev    []byte
	prevSeq uint64
	hasPrev bool
}

func newDecoder() *decoder { return &decoder{st: newState(), allow: math.MaxInt64} }

// addDefs reads a DEFS payload.
func (d *decoder) addDefs(b []byte) error {
	p := &payload{b: b}
	n := p.count("definition count", 2)
	for i := 0; i < n && p.err == nil; i++ {
		id := p.uvarint("definition id")
		def := p.bytes("definition")
		if p.err != nil {
			break
		}
		if id != uint64(len(d.defs))+1 {
			p.fail("definition id", fmt.Sprintf("id %d, the next id is %d", id, len(d.defs)+1))
			break
		}
		if len(def) < objHdr {
			p.fail("definition", fmt.Sprintf("definition %d: %d bytes, less than a PERF_OBJECT_TYPE", id, len(def)))
			break
		}
		if dl := le.Uint32(def[oDefinitionLength:]); dl != uint32(len(def)) {
			p.fail("definition", fmt.Sprintf("definition %d: %d bytes, its DefinitionLength says %d", id, len(def), dl))
			break
		}
		d.defs = append(d.defs, bytes.Clone(def))
	}
	return p.err
}

// sample rebuilds the sample in payload b; t is its time.
func (d *decoder) sample(b []byte) (*pdh.Sample, error) {
	p := &payload{b: b}
	d.budget = sampleBudget(d.lastSize, len(b))
	d.capped = int64(d.budget) > d.allow
	if d.capped {
		d.budget = int(max(d.allow, 0))
	}
	d.limit = d.budget
	s := &pdh.Sample{}
	flags := p.uvarint("sample flags")
	s.Gap = flags&1 != 0
	s.Problems = readProblems(p)
	nb := p.count("block count", 3)
	raw := make([][]byte, 0, nb)
	size := 0
	for bi := 0; bi < nb && p.err == nil; bi++ {
		blk := d.block(p, bi)
		if p.err != nil {
			return nil, fmt.Errorf("block %d: %w", bi, p.err)
		}
		raw = append(raw, blk)
		size += len(blk)
		if bi < len(d.sizes) {
			d.sizes[bi] = len(blk)
		} else {
			d.sizes = append(d.sizes, len(blk))
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	if p.left() > 0 {
		readProblemMachines(p, s.Problems)
		if p.err != nil {
			return nil, p.err
		}
	}
	d.lastSize = size
	s.Blocks = make([]perfdata.Block, 0, len(raw))
	for i, r := range raw {
		blk, err := perfdata.Parse(r)
		if err != nil {
			return nil, fmt.Errorf("block %d as rebuilt is not a valid PERF_DATA_BLOCK: %w", i, err)
		}
		s.Blocks = append(s.Blocks, blk)
	}
	return s, nil
}

// readProblemMachines reads the machines of the sample's problems, the
// field after the blocks (absent in samples without one; a writer's
// padding, zeros, reads as none).
func readProblemMachines(p *payload, ps []pdh.Problem) {
	n := p.count("problem machine count", 2)
	for range n {
		i := p.uvarint("problem machine's problem")
		m := p.str("problem machine")
		if p.err != nil {
			return
		}
		if i >= uint64(len(ps)) {
			p.fail("problem machine's problem", fmt.Sprintf("problem %d of a sample of %d problems", i, len(ps)))
			return
		}
		ps[i].Machine = m
	}
}

func readProblems(p *payload) []pdh.Problem {
	n := p.count("problem count", 5)
	if n == 0 {
		return nil
	}
	out := make([]pdh.Problem, 0, n)
	for i := 0; i < n && p.err == nil; i++ {
		var pr pdh.Problem
		pr.Object = uint32(p.uvarint("problem object"))
		pr.ObjectName = p.str("problem object name")
		pr.Reason = p.str("problem reason")
		pr.Partial = p.u8("problem partial") != 0
		m := p.count("problem missing count", 2)
		for j := 0; j < m && p.err == nil; j++ {
			mv := pdh.MissingValues{Instance: int(p.svarint("missing instance"))}
			k := p.count("missing counter count", 1)
			for c := 0; c < k && p.err == nil; c++ {
				mv.Counters = append(mv.Counters, uint32(p.uvarint("missing counter")))
			}
			pr.Missing = append(pr.Missing, mv)
		}
		out = append(out, pr)
	}
	return out
}

// spend takes n bytes from the sample's budget.
func (d *decoder) spend(p *payload, field string, n uint64) bool {
	if p.err != nil {
		return false
	}
	if n > uint64(d.budget) {
		what := "the sample's budget (its payload's length and the sample before)"
		if d.capped {
			what = "the record's allowance (its length) after its payload"
		}
		p.fail(field, fmt.Sprintf("%d bytes: more than the record can rebuild (%d bytes left of %d, %s: FORMAT.md, Limits)", n, d.budget, d.limit, what))
		return false
	}
	d.budget -= int(n)
	return true
}

func (d *decoder) block(p *payload, bi int) []byte {
	st := d.st
	for len(st.headers) <= bi {
		st.headers = append(st.headers, nil)
	}
	hl := p.uvarint("header length")
	if p.err == nil && hl < blockHdr {
		p.fail("header length", fmt.Sprintf("%d: a PERF_DATA_BLOCK header has at least %d bytes", hl, blockHdr))
	}
	if !d.spend(p, "header length", hl) {
		return nil
	}
	hint := 0
	if bi < len(d.sizes) {
		hint = d.sizes[bi]
	}
	out := make([]byte, hl, max(uint64(hint), hl))
	base := st.headers[bi]
	if uint64(len(base)) != hl {
		base = nil
	}
	wd := wordDec{p: p}
	wd.decode(out, base)
	wd.done("header words")
	st.headers[bi] = append(st.headers[bi][:0], out...)
	nobj := p.count("object count", 5)
	clear(st.occ)
	for i := 0; i < nobj && p.err == nil; i++ {
		out = d.object(p, bi, out)
		if p.err != nil {
			if fe, ok := p.err.(*fieldError); ok {
				fe.field = fmt.Sprintf("object %d: %s", i, fe.field)
			}
		}
	}
	tail := p.bytes("block tail")
	if d.spend(p, "block tail", uint64(len(tail))) {
		out = append(out, tail...)
	}
	return out
}

// object appends the rebuilt object to out.
func (d *decoder) object(p *payload, bi int, out []byte) []byte {
	id := p.uvarint("definition id")
	layout := p.uvarint("layout")
	ni := p.svarint("NumInstances")
	dpt := p.svarint("PerfTime")
	if p.err != nil {
		return out
	}
	if id == 0 || id > uint64(len(d.defs)) {
		p.fail("definition id", fmt.Sprintf("id %d is not defined (the epoch defines %d)", id, len(d.defs)))
		return out
	}
	if ni < -1<<31 || ni > 1<<31-1 {
		p.fail("NumInstances", fmt.Sprintf("%d out of range", ni))
		return out
	}
	def := d.defs[id-1]
	ks := d.st.key(bi, le.Uint32(def[oNameTitleIndex:]))
	start := len(out)
	if !d.spend(p, "definition", uint64(len(def))) {
		return out
	}
	out = append(out, def...)
	cur, curData := &ks.nextInsts, &ks.nextData
	cur.reset()
	curData.reset()
	switch layout {
	case layoutNone:
	case layoutSingle:
		l := p.uvarint("counter block length")
		if p.err == nil && l < cblkMin {
			p.fail("counter block length", fmt.Sprintf("%d: less than %d", l, cblkMin))
		}
		if !d.spend(p, "counter block length", l) {
			return out
		}
		var base []byte
		if ks.data.n() > 0 {
			base = ks.data.get(0)
		}
		blk := curData.grow(int(l))
		wd := wordDec{p: p}
		wd.decode(blk, base)
		wd.done("counter words")
		out = append(out, blk...)
	case layoutInstances:
		out = d.instances(p, ks, ni, out)
	case layoutRaw:
		raw := p.bytes("raw object data")
		if d.spend(p, "raw object data", uint64(len(raw))) {
			out = append(out, raw...)
		}
	default:
		p.fail("layout", fmt.Sprintf("unknown layout %d", layout))
	}
	tail := p.bytes("object tail")
	if !d.spend(p, "object tail", uint64(len(tail))) {
		return out
	}
	out = append(out, tail...)
	obj := out[start:]
	if uint64(len(obj)) > 1<<32-1 {
		p.fail("object", "longer than 4 GiB")
		return out
	}
	le.PutUint32(obj[oTotalByteLength:], uint32(len(obj)))
	le.PutUint32(obj[oNumInstances:], uint32(int32(ni)))
	ks.perfTime += dpt
	le.PutUint64(obj[oPerfTime:], uint64(ks.perfTime))
	ks.insts, ks.nextInsts = ks.nextInsts, ks.insts
	ks.data, ks.nextData = ks.nextData, ks.data
	if layout != layoutInstances {
		ks.insts.reset()
	}
	return out
}

func (d *decoder) instances(p *payload, ks *keyState, ni int64, out []byte) []byte {
	cur, prev := &ks.nextInsts, &ks.insts
	changed := p.uvarint("instances changed")
	if p.err != nil {
		return out
	}
	var bases []int
	switch changed {
	case 0:
		if int64(prev.n()) != ni {
			p.fail("instances changed", fmt.Sprintf("the previous instance list has %d instances, NumInstances is %d", prev.n(), ni))
			return out
		}
		if !d.spend(p, "instances", uint64(len(prev.buf))) {
			return out
		}
		cur.buf = append(cur.buf, prev.buf...)
		cur.off = append(cur.off, prev.off...)
		bases = make([]int, prev.n())
		for i := range bases {
			bases[i] = i
		}
	case 1:
		n := p.uvarint("instance count")
		if p.err == nil && int64(n) != ni {
			p.fail("instance count", fmt.Sprintf("%d, NumInstances is %d", n, ni))
		}
		// Every instance costs at least a byte of payload or 24 bytes of budget.
		if p.err == nil && n > uint64(p.left())+uint64(d.budget/instMin) {
			p.fail("instance count", fmt.Sprintf("%d: more than the record can hold", n))
		}
		if p.err != nil {
			return out
		}
		bases = make([]int, 0, n)
		for uint64(len(bases)) < n && p.err == nil {
			t := p.uvarint("instance op")
			k := t >> 1
			if p.err == nil && (k == 0 || k > n-uint64(len(bases))) {
				p.fail("instance op", fmt.Sprintf("a run of %d instances where %d remain", k, n-uint64(len(bases))))
			}
			if p.err != nil {
				break
			}
			if t&1 == 0 {
				j := p.uvarint("instance copy start")
				if p.err == nil && (j > uint64(prev.n()) || k > uint64(prev.n())-j) {
					p.fail("instance copy start", fmt.Sprintf("copies %d from %d of a previous list of %d", k, j, prev.n()))
				}
				for x := uint64(0); x < k && p.err == nil; x++ {
					b := prev.get(int(j + x))
					if d.spend(p, "instance", uint64(len(b))) {
						cur.add(b)
						bases = append(bases, int(j+x))
					}
				}
				continue
			}
			for x := uint64(0); x < k && p.err == nil; x++ {
				b := p.bytes("instance definition")
				if p.err == nil && len(b) < instMin {
					p.fail("instance definition", fmt.Sprintf("%d bytes: less than %d", len(b), instMin))
				}
				if d.spend(p, "instance definition", uint64(len(b))) {
					cur.add(b)
					bases = append(bases, -1)
				}
			}
		}
	default:
		p.fail("instances changed", fmt.Sprintf("%d: 0 or 1", changed))
	}
	if p.err != nil {
		return out
	}
	n := len(bases)
	data, pdata := &ks.nextData, &ks.data
	lens := make([]int, n)
	prevLen := int64(0)
	for i := 0; i < n && p.err == nil; i++ {
		var l int64
		if i == 0 {
			u := p.uvarint("counter block length")
			if u > maxCounterBlock {
				u = maxCounterBlock
			}
			l = int64(u)
		} else {
			l = prevLen + p.svarint("counter block length")
		}
		if p.err == nil && (l < cblkMin || l > maxCounterBlock) {
			p.fail("counter block length", fmt.Sprintf("instance %d: %d bytes", i, l))
		}
		if !d.spend(p, "counter block length", uint64(l)) {
			return out
		}
		lens[i] = int(l)
		prevLen = l
	}
	wd := wordDec{p: p}
	for i := 0; i < n && p.err == nil; i++ {
		var base []byte
		if j := bases[i]; j >= 0 && j < pdata.n() {
			base = pdata.get(j)
		}
		wd.decode(data.grow(lens[i]), base)
	}
	wd.done("counter words")
	if p.err != nil {
		return out
	}
	for i := range n {
		out = append(out, cur.get(i)...)
		out = append(out, data.get(i)...)
	}
	return out
}
