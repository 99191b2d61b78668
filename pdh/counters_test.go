package pdh

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// wideObject is a sample of object 5000 ("Wide", single instance) with n
// PERF_COUNTER_RAWCOUNT counters "Counter NNNNN" (title indexes 10000,
// 10002, ...; counter i holds i), then "Dup" twice (indexes 8000 and 8002,
// holding 1 and 2) and a PERF_RAW_FRACTION "Fraction" (8004) with its base
// "Fraction Base" (8006), and the title database that names them.
func wideObject(t testing.TB, n int) ([]byte, *titles.DB) {
	t.Helper()
	db := titles.New()
	set := func(i uint32, name string) {
		if err := db.SetAt(i, name, ""); err != nil {
			t.Fatal(err)
		}
	}
	set(5000, "Wide")
	var specs []perfdata.CounterSpec
	for i := range n {
		idx := uint32(10000 + 2*i)
		set(idx, fmt.Sprintf("Counter %05d", i))
		specs = append(specs, perfdata.CounterSpec{NameIndex: idx, Type: ct.PERF_COUNTER_RAWCOUNT})
	}
	set(8000, "Dup")
	set(8002, "Dup")
	set(8004, "Fraction")
	set(8006, "Fraction Base")
	specs = append(specs,
		perfdata.CounterSpec{NameIndex: 8000, Type: ct.PERF_COUNTER_RAWCOUNT},
		perfdata.CounterSpec{NameIndex: 8002, Type: ct.PERF_COUNTER_RAWCOUNT},
		perfdata.CounterSpec{NameIndex: 8004, Type: ct.PERF_RAW_FRACTION},
		perfdata.CounterSpec{NameIndex: 8006, Type: ct.PERF_RAW_BASE})
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		t.Fatal(err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: t0, PerfFreq: 1e7, PerfTime100nSec: t0, SystemName: "X"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 5000, Single: true}, l, specs); err != nil {
		t.Fatal(err)
	}
	v := b.Single()
	for i := range n {
		v.Set(i, uint64(i))
	}
	v.Set(n, 1)
	v.Set(n+1, 2)
	v.Set(n+2, 1)
	v.Set(n+3, 4)
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), b.Bytes()...), db
}

// TestCounterByName: a path that names one counter of an object of many
// (indexed by objState.counterAt) finds the counter a scan finds: its
// name in any case, its title index in decimal, the first of two of one
// name; never a base; an unknown name is an error that lists counters.
func TestCounterByName(t *testing.T) {
	const n = 100
	smp, db := wideObject(t, n)
	for _, tc := range []struct {
		path string
		want float64
		err  bool
	}{
		{`\Wide\Counter 00042`, 42, false},
		{`\Wide\COUNTER 00099`, 99, false},
		{`\wide\counter 00000`, 0, false},
		{`\Wide\10014`, 7, false}, // title index of counter 7
		{`\Wide\Dup`, 1, false},   // the first of two
		{`\Wide\dup`, 1, false},
		{`\Wide\Fraction`, 25, false},
		{`\Wide\Fraction Base`, 0, true}, // a base is no counter of a path
		{`\Wide\Counter 00100`, 0, true},
		{`\Wide\8006`, 0, true},
	} {
		src := &memSource{db: db, samples: [][]byte{smp}}
		q := OpenQuery(src)
		c, err := q.AddCounter(tc.path)
		if tc.err {
			var pe *PathError
			if !errors.As(err, &pe) || pe.Part != "counter" || len(pe.Have) == 0 {
				t.Errorf("%s: %v, want a counter error listing the counters", tc.path, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		if err := src.Seek(0); err != nil {
			t.Fatal(err)
		}
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
		v, err := c.Formatted(0)
		if err != nil || v.Double != tc.want {
			t.Errorf("%s = %v (%v), want %v", tc.path, v.Double, err, tc.want)
		}
	}
}

// TestExplicitCountersLinear: adding and collecting N counters that each
// name one counter of an object of N counters (relog of a CSV or a BLG of
// N counters of one object) costs work linear in N, not N² (AddCounter
// scanned the definitions, listing every name it passed, and each counter
// scanned them again to find its column: 40,000 columns of one object took
// 211 s and 8 GB). Bytes allocated are counted, not time: doubling N must not
// much more than double the bytes.
func TestExplicitCountersLinear(t *testing.T) {
	bytes := func(n int) uint64 {
		smp, db := wideObject(t, n)
		samples := [][]byte{smp, smp}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		src := &memSource{db: db, samples: samples}
		q := OpenQuery(src)
		q.SetHistory(2)
		for i := range n {
			if _, err := q.AddCounter(fmt.Sprintf(`\Wide\Counter %05d`, i)); err != nil {
				t.Fatal(err)
			}
		}
		for range samples {
			if err := q.Collect(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, big := bytes(1000), bytes(2000)
	if float64(big) > 2.6*float64(small) {
		t.Errorf("%d bytes allocated for 1000 counters of one object, %d for 2000: more than linear", small, big)
	}
}
