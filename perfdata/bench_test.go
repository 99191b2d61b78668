package perfdata

import (
	"strconv"
	"testing"

	ct "github.com/perfcounters/perfcounters/countertype"
)

const (
	benchInstances = 2000
	benchCounters  = 40
)

// benchSpecs are 40 counters mixing DWORD and 8-byte types, with bases.
func benchSpecs() []CounterSpec {
	types := []CounterSpec{
		{Type: ct.PERF_100NSEC_TIMER}, {Type: ct.PERF_COUNTER_COUNTER}, {Type: ct.PERF_COUNTER_LARGE_RAWCOUNT},
		{Type: ct.PERF_COUNTER_RAWCOUNT}, {Type: ct.PERF_COUNTER_BULK_COUNT}, {Type: ct.PERF_RAW_FRACTION},
		{Type: ct.PERF_RAW_BASE}, {Type: ct.PERF_ELAPSED_TIME},
	}
	specs := make([]CounterSpec, benchCounters)
	for i := range specs {
		specs[i] = types[i%len(types)]
		specs[i].NameIndex, specs[i].HelpIndex, specs[i].DetailLevel = uint32(1000+2*i), uint32(1001+2*i), 100
	}
	return specs
}

func benchNames() []string {
	base := []string{"svchost", "chrome", "System", "explorer", "MsMpEng", "RuntimeBroker", "SearchIndexer", "dwm", "conhost", "Code - Insiders"}
	names := make([]string, benchInstances)
	for i := range names {
		names[i] = base[i%len(base)] + "#" + strconv.Itoa(i/len(base))
	}
	return names
}

type benchEncoder struct {
	b     *Builder
	l     *Layout
	specs []CounterSpec
	names []string
}

func newBenchEncoder(tb testing.TB) *benchEncoder {
	specs := benchSpecs()
	l, err := NewLayout(specs)
	if err != nil {
		tb.Fatal(err)
	}
	return &benchEncoder{b: NewBuilder(nil), l: l, specs: specs, names: benchNames()}
}

func (e *benchEncoder) encode(tb testing.TB, round uint64) []byte {
	b := e.b
	b.Reset(Header{DefaultObject: 230, PerfFreq: 10000000, SystemName: "BENCH-HOST"})
	if err := b.BeginObject(ObjectSpec{NameIndex: 230, HelpIndex: 231, DetailLevel: 100, PerfFreq: 10000000}, e.l, e.specs); err != nil {
		tb.Fatal(err)
	}
	for i, name := range e.names {
		v := b.Instance(name, 0, 0, NoUniqueID)
		for j := range benchCounters {
			v.Set(j, round+uint64(i*benchCounters+j))
		}
	}
	if err := b.EndObject(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// BenchmarkDecode: Parse (validating the whole block), then for every
// object one ValueReader.Reset and for every instance its name and all its
// raw values (ValueReader.Read).
func BenchmarkDecode(b *testing.B) {
	block := append([]byte(nil), newBenchEncoder(b).encode(b, 1)...)
	b.SetBytes(int64(len(block)))
	b.ReportAllocs()
	var sum uint64
	var r ValueReader
	vals := make([]uint64, 0, benchCounters)
	for b.Loop() {
		blk, err := Parse(block)
		if err != nil {
			b.Fatal(err)
		}
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			r.Reset(o)
			for jt := o.Instances(); jt.Next(); {
				in := jt.Instance()
				sum += uint64(len(in.NameBytes()))
				vals = r.Read(in.Block(), vals[:0])
				for _, v := range vals {
					sum += v
				}
			}
		}
	}
	if sum == 0 {
		b.Fatal("nothing read")
	}
}

// BenchmarkDecodeValue is BenchmarkDecode reading each value through
// CounterBlock.Value with its definition (the way before ValueReader).
func BenchmarkDecodeValue(b *testing.B) {
	block := append([]byte(nil), newBenchEncoder(b).encode(b, 1)...)
	b.SetBytes(int64(len(block)))
	b.ReportAllocs()
	var sum uint64
	var defs [benchCounters]CounterDef
	for b.Loop() {
		blk, err := Parse(block)
		if err != nil {
			b.Fatal(err)
		}
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			n := min(o.NumCounters(), len(defs))
			for i := range n {
				defs[i] = o.Counter(i)
			}
			for jt := o.Instances(); jt.Next(); {
				in := jt.Instance()
				sum += uint64(len(in.NameBytes()))
				c := in.Block()
				for i := range n {
					sum += c.Value(defs[i])
				}
			}
		}
	}
	if sum == 0 {
		b.Fatal("nothing read")
	}
}

func BenchmarkEncode(b *testing.B) {
	e := newBenchEncoder(b)
	n := len(e.encode(b, 0)) // grows the buffer once
	b.SetBytes(int64(n))
	b.ReportAllocs()
	var round uint64
	for b.Loop() {
		round++
		e.encode(b, round)
	}
}

// TestBenchBlock checks the benchmark's block reads back what was written,
// so the benchmarks measure real work.
func TestBenchBlock(t *testing.T) {
	e := newBenchEncoder(t)
	raw := e.encode(t, 7)
	blk, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := blk.Object(230)
	if !ok || o.InstanceCount() != benchInstances || o.NumCounters() != benchCounters {
		t.Fatalf("object %v %d %d", ok, o.InstanceCount(), o.NumCounters())
	}
	i := 0
	for it := o.Instances(); it.Next(); i++ {
		in := it.Instance()
		if in.Name() != e.names[i] {
			t.Fatalf("instance %d name %q", i, in.Name())
		}
		for j := range benchCounters {
			want := uint64(7 + i*benchCounters + j)
			if o.Counter(j).Size == 4 {
				want &= 0xFFFFFFFF
			}
			if got := in.Block().Value(o.Counter(j)); got != want {
				t.Fatalf("instance %d counter %d = %d, want %d", i, j, got, want)
			}
		}
	}
	// steady state: encoding again allocates nothing
	if a := testing.AllocsPerRun(3, func() { e.encode(t, 8) }); a != 0 {
		t.Errorf("encode allocates %.0f times per block", a)
	}
	if a := testing.AllocsPerRun(3, func() {
		blk, _ := Parse(raw)
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			for jt := o.Instances(); jt.Next(); {
				_ = jt.Instance().Block().Value(o.Counter(0))
			}
		}
	}); a != 0 {
		t.Errorf("decode allocates %.0f times per block", a)
	}
	var r ValueReader
	vals := make([]uint64, 0, benchCounters)
	blk, _ = Parse(raw)
	o, _ = blk.Object(230)
	r.Reset(o) // grows r's slices once
	if a := testing.AllocsPerRun(3, func() {
		blk, _ := Parse(raw)
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			r.Reset(o)
			for jt := o.Instances(); jt.Next(); {
				vals = r.Read(jt.Instance().Block(), vals[:0])
			}
		}
	}); a != 0 {
		t.Errorf("decode with a ValueReader allocates %.0f times per block", a)
	}
}
