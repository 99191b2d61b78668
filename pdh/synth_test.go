package pdh

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// memSource replays blocks built in memory, one []byte per sample.
type memSource struct {
	db       *titles.DB
	samples  [][]byte
	problems map[int][]Problem // by sample position
	next     int
	asked    [][]uint32
}

// mustAdd adds the counter path to q, failing t when it cannot.
func mustAdd(t testing.TB, q *Query, path string) *Counter {
	t.Helper()
	c, err := q.AddCounter(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (m *memSource) Sample(_ context.Context, objects []uint32) (*Sample, error) {
	m.asked = append(m.asked, append([]uint32(nil), objects...))
	if m.next >= len(m.samples) {
		return nil, io.EOF
	}
	m.next++
	s, err := NewSample([][]byte{m.samples[m.next-1]})
	if err != nil {
		return nil, err
	}
	s.Problems = m.problems[m.next-1]
	return s, nil
}

func (m *memSource) Titles() *titles.DB { return m.db }
func (m *memSource) Recorded() Recorded { return m }
func (m *memSource) Counters() []string { return nil }
func (m *memSource) Len() int           { return len(m.samples) }
func (m *memSource) Pos() int           { return m.next }
func (m *memSource) Seek(i int) error   { m.next = i; return nil }
func (m *memSource) Time(i int) time.Time {
	s, err := NewSample([][]byte{m.samples[i]})
	if err != nil {
		return time.Time{}
	}
	return s.Time
}

// Title indexes of English Windows used by the synthetic objects.
const (
	idxProcess     = 230
	idxThread      = 232
	idxProcTime    = 6
	idxIDProcess   = 784
	idxIDThread    = 804
	idxElapsedTime = 684
)

var processSpecs = []perfdata.CounterSpec{
	{NameIndex: idxProcTime, HelpIndex: idxProcTime + 1, Type: ct.PERF_100NSEC_TIMER, DetailLevel: 100},
	{NameIndex: idxIDProcess, HelpIndex: idxIDProcess + 1, Type: ct.PERF_COUNTER_RAWCOUNT, DefaultScale: -1, DetailLevel: 100},
	{NameIndex: idxElapsedTime, HelpIndex: idxElapsedTime + 1, Type: ct.PERF_ELAPSED_TIME, DefaultScale: -4, DetailLevel: 200},
}

var threadSpecs = []perfdata.CounterSpec{
	{NameIndex: idxProcTime, HelpIndex: idxProcTime + 1, Type: ct.PERF_100NSEC_TIMER, DetailLevel: 100},
	{NameIndex: idxIDThread, HelpIndex: idxIDThread + 1, Type: ct.PERF_COUNTER_RAWCOUNT, DetailLevel: 200},
	{NameIndex: idxElapsedTime, HelpIndex: idxElapsedTime + 1, Type: ct.PERF_ELAPSED_TIME, DetailLevel: 200},
}

type proc struct {
	name       string
	pid, start uint64
	cpu        uint64 // 100 ns units
}

type thread struct {
	name       string
	parent     uint32 // position in the Process object
	tid, start uint64
	cpu        uint64
}

// buildSample writes a block at time t100 (FILETIME units; PerfTime in the
// same units with PerfFreq 10^7) with a Process object and, when threads
// is not nil, a Thread object.
func buildSample(t testing.TB, t100 int64, procs []proc, threads []thread) []byte {
	t.Helper()
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: t100, PerfFreq: 1e7, PerfTime100nSec: t100, SystemName: "TESTBOX"})
	l, err := perfdata.NewLayout(processSpecs)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: idxProcess, HelpIndex: idxProcess + 1, DetailLevel: 100, PerfTime: t100, PerfFreq: 1e7}, l, processSpecs); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		v := b.Instance(p.name, 0, 0, perfdata.NoUniqueID)
		v.Set(0, p.cpu)
		v.Set(1, p.pid)
		v.Set(2, p.start)
	}
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	if threads != nil {
		l, err := perfdata.NewLayout(threadSpecs)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: idxThread, HelpIndex: idxThread + 1, DetailLevel: 200, PerfTime: t100, PerfFreq: 1e7}, l, threadSpecs); err != nil {
			t.Fatal(err)
		}
		for _, th := range threads {
			v := b.Instance(th.name, idxProcess, th.parent, perfdata.NoUniqueID)
			v.Set(0, th.cpu)
			v.Set(1, th.tid)
			v.Set(2, th.start)
		}
		if err := b.EndObject(); err != nil {
			t.Fatal(err)
		}
	}
	return append([]byte(nil), b.Bytes()...)
}

