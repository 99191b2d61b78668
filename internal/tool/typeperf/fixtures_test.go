package typeperf

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/perfcounters/perfcounters/internal/golden"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
)

// The block fixtures (testdata/blocks, also used by ../relog) are four
// samples one second apart from a host "TESTHOST", built here with
// perfdata.Builder. TestFixtures rebuilds them and fails if the committed
// files differ (run with -update to rewrite them).
const (
	fixtureDir   = "testdata/blocks"
	fixtureHost  = "TESTHOST"
	freq         = 10_000_000 // PerfFreq: 100 ns ticks, so every timer shares one scale
	typesObject  = 9000       // title index of the synthetic "Counter Types" object
	fixtureCount = 4
)

// fixtureStart is the time of sample 0.
var fixtureStart = time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)

// proc is one process of a sample.
type proc struct {
	name  string
	pid   uint64
	start int64  // FILETIME the process started (raw "Elapsed Time")
	cpu   uint64 // cumulative 100 ns of CPU
}

// procsAt returns the processes of sample k. Between samples 1 and 2 the
// svchost with pid 100 exits and another svchost (pid 300) starts, so the
// "#1" index moves from pid 200 to pid 300 and pid 200 becomes plain
// "svchost": a consumer pairing by name#index would compute pid 300's
// CPU against pid 200's (or pid 200's against pid 100's).
func procsAt(k int) []proc {
	ft := filetime(fixtureStart)
	sec := uint64(freq)
	ps := []proc{}
	if k <= 1 {
		ps = append(ps, proc{"svchost", 100, ft - 500*freq, 90*sec + uint64(k)*sec/2}) // 50 %
	}
	ps = append(ps, proc{"svchost", 200, ft - 400*freq, 40*sec + uint64(k)*sec/4}) // 25 %
	if k >= 2 {
		ps = append(ps, proc{"svchost", 300, ft + freq + freq/2, 3*sec + uint64(k-2)*sec/10}) // 10 %
	}
	ps = append(ps, proc{"Idle", 0, 0, 1000*sec + uint64(k)*sec/4})
	return ps
}

func filetime(t time.Time) int64 { return t.UnixNano()/100 + 116444736000000000 }

// typeValue gives counter value and base of type t in sample k, chosen so
// that each formula gives a round number (worked out in TestEveryType).
func typeValue(t countertype.Type, k int) (value, base uint64) {
	kk := uint64(k)
	sec := uint64(freq)
	switch t {
	case countertype.PERF_DOUBLE_RAW:
		return math.Float64bits(2.5 + float64(k)), 0
	case countertype.PERF_RAW_FRACTION, countertype.PERF_LARGE_RAW_FRACTION:
		return kk + 1, 4 // 25 %, 50 %, 75 %, 100 %
	case countertype.PERF_SAMPLE_FRACTION:
		return 10 + kk, 40 + 4*kk // 25 % per interval
	case countertype.PERF_AVERAGE_TIMER:
		return 1000 + kk*sec/2, 100 + 10*kk // 0.5 s over 10 operations: 0.05 s
	case countertype.PERF_AVERAGE_BULK:
		return 8192 + kk*40960, 100 + 10*kk // 4096 per operation
	case countertype.PERF_COUNTER_MULTI_TIMER, countertype.PERF_100NSEC_MULTI_TIMER,
		countertype.PERF_COUNTER_MULTI_TIMER_INV, countertype.PERF_100NSEC_MULTI_TIMER_INV:
		return 1000 + kk*sec/2, 2 // busy 0.5 s per second over 2 items
	case countertype.PERF_ELAPSED_TIME:
		return uint64(filetime(fixtureStart) - 100*freq), 0 // started 100 s before sample 0
	case countertype.PERF_COUNTER_QUEUELEN_TYPE, countertype.PERF_COUNTER_LARGE_QUEUELEN_TYPE,
		countertype.PERF_COUNTER_100NS_QUEUELEN_TYPE, countertype.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
		return 1000 + kk*3*sec, 0 // queue of 3 (accumulated length x time)
	}
	switch t {
	case countertype.PERF_COUNTER_COUNTER, countertype.PERF_COUNTER_BULK_COUNT, countertype.PERF_SAMPLE_COUNTER,
		countertype.PERF_COUNTER_DELTA, countertype.PERF_COUNTER_LARGE_DELTA:
		return 1000 + kk*500, 0 // 500 per second (DELTA: 500 per sample)
	}
	if t.NeedsTwoSamples() {
		return 1000 + kk*sec/4, 0 // timers: 25 % busy
	}
	return 1000 + kk*10, 0
}

