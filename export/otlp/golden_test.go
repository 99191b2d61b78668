package otlp

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// dumpExporter is an sdkmetric.Exporter that writes every ResourceMetrics
// it is handed as canonical text at once (the caller may reuse rm).
type dumpExporter struct {
	since time.Time // times at or after it are the run's, written as "now"
	mu    sync.Mutex
	out   []string // the exports since the last take
}

func (d *dumpExporter) Temporality(sdkmetric.InstrumentKind) metricdata.Temporality {
	return metricdata.CumulativeTemporality
}

func (d *dumpExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (d *dumpExporter) Export(_ context.Context, rm *metricdata.ResourceMetrics) error {
	s := d.format(rm)
	d.mu.Lock()
	d.out = append(d.out, s)
	d.mu.Unlock()
	return nil
}

func (d *dumpExporter) ForceFlush(context.Context) error { return nil }
func (d *dumpExporter) Shutdown(context.Context) error   { return nil }

// take returns the exports since the last take, sorted (the requests of
// one collection may go out in any order).
func (d *dumpExporter) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.out
	d.out = nil
	slices.Sort(out)
	return out
}

func (d *dumpExporter) time(t time.Time) string {
	switch {
	case t.IsZero():
		return "none"
	case !t.Before(d.since):
		return "now"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func attrText(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.String())
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func (d *dumpExporter) format(rm *metricdata.ResourceMetrics) string {
	var b strings.Builder
	fmt.Fprintf(&b, "resource %s %s\n", rm.Resource.SchemaURL(), attrText(*rm.Resource.Set()))
	for _, sm := range rm.ScopeMetrics {
		fmt.Fprintf(&b, "  scope %q version %q schema %q %s\n", sm.Scope.Name, sm.Scope.Version, sm.Scope.SchemaURL, attrText(sm.Scope.Attributes))
		ms := slices.Clone(sm.Metrics)
		slices.SortFunc(ms, func(a, b metricdata.Metrics) int { return strings.Compare(a.Name, b.Name) })
		for _, m := range ms {
			fmt.Fprintf(&b, "    metric %s unit %q desc %q\n", m.Name, m.Unit, m.Description)
			var head string
			var pts []string
			switch x := m.Data.(type) {
			case metricdata.Sum[int64]:
				head, pts = fmt.Sprintf("sum int64 %v monotonic=%v", x.Temporality, x.IsMonotonic), dumpPoints(d, x.DataPoints)
			case metricdata.Sum[float64]:
				head, pts = fmt.Sprintf("sum float64 %v monotonic=%v", x.Temporality, x.IsMonotonic), dumpPoints(d, x.DataPoints)
			case metricdata.Gauge[int64]:
				head, pts = "gauge int64", dumpPoints(d, x.DataPoints)
			case metricdata.Gauge[float64]:
				head, pts = "gauge float64", dumpPoints(d, x.DataPoints)
			default:
				head = fmt.Sprintf("data %T", m.Data)
			}
			fmt.Fprintf(&b, "      %s\n", head)
			slices.Sort(pts)
			for _, p := range pts {
				fmt.Fprintf(&b, "        %s\n", p)
			}
		}
	}
	return b.String()
}

func dumpPoints[N int64 | float64](d *dumpExporter, dps []metricdata.DataPoint[N]) []string {
	var out []string
	for _, p := range dps {
		v := strconv.FormatFloat(float64(p.Value), 'g', -1, 64)
		out = append(out, fmt.Sprintf("%s = %s start %s time %s exemplars %d", attrText(p.Attributes), v, d.time(p.StartTime), d.time(p.Time), len(p.Exemplars)))
	}
	return out
}

// manySource is a source of one sample of an object "Many" with n
// instances, a raw count and a counter each, for the cardinality limit.
func manySource(t *testing.T, n int) *memSource {
	db := titles.English()
	obj, _ := db.Register("Many", "")
	level, _ := db.Register("Level", "")
	events, _ := db.Register("Events/sec", "")
	var insts []instDef
	for i := range n {
		insts = append(insts, instDef{name: "i" + strconv.Itoa(i), vals: []uint64{uint64(i), uint64(10 * i)}})
	}
	blk := buildBlock(t, perfdata.Header{PerfTime: t0, PerfFreq: 1e7, PerfTime100nSec: t0, SystemName: "T"}, []objDef{{
		spec:     perfdata.ObjectSpec{NameIndex: obj},
		counters: []perfdata.CounterSpec{c(level, ct.PERF_COUNTER_RAWCOUNT), c(events, ct.PERF_COUNTER_COUNTER)}, instances: insts}})
	return &memSource{db: db, samples: [][]byte{blk}}
}

// TestGolden exports the fixture with several option sets to an
// in-memory exporter and compares every ResourceMetrics handed to it,
// written as sorted text, with testdata/<name>.golden (-update rewrites
// them): metric names, units, descriptions, kinds, temporality, points,
// attributes, resources and start times, one block per collection.
func TestGolden(t *testing.T) {
	cmd := func(pid int64) (string, bool) {
		if pid == 200 {
			return "", false // unreadable
		}
		return "/bin/bash -l " + strconv.FormatInt(pid, 10), true
	}
	cases := []struct {
		name    string
		src     func(t *testing.T) *memSource
		opts    Options
		flushes int
	}{
		{"fixture", func(t *testing.T) *memSource { s, _ := fixture(t); return s },
			Options{Processes: true, CPUUtilization: true}, 3},
		{"process-resources", func(t *testing.T) *memSource { s, _ := fixture(t); return s },
			Options{Processes: true, ProcessResources: true, CommandLine: cmd, Totals: true, GenericAll: true,
				Resource: map[string]string{"deployment.environment.name": "test"}}, 2},
		{"late-object", func(t *testing.T) *memSource { s, _ := fixtureOf(t, 3, 1); return s },
			Options{Objects: []Selection{{Object: "Memory"}, {Object: "Widget Factory"}}}, 3},
		{"cardinality", func(t *testing.T) *memSource { return manySource(t, 10) },
			Options{CardinalityLimit: 4}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := &dumpExporter{since: time.Now()}
			o := tc.opts
			o.Exporter, o.Interval, o.ServiceVersion = d, time.Hour, "v0.0.0-test"
			o.Getenv = func(string) string { return "" }
			e, err := New(context.Background(), tc.src(t), o)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for k := range tc.flushes {
				flush(t, e)
				fmt.Fprintf(&b, "=== collection %d\n", k+1)
				for _, s := range d.take() {
					b.WriteString(s)
				}
			}
			shutdown(t, e)
			b.WriteString("=== shutdown\n")
			for _, s := range d.take() {
				b.WriteString(s)
			}
			got := b.String()
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("exports differ from %s (run with -update after checking):\n%s", path, lineDiff(string(want), got))
			}
		})
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(got, "\n") {
		count[l]--
	}
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if count[l] > 0 {
			b.WriteString("- " + l + "\n")
			count[l]--
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if count[l] < 0 {
			b.WriteString("+ " + l + "\n")
			count[l]++
		}
	}
	return b.String()
}