const t0 = int64(133_000_000_000_000_000) // a FILETIME in 2022
const second = int64(10_000_000)

func byInstance(items []Item) map[string]Item {
	m := map[string]Item{}
	for _, it := range items {
		m[it.Instance] = it
	}
	return m
}

// TestProcessReplacedNoBogusRate: between two samples "foo" pid 100 exits,
// so the other foo (pid 150) moves from foo#1 to foo, and a new foo
// (pid 200, with a huge CPU time of its own) becomes foo#1. Matching by
// name and #index would pair pid 150 with pid 100 and pid 200 with pid 150
// and produce absurd rates; matching by pid + start time must not.
func TestProcessReplacedNoBogusRate(t *testing.T) {
	s1 := buildSample(t, t0, []proc{
		{"foo", 100, 1000, 5_000_000},
		{"foo", 150, 2000, 1_000_000},
		{"bar", 7, 500, 0},
	}, nil)
	s2 := buildSample(t, t0+second, []proc{
		{"foo", 150, 2000, 1_000_000 + 2_500_000}, // 0.25 s of CPU in 1 s: 25 %
		{"foo", 200, 9000, 900_000_000_000},       // new process, lots of CPU already
		{"bar", 7, 500, 10_000_000},               // 100 %
	}, nil)
	src := &memSource{db: titles.English(), samples: [][]byte{s1, s2}}
	q := OpenQuery(src)
	c := mustAdd(t, q, `\Process(*)\% Processor Time`)
	single := mustAdd(t, q, `\Process(foo)\% Processor Time`)
	src.asked = nil // AddCounter peeked; count the collections only
	for range 2 {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// One request per sample for the one object, however many counters.
	if len(src.asked) != 2 || len(src.asked[0]) != 1 || src.asked[0][0] != idxProcess {
		t.Errorf("source asked %v, want [[230] [230]]", src.asked)
	}
	got := byInstance(c.FormattedArray(noCap))
	want := map[string]struct {
		st calc.Status
		v  float64
	}{
		"foo":   {calc.ValidData, 25},
		"foo#1": {calc.NewData, 0},
		"bar":   {calc.ValidData, 100},
	}
	if len(got) != len(want) {
		t.Fatalf("items %v", got)
	}
	for name, w := range want {
		it := got[name]
		if it.Value.Status != w.st || it.Value.Double != w.v {
			t.Errorf("%s: %v %v, want %v %v", name, it.Value.Status, it.Value.Double, w.st, w.v)
		}
	}
	// \Process(foo) named pid 100 and now names pid 150, another
	// process: it starts afresh rather than pair the two.
	if v, _ := single.Formatted(noCap); v.Status != calc.NewData {
		t.Errorf("\\Process(foo) = %+v, want NewData", v)
	}
	// Statistics restart with the new pid 150 in \Process(foo): one pair.
	if st := single.Statistics(noCap); st.Status != calc.NewData {
		t.Errorf("Statistics after replacement = %+v, want NewData (history restarted)", st)
	}
}

// TestNameMatchingWithoutIdentity: objects without pid identity pair
// instances by name and #index, as PDH does.
func TestNameMatchingWithoutIdentity(t *testing.T) {
	specs := []perfdata.CounterSpec{{NameIndex: 146, HelpIndex: 147, Type: ct.PERF_COUNTER_COUNTER}}
	mk := func(t100 int64, vals map[string]uint64, order []string) []byte {
		b := perfdata.NewBuilder(nil)
		b.Reset(perfdata.Header{PerfTime: t100, PerfFreq: 1e7, PerfTime100nSec: t100, SystemName: "X"})
		l, _ := perfdata.NewLayout(specs)
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 238, HelpIndex: 239}, l, specs); err != nil {
			t.Fatal(err)
		}
		for _, n := range order {
			b.Instance(n, 0, 0, perfdata.NoUniqueID).Set(0, vals[n])
		}
		if err := b.EndObject(); err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), b.Bytes()...)
	}
	s1 := mk(t0, map[string]uint64{"0": 100, "1": 1000}, []string{"0", "1"})
	s2 := mk(t0+2*second, map[string]uint64{"0": 300, "1": 1100, "2": 5}, []string{"1", "2", "0"})
	q := OpenQuery(&memSource{db: titles.English(), samples: [][]byte{s1, s2}})
	c := mustAdd(t, q, `\Processor(*)\Context Switches/sec`)
	for range 2 {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	got := byInstance(c.FormattedArray(noCap))
	if got["0"].Value.Double != 100 || got["1"].Value.Double != 50 || got["2"].Value.Status != calc.NewData {
		t.Errorf("got %+v", got)
	}
}

