package perfdata

import (
	"errors"
	"strings"
	"testing"

	ct "github.com/perfcounters/perfcounters/countertype"
)

// FuzzParse: Parse never panics, fails only with a *FormatError that
// points inside the input, and after success every accessor works, the
// integrity checks agree, and re-encoding what was read through the Builder
// reads back the same.
func FuzzParse(f *testing.F) {
	for _, b := range loadBlocks(f, windowsDir) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		blk, err := Parse(data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v is not a *FormatError", err, err)
			}
			if fe.Offset < 0 || fe.Offset > len(data) || fe.Struct == "" || fe.Msg == "" || fe.Msg[0] < 'a' && fe.Msg[0] > '9' || strings.HasSuffix(fe.Msg, ".") {
				t.Fatalf("bad error %+v", fe)
			}
			return
		}
		h := blk.Header()
		if int(h.TotalByteLength) != len(blk.Bytes()) || int(h.TotalByteLength) > len(data) {
			t.Fatalf("TotalByteLength %d, view %d, data %d", h.TotalByteLength, len(blk.Bytes()), len(data))
		}
		m := decodeModel(blk)
		if len(m.Objects) != blk.NumObjects() {
			t.Fatalf("%d objects walked, NumObjects %d", len(m.Objects), blk.NumObjects())
		}
		// the header-only parse agrees with the whole parse
		if hh, err := ParseHeader(data); err != nil || hh != h {
			t.Fatalf("ParseHeader = %+v, %v; Parse's header %+v", hh, err, h)
		}
		// every slice handed out lies inside the block; a ValueReader reads
		// what Value reads; the values walked are bounded by the bytes
		var r ValueReader
		values := 0
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			r.Reset(o)
			defs := o.AppendCounters(nil)
			check := func(c CounterBlock) {
				got := r.Read(c, nil)
				values += len(got)
				for i, d := range defs {
					if got[i] != c.Value(d) {
						t.Fatalf("ValueReader counter %d = %d, Value %d", i, got[i], c.Value(d))
					}
				}
			}
			if o.NumInstances() == NoInstances {
				check(o.SingleBlock())
			}
			for jt := o.Instances(); jt.Next(); {
				check(jt.Instance().Block())
			}
			for i := 0; i < o.NumCounters(); i++ {
				if b := o.BaseOf(i); b != -1 && b != i+1 {
					t.Fatalf("BaseOf(%d) = %d", i, b)
				}
			}
			for jt := o.Instances(); jt.Next(); {
				in := jt.Instance()
				if len(in.NameBytes()) > len(in.b) || int(in.Block().ByteLength()) != len(in.Block().Bytes()) {
					t.Fatal("instance slices inconsistent")
				}
			}
		}
		if values > len(data) {
			t.Fatalf("%d values in a %d-byte block", values, len(data))
		}
		// the level-2 test of the objects agrees with Parse
		objs := blk.Bytes()[h.HeaderLength:]
		if err := CheckObjects(objs, h.NumObjectTypes, 2); err != nil {
			t.Fatalf("Parse accepted, CheckObjects level 2: %v", err)
		}
		if err := CheckObjects(objs, h.NumObjectTypes, 1); errors.Is(err, ErrObjectInvalid) || errors.Is(err, ErrObjectOverrun) || errors.Is(err, ErrTotalMismatch) {
			t.Fatalf("Parse accepted, CheckObjects level 1: %v", err)
		}
		_ = CheckAlignment(objs, h.NumObjectTypes)
		// re-encode through the Builder where the Builder can express it
		for _, o := range m.Objects {
			if o.NumInst < -1 {
				return
			}
			l, err := NewLayout(o.Counters)
			if err != nil {
				return
			}
			for i, c := range o.Counters {
				if l.Size(i) != c.Size {
					return
				}
			}
		}
		out, err := encodeModel(NewBuilder(nil), m)
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		re, err := Parse(out)
		if err != nil {
			t.Fatalf("re-encoded block: %v", err)
		}
		if got := decodeModel(re); !sameModel(got, m) {
			t.Fatalf("re-encoded block reads back differently:\n got %+v\nwant %+v", got, m)
		}
	})
}

