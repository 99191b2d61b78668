package perfdata_test

import (
	"fmt"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
)

func Example() {
	counters := []perfdata.CounterSpec{
		{NameIndex: 6, HelpIndex: 7, DetailLevel: 100, Type: countertype.PERF_100NSEC_TIMER_INV},
		{NameIndex: 148, HelpIndex: 149, DetailLevel: 100, Type: countertype.PERF_COUNTER_COUNTER},
	}
	layout, err := perfdata.NewLayout(counters)
	if err != nil {
		panic(err)
	}

	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{DefaultObject: 238, PerfFreq: 3579545, SystemName: "ZACH-PC"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 238, HelpIndex: 239, DetailLevel: 100}, layout, counters); err != nil {
		panic(err)
	}
	for i, name := range []string{"0", "_Total"} {
		v := b.Instance(name, 0, 0, perfdata.NoUniqueID)
		v.Set(0, 12558750000)
		v.Set(1, uint64(2125688+i))
	}
	if err := b.EndObject(); err != nil {
		panic(err)
	}

	blk, err := perfdata.Parse(b.Bytes())
	if err != nil {
		panic(err)
	}
	h := blk.Header()
	fmt.Println(h.SystemName, h.HeaderLength, h.TotalByteLength, blk.NumObjects())
	for it := blk.Objects(); it.Next(); {
		o := it.Object()
		for jt := o.Instances(); jt.Next(); {
			in := jt.Instance()
			fmt.Print(in.Name())
			for i := 0; i < o.NumCounters(); i++ {
				d := o.Counter(i)
				fmt.Printf(" %v@%d=%d", d.Type, d.Offset, in.Block().Value(d))
			}
			fmt.Println()
		}
	}
	// Output:
	// ZACH-PC 104 368 1
	// 0 PERF_100NSEC_TIMER_INV@8=12558750000 PERF_COUNTER_COUNTER@16=2125688
	// _Total PERF_100NSEC_TIMER_INV@8=12558750000 PERF_COUNTER_COUNTER@16=2125689
}
