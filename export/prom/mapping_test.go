package prom

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// The clocks of the synthetic blocks: a block tick rate of 1000/s and an
// object timer of 500/s, so that a conversion assuming 10 MHz (or the
// wrong time base) gives another number.
const (
	testPerfFreq = 1000
	testObjFreq  = 500
	testObjTime  = 2000
)

// testWall is the block's time: 2026-01-01T00:00:00Z = 1767225600 s.
var testWall = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// counterCase is one counter of a synthetic single-instance object: its
// type and raw numbers (the base follows it when base != 0; multi is
// the DWORD after a MULTI_TIMER value).
type counterCase struct {
	name     string
	typ      ct.Type
	n        uint64
	baseType ct.Type
	base     uint64
	multi    uint32
	scale    int32
	detail   uint32
}

// buildBlock writes one object "Test Object" (title index 1000) holding
// the counters, with the clocks above and perfTime as the block's tick
// count, and a titles database naming them.
func buildBlock(t testing.TB, cases []counterCase, perfTime int64, instances []string) ([]byte, *titles.DB) {
	t.Helper()
	db := titles.New()
	if err := db.SetAt(1000, "Test Object", "An object for tests."); err != nil {
		t.Fatal(err)
	}
	var specs []perfdata.CounterSpec
	var slots []int // spec position of each case's counter
	idx := uint32(1002)
	for _, c := range cases {
		if err := db.SetAt(idx, c.name, "Explains "+c.name+"."); err != nil {
			t.Fatal(err)
		}
		slots = append(slots, len(specs))
		spec := perfdata.CounterSpec{NameIndex: idx, HelpIndex: idx + 1, Type: c.typ, DefaultScale: c.scale, DetailLevel: c.detail}
		if c.typ.IsText() {
			spec.Size = 16
		}
		specs = append(specs, spec)
		if c.baseType != 0 {
			specs = append(specs, perfdata.CounterSpec{NameIndex: idx, HelpIndex: idx + 1, Type: c.baseType})
		}
		idx += 2
	}
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		t.Fatal(err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: perfTime, PerfFreq: testPerfFreq, PerfTime100nSec: perfdata.FileTime(testWall),
		SystemTime: perfdata.SystemTimeOf(testWall), SystemName: "TESTHOST"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 1000, HelpIndex: 1001, DefaultCounter: -1,
		PerfTime: testObjTime, PerfFreq: testObjFreq, Single: len(instances) == 0}, l, specs); err != nil {
		t.Fatal(err)
	}
	fill := func(v perfdata.Values) {
		for i, c := range cases {
			v.Set(slots[i], c.n)
			if c.multi != 0 {
				v.SetMulti(slots[i], c.multi)
			}
			if c.baseType != 0 {
				v.Set(slots[i]+1, c.base)
			}
		}
	}
	if len(instances) == 0 {
		fill(b.Single())
	}
	for _, name := range instances {
		fill(b.Instance(name, 0, 0, perfdata.NoUniqueID))
	}
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(b.Bytes()), db
}

func sampleOf(t testing.TB, blocks ...[]byte) *pdh.Sample {
	t.Helper()
	s, err := pdh.NewSample(blocks)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// samplesAndTypes splits an OpenMetrics answer into its sample lines and
// the type of each family.
func samplesAndTypes(body string) (samples []string, types map[string]string) {
	types = map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSuffix(body, "\n"), "\n") {
		if isSelfMetric(line) {
			continue // checked by TestSelfMetrics
		}
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, kind, _ := strings.Cut(rest, " ")
			types[name] = kind
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		samples = append(samples, line)
	}
	return samples, types
}

// isSelfMetric reports whether line belongs to the exporter's own
// metrics (self.go).
func isSelfMetric(line string) bool {
	return strings.Contains(line, "_exporter_build_info") || strings.Contains(line, "_scrape_collector_")
}