// typed reports whether a type gets a counter in the synthetic object:
// every documented type that shows a number.
func typed(t countertype.Type) bool {
	return !t.IsBase() && !t.IsText() && t != countertype.PERF_COUNTER_NODATA && t != countertype.PERF_COUNTER_HISTOGRAM_TYPE
}

// fixtureTitles is the title list of the fixtures.
func fixtureTitles() string {
	var b strings.Builder
	b.WriteString("1\t1847\n4\tMemory\n6\t% Processor Time\n148\tInterrupts/sec\n180\tWorking Set\n230\tProcess\n232\tThread\n238\tProcessor\n684\tElapsed Time\n784\tID Process\n804\tID Thread\n1382\tAvailable MBytes\n")
	fmt.Fprintf(&b, "%d\tCounter Types\n", typesObject)
	for i, t := range countertype.All() {
		if typed(t) {
			fmt.Fprintf(&b, "%d\t%s\n", typesObject+2+2*i, t)
		}
	}
	return b.String()
}

// buildSample builds sample k as one PERF_DATA_BLOCK.
func buildSample(t testing.TB, k int) []byte {
	t.Helper()
	now := fixtureStart.Add(time.Duration(k) * time.Second)
	ft := filetime(now)
	perfTime := int64(5_000_000_000) + int64(k)*freq
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{DefaultObject: 238, SystemTime: perfdata.SystemTimeOf(now), PerfTime: perfTime, PerfFreq: freq, PerfTime100nSec: ft, SystemName: fixtureHost})
	object := func(spec perfdata.ObjectSpec, cs []perfdata.CounterSpec, fill func(l *perfdata.Layout)) {
		l, err := perfdata.NewLayout(cs)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.BeginObject(spec, l, cs); err != nil {
			t.Fatal(err)
		}
		fill(l)
		if err := b.EndObject(); err != nil {
			t.Fatal(err)
		}
	}
	sec := uint64(freq)
	// Processor: 0 is 25 % busy, 1 is 75 %, _Total 50 %.
	object(perfdata.ObjectSpec{NameIndex: 238, HelpIndex: 239, DetailLevel: 100},
		[]perfdata.CounterSpec{{NameIndex: 6, HelpIndex: 7, DetailLevel: 100, Type: countertype.PERF_100NSEC_TIMER_INV},
			{NameIndex: 148, HelpIndex: 149, DetailLevel: 100, Type: countertype.PERF_COUNTER_COUNTER}},
		func(*perfdata.Layout) {
			idle := []uint64{3 * sec / 4, sec / 4, sec / 2}
			for i, name := range []string{"0", "1", "_Total"} {
				v := b.Instance(name, 0, 0, perfdata.NoUniqueID)
				v.Set(0, 1000*sec+uint64(k)*idle[i])
				v.Set(1, 5000+uint64(k)*uint64(100*(i+1)))
			}
		})
	object(perfdata.ObjectSpec{NameIndex: 4, HelpIndex: 5, DetailLevel: 100, Single: true},
		[]perfdata.CounterSpec{{NameIndex: 1382, HelpIndex: 1383, DetailLevel: 100, Type: countertype.PERF_COUNTER_RAWCOUNT}},
		func(*perfdata.Layout) { b.Single().Set(0, 2048+uint64(k)) })
	ps := procsAt(k)
	object(perfdata.ObjectSpec{NameIndex: 230, HelpIndex: 231, DetailLevel: 100, PerfTime: ft, PerfFreq: freq},
		[]perfdata.CounterSpec{{NameIndex: 6, HelpIndex: 7, DetailLevel: 100, Type: countertype.PERF_100NSEC_TIMER},
			{NameIndex: 784, HelpIndex: 785, DetailLevel: 100, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
			{NameIndex: 684, HelpIndex: 685, DetailLevel: 100, Type: countertype.PERF_ELAPSED_TIME},
			{NameIndex: 180, HelpIndex: 181, DefaultScale: -5, DetailLevel: 100, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT}},
		func(*perfdata.Layout) {
			for _, p := range ps {
				v := b.Instance(p.name, 0, 0, perfdata.NoUniqueID)
				v.Set(0, p.cpu)
				v.Set(1, p.pid)
				v.Set(2, uint64(p.start))
				v.Set(3, p.pid<<20)
			}
		})
	// Thread: one thread "0" per process, its parent the process's position.
	object(perfdata.ObjectSpec{NameIndex: 232, HelpIndex: 233, DetailLevel: 200, PerfTime: ft, PerfFreq: freq},
		[]perfdata.CounterSpec{{NameIndex: 6, HelpIndex: 7, DetailLevel: 100, Type: countertype.PERF_100NSEC_TIMER},
			{NameIndex: 804, HelpIndex: 805, DetailLevel: 200, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
			{NameIndex: 784, HelpIndex: 785, DetailLevel: 200, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
			{NameIndex: 684, HelpIndex: 685, DetailLevel: 200, Type: countertype.PERF_ELAPSED_TIME}},
		func(*perfdata.Layout) {
			for i, p := range ps {
				v := b.Instance("0", 230, uint32(i), perfdata.NoUniqueID)
				v.Set(0, p.cpu)
				v.Set(1, p.pid+1)
				v.Set(2, p.pid)
				v.Set(3, uint64(p.start))
			}
		})
	// Counter Types: one counter of each type that shows a number, each
	// followed by its base where it needs one (repeating its title index,
	// as real Windows data does).
	var cs []perfdata.CounterSpec
	type slot struct {
		t          countertype.Type
		pos, bpos  int
		hasB, mult bool
	}
	var slots []slot
	for i, ty := range countertype.All() {
		if !typed(ty) {
			continue
		}
		idx := uint32(typesObject + 2 + 2*i)
		s := slot{t: ty, pos: len(cs)}
		spec := perfdata.CounterSpec{NameIndex: idx, HelpIndex: idx + 1, DetailLevel: 100, Type: ty}
		if ty == countertype.PERF_DOUBLE_RAW {
			spec.Size = 8
		}
		cs = append(cs, spec)
		if bt, ok := ty.Base(); ok {
			s.hasB, s.bpos = true, len(cs)
			cs = append(cs, perfdata.CounterSpec{NameIndex: idx, HelpIndex: idx + 1, DetailLevel: 100, Type: bt})
		}
		s.mult = ty.Multi() && !s.hasB
		slots = append(slots, s)
	}
	object(perfdata.ObjectSpec{NameIndex: typesObject, HelpIndex: typesObject + 1, DetailLevel: 100, PerfTime: ft, PerfFreq: freq, Single: true}, cs,
		func(*perfdata.Layout) {
			v := b.Single()
			for _, s := range slots {
				val, base := typeValue(s.t, k)
				v.Set(s.pos, val)
				if s.mult {
					v.SetMulti(s.pos, uint32(base))
				}
				if s.hasB {
					switch s.t {
					case countertype.PERF_PRECISION_SYSTEM_TIMER:
						base = uint64(perfTime)
					case countertype.PERF_PRECISION_100NS_TIMER, countertype.PERF_PRECISION_OBJECT_TIMER:
						base = uint64(ft)
					}
					v.Set(s.bpos, base)
				}
			}
		})
	return bytes.Clone(b.Bytes())
}

func fixtureFiles() []string {
	var fs []string
	for k := range fixtureCount {
		fs = append(fs, filepath.Join(fixtureDir, fmt.Sprintf("sample-%d.perfdata", k)))
	}
	return fs
}

func TestFixtures(t *testing.T) {
	want := map[string][]byte{filepath.Join(fixtureDir, "titles.tsv"): []byte(fixtureTitles())}
	for k, f := range fixtureFiles() {
		blk := buildSample(t, k)
		if _, err := perfdata.Parse(blk); err != nil {
			t.Fatalf("sample %d: %v", k, err)
		}
		want[f] = blk
	}
	for f, b := range want {
		if goldenfile.Update() {
			if err := os.MkdirAll(fixtureDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if !bytes.Equal(got, b) {
			t.Errorf("%s differs from what the generator builds (run go test -update)", f)
		}
	}
}
