package pdh

import (
	"context"
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/perfcounters/perfcounters/calc"
	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// benchSource replays one block with 500 processes × 28 counters and 5,000
// threads, built once; each sample advances the clocks by one second and
// adds CPU time to every instance, in place.
type benchSource struct {
	db    *titles.DB
	block []byte
	cpu   []int // offsets of every instance's % Processor Time value
	n     uint64
}

// Windows' Process counters (title indexes of English Windows).
var benchProcIdx = []uint32{6, 142, 144, 172, 174, 28, 178, 180, 182, 184, 56, 58, 186, 680, 682, 684,
	784, 1410, 952, 1412, 1414, 1416, 1418, 1420, 1422, 1424, 1426, 1478}

var benchThreadIdx = []uint32{146, 142, 144, 6, 684, 694, 682, 46, 784, 804, 336}

func benchType(idx uint32) ct.Type {
	switch idx {
	case 6, 142, 144:
		return ct.PERF_100NSEC_TIMER
	case 684:
		return ct.PERF_ELAPSED_TIME
	case 28, 146:
		return ct.PERF_COUNTER_COUNTER
	case 1412, 1414, 1416, 1418, 1420, 1422, 1424, 1426:
		return ct.PERF_COUNTER_BULK_COUNT
	case 172, 174, 178, 180, 182, 184, 56, 58, 186, 1478:
		return ct.PERF_COUNTER_LARGE_RAWCOUNT
	}
	return ct.PERF_COUNTER_RAWCOUNT
}

func newBenchSource(tb testing.TB, nproc, nthread int) *benchSource {
	tb.Helper()
	specs := func(idx []uint32) []perfdata.CounterSpec {
		s := make([]perfdata.CounterSpec, len(idx))
		for i, x := range idx {
			s[i] = perfdata.CounterSpec{NameIndex: x, HelpIndex: x + 1, Type: benchType(x), DetailLevel: 100}
		}
		return s
	}
	ps, ts := specs(benchProcIdx), specs(benchThreadIdx)
	pl, err := perfdata.NewLayout(ps)
	if err != nil {
		tb.Fatal(err)
	}
	tl, err := perfdata.NewLayout(ts)
	if err != nil {
		tb.Fatal(err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: t0, PerfFreq: 1e7, PerfTime100nSec: t0, SystemName: "BENCH"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 230, HelpIndex: 231, PerfTime: t0, PerfFreq: 1e7}, pl, ps); err != nil {
		tb.Fatal(err)
	}
	for i := range nproc {
		// Names repeat (many "worker" processes), as on real hosts.
		name := "proc" + strconv.Itoa(i%200)
		v := b.Instance(name, 0, 0, perfdata.NoUniqueID)
		for k := range ps {
			v.Set(k, uint64(i*100+k))
		}
		v.Set(16, uint64(1000+i)) // ID Process
		v.Set(15, uint64(t0-int64(i)*1e7))
	}
	if err := b.EndObject(); err != nil {
		tb.Fatal(err)
	}
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 232, HelpIndex: 233, PerfTime: t0, PerfFreq: 1e7}, tl, ts); err != nil {
		tb.Fatal(err)
	}
	for i := range nthread {
		parent := i % nproc
		v := b.Instance(strconv.Itoa(i/nproc), 230, uint32(parent), perfdata.NoUniqueID)
		for k := range ts {
			v.Set(k, uint64(i+k))
		}
		v.Set(9, uint64(100000+i)) // ID Thread
		v.Set(4, uint64(t0-int64(i)*1e5))
	}
	if err := b.EndObject(); err != nil {
		tb.Fatal(err)
	}
	s := &benchSource{db: titles.English(), block: append([]byte(nil), b.Bytes()...)}
	blk, err := perfdata.Parse(s.block)
	if err != nil {
		tb.Fatal(err)
	}
	// Absolute offsets of the values, by walking the layout: objects after
	// the header, instances after the definitions, each instance's counter
	// block after its definition and name.
	le := binary.LittleEndian
	obj := int(le.Uint32(s.block[24:]))
	for it := blk.Objects(); it.Next(); {
		o := it.Object()
		var off uint32
		for k := range o.NumCounters() {
			if o.Counter(k).NameIndex == 6 {
				off = o.Counter(k).Offset
			}
		}
		in := obj + int(o.DefinitionLength())
		for range o.InstanceCount() {
			cb := in + int(le.Uint32(s.block[in:]))
			s.cpu = append(s.cpu, cb+int(off))
			in = cb + int(le.Uint32(s.block[cb:]))
		}
		obj += int(o.TotalByteLength())
	}
	return s
}

func (s *benchSource) Sample(context.Context, []uint32) (*Sample, error) {
	s.n++
	le := binary.LittleEndian
	t := uint64(t0) + s.n*1e7
	le.PutUint64(s.block[56:], t)
	le.PutUint64(s.block[72:], t)
	for i, off := range s.cpu {
		le.PutUint64(s.block[off:], le.Uint64(s.block[off:])+uint64(i%7)*1e5)
	}
	return NewSample([][]byte{s.block})
}

func (s *benchSource) Titles() *titles.DB { return s.db }
func (s *benchSource) Recorded() Recorded { return nil }

// BenchmarkCollectFormat is one sample of `\Process(*)\*` and
// `\Thread(*)\% Processor Time` on a host with 500 processes and 5,000
// threads: Collect, then every value formatted.
func BenchmarkCollectFormat(b *testing.B) {
	for _, reuse := range []bool{true, false} {
		name := "FormattedArray"
		if reuse {
			name = "AppendFormattedArray"
		}
		b.Run(name, func(b *testing.B) {
			src := newBenchSource(b, 500, 5000)
			q := OpenQuery(src)
			for _, p := range []string{`\Process(*)\*`, `\Thread(*)\% Processor Time`} {
				if _, err := q.AddCounter(p); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			var items []Item
			step := func() {
				if err := q.Collect(ctx); err != nil {
					b.Fatal(err)
				}
				n := 0
				for _, c := range q.Counters() {
					if reuse {
						items = c.AppendFormattedArray(items[:0], calc.FmtDouble)
					} else {
						items = c.FormattedArray(calc.FmtDouble)
					}
					n += len(items)
				}
				if n != 500*28+5000 {
					b.Fatalf("%d values", n)
				}
			}
			step()
			step()
			b.ReportAllocs()
			b.SetBytes(int64(len(src.block)))
			for b.Loop() {
				step()
			}
		})
	}
}
