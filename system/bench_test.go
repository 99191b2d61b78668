package system

import (
	"os"
	"testing"

	"github.com/perfcounters/perfcounters/perfdata"
)

// BenchmarkCollect measures one collection of each host-wide object on
// this machine's /proc and /sys into a reused block, as the engine does.
func BenchmarkCollect(b *testing.B) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		b.Skip("no /proc")
	}
	c := NewCollector(os.DirFS("/proc"), os.DirFS("/sys"))
	for _, o := range c.Objects() {
		b.Run(o.Set.Name, func(b *testing.B) {
			specs := make([]perfdata.CounterSpec, len(o.Set.Counters))
			for i, ct := range o.Set.Counters {
				specs[i] = perfdata.CounterSpec{NameIndex: uint32(2 + 2*i), Type: ct.Type, Size: ct.ValueSize()}
			}
			lay, err := perfdata.NewLayout(specs)
			if err != nil {
				b.Fatal(err)
			}
			bl := perfdata.NewBuilder(nil)
			r := &recorder{b: bl, p: newProbe()}
			spec := r.objectSpec(o)
			b.ReportAllocs()
			for b.Loop() {
				bl.Reset(perfdata.Header{Version: 1, Revision: 1, LittleEndian: 1})
				if err := bl.BeginObject(spec, lay, specs); err != nil {
					b.Fatal(err)
				}
				if err := o.Collect(c, nopCol{}, r); err != nil {
					b.Fatal(err)
				}
				if err := bl.EndObject(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseKernelStatMany parses the 256-CPU /proc/stat fixture.
func BenchmarkParseKernelStatMany(b *testing.B) {
	buf, err := os.ReadFile("testdata/many/proc/stat")
	if err != nil {
		b.Fatal(err)
	}
	var st kernelStat
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if err := parseKernelStat(buf, &st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseInterruptsMany parses the 256-CPU /proc/interrupts fixture.
func BenchmarkParseInterruptsMany(b *testing.B) {
	buf, err := os.ReadFile("testdata/many/proc/interrupts")
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]int, 0, 256)
	for n := 0; n < 256; n++ {
		if n != 254 {
			ids = append(ids, n)
		}
	}
	sums := make([]uint64, len(ids))
	var cols []int
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if cols, err = parsePerCPUTable(buf, ids, sums, cols); err != nil {
			b.Fatal(err)
		}
	}
}
