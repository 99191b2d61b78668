package otlp

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// memSource replays blocks built in memory, one block per sample, and
// records the objects each Sample asked for.
type memSource struct {
	mu       sync.Mutex
	db       *titles.DB
	samples  [][]byte
	problems map[int][]pdh.Problem
	next     int
	asked    [][]uint32
}

func (m *memSource) Sample(_ context.Context, objects []uint32) (*pdh.Sample, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asked = append(m.asked, append([]uint32(nil), objects...))
	if m.next >= len(m.samples) {
		return nil, io.EOF
	}
	m.next++
	s, err := pdh.NewSample([][]byte{m.samples[m.next-1]})
	if err != nil {
		return nil, err
	}
	s.Problems = m.problems[m.next-1]
	return s, nil
}

func (m *memSource) Titles() *titles.DB     { return m.db }
func (m *memSource) Recorded() pdh.Recorded { return m }
func (m *memSource) Counters() []string     { return nil }
func (m *memSource) Len() int               { return len(m.samples) }
func (m *memSource) Pos() int               { m.mu.Lock(); defer m.mu.Unlock(); return m.next }
func (m *memSource) Seek(i int) error       { m.mu.Lock(); defer m.mu.Unlock(); m.next = i; return nil }
func (m *memSource) Time(i int) time.Time   { return time.Time{} }

// samplesTaken is the number of Sample calls so far.
func (m *memSource) samplesTaken() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.asked)
}

// objDef is an object to build: its spec, counters and instances (none:
// a single-instance object whose values are single).
type objDef struct {
	spec      perfdata.ObjectSpec
	counters  []perfdata.CounterSpec
	instances []instDef
	single    []uint64
	multi     map[int]uint32 // the item counts of the single instance's multi timers
}

// instDef is one instance: name, parent and values by counter position.
type instDef struct {
	name      string
	pti, ppos uint32
	vals      []uint64
}

func buildBlock(t *testing.T, h perfdata.Header, objs []objDef) []byte {
	t.Helper()
	b := perfdata.NewBuilder(nil)
	b.Reset(h)
	for _, o := range objs {
		l, err := perfdata.NewLayout(o.counters)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.BeginObject(o.spec, l, o.counters); err != nil {
			t.Fatal(err)
		}
		if o.spec.Single {
			v := b.Single()
			for i, x := range o.single {
				v.Set(i, x)
			}
			for i, n := range o.multi {
				v.SetMulti(i, n)
			}
		}
		for _, in := range o.instances {
			v := b.Instance(in.name, in.pti, in.ppos, perfdata.NoUniqueID)
			for i, x := range in.vals {
				v.Set(i, x)
			}
		}
		if err := b.EndObject(); err != nil {
			t.Fatal(err)
		}
	}
	return append([]byte(nil), b.Bytes()...)
}

// The fixture's clock: sample k is taken at t0 + k*step (FILETIME units),
// PerfTime in the same units with PerfFreq 10^7.
const (
	t0   = int64(133_000_000_000_000_000) // 2022-06-18 04:26:40 UTC
	t0s  = 1_655_526_400                  // t0 in Unix seconds: (t0 - 116444736000000000) / 1e7
	step = int64(100_000_000)             // 10 s
)

// Indexes of the custom object, registered in the fixture's titles.
type widgetIdx struct {
	object, made, made2, mix, size, busy uint32
}

func c(idx uint32, typ ct.Type) perfdata.CounterSpec {
	return perfdata.CounterSpec{NameIndex: idx, HelpIndex: idx + 1, Type: typ}
}

// fixture builds a recorded source of two samples of Processor, Memory,
// PhysicalDisk, Network Interface, System, Process and a custom object
// "Widget Factory". Every raw value is a constant here; the tests compute
// the exported values from these constants by hand. In sample 1, eth0's
// Packets Received Errors is a placeholder (a partial object).
func fixture(t *testing.T) (*memSource, widgetIdx) {
	t.Helper()
	return fixtureOf(t, 2, 0)
}