// FuzzCheckObjects: CheckObjects never panics, returns only named
// *FormatErrors, and objects that pass level 1 are accepted by
// AppendObjects and Parse.
func FuzzCheckObjects(f *testing.F) {
	for _, b := range loadBlocks(f, windowsDir) {
		f.Add(b[104:], uint32(1), 1)
		f.Add(b[104:], uint32(2), 2)
	}
	named := []error{ErrCountMismatch, ErrObjectTooShort, ErrObjectOverrun, ErrTotalMismatch, ErrObjectInvalid, ErrInstanceOverrun, ErrInstanceChain}
	f.Fuzz(func(t *testing.T, objs []byte, n uint32, level int) {
		err := CheckObjects(objs, n, level)
		if err != nil {
			if level != 1 && level != 2 {
				t.Fatalf("level %d checked: %v", level, err)
			}
			matched := 0
			for _, e := range named {
				if errors.Is(err, e) {
					matched++
				}
			}
			var fe *FormatError
			if matched != 1 || !errors.As(err, &fe) || fe.Offset < 0 || fe.Offset > len(objs) {
				t.Fatalf("error %v: %d named errors", err, matched)
			}
			if level == 2 && (errors.Is(err, ErrTotalMismatch) || errors.Is(err, ErrObjectInvalid) || errors.Is(err, ErrInstanceChain) || errors.Is(err, ErrInstanceOverrun)) {
				t.Fatalf("level 2 ran a level-1 test: %v", err)
			}
			return
		}
		if level != 1 {
			return
		}
		if err := CheckObjects(objs, n, 2); err != nil {
			t.Fatalf("level 1 passed, level 2: %v", err)
		}
		b := NewBuilder(nil)
		b.Reset(Header{SystemName: "fuzz"})
		if err := b.AppendObjects(objs, n); err != nil {
			t.Fatalf("level 1 passed, AppendObjects: %v", err)
		}
		blk, err := Parse(b.Bytes())
		if err != nil {
			t.Fatalf("level 1 passed, Parse: %v", err)
		}
		_ = decodeModel(blk)
	})
}

// palette is the counter types FuzzRoundTrip draws from.
var palette = []CounterSpec{
	{Type: ct.PERF_COUNTER_RAWCOUNT}, {Type: ct.PERF_COUNTER_LARGE_RAWCOUNT}, {Type: ct.PERF_COUNTER_COUNTER},
	{Type: ct.PERF_COUNTER_BULK_COUNT}, {Type: ct.PERF_RAW_FRACTION}, {Type: ct.PERF_RAW_BASE},
	{Type: ct.PERF_AVERAGE_TIMER, Size: 8}, {Type: ct.PERF_AVERAGE_BASE}, {Type: ct.PERF_100NSEC_MULTI_TIMER},
	{Type: ct.PERF_COUNTER_TEXT, Size: 10}, {Type: ct.PERF_COUNTER_TEXT | ct.PERF_TEXT_ASCII, Size: 7},
	{Type: ct.PERF_COUNTER_NODATA}, {Type: ct.PERF_ELAPSED_TIME}, {Type: ct.PERF_PRECISION_100NS_TIMER},
}

// reader hands out fuzz bytes; zeros when they run out.
type reader struct{ b []byte }

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) u64() uint64 {
	var v uint64
	for range 8 {
		v = v<<8 | uint64(r.byte())
	}
	return v
}

func (r *reader) str(cp bool) string {
	n := int(r.byte() % 12)
	var sb strings.Builder
	for range n {
		c := r.byte()
		switch {
		case cp:
			if c == 0 {
				c = 'z'
			}
			sb.WriteByte(c)
		case c < 0x80 && c != 0:
			sb.WriteByte(c)
		default:
			sb.WriteRune([]rune{'한', 'パ', 'é', '🙂', '\uFFFD', 'Ω'}[c%6])
		}
	}
	return sb.String()
}