// TestMapping checks the export of every counter type against numbers
// worked out by hand from the raw values and the clocks above.
func TestMapping(t *testing.T) {
	tests := []struct {
		c     counterCase
		want  []string          // sample lines
		types map[string]string // family -> type
	}{
		{counterCase{name: "Queue Length", typ: ct.PERF_COUNTER_RAWCOUNT, n: 7},
			[]string{"perfc_test_object_queue_length 7"}, map[string]string{"perfc_test_object_queue_length": "gauge"}},
		// A DWORD raw count is zero-extended, as PDH shows it.
		{counterCase{name: "Handles", typ: ct.PERF_COUNTER_RAWCOUNT, n: 0xFFFFFFFF},
			[]string{"perfc_test_object_handles 4294967295"}, nil},
		// A LARGE raw count is signed.
		{counterCase{name: "Skew", typ: ct.PERF_COUNTER_LARGE_RAWCOUNT, n: ^uint64(4)},
			[]string{"perfc_test_object_skew -5"}, map[string]string{"perfc_test_object_skew": "gauge"}},
		{counterCase{name: "Flags", typ: ct.PERF_COUNTER_RAWCOUNT_HEX, n: 255},
			[]string{"perfc_test_object_flags 255"}, nil},
		{counterCase{name: "Big Flags", typ: ct.PERF_COUNTER_LARGE_RAWCOUNT_HEX, n: 1 << 40},
			[]string{"perfc_test_object_big_flags 1099511627776"}, nil},
		// A gauge whose words end in a reserved suffix gets _value.
		{counterCase{name: "Thread Count", typ: ct.PERF_COUNTER_RAWCOUNT, n: 12},
			[]string{"perfc_test_object_thread_count_value 12"}, map[string]string{"perfc_test_object_thread_count_value": "gauge"}},
		// Rates: the running count, /sec dropped from the name.
		{counterCase{name: "Ops/sec", typ: ct.PERF_COUNTER_COUNTER, n: 1234},
			[]string{"perfc_test_object_ops_total 1234"}, map[string]string{"perfc_test_object_ops": "counter"}},
		{counterCase{name: "Disk Bytes/sec", typ: ct.PERF_COUNTER_BULK_COUNT, n: 1_000_000_000_000},
			[]string{"perfc_test_object_disk_bytes_total 1000000000000"}, map[string]string{"perfc_test_object_disk_bytes": "counter"}},
		{counterCase{name: "Events", typ: ct.PERF_COUNTER_DELTA, n: 9},
			[]string{"perfc_test_object_events_total 9"}, map[string]string{"perfc_test_object_events": "counter"}},
		{counterCase{name: "Large Events", typ: ct.PERF_COUNTER_LARGE_DELTA, n: 1 << 33},
			[]string{"perfc_test_object_large_events_total 8589934592"}, nil},
		// (SAMPLE_COUNTER does not display per second: its name is kept whole.)
		{counterCase{name: "Samples/sec", typ: ct.PERF_SAMPLE_COUNTER, n: 77},
			[]string{"perfc_test_object_samples_per_seconds_total 77"}, nil},
		// Timers in seconds by their own time base: 25,000,000 x 100 ns.
		{counterCase{name: "% Busy Time", typ: ct.PERF_100NSEC_TIMER, n: 25_000_000},
			[]string{"perfc_test_object_busy_time_seconds_total 2.5"}, map[string]string{"perfc_test_object_busy_time_seconds": "counter"}},
		// 30,000,000 x 100 ns of idle time.
		{counterCase{name: "% Processor Time", typ: ct.PERF_100NSEC_TIMER_INV, n: 30_000_000},
			[]string{"perfc_test_object_processor_time_inverse_seconds_total 3"}, nil},
		// 2500 ticks at the block's 1000/s.
		{counterCase{name: "% Tick Time", typ: ct.PERF_COUNTER_TIMER, n: 2500},
			[]string{"perfc_test_object_tick_time_seconds_total 2.5"}, nil},
		{counterCase{name: "% Tick Idle", typ: ct.PERF_COUNTER_TIMER_INV, n: 500},
			[]string{"perfc_test_object_tick_idle_inverse_seconds_total 0.5"}, nil},
		// 1000 ticks of the object timer at 500/s.
		{counterCase{name: "% Object Time", typ: ct.PERF_OBJ_TIME_TIMER, n: 1000},
			[]string{"perfc_test_object_object_time_seconds_total 2"}, nil},
		// Precision timers: the value and the provider's time stamp, both in seconds.
		{counterCase{name: "% Disk Time", typ: ct.PERF_PRECISION_100NS_TIMER, n: 5_000_000, baseType: ct.PERF_PRECISION_TIMESTAMP, base: 20_000_000},
			[]string{"perfc_test_object_disk_time_seconds_total 0.5", "perfc_test_object_disk_time_base_seconds_total 2"},
			map[string]string{"perfc_test_object_disk_time_seconds": "counter", "perfc_test_object_disk_time_base_seconds": "counter"}},
		{counterCase{name: "% System Precision", typ: ct.PERF_PRECISION_SYSTEM_TIMER, n: 500, baseType: ct.PERF_PRECISION_TIMESTAMP, base: 4000},
			[]string{"perfc_test_object_system_precision_seconds_total 0.5", "perfc_test_object_system_precision_base_seconds_total 4"}, nil},
		{counterCase{name: "% Object Precision", typ: ct.PERF_PRECISION_OBJECT_TIMER, n: 250, baseType: ct.PERF_PRECISION_TIMESTAMP, base: 1000},
			[]string{"perfc_test_object_object_precision_seconds_total 0.5", "perfc_test_object_object_precision_base_seconds_total 2"}, nil},
		// Fractions and averages: their two parts.
		{counterCase{name: "% Free Space", typ: ct.PERF_RAW_FRACTION, n: 30, baseType: ct.PERF_RAW_BASE, base: 120},
			[]string{"perfc_test_object_free_space 30", "perfc_test_object_free_space_base 120"},
			map[string]string{"perfc_test_object_free_space": "gauge", "perfc_test_object_free_space_base": "gauge"}},
		{counterCase{name: "% Large Fraction", typ: ct.PERF_LARGE_RAW_FRACTION, n: 1 << 34, baseType: ct.PERF_LARGE_RAW_BASE, base: 1 << 35},
			[]string{"perfc_test_object_large_fraction 17179869184", "perfc_test_object_large_fraction_base 34359738368"}, nil},
		{counterCase{name: "% Hits", typ: ct.PERF_SAMPLE_FRACTION, n: 3, baseType: ct.PERF_SAMPLE_BASE, base: 4},
			[]string{"perfc_test_object_hits_total 3", "perfc_test_object_hits_base_total 4"},
			map[string]string{"perfc_test_object_hits": "counter", "perfc_test_object_hits_base": "counter"}},
		// 3000 ticks at 1000/s over 6 reads.
		{counterCase{name: "Avg. Disk sec/Read", typ: ct.PERF_AVERAGE_TIMER, n: 3000, baseType: ct.PERF_AVERAGE_BASE, base: 6},
			[]string{"perfc_test_object_avg_disk_seconds_per_read_seconds_total 3", "perfc_test_object_avg_disk_seconds_per_read_base_total 6"},
			map[string]string{"perfc_test_object_avg_disk_seconds_per_read_seconds": "counter", "perfc_test_object_avg_disk_seconds_per_read_base": "counter"}},
		{counterCase{name: "Avg. Disk Bytes/Read", typ: ct.PERF_AVERAGE_BULK, n: 4096, baseType: ct.PERF_AVERAGE_BASE, base: 2},
			[]string{"perfc_test_object_avg_disk_bytes_per_read_total 4096", "perfc_test_object_avg_disk_bytes_per_read_base_total 2"}, nil},
		// Multi timers: 40,000,000 x 100 ns over 4 items (the DWORD after the value).
		{counterCase{name: "% Multi Time", typ: ct.PERF_100NSEC_MULTI_TIMER, n: 40_000_000, multi: 4},
			[]string{"perfc_test_object_multi_time_seconds_total 4", "perfc_test_object_multi_time_items 4"},
			map[string]string{"perfc_test_object_multi_time_seconds": "counter", "perfc_test_object_multi_time_items": "gauge"}},
		{counterCase{name: "% Multi Ticks", typ: ct.PERF_COUNTER_MULTI_TIMER, n: 3000, multi: 2},
			[]string{"perfc_test_object_multi_ticks_seconds_total 3", "perfc_test_object_multi_ticks_items 2"}, nil},
		// Inverse multi timer: the item count is the MULTI_BASE after it.
		{counterCase{name: "% Multi Idle", typ: ct.PERF_100NSEC_MULTI_TIMER_INV, n: 10_000_000, baseType: ct.PERF_COUNTER_MULTI_BASE, base: 2},
			[]string{"perfc_test_object_multi_idle_inverse_seconds_total 1", "perfc_test_object_multi_idle_items 2"}, nil},
		{counterCase{name: "% Multi Tick Idle", typ: ct.PERF_COUNTER_MULTI_TIMER_INV, n: 1500, baseType: ct.PERF_COUNTER_MULTI_BASE, base: 3},
			[]string{"perfc_test_object_multi_tick_idle_inverse_seconds_total 1.5", "perfc_test_object_multi_tick_idle_items 3"}, nil},
		// Queue lengths integrated over time, in length x seconds.
		{counterCase{name: "Avg. Disk Queue Length", typ: ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, n: 30_000_000},
			[]string{"perfc_test_object_avg_disk_queue_length_total 3"}, map[string]string{"perfc_test_object_avg_disk_queue_length": "counter"}},
		{counterCase{name: "Queue Ticks", typ: ct.PERF_COUNTER_QUEUELEN_TYPE, n: 1500},
			[]string{"perfc_test_object_queue_ticks_total 1.5"}, nil},
		{counterCase{name: "Large Queue Ticks", typ: ct.PERF_COUNTER_LARGE_QUEUELEN_TYPE, n: 4000},
			[]string{"perfc_test_object_large_queue_ticks_total 4"}, nil},
		{counterCase{name: "Object Queue", typ: ct.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, n: 1000},
			[]string{"perfc_test_object_object_queue_total 2"}, nil},
		// Started 1000 object ticks (2 s at 500/s) before the object's
		// time stamp 2000: 1767225600 - 2.
		{counterCase{name: "Elapsed Time", typ: ct.PERF_ELAPSED_TIME, n: 1000},
			[]string{"perfc_test_object_elapsed_time_start_time_seconds 1.767225598e+09"},
			map[string]string{"perfc_test_object_elapsed_time_start_time_seconds": "gauge"}},
		// Unknown start (0): no sample, no family.
		{counterCase{name: "Elapsed Unknown", typ: ct.PERF_ELAPSED_TIME, n: 0}, nil, map[string]string{}},
		// No number: text, no data.
		{counterCase{name: "Label", typ: ct.PERF_COUNTER_TEXT, n: 0}, nil, map[string]string{}},
		{counterCase{name: "Nothing", typ: ct.PERF_COUNTER_NODATA, n: 0}, nil, map[string]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.c.typ.String()+"/"+tc.c.name, func(t *testing.T) {
			blk, db := buildBlock(t, []counterCase{tc.c}, 50_000, nil)
			src := &fixedSource{db: db, samples: []*pdh.Sample{sampleOf(t, blk)}}
			col, err := NewCollector(src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			body, err := col.Scrape(context.Background(), OpenMetrics)
			if err != nil {
				t.Fatal(err)
			}
			got, types := samplesAndTypes(string(body))
			if !slices.Equal(got, tc.want) {
				t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if tc.types != nil && !mapsEqual(types, tc.types) {
				t.Errorf("types %v, want %v", types, tc.types)
			}
			checkOpenMetrics(t, string(body))
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestFormatted checks the formatted gauges between two collections
// against values worked out by hand: 2 s apart (2000 ticks at 1000/s).
func TestFormatted(t *testing.T) {
	first := []counterCase{
		{name: "Ops/sec", typ: ct.PERF_COUNTER_COUNTER, n: 1000},
		{name: "% Busy Time", typ: ct.PERF_100NSEC_TIMER, n: 0},
		{name: "Avg. Disk sec/Read", typ: ct.PERF_AVERAGE_TIMER, n: 1000, baseType: ct.PERF_AVERAGE_BASE, base: 10},
		{name: "% Free Space", typ: ct.PERF_RAW_FRACTION, n: 30, baseType: ct.PERF_RAW_BASE, base: 120},
		{name: "Scaled/sec", typ: ct.PERF_COUNTER_COUNTER, n: 0, scale: -1},
	}
	second := slices.Clone(first)
	second[0].n = 3000 // +2000 in 2 s: 1000/s
	second[1].n = 0    // (the 100 ns time base does not move between the blocks: no value)
	second[2].n = 1600 // +600 ticks = 0.6 s over +4 reads: 0.15 s
	second[2].base = 14
	second[4].n = 100 // 50/s; the display scale 10^-1 is not applied (typeperf prints 50)
	b0, db := buildBlock(t, first, 50_000, nil)
	b1, _ := buildBlock(t, second, 52_000, nil)
	src := &fixedSource{db: db, samples: []*pdh.Sample{sampleOf(t, b0), sampleOf(t, b1)}}
	col, err := NewCollector(src, Options{Formatted: true})
	if err != nil {
		t.Fatal(err)
	}
	body, err := col.Scrape(context.Background(), OpenMetrics)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := samplesAndTypes(string(body))
	// First collection: only the single-sample formatted value (25 %).
	if want := "perfc_test_object_free_space_formatted 25"; !slices.Contains(got, want) {
		t.Errorf("first scrape: no %q in\n%s", want, strings.Join(got, "\n"))
	}
	for _, l := range got {
		if strings.Contains(l, "_formatted") && !strings.Contains(l, "free_space") {
			t.Errorf("first scrape has a two-sample value: %s", l)
		}
	}
	body, err = col.Scrape(context.Background(), OpenMetrics)
	if err != nil {
		t.Fatal(err)
	}
	got, types := samplesAndTypes(string(body))
	for _, want := range []string{
		"perfc_test_object_ops_formatted 1000",
		"perfc_test_object_avg_disk_seconds_per_read_formatted 0.15",
		"perfc_test_object_free_space_formatted 25",
		"perfc_test_object_scaled_formatted 50",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("second scrape: no %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, l := range got {
		if strings.HasPrefix(l, "perfc_test_object_busy_time_formatted") {
			t.Errorf("a timer over a zero interval has no value: %s", l)
		}
	}
	if types["perfc_test_object_ops_formatted"] != "gauge" {
		t.Errorf("formatted type %q", types["perfc_test_object_ops_formatted"])
	}

	// After a gap (the source stopped collecting in between) two-sample
	// values start over.
	gap := sampleOf(t, b1)
	gap.Gap = true
	src = &fixedSource{db: db, samples: []*pdh.Sample{sampleOf(t, b0), gap}}
	if col, err = NewCollector(src, Options{Formatted: true}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if body, err = col.Scrape(context.Background(), OpenMetrics); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(string(body), "perfc_test_object_ops_formatted") {
		t.Errorf("a rate computed across a gap")
	}
}

// TestParentsAndMissing checks the perf_parent label (a child object's
// instances naming their parent's by position) and that placeholder
// values of a partial object (pdh.Problem.Missing) are left out.
func TestParentsAndMissing(t *testing.T) {
	db := titles.New()
	for i, n := range map[uint32]string{1000: "Parent Object", 1002: "Child Object", 1004: "Items"} {
		if err := db.SetAt(i, n, ""); err != nil {
			t.Fatal(err)
		}
	}
	specs := []perfdata.CounterSpec{{NameIndex: 1004, Type: ct.PERF_COUNTER_RAWCOUNT}}
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		t.Fatal(err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: 1, PerfFreq: testPerfFreq, PerfTime100nSec: perfdata.FileTime(testWall), SystemName: "TESTHOST"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 1000, DefaultCounter: -1}, l, specs); err != nil {
		t.Fatal(err)
	}
	b.Instance("p0", 0, 0, perfdata.NoUniqueID).Set(0, 1)
	b.Instance("p1", 0, 0, perfdata.NoUniqueID).Set(0, 2)
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 1002, DefaultCounter: -1}, l, specs); err != nil {
		t.Fatal(err)
	}
	b.Instance("c", 1000, 1, perfdata.NoUniqueID).Set(0, 10)
	b.Instance("c", 1000, 0, perfdata.NoUniqueID).Set(0, 11)
	b.Instance("c", 1000, 1, perfdata.NoUniqueID).Set(0, 12)
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	smp := sampleOf(t, slices.Clone(b.Bytes()))
	// The second instance of the parent object is a placeholder.
	smp.Problems = []pdh.Problem{{Object: 1000, ObjectName: "Parent Object", Partial: true, Reason: "unreadable",
		Missing: []pdh.MissingValues{{Instance: 1, Counters: []uint32{1004}}}}}
	col, err := NewCollector(&fixedSource{db: db, samples: []*pdh.Sample{smp}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	body, err := col.Scrape(context.Background(), OpenMetrics)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := samplesAndTypes(string(body))
	want := []string{
		`perfc_parent_object_items{perf_instance="p0"} 1`,
		`perfc_child_object_items{perf_instance="c",perf_parent="p1"} 10`,
		`perfc_child_object_items{perf_instance="c",perf_parent="p0"} 11`,
		`perfc_child_object_items{perf_instance="c#1",perf_parent="p1"} 12`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCollisions checks that counters whose names come out equal get
// distinct names, in definition order, and that DetailLevel leaves out
// counters above it.
func TestCollisions(t *testing.T) {
	cases := []counterCase{
		{name: "Reads/sec", typ: ct.PERF_COUNTER_COUNTER, n: 1},
		{name: "Reads", typ: ct.PERF_COUNTER_COUNTER, n: 2},
		{name: "Reads", typ: ct.PERF_COUNTER_RAWCOUNT, n: 3},
		{name: "% Free", typ: ct.PERF_RAW_FRACTION, n: 4, baseType: ct.PERF_RAW_BASE, base: 8},
		{name: "Free Base", typ: ct.PERF_COUNTER_RAWCOUNT, n: 5},
	}
	blk, db := buildBlock(t, cases, 50_000, nil)
	src := &fixedSource{db: db, samples: []*pdh.Sample{sampleOf(t, blk)}}
	col, err := NewCollector(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	body, err := col.Scrape(context.Background(), OpenMetrics)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := samplesAndTypes(string(body))
	want := []string{
		"perfc_test_object_reads_total 1",
		"perfc_test_object_reads_2_total 2",
		"perfc_test_object_reads_3 3",
		"perfc_test_object_free 4",
		"perfc_test_object_free_base 8",
		"perfc_test_object_free_base_2 5",
	}
	if !slices.Equal(got, want) {
		t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkOpenMetrics(t, string(body))
}

func TestDetailLevel(t *testing.T) {
	cases := []counterCase{
		{name: "Novice", typ: ct.PERF_COUNTER_RAWCOUNT, n: 1, detail: 100},
		{name: "Advanced", typ: ct.PERF_COUNTER_RAWCOUNT, n: 2, detail: 200},
		{name: "Wizard", typ: ct.PERF_COUNTER_RAWCOUNT, n: 3, detail: 400},
	}
	blk, db := buildBlock(t, cases, 50_000, nil)
	for _, tc := range []struct {
		level uint32
		want  []string
	}{
		{0, []string{"perfc_test_object_novice 1", "perfc_test_object_advanced 2", "perfc_test_object_wizard 3"}},
		{200, []string{"perfc_test_object_novice 1", "perfc_test_object_advanced 2"}},
		{100, []string{"perfc_test_object_novice 1"}},
	} {
		src := &fixedSource{db: db, samples: []*pdh.Sample{sampleOf(t, blk)}}
		col, err := NewCollector(src, Options{DetailLevel: tc.level})
		if err != nil {
			t.Fatal(err)
		}
		body, err := col.Scrape(context.Background(), OpenMetrics)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := samplesAndTypes(string(body)); !slices.Equal(got, tc.want) {
			t.Errorf("detail level %d: %v, want %v", tc.level, got, tc.want)
		}
	}
}
