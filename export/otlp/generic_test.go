package otlp

import (
	"math"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// TestPlanOf lists the generic mapping of every counter type winperf
// defines; a type added to countertype must be added here.
func TestPlanOf(t *testing.T) {
	none := plan{}
	gauge := plan{value: partGauge}
	sum := plan{value: partSum}
	timer := plan{value: partTime}
	queue := plan{value: partQueue}
	want := map[ct.Type]plan{
		ct.PERF_COUNTER_RAWCOUNT_HEX:           gauge,
		ct.PERF_COUNTER_LARGE_RAWCOUNT_HEX:     gauge,
		ct.PERF_COUNTER_RAWCOUNT:               gauge,
		ct.PERF_COUNTER_LARGE_RAWCOUNT:         gauge,
		ct.PERF_DOUBLE_RAW:                     {value: partFloat},
		ct.PERF_COUNTER_TEXT:                   none,
		ct.PERF_COUNTER_DELTA:                  sum,
		ct.PERF_COUNTER_LARGE_DELTA:            sum,
		ct.PERF_SAMPLE_COUNTER:                 sum,
		ct.PERF_COUNTER_COUNTER:                sum,
		ct.PERF_COUNTER_BULK_COUNT:             sum,
		ct.PERF_COUNTER_QUEUELEN_TYPE:          queue,
		ct.PERF_COUNTER_LARGE_QUEUELEN_TYPE:    queue,
		ct.PERF_COUNTER_100NS_QUEUELEN_TYPE:    queue,
		ct.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE: queue,
		ct.PERF_RAW_FRACTION:                   {value: partGauge, second: partGauge},
		ct.PERF_LARGE_RAW_FRACTION:             {value: partGauge, second: partGauge},
		ct.PERF_COUNTER_TIMER:                  timer,
		ct.PERF_100NSEC_TIMER:                  timer,
		ct.PERF_OBJ_TIME_TIMER:                 timer,
		ct.PERF_COUNTER_TIMER_INV:              {value: partTime, inverse: true},
		ct.PERF_100NSEC_TIMER_INV:              {value: partTime, inverse: true},
		ct.PERF_COUNTER_MULTI_TIMER:            {value: partTime, second: partGauge, items: true, multi: true},
		ct.PERF_100NSEC_MULTI_TIMER:            {value: partTime, second: partGauge, items: true, multi: true},
		ct.PERF_COUNTER_MULTI_TIMER_INV:        {value: partTime, second: partGauge, items: true, inverse: true},
		ct.PERF_100NSEC_MULTI_TIMER_INV:        {value: partTime, second: partGauge, items: true, inverse: true},
		ct.PERF_PRECISION_SYSTEM_TIMER:         {value: partTime, second: partTime},
		ct.PERF_PRECISION_100NS_TIMER:          {value: partTime, second: partTime},
		ct.PERF_PRECISION_OBJECT_TIMER:         {value: partTime, second: partTime},
		ct.PERF_SAMPLE_FRACTION:                {value: partSum, second: partSum},
		ct.PERF_AVERAGE_TIMER:                  {value: partTime, second: partSum},
		ct.PERF_AVERAGE_BULK:                   {value: partSum, second: partSum},
		ct.PERF_ELAPSED_TIME:                   {value: partStartTime},
		ct.PERF_COUNTER_NODATA:                 none,
		ct.PERF_SAMPLE_BASE:                    none,
		ct.PERF_AVERAGE_BASE:                   none,
		ct.PERF_RAW_BASE:                       none,
		ct.PERF_LARGE_RAW_BASE:                 none,
		ct.PERF_COUNTER_MULTI_BASE:             none,
		ct.PERF_COUNTER_HISTOGRAM_TYPE:         none,
		ct.Type(0x12345678):                    none, // not a winperf type
	}
	for _, typ := range ct.All() {
		if _, ok := want[typ]; !ok {
			t.Errorf("%v: not in this table", typ)
		}
	}
	for typ, w := range want {
		got, ok := planOf(typ)
		if ok != (w != none) || got != w {
			t.Errorf("planOf(%v) = %+v, %v; want %+v", typ, got, ok, w)
		}
		// A second part is read from a base definition exactly when the
		// type has one; otherwise from the multi count after the value.
		if ok && got.second != partNone && !got.multi != typ.NeedsBase() {
			t.Errorf("%v: second part from a base %v but NeedsBase %v", typ, !got.multi, typ.NeedsBase())
		}
		if ok && got.second == partNone && typ.NeedsBase() {
			t.Errorf("%v: its base is not exported", typ)
		}
	}
}

func TestGenericName(t *testing.T) {
	long := strings.Repeat("a", 300)
	cases := []struct {
		object, counter string
		typ             ct.Type
		want            string
	}{
		{"PhysicalDisk", "Disk Reads/sec", ct.PERF_COUNTER_COUNTER, "perfc.physical_disk.disk_reads"},
		{"Network Interface", "Bytes Total/sec", ct.PERF_COUNTER_BULK_COUNT, "perfc.network_interface.bytes_total"},
		{"Memory", "% Committed Bytes In Use", ct.PERF_RAW_FRACTION, "perfc.memory.committed_bytes_in_use"},
		{"PhysicalDisk", "Avg. Disk sec/Transfer", ct.PERF_AVERAGE_TIMER, "perfc.physical_disk.avg_disk_seconds_per_transfer"},
		{"Processor", "% Processor Time", ct.PERF_100NSEC_TIMER_INV, "perfc.processor.processor_time_inverse"},
		{"TCPv4", "Segments/sec", ct.PERF_COUNTER_COUNTER, "perfc.tcpv4.segments"},
		{"LogicalDisk", "Free Megabytes", ct.PERF_COUNTER_RAWCOUNT, "perfc.logical_disk.free_mbytes"},
		{"Process", "Thread Count", ct.PERF_COUNTER_RAWCOUNT, "perfc.process.thread_count_value"},
		{"Process", "Thread Count", ct.PERF_COUNTER_COUNTER, "perfc.process.thread_count"},
		{"Job", "Uptime 5 m", ct.PERF_COUNTER_RAWCOUNT, "perfc.job.uptime_5m"},
		{"Job", "m", ct.PERF_COUNTER_RAWCOUNT, "perfc.job.mx"},
		{"Thread", "ID Thread #", ct.PERF_COUNTER_RAWCOUNT, "perfc.thread.id_thread_number"},
		// "/sec" goes only where the type displays a rate; "%" only
		// where it displays a percentage.
		{"My App", "Packets/sec", ct.PERF_COUNTER_RAWCOUNT, "perfc.my_app.packets_per_seconds"},
		{"My App", "% Done", ct.PERF_COUNTER_RAWCOUNT, "perfc.my_app.percent_done"},
		{"Process", "Elapsed Time", ct.PERF_ELAPSED_TIME, "perfc.process.elapsed_time.start_time"},
		{"Größe", "Ä", ct.PERF_COUNTER_RAWCOUNT, "perfc.gr_uf6_udf_e.uc4"},
		{"", "", ct.PERF_COUNTER_RAWCOUNT, "perfc.object_42.counter_7"},
		{"  __ ", "/sec", ct.PERF_COUNTER_COUNTER, "perfc.unnamed.unnamed"},
		{"X", long, ct.PERF_COUNTER_RAWCOUNT, ("perfc.x." + long)[:maxNameLen-len(".items_4294967295")]},
	}
	for _, tc := range cases {
		got := genericName(tc.object, 42, tc.counter, 7, tc.typ)
		if got != tc.want {
			t.Errorf("genericName(%q, %q, %v) = %q, want %q", tc.object, tc.counter, tc.typ, got, tc.want)
		}
		if len(got)+len(".items_4294967295") > maxNameLen {
			t.Errorf("%q: too long for a base and a suffix", got)
		}
	}
}

// capture records what a walk observes, by metric name and attributes.
type capture struct {
	kinds map[string]instKind
	vals  map[string]float64
}

// walkCapture walks s into a collection and captures its points.
func walkCapture(e *Exporter, s *pdh.Sample) *capture {
	col := newCollection(0)
	e.walk(s, col)
	c := &capture{kinds: map[string]instKind{}, vals: map[string]float64{}}
	for _, m := range col.metrics {
		for _, p := range m.points {
			key := m.name
			if p.attrs.Len() > 0 {
				key += "{" + p.attrs.Encoded(attribute.DefaultEncoder()) + "}"
			}
			c.kinds[m.name] = m.kind
			c.vals[key] = float64(p.i)
			if m.kind == kindFloatCounter || m.kind == kindFloatGauge {
				c.vals[key] = p.f
			}
		}
	}
	return c
}

// TestGenericValues maps one counter of each kind with distinct clocks
// (block PerfFreq 10^6, object PerfFreq 1000) and checks every value,
// computed by hand: a time divides the raw value by the frequency of the
// type's own time base, never by an assumed 10 MHz.
func TestGenericValues(t *testing.T) {
	const (
		raw  = 5_000_000
		base = 7_000_000
		objT = 6_000_000
	)
	cases := []struct {
		typ       ct.Type
		kind      instKind
		value     float64
		baseKind  instKind
		baseValue float64 // NaN: no base
	}{
		{ct.PERF_COUNTER_RAWCOUNT, kindIntGauge, raw, 0, math.NaN()},
		{ct.PERF_COUNTER_BULK_COUNT, kindIntCounter, raw, 0, math.NaN()},
		{ct.PERF_COUNTER_TIMER, kindFloatCounter, 5, 0, math.NaN()},         // PerfFreq 10^6
		{ct.PERF_100NSEC_TIMER_INV, kindFloatCounter, 0.5, 0, math.NaN()},   // 10^7
		{ct.PERF_OBJ_TIME_TIMER, kindFloatCounter, 5000, 0, math.NaN()},     // object 1000
		{ct.PERF_COUNTER_QUEUELEN_TYPE, kindFloatCounter, 5, 0, math.NaN()}, // PerfFreq
		{ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, kindFloatCounter, 0.5, 0, math.NaN()},
		{ct.PERF_PRECISION_SYSTEM_TIMER, kindFloatCounter, 5, kindFloatCounter, 7},
		{ct.PERF_PRECISION_100NS_TIMER, kindFloatCounter, 0.5, kindFloatCounter, 0.7},
		{ct.PERF_PRECISION_OBJECT_TIMER, kindFloatCounter, 5000, kindFloatCounter, 7000},
		{ct.PERF_AVERAGE_TIMER, kindFloatCounter, 5, kindIntCounter, base},
		{ct.PERF_AVERAGE_BULK, kindIntCounter, raw, kindIntCounter, base},
		{ct.PERF_RAW_FRACTION, kindIntGauge, raw, kindIntGauge, base},
		{ct.PERF_SAMPLE_FRACTION, kindIntCounter, raw, kindIntCounter, base},
		{ct.PERF_100NSEC_MULTI_TIMER_INV, kindFloatCounter, 0.5, kindIntGauge, base},
		{ct.PERF_100NSEC_MULTI_TIMER, kindFloatCounter, 0.5, kindIntGauge, 4}, // the DWORD after the value
		{ct.PERF_COUNTER_LARGE_RAWCOUNT, kindIntGauge, raw, 0, math.NaN()},
		// Started (objT - raw) / 1000 = 1000 s before the sample.
		{ct.PERF_ELAPSED_TIME, kindFloatGauge, t0s - 1000, 0, math.NaN()},
	}
	for _, tc := range cases {
		t.Run(tc.typ.String(), func(t *testing.T) {
			db := titles.English()
			obj, _ := db.Register("Test Object", "")
			ctr, _ := db.Register("Test Counter", "")
			specs := []perfdata.CounterSpec{{NameIndex: ctr, Type: tc.typ}}
			vals := []uint64{raw}
			if b, ok := tc.typ.Base(); ok {
				specs = append(specs, perfdata.CounterSpec{NameIndex: ctr, Type: b})
				vals = append(vals, base)
			}
			blk := buildBlock(t, perfdata.Header{PerfTime: 1, PerfFreq: 1e6, PerfTime100nSec: t0, SystemName: "T"}, []objDef{{
				spec:     perfdata.ObjectSpec{NameIndex: obj, Single: true, PerfTime: objT, PerfFreq: 1000},
				counters: specs, single: vals, multi: map[int]uint32{0: 4}}})
			s, err := pdh.NewSample([][]byte{blk})
			if err != nil {
				t.Fatal(err)
			}
			e := bareExporter(&memSource{db: db}, Options{})
			e.export[obj] = &Selection{Object: "Test Object"}
			c := walkCapture(e, s)
			name := "perfc.test_object.test_counter"
			switch tc.typ {
			case ct.PERF_ELAPSED_TIME:
				name += ".start_time"
			case ct.PERF_100NSEC_TIMER_INV, ct.PERF_100NSEC_MULTI_TIMER_INV:
				name += "_inverse"
			}
			second := name + ".base"
			if tc.typ.Multi() {
				second = name + ".items"
			}
			if got, ok := c.vals[name]; !ok || !near(got, tc.value) || c.kinds[name] != tc.kind {
				t.Errorf("%s = %v (%v, kind %d), want %v kind %d; all: %v", name, got, ok, c.kinds[name], tc.value, tc.kind, c.vals)
			}
			got, ok := c.vals[second]
			if math.IsNaN(tc.baseValue) {
				if len(c.vals) != 1 {
					t.Errorf("one metric expected, got %v", c.vals)
				}
			} else if !ok || !near(got, tc.baseValue) || c.kinds[second] != tc.baseKind {
				t.Errorf("%s = %v (%v, kind %d), want %v kind %d; all: %v", second, got, ok, c.kinds[second], tc.baseValue, tc.baseKind, c.vals)
			}
		})
	}
}

// bareExporter is an Exporter without an OTLP exporter, for walking
// samples.
func bareExporter(src pdh.Source, opts Options) *Exporter {
	return &Exporter{
		src: src, opts: opts, export: map[uint32]*Selection{}, rules: map[uint32][]rule{}, covered: covered(semconvRules),
		generic: map[genericKey]*genericMetric{}, owner: map[string]genericKey{}, prevCPU: map[string]cpuPrev{},
	}
}

// TestPlaceholdersLeftOut: a value the source marks as a placeholder is
// not exported, by the table or by the generic mapping; the other values
// of the instance are.
func TestPlaceholdersLeftOut(t *testing.T) {
	src, _ := fixture(t)
	s, err := pdh.NewSample([][]byte{src.samples[0]})
	if err != nil {
		t.Fatal(err)
	}
	s.Problems = []pdh.Problem{
		{Object: objMemory, Partial: true, Missing: []pdh.MissingValues{{Instance: -1, Counters: []uint32{cFreeZeroBytes, 26}}}},
		{Object: objNetwork, Partial: true, Missing: []pdh.MissingValues{{Instance: 1}}}, // all of lo
	}
	e := bareExporter(src, Options{})
	for _, o := range []uint32{objMemory, objNetwork} {
		e.export[o] = &Selection{}
	}
	for _, r := range semconvRules {
		e.rules[r.object] = append(e.rules[r.object], r)
	}
	c := walkCapture(e, s)
	for key := range c.vals {
		if strings.Contains(key, "free") || strings.HasPrefix(key, "perfc.memory.committed_bytes{") ||
			key == "perfc.memory.committed_bytes" || strings.Contains(key, "=lo") {
			t.Errorf("placeholder exported: %s", key)
		}
	}
	for _, key := range []string{"system.memory.usage{system.memory.state=cached}", "perfc.memory.committed_bytes_in_use",
		"system.network.io{network.interface.name=eth0,network.io.direction=receive}"} {
		if _, ok := c.vals[key]; !ok {
			t.Errorf("%s missing; have %v", key, c.vals)
		}
	}
}

// TestNameUnit: the unit a counter's name gives a count whose type gives
// none (UCUM, as the semantic conventions write them).
func TestNameUnit(t *testing.T) {
	for _, tc := range []struct{ counter, want string }{
		{"Disk Read Bytes/sec", "By"},
		{"Available Bytes", "By"},
		{"Bytes Total/sec", "By"},
		{"IO Read Bytes/sec", "By"},
		{"Available KBytes", "KiBy"},
		{"Available MBytes", "MiBy"},
		{"Free Megabytes", "MiBy"},
		{"Packets Received/sec", "{packet}"},
		{"% Committed Bytes In Use", ""},
		{"Disk Reads/sec", ""},
		{"Bytesize", ""},
		{"Thread Count", ""},
		{"", ""},
	} {
		if got := nameUnit(tc.counter); got != tc.want {
			t.Errorf("nameUnit(%q) = %q, want %q", tc.counter, got, tc.want)
		}
	}
}
