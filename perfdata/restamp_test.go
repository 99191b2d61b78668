package perfdata

import (
	"bytes"
	"testing"

	ct "github.com/perfcounters/perfcounters/countertype"
)

// TestRestamp: a block written again in place (Restamp, AppendValues,
// Clear, Set) is byte for byte the block a fresh Builder builds with the
// new times and values, for an object of instances and a single one.
func TestRestamp(t *testing.T) {
	specs := []CounterSpec{
		{NameIndex: 10, Type: ct.PERF_COUNTER_COUNTER},
		{NameIndex: 12, Type: ct.PERF_100NSEC_TIMER},
		{NameIndex: 14, Type: ct.PERF_COUNTER_MULTI_TIMER},
	}
	l, err := NewLayout(specs)
	if err != nil {
		t.Fatal(err)
	}
	h1 := testHeader()
	h2 := h1
	h2.SystemTime.Second++
	h2.PerfTime, h2.PerfFreq, h2.PerfTime100nSec = h1.PerfTime+3579545, 1000, h1.PerfTime100nSec+10_000_000
	type inst struct {
		name string
		v    [3]uint64 // 0: left unset
	}
	for _, tc := range []struct {
		name        string
		single      bool
		first, then []inst
	}{
		{"instances", false,
			[]inst{{"a", [3]uint64{1, 2, 3}}, {"bb", [3]uint64{4, 5, 6}}, {"ccc", [3]uint64{7, 8, 9}}},
			[]inst{{"a", [3]uint64{11, 0, 13}}, {"bb", [3]uint64{0, 0, 0}}, {"ccc", [3]uint64{17, 18, 19}}}},
		{"single", true, []inst{{"", [3]uint64{1, 2, 3}}}, []inst{{"", [3]uint64{0, 22, 23}}}},
		{"no instances", false, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := func(v Values, x [3]uint64) {
				for i, n := range x {
					if n != 0 {
						v.Set(i, n)
					}
				}
				if x[2] != 0 {
					v.SetMulti(2, uint32(x[2]))
				}
			}
			build := func(b *Builder, h Header, objTime, objFreq int64, insts []inst) []byte {
				b.Reset(h)
				if err := b.BeginObject(ObjectSpec{NameIndex: 238, PerfTime: objTime, PerfFreq: objFreq, Single: tc.single}, l, specs); err != nil {
					t.Fatal(err)
				}
				for _, in := range insts {
					if tc.single {
						set(b.Single(), in.v)
					} else {
						set(b.Instance(in.name, 0, 0, NoUniqueID), in.v)
					}
				}
				if err := b.EndObject(); err != nil {
					t.Fatal(err)
				}
				return b.Bytes()
			}
			b := NewBuilder(nil)
			build(b, h1, 5, 6, tc.first)
			vals := b.AppendValues(nil)
			if want := max(len(tc.first), btoi(tc.single)); len(vals) != want {
				t.Fatalf("%d Values, want %d", len(vals), want)
			}
			b.Restamp(h2, 50, 60)
			for i, in := range tc.then {
				vals[i].Clear()
				set(vals[i], in.v)
			}
			got := b.Bytes()
			want := build(NewBuilder(nil), h2, 50, 60, tc.then)
			if !bytes.Equal(got, want) {
				t.Fatalf("written again:\n% x\nbuilt afresh:\n% x", got, want)
			}
			if _, err := Parse(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
