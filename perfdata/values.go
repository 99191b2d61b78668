package perfdata

// ValueReader reads the raw numeric values of every counter of one object
// from each of its counter blocks in one straight pass. Reset studies the
// object's definitions once (which counters are DWORDs, which 8-byte
// values); Read then copies the values of a counter block without looking
// at a definition again. Parse has already checked that every counter lies
// inside every counter block of its object, so Read cannot fail on a
// validated block.
//
// The zero ValueReader is ready for Reset; reuse one across objects and
// samples to avoid allocating:
//
//	var r perfdata.ValueReader
//	vals := make([]uint64, 0, 64)
//	for it := o.Instances(); it.Next(); {
//		vals = r.Read(it.Instance().Block(), vals[:0])
//	}
type ValueReader struct {
	q8, q4 []valueSlot // 8-byte and 4-byte values
	qn     []valueSlot // other sizes (text, odd widths): read as Value does
	n      int         // number of counters
	need   uint64      // the counter block length every fast read fits in
}

type valueSlot struct {
	off, pos, size uint32
}

// Reset prepares r for the counters of o (bases and text counters included:
// Read yields one value per definition, in definition order).
func (r *ValueReader) Reset(o Object) {
	r.q8, r.q4, r.qn = r.q8[:0], r.q4[:0], r.qn[:0]
	r.n = o.NumCounters()
	r.need = 0
	if r.n == 0 {
		return
	}
	p := int(le.Uint32(o.b[oHeaderLength:]))
	for i := range r.n {
		d := o.b[p : p+CounterDefSize]
		s := valueSlot{off: le.Uint32(d[cCounterOffset:]), pos: uint32(i), size: le.Uint32(d[cCounterSize:])}
		switch s.size {
		case 8:
			r.q8 = append(r.q8, s)
		case 4:
			r.q4 = append(r.q4, s)
		default:
			r.qn = append(r.qn, s)
		}
		if s.size == 8 || s.size == 4 {
			r.need = max(r.need, uint64(s.off)+uint64(s.size))
		}
		p += o.stride
	}
}

// Read appends the raw value of every counter, in definition order, to dst
// and returns it: DWORDs and 8-byte values as numbers, other sizes as
// CounterBlock.Value reads them (text counters read as their first bytes;
// use CounterBlock.Text for their text). A block that does not hold a value
// (a block of another object) reads 0 for it. Read does not allocate when
// dst has room for the object's NumCounters more values.
func (r *ValueReader) Read(c CounterBlock, dst []uint64) []uint64 {
	base := len(dst)
	dst = append(dst, make([]uint64, r.n)...) // no allocation when dst has room
	out := dst[base:]
	b := c.b
	if uint64(len(b)) < r.need {
		// Not a block of the object Reset studied: read each value safely.
		for _, s := range r.q8 {
			out[s.pos] = c.valueN(s.off, 8)
		}
		for _, s := range r.q4 {
			out[s.pos] = c.valueN(s.off, 4)
		}
	} else {
		for _, s := range r.q8 {
			out[s.pos] = le.Uint64(b[s.off:])
		}
		for _, s := range r.q4 {
			out[s.pos] = uint64(le.Uint32(b[s.off:]))
		}
	}
	for _, s := range r.qn {
		out[s.pos] = c.valueN(s.off, s.size)
	}
	return dst
}