// FuzzRoundTrip builds random objects with the Builder and checks that
// Parse reads back exactly what was built, and that the integrity checks
// pass on Builder output.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 2, 'a', 'b', 200, 201, 202})
	f.Add([]byte("\x03\x05\x01\x09\x0a\x08\x03\x00\x00\xff\x04abcd\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &reader{b: data}
		m := model{Header: Header{
			DefaultObject: int32(r.byte()), SystemTime: SystemTime{Year: 2026, Month: uint16(r.byte())},
			PerfTime: int64(r.u64()), PerfFreq: 10000000, PerfTime100nSec: int64(r.u64()), SystemName: r.str(false),
		}}
		nobj := int(r.byte() % 4)
		for range nobj {
			k := r.byte()
			mo := modelObject{Spec: ObjectSpec{
				NameIndex: uint32(r.byte()) * 2, HelpIndex: uint32(r.byte())*2 + 1, DetailLevel: 100 * uint32(k%4+1),
				DefaultCounter: int32(int8(r.byte())), PerfTime: int64(r.u64()), PerfFreq: int64(r.byte()),
				Single: k&0x10 != 0,
			}}
			if k&0x20 != 0 {
				mo.Spec.CodePage = 1252
			}
			nc := int(r.byte() % 9)
			for range nc {
				c := palette[int(r.byte())%len(palette)]
				c.NameIndex, c.HelpIndex, c.DefaultScale = uint32(r.byte()), uint32(r.byte()), int32(int8(r.byte()))%8
				if c.Size == 0 {
					c.Size = uint32(c.Type.ByteSize())
				}
				mo.Counters = append(mo.Counters, c)
			}
			vals := func() []modelValue {
				vs := make([]modelValue, nc)
				for i, c := range mo.Counters {
					switch {
					case c.Type.IsText():
						vs[i].Text = r.str(c.Type.Subtype() == ct.PERF_TEXT_ASCII)
						vs[i].Text = truncText(vs[i].Text, c)
					case c.Size == 4:
						vs[i].N = r.u64() & 0xFFFFFFFF
					case c.Size == 8:
						vs[i].N = r.u64()
					}
					if c.Type.Multi() {
						vs[i].Multi = uint32(r.u64())
					}
				}
				return vs
			}
			if mo.Spec.Single {
				mo.NumInst = -1
				mo.Single = vals()
			} else {
				ni := int(r.byte() % 6)
				mo.NumInst = int32(ni)
				for range ni {
					mo.Instances = append(mo.Instances, modelInstance{
						Name: r.str(mo.Spec.CodePage != 0), ParentIndex: uint32(r.byte()), ParentPos: uint32(r.byte()),
						UniqueID: int32(r.u64()), Values: vals(),
					})
				}
			}
			m.Objects = append(m.Objects, mo)
		}
		m.Header.NumObjectTypes = uint32(nobj)
		raw, err := encodeModel(NewBuilder(nil), m)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := decodeModel(blk); !sameModel(got, m) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, m)
		}
		hl := blk.Header().HeaderLength
		if err := CheckObjects(raw[hl:], uint32(nobj), 1); err != nil {
			t.Fatal(err)
		}
		if err := CheckAlignment(raw[hl:], uint32(nobj)); err != nil {
			t.Fatal(err)
		}
	})
}

// truncText cuts s to what fits in text counter c, as SetText does.
func truncText(s string, c CounterSpec) string {
	if c.Type.Subtype() == ct.PERF_TEXT_ASCII {
		if len(s) > int(c.Size) {
			s = s[:c.Size]
		}
		return s
	}
	n := 0
	for i, r := range s {
		w := 2
		if r >= 0x10000 {
			w = 4
		}
		if n+w > int(c.Size) {
			return s[:i]
		}
		n += w
	}
	return s
}