// TestWildcardReexpanded: instances that appear later are picked up, and
// a wildcard matching nothing is not an error (SPEC rule 8).
func TestWildcardReexpanded(t *testing.T) {
	s1 := buildSample(t, t0, []proc{{"a", 1, 1, 0}}, nil)
	s2 := buildSample(t, t0+second, []proc{{"a", 1, 1, 0}, {"late", 2, 2, 0}}, nil)
	q := OpenQuery(&memSource{db: titles.English(), samples: [][]byte{s1, s2}})
	c, err := q.AddCounter(`\Process(lat*)\ID Process`)
	if err != nil {
		t.Fatalf("wildcard matching nothing now: %v", err)
	}
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if items := c.FormattedArray(noCap); len(items) != 0 {
		t.Errorf("sample 1: %+v", items)
	}
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	items := c.FormattedArray(calc.FmtLarge)
	if len(items) != 1 || items[0].Instance != "late" || items[0].Value.Large != 2 || items[0].Path.String() != `\Process(late)\ID Process` {
		t.Errorf("sample 2: %+v", items)
	}
	if err := q.Collect(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("after the last sample: %v, want io.EOF", err)
	}
}

// TestParentInstances: threads are "process/thread", duplicates counted
// per parent name, and parent paths resolve.
func TestParentInstances(t *testing.T) {
	procs := []proc{{"Idle", 0, 0, 0}, {"foo", 10, 1, 0}, {"foo", 20, 2, 0}, {"bar", 30, 3, 0}}
	threads := []thread{
		{"0", 0, 0, 0, 0},
		{"0", 1, 11, 1, 0}, {"1", 1, 12, 1, 0},
		{"0", 2, 21, 2, 0},
		{"0", 3, 31, 3, 0},
	}
	s := buildSample(t, t0, procs, threads)
	src := &memSource{db: titles.English(), samples: [][]byte{s, s}}
	paths, err := ExpandWildCardPath(context.Background(), src, `\Thread(*)\ID Thread`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`\Thread(Idle/0)\ID Thread`, `\Thread(foo/0)\ID Thread`, `\Thread(foo/1)\ID Thread`, `\Thread(foo/0#1)\ID Thread`, `\Thread(bar/0)\ID Thread`}
	if !equalStrings(paths, want) {
		t.Errorf("paths = %q\nwant    %q", paths, want)
	}
	q := OpenQuery(src)
	c := mustAdd(t, q, `\Thread(foo/0#1)\ID Thread`)
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Formatted(calc.FmtLarge); v.Large != 21 {
		t.Errorf("foo/0#1 tid = %+v, want 21", v)
	}
	items := c.FormattedArray(calc.FmtLarge)
	if len(items) != 1 || items[0].Instance != "foo/0#1" {
		t.Errorf("items = %+v", items)
	}
	_, inst, err := EnumObjectItems(context.Background(), src, "thread")
	if err != nil {
		t.Fatal(err)
	}
	if !equalStrings(inst, []string{"Idle/0", "foo/0", "foo/1", "foo/0#1", "bar/0"}) {
		t.Errorf("instances = %q", inst)
	}
}

