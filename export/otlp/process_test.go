package otlp

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/perfdata"
)

// procTolerance is how far two readings of a Linux process's start may
// differ: /proc gives the start in USER_HZ ticks (10 ms) after boot, and
// the boot time from /proc/uptime in 10 ms steps.
const procTolerance = 30 * time.Millisecond

// testBoot is the host's boot time as the test reads it: now less
// /proc/uptime's first field.
func testBoot(t *testing.T) time.Time {
	t.Helper()
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		t.Skipf("no /proc/uptime: %v", err)
	}
	f := strings.Fields(string(b))
	up, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		t.Fatalf("/proc/uptime %q: %v", b, err)
	}
	return time.Now().Add(-time.Duration(up * 1e9))
}

// procStart is a process's start from /proc/PID/stat (field 22, ticks
// after boot; USER_HZ is 100 on every Linux architecture); ok false when
// the process is gone.
func procStart(pid int64, boot time.Time) (time.Time, bool) {
	b, err := os.ReadFile("/proc/" + strconv.FormatInt(pid, 10) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return time.Time{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64) // field 22; f[0] is field 3
	if err != nil {
		return time.Time{}, false
	}
	return boot.Add(time.Duration(ticks) * 10 * time.Millisecond), true
}

func attrMap(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// sumPoints returns every cumulative point of a ResourceMetrics by metric.
func sumPoints(rm *metricpb.ResourceMetrics) map[string][]*metricpb.NumberDataPoint {
	out := map[string][]*metricpb.NumberDataPoint{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if s := m.GetSum(); s != nil {
				out[m.Name] = append(out[m.Name], s.DataPoints...)
			}
		}
	}
	return out
}

// TestProcessResources exports the live host with one resource per
// process to a real OTLP gRPC MetricsService and checks, against /proc
// and the raw sample read with perfdata alone: one resource per process
// (its process.pid the Process instance's ID Process, its
// process.executable.name the instance's name, the command line of a
// child the test started), no process.pid left on points, and the start
// time of every cumulative point at or before the process's start
// (/proc/PID/stat), of host-wide points at the boot time.
func TestProcessResources(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	boot := testBoot(t)
	before := time.Now()
	child := exec.Command("sleep", "600")
	if err := child.Start(); err != nil {
		t.Skipf("cannot start sleep: %v", err)
	}
	after := time.Now()
	defer func() {
		child.Process.Kill()
		child.Wait()
	}()
	childPID := int64(child.Process.Pid)

	h, err := host.New(host.Options{SegmentDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rcv, addr := startGRPC(t)
	rec := &recording{Source: h.Source()}
	e, err := New(context.Background(), rec, Options{Endpoint: addr, Insecure: true, Interval: time.Hour, Timeout: 5 * time.Minute,
		Objects: []Selection{{Object: "Processor"}, {Object: "System"}}, Processes: true,
		ProcessResources: true, CommandLine: ProcCommandLine})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(t, e)
	flush(t, e)

	// The Process instances of the very sample exported: pid -> name.
	want := map[int64]string{}
	_, o, _ := rec.rawObject(t, objProcess)
	var idDef perfdata.CounterDef
	for i := range o.NumCounters() {
		if d := o.Counter(i); d.NameIndex == cIDProcess && !d.Type.IsBase() {
			idDef = d
		}
	}
	for it := o.Instances(); it.Next(); {
		in := it.Instance()
		if pid := int64(in.Block().Value(idDef)); pid != 0 && in.Name() != totalName {
			want[pid] = in.Name()
		}
	}
	if want[childPID] != "sleep" {
		t.Fatalf("the sample has no sleep with pid %d (%q)", childPID, want[childPID])
	}

	rcv.mu.Lock()
	reqs := rcv.reqs
	rcv.mu.Unlock()
	seen := map[int64]bool{}
	hosts := 0
	for _, req := range reqs {
		for _, rm := range req.ResourceMetrics {
			if rm.SchemaUrl != "https://opentelemetry.io/schemas/1.43.0" {
				t.Errorf("schema URL %q", rm.SchemaUrl)
			}
			res := attrMap(rm.Resource.Attributes)
			for name, pts := range sumPoints(rm) {
				for _, p := range pts {
					if _, ok := attrMap(p.Attributes)["process.pid"]; ok {
						t.Errorf("%s: a point carries process.pid", name)
					}
					if p.StartTimeUnixNano > p.TimeUnixNano {
						t.Errorf("%s: start %d after the point's time %d", name, p.StartTimeUnixNano, p.TimeUnixNano)
					}
				}
			}
			pv, isProc := res["process.pid"]
			if !isProc {
				hosts++
				// Host-wide cumulative points start at boot.
				for name, pts := range sumPoints(rm) {
					for _, p := range pts {
						// Process's Idle (pid 0: the idle time of the
						// processors) is no process and stays the host's.
						if (strings.HasPrefix(name, "process.") || strings.HasPrefix(name, "perfc.process.")) &&
							attrMap(p.Attributes)["perf.instance"].GetStringValue() != "Idle" {
							t.Errorf("host resource has process metric %s point %v", name, p.Attributes)
						}
						if d := time.Unix(0, int64(p.StartTimeUnixNano)).Sub(boot); d.Abs() > procTolerance {
							t.Errorf("%s: start %v, %v from the boot time %v", name, time.Unix(0, int64(p.StartTimeUnixNano)), d, boot)
						}
					}
				}
				continue
			}
			pid := pv.GetIntValue()
			if seen[pid] {
				t.Errorf("pid %d: more than one resource", pid)
			}
			seen[pid] = true
			name, ok := want[pid]
			if !ok {
				t.Errorf("resource of pid %d, not a Process instance of the sample", pid)
				continue
			}
			if got := res["process.executable.name"].GetStringValue(); got != name {
				t.Errorf("pid %d: process.executable.name %q, want %q", pid, got, name)
			}
			if res["host.name"].GetStringValue() == "" || res["service.name"].GetStringValue() != "perfc" {
				t.Errorf("pid %d: resource %v lacks the host's attributes", pid, res)
			}
			start, alive := procStart(pid, boot)
			pts := sumPoints(rm)
			if len(pts["process.cpu.time"]) == 0 {
				t.Errorf("pid %d: no process.cpu.time", pid)
			}
			for metric, ps := range pts {
				for _, p := range ps {
					st := time.Unix(0, int64(p.StartTimeUnixNano))
					if alive && st.After(start.Add(procTolerance)) {
						t.Errorf("pid %d %s: start %v after the process's start %v", pid, metric, st, start)
					}
					if st.Before(boot.Add(-procTolerance)) {
						t.Errorf("pid %d %s: start %v before boot %v", pid, metric, st, boot)
					}
					if pid == childPID && (st.Before(before.Add(-procTolerance)) || st.After(after)) {
						t.Errorf("child %s: start %v, not between %v and %v when it was started", metric, st, before, after)
					}
				}
			}
			// process.creation.time is the start every cumulative point
			// of the process has.
			created, err := time.Parse(time.RFC3339Nano, res["process.creation.time"].GetStringValue())
			if err != nil {
				t.Errorf("pid %d: process.creation.time: %v", pid, err)
			}
			for metric, ps := range pts {
				for _, p := range ps {
					if st := time.Unix(0, int64(p.StartTimeUnixNano)); !st.Equal(created) {
						t.Errorf("pid %d %s: start %v, process.creation.time %v", pid, metric, st, created)
					}
				}
			}
			if pid == childPID {
				if got := res["process.command_line"].GetStringValue(); got != "sleep 600" {
					t.Errorf("child's process.command_line %q, want \"sleep 600\"", got)
				}
			}
		}
	}
	if hosts != 1 {
		t.Errorf("%d host resources, want 1", hosts)
	}
	for pid, name := range want {
		if !seen[pid] {
			t.Errorf("process %d (%s) of the sample has no resource", pid, name)
		}
	}
	if len(reqs) != len(want)+1 {
		t.Errorf("%d requests for %d processes, want one per process and the host's", len(reqs), len(want))
	}
}

// TestElapsedStart checks the start of a PERF_ELAPSED_TIME count against
// times worked out by hand.
func TestElapsedStart(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ft := func(t time.Time) uint64 { return uint64(perfdata.FileTime(t)) }
	start := time.Date(2026, 3, 1, 11, 0, 0, 500_000_000, time.UTC)
	for _, tc := range []struct {
		name    string
		n, d, f uint64
		want    time.Time
	}{
		{"FILETIME timer: the raw value is the start", ft(start), ft(at.Add(-time.Second)), 10_000_000, start},
		{"other timer: the sample's time less the age", 1_000, 61_000, 1_000, at.Add(-60 * time.Second)},
		{"10^7 but not a FILETIME: relative", 10_000_000, 30_000_000, 10_000_000, at.Add(-2 * time.Second)},
		{"zero value", 0, 5, 1, time.Time{}},
		{"value after the timer", 6, 5, 1, time.Time{}},
		{"no frequency", 1, 5, 0, time.Time{}},
		{"timer beyond int64", 1, 1 << 63, 1, time.Time{}},
	} {
		if got := elapsedStart(tc.n, tc.d, tc.f, at); !got.Equal(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// keepExporter keeps every ResourceMetrics handed to it (the exporter
// never reuses one).
type keepExporter struct {
	dumpExporter
	mu  sync.Mutex
	rms []*metricdata.ResourceMetrics
}

func (k *keepExporter) Export(_ context.Context, rm *metricdata.ResourceMetrics) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.rms = append(k.rms, rm)
	return nil
}

// TestProcessCreationTime: with one resource per process, each process's
// resource carries process.creation.time, the process's start (the
// fixture's Elapsed Time, a FILETIME) in RFC 3339, and every cumulative
// point of the process starts then.
func TestProcessCreationTime(t *testing.T) {
	src, _ := fixture(t)
	k := &keepExporter{}
	e, err := New(context.Background(), src, Options{Exporter: k, Interval: time.Hour, Processes: true, ProcessResources: true})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(t, e)
	flush(t, e)
	want := map[int64]time.Time{ // the fixture's starts: t0 less 600 s and 60 s
		100: perfdata.FileTimeToTime(t0 - 600*1e7),
		200: perfdata.FileTimeToTime(t0 - 60*1e7),
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	seen := 0
	for _, rm := range k.rms {
		pid, ok := rm.Resource.Set().Value("process.pid")
		if !ok {
			continue
		}
		seen++
		start, ok := want[pid.AsInt64()]
		if !ok {
			t.Errorf("resource of pid %d", pid.AsInt64())
			continue
		}
		v, ok := rm.Resource.Set().Value("process.creation.time")
		if !ok || v.AsString() != start.UTC().Format(time.RFC3339Nano) {
			t.Errorf("pid %d: process.creation.time %q (%v), want %q", pid.AsInt64(), v.AsString(), ok, start.UTC().Format(time.RFC3339Nano))
		}
		sums := 0
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				var starts []time.Time
				switch d := m.Data.(type) {
				case metricdata.Sum[int64]:
					for _, p := range d.DataPoints {
						starts = append(starts, p.StartTime)
					}
				case metricdata.Sum[float64]:
					for _, p := range d.DataPoints {
						starts = append(starts, p.StartTime)
					}
				}
				for _, st := range starts {
					sums++
					if !st.Equal(start) {
						t.Errorf("pid %d %s: start %v, want %v", pid.AsInt64(), m.Name, st, start)
					}
				}
			}
		}
		if sums == 0 {
			t.Errorf("pid %d: no cumulative points", pid.AsInt64())
		}
	}
	if seen != len(want) {
		t.Errorf("%d process resources, want %d", seen, len(want))
	}
}