// fixtureOf builds n samples of the fixture, with the Widget Factory
// object from sample widgetFrom on (a provider that starts late).
func fixtureOf(t *testing.T, n, widgetFrom int) (*memSource, widgetIdx) {
	t.Helper()
	db := titles.English()
	reg := func(name string) uint32 {
		i, err := db.Register(name, name+" explained.")
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	w := widgetIdx{object: reg("Widget Factory"), made: reg("Widgets Made/sec"), made2: reg("Widgets  Made"),
		mix: reg("Widget Mix"), size: reg("Avg. Widget Size"), busy: reg("% Busy")}
	src := &memSource{db: db, problems: map[int][]pdh.Problem{
		1: {{Object: objNetwork, ObjectName: "Network Interface", Reason: "errs unreadable", Partial: true,
			Missing: []pdh.MissingValues{{Instance: 0, Counters: []uint32{cRecvErrors}}}}},
	}}
	for k := range uint64(n) {
		now := t0 + int64(k)*step
		h := perfdata.Header{PerfTime: now, PerfFreq: 1e7, PerfTime100nSec: now, SystemName: "TESTBOX"}
		objs := []objDef{
			{spec: perfdata.ObjectSpec{NameIndex: objProcessor, HelpIndex: objProcessor + 1},
				counters: []perfdata.CounterSpec{c(cProcessorTime, ct.PERF_100NSEC_TIMER_INV), c(cUserTime, ct.PERF_100NSEC_TIMER),
					c(cPrivilegedTime, ct.PERF_100NSEC_TIMER), c(148, ct.PERF_COUNTER_COUNTER), c(cDPCTime, ct.PERF_100NSEC_TIMER),
					c(cInterruptTime, ct.PERF_100NSEC_TIMER)},
				instances: []instDef{
					{name: "0", vals: []uint64{9e9 + k*6e7, 5e9 + k*2e7, 3e9 + k*2e7, 1000 + k*100, 1e8, 2e8}},
					{name: "1", vals: []uint64{8e9 + k*1e8, 1e9, 5e8, 10, 0, 0}},
					{name: "_Total", vals: []uint64{85e8, 3e9, 1.75e9, 1010 + k*100, 5e7, 1e8}},
				}},
			{spec: perfdata.ObjectSpec{NameIndex: objMemory, HelpIndex: objMemory + 1, Single: true},
				counters: []perfdata.CounterSpec{c(cAvailableBytes, ct.PERF_COUNTER_LARGE_RAWCOUNT), c(cCacheBytes, ct.PERF_COUNTER_LARGE_RAWCOUNT),
					c(cFreeZeroBytes, ct.PERF_COUNTER_LARGE_RAWCOUNT), c(cPageFaults, ct.PERF_COUNTER_COUNTER), c(cPageReads, ct.PERF_COUNTER_COUNTER),
					c(cPagesInput, ct.PERF_COUNTER_COUNTER), c(cPagesOutput, ct.PERF_COUNTER_COUNTER),
					c(1406, ct.PERF_RAW_FRACTION), c(1406, ct.PERF_RAW_BASE), c(26, ct.PERF_COUNTER_LARGE_RAWCOUNT)},
				single: []uint64{4 << 30, 1 << 30, 2 << 30, 5000 + k*10, 300, 7, 9, 1000, 4000, 123456}},
			{spec: perfdata.ObjectSpec{NameIndex: objPhysical, HelpIndex: objPhysical + 1},
				counters: []perfdata.CounterSpec{c(cQueueLength, ct.PERF_COUNTER_RAWCOUNT),
					c(cDiskIdleTime, ct.PERF_PRECISION_100NS_TIMER), c(cDiskIdleTime, ct.PERF_LARGE_RAW_BASE),
					c(cDiskSecRead, ct.PERF_AVERAGE_TIMER), c(cDiskSecRead, ct.PERF_AVERAGE_BASE),
					c(cDiskSecWrite, ct.PERF_AVERAGE_TIMER), c(cDiskSecWrite, ct.PERF_AVERAGE_BASE),
					c(cDiskReads, ct.PERF_COUNTER_COUNTER), c(cDiskWrites, ct.PERF_COUNTER_COUNTER),
					c(cDiskReadBytes, ct.PERF_COUNTER_BULK_COUNT), c(cDiskWriteBytes, ct.PERF_COUNTER_BULK_COUNT),
					c(1400, ct.PERF_COUNTER_100NS_QUEUELEN_TYPE)},
				instances: []instDef{
					{name: "0 sda", vals: []uint64{3, 7e9, 1e10, 2.5e9, 1000, 1e9, 2000, 1000, 2000, 4096000, 8192000, 5e7}},
					{name: "_Total", vals: []uint64{3, 7e9, 1e10, 2.5e9, 1000, 1e9, 2000, 1000, 2000, 4096000, 8192000, 5e7}},
				}},
			{spec: perfdata.ObjectSpec{NameIndex: objNetwork, HelpIndex: objNetwork + 1},
				counters: []perfdata.CounterSpec{c(cBytesReceived, ct.PERF_COUNTER_BULK_COUNT), c(cBytesSent, ct.PERF_COUNTER_BULK_COUNT),
					c(cPacketsReceived, ct.PERF_COUNTER_BULK_COUNT), c(cPacketsSent, ct.PERF_COUNTER_BULK_COUNT),
					c(cRecvDiscarded, ct.PERF_COUNTER_LARGE_RAWCOUNT), c(cRecvErrors, ct.PERF_COUNTER_LARGE_RAWCOUNT),
					c(cSentDiscarded, ct.PERF_COUNTER_LARGE_RAWCOUNT), c(cSentErrors, ct.PERF_COUNTER_LARGE_RAWCOUNT),
					c(520, ct.PERF_COUNTER_LARGE_RAWCOUNT)},
				instances: []instDef{
					{name: "eth0", vals: []uint64{1e6 + k*1000, 2e6, 1000, 2000, 1, 2, 3, 4, 1e9}},
					{name: "lo", vals: []uint64{5, 6, 7, 8, 0, 0, 0, 0, 0}},
				}},
			{spec: perfdata.ObjectSpec{NameIndex: objPagingFile, HelpIndex: objPagingFile + 1},
				counters: []perfdata.CounterSpec{c(cUsage, ct.PERF_RAW_FRACTION), c(cUsage, ct.PERF_RAW_BASE),
					c(704, ct.PERF_RAW_FRACTION), c(704, ct.PERF_RAW_BASE)},
				instances: []instDef{
					{name: "/swap.img", vals: []uint64{1000 + k, 4000, 1500, 4000}},
					{name: "_Total", vals: []uint64{1000 + k, 4000, 1500, 4000}},
				}},
			{spec: perfdata.ObjectSpec{NameIndex: objSystem, HelpIndex: objSystem + 1, Single: true, PerfTime: now, PerfFreq: 1e7},
				counters: []perfdata.CounterSpec{c(cSystemUpTime, ct.PERF_ELAPSED_TIME), c(248, ct.PERF_COUNTER_RAWCOUNT), c(146, ct.PERF_COUNTER_COUNTER)},
				single:   []uint64{uint64(t0 - 3600*1e7), 42, 777}},
			{spec: perfdata.ObjectSpec{NameIndex: objProcess, HelpIndex: objProcess + 1, PerfTime: now, PerfFreq: 1e7},
				counters: []perfdata.CounterSpec{c(cProcessorTime, ct.PERF_100NSEC_TIMER), c(cUserTime, ct.PERF_100NSEC_TIMER),
					c(cPrivilegedTime, ct.PERF_100NSEC_TIMER), c(cWorkingSet, ct.PERF_COUNTER_LARGE_RAWCOUNT),
					c(cVirtualBytes, ct.PERF_COUNTER_LARGE_RAWCOUNT), c(cThreadCount, ct.PERF_COUNTER_RAWCOUNT),
					c(cIDProcess, ct.PERF_COUNTER_RAWCOUNT), c(684, ct.PERF_ELAPSED_TIME)},
				instances: []instDef{
					{name: "Idle", vals: []uint64{5e9, 0, 5e9, 0, 0, 2, 0, uint64(t0 - 3600*1e7)}},
					{name: "bash", vals: []uint64{3e7, 1e7, 2e7, 1 << 20, 1 << 24, 1, 100, uint64(t0 - 600*1e7)}},
					{name: "bash", vals: []uint64{4e7, 4e7, 0, 2 << 20, 2 << 24, 3, 200, uint64(t0 - 60*1e7)}},
					{name: "_Total", vals: []uint64{50.7e8, 5e7, 50.2e8, 3 << 20, 3 << 24, 6, 0, 0}},
				}},
			{spec: perfdata.ObjectSpec{NameIndex: w.object, HelpIndex: w.object + 1},
				counters: []perfdata.CounterSpec{c(w.made, ct.PERF_COUNTER_BULK_COUNT), c(w.made2, ct.PERF_COUNTER_RAWCOUNT),
					c(w.mix, ct.PERF_SAMPLE_FRACTION), c(w.mix, ct.PERF_SAMPLE_BASE),
					c(w.size, ct.PERF_AVERAGE_BULK), c(w.size, ct.PERF_AVERAGE_BASE),
					c(w.busy, ct.PERF_100NSEC_TIMER)},
				instances: []instDef{
					{name: "north", pti: objProcessor, ppos: 1, vals: []uint64{100 + k, 5, 30, 60, 900, 3, 25e6}},
					{name: "north", pti: objProcessor, ppos: 0, vals: []uint64{200, 6, 1, 2, 10, 1, 0}},
				}},
		}
		if int(k) < widgetFrom {
			objs = objs[:len(objs)-1]
		}
		src.samples = append(src.samples, buildBlock(t, h, objs))
	}
	return src, w
}