// TestPathErrors: which part did not match, and what exists.
func TestPathErrors(t *testing.T) {
	s := buildSample(t, t0, []proc{{"firefox", 1, 1, 0}, {"bash", 2, 2, 0}}, nil)
	src := &memSource{db: titles.English(), samples: [][]byte{s}}
	cases := []struct {
		path string
		st   calc.Status
		want string
	}{
		{`\Proces(*)\ID Process`, calc.NoObject, `pdh: \Proces(*)\ID Process: no object "Proces" (did you mean "Process"?)`},
		{`\Nothing\X`, calc.NoObject, `pdh: \Nothing\X: no object "Nothing" (objects: "Process")`},
		{`\Process(*)\ID Proces`, calc.NoCounter, `pdh: \Process(*)\ID Proces: no counter "ID Proces" in object "Process" (did you mean "ID Process"?)`},
		{`\Process(firefx)\ID Process`, calc.NoInstance, `pdh: \Process(firefx)\ID Process: no instance "firefx" in object "Process" (did you mean "firefox"?)`},
		{`\Process(firefox#1)\ID Process`, calc.NoInstance, `no instance "firefox#1" in object "Process" (did you mean "firefox"?)`},
		{`\\OTHER\Process(*)\ID Process`, calc.NoMachine, `no machine "OTHER" (machines: "TESTBOX")`},
		{`\Process\ID Process`, calc.NoInstance, `object "Process" has instances`},
		{`\Process(*`, 0, `counterpath`},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			q := OpenQuery(src)
			_, err := q.AddCounter(c.path)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
			if c.st != 0 && !errors.Is(err, c.st) {
				t.Errorf("error %v is not %v", err, c.st)
			}
		})
	}
}

// TestMultiTimerRaw: the item count of a MULTI_TIMER is the DWORD after its
// value; of a MULTI_TIMER_INV it is the MULTI_BASE that follows it.
func TestMultiTimerRaw(t *testing.T) {
	specs := []perfdata.CounterSpec{
		{NameIndex: 6, Type: ct.PERF_100NSEC_MULTI_TIMER},
		{NameIndex: 200, Type: ct.PERF_100NSEC_MULTI_TIMER_INV},
		{NameIndex: 200, Type: ct.PERF_COUNTER_MULTI_BASE},
		{NameIndex: 408, Type: ct.PERF_RAW_FRACTION},
		{NameIndex: 408, Type: ct.PERF_RAW_BASE},
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: t0, PerfFreq: 1e7, PerfTime100nSec: t0, SystemName: "X"})
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 234, Single: true}, l, specs); err != nil {
		t.Fatal(err)
	}
	v := b.Single()
	v.Set(0, 111)
	v.SetMulti(0, 3)
	v.Set(1, 222)
	v.Set(2, 4)
	v.Set(3, 1)
	v.Set(4, 8)
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	src := &memSource{db: titles.English(), samples: [][]byte{append([]byte(nil), b.Bytes()...)}}
	q := OpenQuery(src)
	c := mustAdd(t, q, `\PhysicalDisk\*`)
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	raw := c.Raw()
	if len(raw) != 3 {
		t.Fatalf("raw = %+v", raw)
	}
	want := []calc.Raw{
		{FirstValue: 111, MultiCount: 3, Time: uint64(t0), Freq: 1e7},
		{FirstValue: 222, SecondValue: 4, MultiCount: 4, Time: uint64(t0), Freq: 1e7},
		{FirstValue: 1, SecondValue: 8, Time: uint64(t0), Freq: 1e7},
	}
	for i := range want {
		if raw[i].Raw != want[i] {
			t.Errorf("raw %d = %+v, want %+v", i, raw[i].Raw, want[i])
		}
	}
	if v, _ := q.Counters()[0].FormattedArray(noCap)[2].Value, 0; v.Double != 12.5 {
		t.Errorf("%% Free Space = %+v, want 12.5", v)
	}
}

