package perfdata_test

import (
	"errors"
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

// processorBlock builds a small block: object 238 with two instances.
func processorBlock() []byte {
	counters := []perfdata.CounterSpec{
		{NameIndex: 6, HelpIndex: 7, DetailLevel: 100, Type: countertype.PERF_100NSEC_TIMER_INV},
		{NameIndex: 148, HelpIndex: 149, DetailLevel: 100, Type: countertype.PERF_COUNTER_COUNTER},
	}
	layout, err := perfdata.NewLayout(counters)
	if err != nil {
		panic(err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{
		DefaultObject: 238, PerfFreq: 3579545, SystemName: "ZACH-PC",
		SystemTime:      perfdata.SystemTime{Year: 2007, Month: 8, DayOfWeek: 2, Day: 14, Hour: 15, Minute: 40, Second: 38, Milliseconds: 659},
		PerfTime100nSec: 128315940386596596,
	})
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
	return b.Bytes()
}

// ParseHeader reads what a caller needs to sort block files (the time,
// the machine) from their first bytes, without the objects.
func ExampleParseHeader() {
	block := processorBlock()
	h, err := perfdata.ParseHeader(block[:256])
	if err != nil {
		panic(err)
	}
	fmt.Println(h.SystemName, h.NumObjectTypes, h.TotalByteLength)
	// SYSTEMTIME is the writer's local time; PerfTime100nSec is UTC.
	fmt.Println(h.SystemTime.Time().Format("2006-01-02 15:04:05.000"), "local")
	fmt.Println(perfdata.FileTimeToTime(h.PerfTime100nSec).Format("2006-01-02 15:04:05.000 MST"))

	// Too few bytes for the system name: the error says how many are needed.
	_, err = perfdata.ParseHeader(block[:96])
	var fe *perfdata.FormatError
	if errors.Is(err, perfdata.ErrMoreData) && errors.As(err, &fe) {
		fmt.Println("need", fe.Value, "bytes")
	}
	// Output:
	// ZACH-PC 1 368
	// 2007-08-14 15:40:38.659 local
	// 2007-08-14 19:40:38.659 UTC
	// need 104 bytes
}

// A ValueReader reads every raw value of each instance in one straight
// pass, without a definition per value and without allocating.
func ExampleValueReader() {
	blk, err := perfdata.Parse(processorBlock())
	if err != nil {
		panic(err)
	}
	var r perfdata.ValueReader
	vals := make([]uint64, 0, 16)
	for it := blk.Objects(); it.Next(); {
		o := it.Object()
		r.Reset(o)
		for jt := o.Instances(); jt.Next(); {
			in := jt.Instance()
			vals = r.Read(in.Block(), vals[:0])
			fmt.Println(in.Name(), vals)
		}
	}
	// Output:
	// 0 [12558750000 2125688]
	// _Total [12558750000 2125689]
}

// CheckObjects runs Perflib's tests on what a V1 provider returned: here
// the objects of a block, then the same bytes cut short.
func ExampleCheckObjects() {
	blk, err := perfdata.Parse(processorBlock())
	if err != nil {
		panic(err)
	}
	h := blk.Header()
	objs := blk.Bytes()[h.HeaderLength:]
	fmt.Println(perfdata.CheckObjects(objs, h.NumObjectTypes, 1))
	err = perfdata.CheckObjects(objs[:100], h.NumObjectTypes, 1)
	fmt.Println(errors.Is(err, perfdata.ErrObjectOverrun))
	// Output:
	// <nil>
	// true
}

// Object and instance walks read a block without allocating; Counter(i)
// gives each definition.
func ExampleBlock_Object() {
	blk, err := perfdata.Parse(processorBlock())
	if err != nil {
		panic(err)
	}
	o, ok := blk.Object(238)
	fmt.Println(ok, o.NumCounters(), o.InstanceCount(), o.Counter(1).Type, o.Counter(1).NameIndex)
	// Output:
	// true 2 2 PERF_COUNTER_COUNTER 148
}
