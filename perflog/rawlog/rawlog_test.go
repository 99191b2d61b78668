package rawlog

import (
	"bytes"
	"context"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// replay is a recorded pdh.Source of built samples.
type replay struct {
	db      *titles.DB
	samples []*pdh.Sample
	pos     int
}

func (r *replay) Sample(context.Context, []uint32) (*pdh.Sample, error) {
	if r.pos >= len(r.samples) {
		return nil, io.EOF
	}
	r.pos++
	return r.samples[r.pos-1], nil
}
func (r *replay) Titles() *titles.DB        { return r.db }
func (r *replay) Recorded() pdh.Recorded    { return r }
func (r *replay) Len() int                  { return len(r.samples) }
func (r *replay) Pos() int                  { return r.pos }
func (r *replay) Seek(i int) error          { r.pos = i; return nil }
func (r *replay) Time(i int) time.Time      { return r.samples[i].Time }
func (r *replay) Counters() []string        { return nil }
func (r *replay) add(s *pdh.Sample) *replay { r.samples = append(r.samples, s); return r }

type set struct {
	k    int
	inst string
	v    Value
}

type check struct {
	path   string
	value  float64 // after the last sample
	status calc.Status
}

var t0 = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

const (
	ft0  = 133_537_968_000_000_000 // a FILETIME
	freq = 10_000_000
)

// TestBuild rebuilds samples from raw values and checks what pdh computes
// from them against values worked out by hand from the same numbers.
// newPlan is the plan of list over the titles Titles makes for it.
func newPlan(t *testing.T, list []Counter) (*Plan, *titles.DB) {
	t.Helper()
	db, err := Titles(list, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(list, db)
	if err != nil {
		t.Fatal(err)
	}
	return p, db
}

func TestBuild(t *testing.T) {
	cases := []struct {
		name    string
		list    []Counter
		samples [][]set
		checks  []check
	}{
		{
			name: "rate over 100 ns time (% Processor Time)",
			list: []Counter{{Machine: `\\HOST`, Object: "Processor", Instance: "*", Name: "% Processor Time", Type: ct.PERF_100NSEC_TIMER_INV, TimeBase: freq}},
			samples: [][]set{
				{{0, "0", Value{First: 1_000_000, Second: ft0}}, {0, "_Total", Value{First: 2_000_000, Second: ft0}}},
				// one second later: idle 0.05 s on CPU 0 (95% busy), 0.25 s in total (75%)
				{{0, "0", Value{First: 1_500_000, Second: ft0 + freq}}, {0, "_Total", Value{First: 4_500_000, Second: ft0 + freq}}},
			},
			checks: []check{{`\Processor(0)\% Processor Time`, 95, calc.ValidData}, {`\Processor(_Total)\% Processor Time`, 75, calc.ValidData}},
		},
		{
			name: "rate over ticks, raw count, elapsed time",
			list: []Counter{
				{Machine: "HOST", Object: "System", Name: "Context Switches/sec", Type: ct.PERF_COUNTER_COUNTER, TimeBase: 1000},
				{Machine: "HOST", Object: "System", Name: "Processes", Type: ct.PERF_COUNTER_RAWCOUNT},
				{Machine: "HOST", Object: "System", Name: "System Up Time", Type: ct.PERF_ELAPSED_TIME, TimeBase: freq},
			},
			samples: [][]set{
				{{0, "", Value{First: 1000, Second: 5000}}, {1, "", Value{First: 40}}, {2, "", Value{First: ft0 - 100*freq, Second: ft0}}},
				// 2 s later at 1000 ticks a second: 2000 switches, 1000/s; up 102 s
				{{0, "", Value{First: 3000, Second: 7000}}, {1, "", Value{First: 42}}, {2, "", Value{First: ft0 - 100*freq, Second: ft0 + 2*freq}}},
			},
			checks: []check{{`\System\Context Switches/sec`, 1000, calc.ValidData}, {`\System\Processes`, 42, calc.ValidData}, {`\System\System Up Time`, 102, calc.ValidData}},
		},
		{
			name:    "fraction with its base",
			list:    []Counter{{Machine: "HOST", Object: "LogicalDisk", Instance: "C:", Name: "% Free Space", Type: ct.PERF_RAW_FRACTION}},
			samples: [][]set{{{0, "C:", Value{First: 25, Second: 200}}}},
			checks:  []check{{`\LogicalDisk(C:)\% Free Space`, 12.5, calc.ValidData}},
		},
		{
			// Logs name duplicate instances as PDH shows them; given here
			// out of order, and with svchost#3 absent: #4 keeps its number.
			name: "duplicate instance names",
			list: []Counter{{Machine: "HOST", Object: "Process", Instance: "*", Name: "ID Process", Type: ct.PERF_COUNTER_RAWCOUNT}},
			samples: [][]set{{
				{0, "svchost#2", Value{First: 302}}, {0, "svchost", Value{First: 300}}, {0, "csrss", Value{First: 7}},
				{0, "svchost#1", Value{First: 301}}, {0, "svchost#4", Value{First: 304}}, {0, "a#b", Value{First: 9}},
			}},
			checks: []check{
				{`\Process(svchost)\ID Process`, 300, calc.ValidData}, {`\Process(svchost#1)\ID Process`, 301, calc.ValidData},
				{`\Process(svchost#2)\ID Process`, 302, calc.ValidData}, {`\Process(svchost#4)\ID Process`, 304, calc.ValidData},
				{`\Process(csrss)\ID Process`, 7, calc.ValidData}, {`\Process(a%23b)\ID Process`, 9, calc.ValidData},
			},
		},
		{
			name: "a counter missing for one instance",
			list: []Counter{
				{Machine: "HOST", Object: "Process", Instance: "*", Name: "ID Process", Type: ct.PERF_COUNTER_RAWCOUNT},
				{Machine: "HOST", Object: "Process", Instance: "*", Name: "Thread Count", Type: ct.PERF_COUNTER_RAWCOUNT},
			},
			samples: [][]set{{{0, "a", Value{First: 1}}, {1, "a", Value{First: 5}}, {0, "b", Value{First: 2}},
				{1, "b", Value{Status: 0xC0000BBC}}}},
			checks: []check{{`\Process(a)\Thread Count`, 5, calc.ValidData}, {`\Process(b)\ID Process`, 2, calc.ValidData},
				{`\Process(b)\Thread Count`, 0, calc.NoData}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, db := newPlan(t, c.list)
			src := &replay{db: db}
			for i, smp := range c.samples {
				rows := p.Rows()
				for _, s := range smp {
					if err := rows.Set(s.k, s.inst, s.v); err != nil {
						t.Fatal(err)
					}
				}
				if rows.Len() != len(smp) {
					t.Errorf("Len = %d, want %d", rows.Len(), len(smp))
				}
				at := t0.Add(time.Duration(i) * time.Second)
				s, err := rows.Build(at, freq)
				if err != nil {
					t.Fatal(err)
				}
				if !s.Time.Equal(at) {
					t.Errorf("sample %d: time %v, want %v", i, s.Time, at)
				}
				// The plan reuses its buffers: keep a copy of each block,
				// as a consumer that holds samples must.
				for j, b := range s.Blocks {
					if s.Blocks[j], err = perfdata.Parse(append([]byte(nil), b.Bytes()...)); err != nil {
						t.Fatal(err)
					}
				}
				src.add(s)
			}
			q := pdh.OpenQuery(src)
			ctrs := make([]*pdh.Counter, len(c.checks))
			for i, ch := range c.checks {
				ctr, err := q.AddCounter(ch.path)
				if err != nil {
					t.Fatalf("%s: %v", ch.path, err)
				}
				ctrs[i] = ctr
			}
			for range c.samples {
				if err := q.Collect(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			for i, ch := range c.checks {
				v, err := ctrs[i].Formatted(calc.FmtDouble | calc.FmtNoCap100)
				if err != nil {
					t.Fatal(err)
				}
				if v.Status != ch.status || ch.status == calc.ValidData && math.Abs(v.Double-ch.value) > 1e-9*math.Max(1, math.Abs(ch.value)) {
					t.Errorf("%s = %v (status %v), want %v (status %v)", ch.path, v.Double, v.Status, ch.value, ch.status)
				}
			}
		})
	}
}

// TestBuildProblems: failed statuses and missing values are the sample's
// problems, with PDH's reason.
func TestBuildProblems(t *testing.T) {
	list := []Counter{
		{Machine: `\\A`, Object: "Memory", Name: "Available Bytes", Type: ct.PERF_COUNTER_LARGE_RAWCOUNT},
		{Machine: `\\B`, Object: "Memory", Name: "Available Bytes", Type: ct.PERF_COUNTER_LARGE_RAWCOUNT},
		{Machine: `\\A`, Object: "Process", Instance: "*", Name: "ID Process", Type: ct.PERF_COUNTER_RAWCOUNT},
		{Machine: `\\A`, Object: "Process", Instance: "*", Name: "Thread Count", Type: ct.PERF_COUNTER_RAWCOUNT},
	}
	p, _ := newPlan(t, list)
	rows := p.Rows()
	rows.Set(0, "", Value{First: 1 << 30})
	rows.Set(1, "", Value{Status: 0x800007D0})
	rows.Set(2, "x", Value{First: 4})
	s, err := rows.Build(t0, freq)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Blocks) != 2 {
		t.Errorf("%d blocks, want 2 (A's Memory and Process; B's Memory has no valid value)", len(s.Blocks))
	}
	var got []string
	for _, pr := range s.Problems {
		got = append(got, pr.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{`object Memory left out: \\B: PDH_CSTATUS_NO_MACHINE`, `object Process incomplete: \\A: no value for some counters`} {
		if !strings.Contains(all, want) {
			t.Errorf("problems %q lack %q", got, want)
		}
	}
	for _, pr := range s.Problems {
		if pr.Partial && (len(pr.Missing) != 1 || pr.Missing[0].Instance != 0 || len(pr.Missing[0].Counters) != 1) {
			t.Errorf("missing values %+v, want instance 0, one counter", pr.Missing)
		}
	}
}

func TestPlanErrors(t *testing.T) {
	cases := []struct {
		c    Counter
		want string
	}{
		{Counter{Machine: "H", Object: "O", Name: "Base", Type: ct.PERF_RAW_BASE}, `\\H\O\Base: counter type 0x40030403`},
		{Counter{Machine: "H", Object: "O", Name: "Odd", Type: 0x7B}, "counter type 0x0000007B"},
		{Counter{Machine: "H", Object: "O", Name: "Text", Type: ct.Type(0x00000B00)}, "cannot be logged"},
	}
	for _, c := range cases {
		_, err := NewPlan([]Counter{c.c}, titles.English())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.c.Path(), err, c.want)
		}
	}
	p, err := NewPlan([]Counter{{Machine: "H", Object: "Memory", Name: "Available Bytes", Type: ct.PERF_COUNTER_RAWCOUNT}}, titles.English())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{-1, 1, 1 << 40} {
		if err := p.Rows().Set(k, "", Value{}); err == nil {
			t.Errorf("Set(%d): no error", k)
		}
	}
}

// TestSparse: a crafted log naming many instances and many counters with
// few values cannot make a block of instances × counters cells.
func TestSparse(t *testing.T) {
	var list []Counter
	for i := range 100 {
		list = append(list, Counter{Machine: "H", Object: "Process", Instance: "*", Name: "C" + string(rune('A'+i/26)) + string(rune('a'+i%26)), Type: ct.PERF_COUNTER_RAWCOUNT})
	}
	p, _ := newPlan(t, list)
	rows := p.Rows()
	for i := range 100 {
		rows.Set(i, "i"+string(rune('A'+i/26))+string(rune('a'+i%26)), Value{First: 1})
	}
	if _, err := rows.Build(t0, freq); err == nil || !strings.Contains(err.Error(), "too sparse") {
		t.Errorf("err = %v, want too sparse", err)
	}
}

func TestCounterPath(t *testing.T) {
	cases := []struct {
		c    Counter
		want string
	}{
		{Counter{Machine: "HOST", Object: "Memory", Name: "Available Bytes"}, `\\HOST\Memory\Available Bytes`},
		{Counter{Machine: `\\HOST`, Object: "Process", Instance: "svchost", Index: 2, Name: "ID Process"}, `\\HOST\Process(svchost#2)\ID Process`},
		{Counter{Object: "Thread", Parent: "svchost", Instance: "0", Name: "Context Switches/sec"}, `\Thread(svchost/0)\Context Switches/sec`},
	}
	for _, c := range cases {
		if got := c.c.Path(); got != c.want {
			t.Errorf("Path = %q, want %q", got, c.want)
		}
	}
}

func TestStatus(t *testing.T) {
	cases := []struct {
		s    uint32
		ok   bool
		text string
	}{
		{0, true, "0x00000000"},
		{1, true, "0x00000001"},
		{0x800007D0, false, "PDH_CSTATUS_NO_MACHINE"},
		{0xC0000BBC, false, "PDH_CSTATUS_INVALID_DATA"},
		{0x12345678, false, "PDH counter status 0x12345678"},
	}
	for _, c := range cases {
		if StatusOK(c.s) != c.ok || !strings.Contains(StatusText(c.s), c.text) {
			t.Errorf("status 0x%08X: OK %v, text %q; want %v, %q", c.s, StatusOK(c.s), StatusText(c.s), c.ok, c.text)
		}
	}
}

// TestTitles: names English Windows knows keep its indexes (Processor is
// 238, % Processor Time 6); others get new even indexes after the last;
// a log's own table is kept and added to.
func TestTitles(t *testing.T) {
	list := []Counter{
		{Object: "Processor", Name: "% Processor Time"},
		{Object: "Widgets", Name: "Widgets Made"},
		{Object: "processor", Name: "Widgets Made"},
	}
	db, err := Titles(list, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, idx := range map[string]uint32{"Processor": 238, "% Processor Time": 6} {
		if got, ok := db.Index(name); !ok || got != idx {
			t.Errorf("Index(%q) = %d, %v; want %d", name, got, ok, idx)
		}
	}
	last := titles.English().LastCounter()
	w, ok1 := db.Index("Widgets")
	m, ok2 := db.Index("Widgets Made")
	if !ok1 || !ok2 || w <= last || m <= last || w%2 != 0 || m%2 != 0 || w == m {
		t.Errorf("new names at %d, %d (ok %v %v); want distinct even indexes after %d", w, m, ok1, ok2, last)
	}
	own := titles.New()
	if err := own.SetAt(2000, "Processor", ""); err != nil {
		t.Fatal(err)
	}
	db2, err := Titles(list[:1], own)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := db2.Index("Processor"); got != 2000 {
		t.Errorf("with the log's table, Processor at %d, want its 2000", got)
	}
	if _, ok := db2.Index("% Processor Time"); !ok {
		t.Error("% Processor Time not added to the log's table")
	}
}

// TestArrange: instances keep the order given, those of one name take
// their places in the order of their #n, and gaps get placeholders (-1).
func TestArrange(t *testing.T) {
	cases := []struct {
		in   []string
		want string // name:src ...
	}{
		{[]string{"Idle", "csrss", "wininit", "csrss#1"}, "Idle:0 csrss:1 wininit:2 csrss:3"},
		{[]string{"svchost#2", "a", "svchost", "svchost#1"}, "svchost:2 a:1 svchost:3 svchost:0"},
		{[]string{"x", "x#3"}, "x:0 x:-1 x:-1 x:1"},
		{[]string{"x#1000"}, "x:0"}, // more holes than instances: the gap closes
		{[]string{"x#1", "x#01"}, "x:-1 x:0 x#01:1"},
		{[]string{"#5", "a#", "a#b", "a#99999999"}, "#5:0 a#:1 a#b:2 a#99999999:3"},
		{nil, ""},
	}
	for _, c := range cases {
		var got []string
		for _, bi := range arrange(c.in) {
			got = append(got, bi.name+":"+strconv.Itoa(bi.src))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("arrange(%q) = %s, want %s", c.in, g, c.want)
		}
	}
}

// TestBuildAgain: samples built one after another from the same Rows,
// whose blocks are written again in place while a group keeps its
// instances, give the blocks and Problems that a Plan of their own gives
// each sample alone.
func TestBuildAgain(t *testing.T) {
	list := []Counter{
		{Machine: `\\A`, Object: "Memory", Name: "Available Bytes", Type: ct.PERF_COUNTER_LARGE_RAWCOUNT},
		{Machine: `\\A`, Object: "Processor", Instance: "*", Name: "% Processor Time", Type: ct.PERF_100NSEC_TIMER_INV, TimeBase: freq},
		{Machine: `\\A`, Object: "Processor", Instance: "*", Name: "Interrupts/sec", Type: ct.PERF_COUNTER_COUNTER, TimeBase: 1000},
		{Machine: `\\A`, Object: "LogicalDisk", Instance: "*", Name: "% Free Space", Type: ct.PERF_RAW_FRACTION},
		{Machine: `\\A`, Object: "Thread", Instance: "*", Parent: "svchost", Name: "Context Switches/sec", Type: ct.PERF_COUNTER_COUNTER, TimeBase: 1000},
		{Machine: `\\B`, Object: "Memory", Name: "Available Bytes", Type: ct.PERF_COUNTER_LARGE_RAWCOUNT},
	}
	type pset struct {
		k             int
		parent, inst  string
		first, second int64
		status        uint32
	}
	const failed = 0x800007D0
	cpu := func(n int64, insts ...string) []pset {
		var out []pset
		for i, in := range insts {
			out = append(out, pset{k: 1, inst: in, first: n + int64(i), second: ft0 + n}, pset{k: 2, inst: in, first: 10 * n, second: 1000 * n})
		}
		return out
	}
	join := func(parts ...[]pset) []pset {
		var out []pset
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	mem := func(n int64) []pset { return []pset{{k: 0, first: n}, {k: 5, first: 2 * n}} }
	samples := [][]pset{
		join(mem(1), cpu(1, "0", "1", "_Total")),
		join(mem(2), cpu(2, "0", "1", "_Total")),                                           // the same instances: written again
		join(mem(3), cpu(3, "0", "1", "_Total"))[:7],                                       // Interrupts/sec missing for _Total
		join(mem(4), cpu(4, "0", "1", "_Total")),                                           // whole again
		join([]pset{{k: 0, first: 5}, {k: 5, status: failed}}, cpu(5, "0", "1", "_Total")), // B did not answer
		join(mem(6), cpu(6, "0", "1", "_Total")),                                           // B back
		join(mem(7), cpu(7, "0", "2", "_Total")),                                           // an instance renamed, same length
		join(mem(8), cpu(8, "0", "2", "3", "_Total")),                                      // one more
		join(mem(9), cpu(9, "_Total")),                                                     // fewer
		join(mem(10), cpu(10, "_Total"), []pset{{k: 3, inst: "C:", first: 1, second: 4}}),
		join(mem(11), cpu(11, "_Total"), []pset{{k: 3, inst: "C:", first: 2, second: 4}}),
		join(mem(12), cpu(12, "svchost", "svchost#1", "svchost#3")), // duplicate names, a gap
		join(mem(13), cpu(13, "svchost", "svchost#1", "svchost#3")),
		join(mem(14), []pset{{k: 4, parent: "svchost", inst: "0", first: 1, second: 2}, {k: 4, parent: "svchost", inst: "1", first: 3, second: 4}}),
		join(mem(15), []pset{{k: 4, parent: "svchost", inst: "0", first: 5, second: 6}, {k: 4, parent: "svchost", inst: "1", first: 7, second: 8}}),
		join(mem(16), cpu(16, "0", "1", "_Total"), []pset{{k: 1, inst: "0", first: 99, second: ft0}}), // a value set twice
		join(mem(17), cpu(17, "0", "1", "_Total"), []pset{{k: 1, inst: "1", status: failed}}),
		join(mem(18), cpu(18, "0", "1", "_Total")),
	}
	db, err := Titles(list, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan := func() *Plan {
		p, err := NewPlan(list, db)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	fill := func(rows *Rows, sets []pset) {
		rows.Reset()
		for _, s := range sets {
			if err := rows.SetParent(s.k, s.parent, s.inst, Value{Status: s.status, First: s.first, Second: s.second}); err != nil {
				t.Fatal(err)
			}
		}
	}
	again := plan().Rows()
	for i, sets := range samples {
		at := t0.Add(time.Duration(i) * time.Second)
		fill(again, sets)
		got, err := again.Build(at, freq)
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		alone := plan().Rows()
		fill(alone, sets)
		want, err := alone.Build(at, freq)
		if err != nil {
			t.Fatalf("sample %d alone: %v", i, err)
		}
		if len(got.Blocks) != len(want.Blocks) {
			t.Fatalf("sample %d: %d blocks, want %d", i, len(got.Blocks), len(want.Blocks))
		}
		for k := range got.Blocks {
			if !bytes.Equal(got.Blocks[k].Bytes(), want.Blocks[k].Bytes()) {
				t.Errorf("sample %d: block %d differs from the block built alone", i, k)
			}
		}
		if !reflect.DeepEqual(got.Problems, want.Problems) {
			t.Errorf("sample %d: problems %+v, want %+v", i, got.Problems, want.Problems)
		}
	}
}