// TestStatisticsAndStatuses: a single counter over samples; statuses
// before the first sample and when the object is missing.
func TestStatisticsAndStatuses(t *testing.T) {
	mk := func(k int64, cpu uint64) []byte {
		return buildSample(t, t0+k*second, []proc{{"p", 5, 1, cpu}}, nil)
	}
	// CPU per interval: 10 %, 30 %, 20 % -> min 10, max 30, mean (6e6/3e7) 20 %.
	src := &memSource{db: titles.English(), samples: [][]byte{mk(0, 0), mk(1, 1e6), mk(2, 4e6), mk(3, 6e6)}}
	q := OpenQuery(src)
	c := mustAdd(t, q, `\Process(p)\% Processor Time`)
	if v, _ := c.Formatted(noCap); v.Status != calc.NoData {
		t.Errorf("before Collect: %v", v.Status)
	}
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Formatted(noCap); v.Status != calc.NewData {
		t.Errorf("first sample: %v", v.Status)
	}
	for range 3 {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	st := c.Statistics(noCap)
	if st.Status != calc.ValidData || st.Count != 3 || st.Min != 10 || st.Max != 30 || st.Mean != 20 {
		t.Errorf("Statistics = %+v", st)
	}
	if _, err := q.AddCounter(`\Process(*)\*`); err != nil {
		t.Fatal(err)
	}
	w := q.Counters()[1]
	if _, err := w.Formatted(noCap); err == nil {
		t.Error("Formatted on a wildcard path: no error")
	}
	info := c.Info()
	if info.Path.String() != `\Process(p)\% Processor Time` || info.Type != ct.PERF_100NSEC_TIMER || info.NameIndex != 6 || info.DetailLevel != 100 {
		t.Errorf("Info = %+v", info)
	}
}

func TestObjectMissing(t *testing.T) {
	s1 := buildSample(t, t0, []proc{{"p", 5, 1, 0}}, nil)
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: t0 + second, PerfFreq: 1e7, PerfTime100nSec: t0 + second, SystemName: "TESTBOX"})
	empty := append([]byte(nil), b.Bytes()...)
	q := OpenQuery(&memSource{db: titles.English(), samples: [][]byte{s1, empty}})
	c := mustAdd(t, q, `\Process(p)\ID Process`)
	for range 2 {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := c.Formatted(noCap); v.Status != calc.NoObject {
		t.Errorf("object missing: %v", v.Status)
	}
	if items := c.FormattedArray(noCap); len(items) != 0 {
		t.Errorf("items %+v", items)
	}
}

func TestEnumObjects(t *testing.T) {
	s := buildSample(t, t0, []proc{{"p", 5, 1, 0}}, []thread{{"0", 0, 6, 1, 0}})
	objs, err := EnumObjects(context.Background(), &memSource{db: titles.English(), samples: [][]byte{s}})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || objs[0].Name != "Process" || objs[1].Name != "Thread" || !objs[0].Multi || objs[0].Counters != 3 || objs[0].Index != idxProcess {
		t.Errorf("objects = %+v", objs)
	}
}

// TestMissingValuesAreNoData: values a source marks as placeholders (an
// unreadable /proc/PID/io, a provider not running) are never shown as a
// valid 0: they carry NoData, the other values stay valid, and the reason
// is available from Query.Problems.
func TestMissingValuesAreNoData(t *testing.T) {
	procs := func(cpu uint64) []proc {
		return []proc{{"a", 10, 1, cpu}, {"b", 20, 2, cpu}, {"c", 30, 3, cpu}}
	}
	s1 := buildSample(t, t0, procs(0), nil)
	s2 := buildSample(t, t0+second, procs(5_000_000), nil)
	prob := Problem{Object: idxProcess, ObjectName: "Process", Partial: true, Reason: "/proc/20/io: permission denied",
		Missing: []MissingValues{{Instance: 1, Counters: []uint32{idxProcTime}}, {Instance: 2}}}
	src := &memSource{db: titles.English(), samples: [][]byte{s1, s2},
		problems: map[int][]Problem{0: {prob}, 1: {prob}}}
	q := OpenQuery(src)
	cpu := mustAdd(t, q, `\Process(*)\% Processor Time`)
	id := mustAdd(t, q, `\Process(*)\ID Process`)
	for range 2 {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// a: 0.5 s of CPU in 1 s = 50 %; b: CPU unreadable; c: nothing readable.
	gotCPU := byInstance(cpu.FormattedArray(noCap))
	wantCPU := map[string]calc.Status{"a": calc.ValidData, "b": calc.NoData, "c": calc.NoData}
	for name, st := range wantCPU {
		if gotCPU[name].Status != st {
			t.Errorf("%% Processor Time of %s: status %v, want %v", name, gotCPU[name].Status, st)
		}
	}
	if v := gotCPU["a"].Value.Double; v != 50 {
		t.Errorf("%% Processor Time of a = %v, want 50", v)
	}
	gotID := byInstance(id.FormattedArray(noCap))
	if gotID["b"].Status != calc.ValidData || gotID["b"].Value.Double != 20 {
		t.Errorf("ID Process of b = %+v, want a valid 20 (only CPU was missing)", gotID["b"])
	}
	if gotID["c"].Status != calc.NoData {
		t.Errorf("ID Process of c: status %v, want NoData (every counter missing)", gotID["c"].Status)
	}
	if p := q.Problems(); len(p) != 1 || !strings.Contains(p[0].String(), "permission denied") {
		t.Errorf("Problems() = %v, want the source's reason", p)
	}
}

// TestIdentityByTitleIndex: instance identity is found by the counters'
// title indexes, so it still works with a title database in another
// language (here the names are German).
func TestIdentityByTitleIndex(t *testing.T) {
	db := titles.New()
	for idx, name := range map[uint32]string{idxProcess: "Prozess", idxProcTime: "Prozessorzeit (%)",
		idxIDProcess: "Prozesskennung", idxElapsedTime: "Verstrichene Zeit"} {
		if err := db.SetAt(idx, name, ""); err != nil {
			t.Fatal(err)
		}
	}
	s1 := buildSample(t, t0, []proc{{"foo", 100, 1000, 5_000_000}, {"foo", 150, 2000, 1_000_000}}, nil)
	s2 := buildSample(t, t0+second, []proc{{"foo", 150, 2000, 3_500_000}, {"foo", 200, 9000, 900_000_000_000}}, nil)
	q := OpenQuery(&memSource{db: db, samples: [][]byte{s1, s2}})
	c := mustAdd(t, q, `\Prozess(*)\Prozessorzeit (%)`)
	for range 2 {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	got := byInstance(c.FormattedArray(noCap))
	// pid 150 (now foo) used 0.25 s in 1 s; pid 200 (now foo#1) is new.
	if got["foo"].Status != calc.ValidData || got["foo"].Value.Double != 25 {
		t.Errorf("foo = %+v, want 25 %%", got["foo"])
	}
	if got["foo#1"].Status != calc.NewData {
		t.Errorf("foo#1 = %+v, want NewData (a new process, not pid 150's successor)", got["foo#1"])
	}
}

// TestFailedObjectNamed: adding a counter of an object whose provider
// failed says why (the provider's reason), not merely "no object".
func TestFailedObjectNamed(t *testing.T) {
	s := buildSample(t, t0, []proc{{"a", 1, 1, 0}}, nil)
	src := &memSource{db: titles.English(), samples: [][]byte{s},
		problems: map[int][]Problem{0: {{Object: 238, ObjectName: "Processor", Reason: "V1 provider cpu: collect timed out after 500ms"}}}}
	q := OpenQuery(src)
	_, err := q.AddCounter(`\Processor(_Total)\% Processor Time`)
	var pe *PathError
	if !errors.As(err, &pe) || pe.Status != calc.NoObject || !strings.Contains(err.Error(), "V1 provider cpu: collect timed out") {
		t.Fatalf("AddCounter: %v, want a NoObject PathError with the provider's reason", err)
	}
}

// TestNamedInstanceFollowedAcrossOrders: a counter of one named instance
// reads that instance whatever its position, sample after sample: while
// the names stay put it reuses the last sample's matches, and when they
// move it matches again (the values say which instance was read).
func TestNamedInstanceFollowedAcrossOrders(t *testing.T) {
	mk := func(t100 int64, order []string) []byte {
		return rawCountSample(t, t100, order, func(_ int, n string) uint64 {
			v := uint64(len(n)) * 10 // "b" 10, "cc" 20, "ddd" 30
			if n == "b" {
				v += uint64(t100-t0) / uint64(second) // b's value tells the sample
			}
			return v
		})
	}
	orders := [][]string{{"cc", "b"}, {"cc", "b"}, {"b", "cc"}, {"b", "cc"}, {"ddd", "cc"}, {"cc", "b", "ddd"}, {"cc", "b", "ddd"}}
	var samples [][]byte
	for i, o := range orders {
		samples = append(samples, mk(t0+int64(i)*second, o))
	}
	q := OpenQuery(&memSource{db: titles.English(), samples: samples})
	c := mustAdd(t, q, `\Processor(b)\Context Switches/sec`)
	for i, o := range orders {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
		v, _ := c.Formatted(noCap)
		if !slices.Contains(o, "b") {
			if v.Status == calc.ValidData {
				t.Errorf("sample %d (%v): %v, want no instance", i, o, v)
			}
			continue
		}
		if want := float64(10 + i); v.Status != calc.ValidData || v.Double != want {
			t.Errorf("sample %d (%v): %+v, want %v", i, o, v, want)
		}
	}
}

// TestDuplicateNamesAcrossSamples: instances of one name are numbered
// #1, #2 in their order in each sample, also when a sample's names differ
// from the last one's only after some duplicates (the names before the
// first difference are taken from the last sample, not counted again).
func TestDuplicateNamesAcrossSamples(t *testing.T) {
	mk := func(t100 int64, order []string) []byte {
		return rawCountSample(t, t100, order, func(i int, _ string) uint64 { return uint64(i) })
	}
	tests := []struct {
		order, want []string
	}{
		{[]string{"x", "x", "y"}, []string{"x", "x#1", "y"}},
		{[]string{"x", "x", "y"}, []string{"x", "x#1", "y"}},
		{[]string{"x", "x", "x"}, []string{"x", "x#1", "x#2"}},
		{[]string{"x", "y", "x"}, []string{"x", "y", "x#1"}},
		{[]string{"x", "y", "x", "y"}, []string{"x", "y", "x#1", "y#1"}},
		{[]string{"y", "y", "x", "y"}, []string{"y", "y#1", "x", "y#2"}},
	}
	var samples [][]byte
	for i, tc := range tests {
		samples = append(samples, mk(t0+int64(i)*second, tc.order))
	}
	q := OpenQuery(&memSource{db: titles.English(), samples: samples})
	c := mustAdd(t, q, `\Processor(*)\Context Switches/sec`)
	for i, tc := range tests {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range c.FormattedArray(noCap) {
			if int(it.Value.Double) >= len(tc.want) || tc.want[int(it.Value.Double)] != it.Instance {
				t.Errorf("sample %d %v: instance %q holds the value of position %v", i, tc.order, it.Instance, it.Value.Double)
			}
			got = append(got, it.Instance)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("sample %d %v: instances %q, want %q", i, tc.order, got, tc.want)
		}
	}
}

// rawCountSample is a block at time t100 with a Processor object (238)
// whose instances are names, in that order, each with one RAWCOUNT
// counter (146) of value(position, name).
func rawCountSample(t testing.TB, t100 int64, names []string, value func(int, string) uint64) []byte {
	t.Helper()
	specs := []perfdata.CounterSpec{{NameIndex: 146, HelpIndex: 147, Type: ct.PERF_COUNTER_RAWCOUNT}}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: t100, PerfFreq: 1e7, PerfTime100nSec: t100, SystemName: "X"})
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 238, HelpIndex: 239}, l, specs); err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		b.Instance(n, 0, 0, perfdata.NoUniqueID).Set(0, value(i, n))
	}
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), b.Bytes()...)
}
