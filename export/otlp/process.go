package otlp

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// cElapsedTime is the Process and Thread objects' Elapsed Time (a
// PERF_ELAPSED_TIME whose raw value is the start).
const cElapsedTime = 684

// startTable is what one collection learned of when its counts began: the
// host's boot and each process's start. The export that follows the
// collection stamps the start times of cumulative points with it.
type startTable struct {
	boot  time.Time            // zero when the sample gave none
	procs map[string]*procInfo // by the Process instance's perf.instance
	pids  map[int64]*procInfo
}

// procInfo is one process of a sample.
type procInfo struct {
	pid   int64
	exe   string    // the instance name (without #n)
	start time.Time // zero when the sample gave none
}

// elapsedStart is when a PERF_ELAPSED_TIME counter's count began: its raw
// value n against the object's timer d at frequency f. Where the timer
// is a FILETIME (frequency 10^7 and within a day of the sample's time, as
// Windows and package system write Process, Thread and System), n is the
// start itself; otherwise the start is the sample's time less the age.
// The zero time when n is 0 or after d.
func elapsedStart(n, d, f uint64, at time.Time) time.Time {
	if f == 0 || f > math.MaxInt64 || n == 0 || n > d || d > math.MaxInt64 {
		return time.Time{}
	}
	if f == perfdata.FileTimeFreq {
		if dt := perfdata.FileTimeToTime(int64(d)); dt.Sub(at).Abs() < 24*time.Hour {
			return perfdata.FileTimeToTime(int64(n))
		}
	}
	age := float64(d-n) / float64(f)
	if age > float64(math.MaxInt64)/1e9 {
		return time.Time{}
	}
	return at.Add(-time.Duration(age * 1e9))
}

// bootOf is the host's boot time as a sample tells it: System's System Up
// Time where the block holds the System object, else the block's clocks
// (its wall time less its high-resolution counter, which on Linux is
// CLOCK_MONOTONIC and stops while the host is suspended: an estimate that
// can be late by the time suspended). The zero time when neither gives one.
func bootOf(s *pdh.Sample) time.Time {
	if len(s.Blocks) == 0 {
		return time.Time{}
	}
	blk := s.Blocks[0]
	if o, ok := blk.Object(objSystem); ok && o.SingleInstance() {
		for _, d := range o.AppendCounters(nil) {
			if d.NameIndex == cSystemUpTime && d.Type == countertype.PERF_ELAPSED_TIME {
				if t := elapsedStart(o.SingleBlock().Value(d), uint64(o.PerfTime()), uint64(o.PerfFreq()), s.Time); !t.IsZero() {
					return t
				}
				break
			}
		}
	}
	h := blk.Header()
	if h.PerfFreq <= 0 || h.PerfTime <= 0 || h.PerfTime100nSec <= 0 {
		return time.Time{}
	}
	up := float64(h.PerfTime) / float64(h.PerfFreq)
	if up > float64(math.MaxInt64)/1e9 {
		return time.Time{}
	}
	return perfdata.FileTimeToTime(h.PerfTime100nSec).Add(-time.Duration(up * 1e9))
}

// noteProcess records a Process instance of the walk's sample.
func (w *objectWalk) noteProcess(cb interface {
	Value(perfdata.CounterDef) uint64
}, pos int, name, display string) {
	if w.starts == nil {
		return
	}
	p, ok := w.byIndex[cIDProcess]
	if !ok || w.isMissing(pos, cIDProcess) {
		return
	}
	pid := cb.Value(w.defs[p])
	if pid == 0 || pid > math.MaxInt32 {
		return
	}
	info := &procInfo{pid: int64(pid), exe: name}
	if e, ok := w.byIndex[cElapsedTime]; ok && w.defs[e].Type == countertype.PERF_ELAPSED_TIME && !w.isMissing(pos, cElapsedTime) {
		info.start = elapsedStart(cb.Value(w.defs[e]), uint64(w.o.PerfTime()), uint64(w.o.PerfFreq()), w.s.Time)
	}
	w.starts.procs[display] = info
	w.starts.pids[info.pid] = info
}

// maxCommandLine bounds a process.command_line read from /proc.
const maxCommandLine = 4096

// ProcCommandLine reads the command line of a process of this host from
// /proc/PID/cmdline (the arguments joined by spaces, cut at 4096 bytes),
// for Options.CommandLine. ok is false where it cannot be read (the
// process is gone, /proc is mounted with hidepid, the file is empty: a
// kernel thread or a zombie).
func ProcCommandLine(pid int64) (string, bool) {
	if pid <= 0 || pid > math.MaxInt32 {
		return "", false
	}
	f, err := os.Open("/proc/" + strconv.FormatInt(pid, 10) + "/cmdline")
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, maxCommandLine)
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	b := bytes.TrimRight(buf[:n], "\x00")
	if len(b) == 0 {
		return "", false
	}
	b = bytes.ReplaceAll(b, []byte{0}, []byte{' '})
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD"))), true
}

// shapingExporter stands between the SDK's periodic reader and the OTLP
// exporter: it stamps the start times of cumulative points from the
// collection's startTable and, with Options.ProcessResources, moves each
// process's points under a resource of its own.
type shapingExporter struct {
	sdkmetric.Exporter
	e *Exporter

	mu   sync.Mutex
	cmds map[procKey]cmdLine // command lines read, by process
}

// procKey identifies a process across samples.
type procKey struct {
	pid   int64
	start time.Time
}

// cmdLine is a process's command line, read once.
type cmdLine struct {
	s  string
	ok bool
}

// maxParallelExports bounds the requests in flight of one export with
// per-process resources.
const maxParallelExports = 8

// Export stamps, splits and sends rm.
func (x *shapingExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	x.e.mu.Lock()
	tab := x.e.starts
	procMetrics := x.e.processMetricsLocked()
	x.e.mu.Unlock()
	out := x.shape(rm, tab, procMetrics)
	if len(out) == 1 {
		return x.Exporter.Export(ctx, out[0])
	}
	errs := make([]error, len(out))
	sem := make(chan struct{}, maxParallelExports)
	var wg sync.WaitGroup
	for i, r := range out {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = x.Exporter.Export(ctx, r)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// processMetricsLocked is the set of metric names whose points belong to
// Process instances (the semantic-convention process.* metrics and the
// generic metrics of the Process object). e.mu is held.
func (e *Exporter) processMetricsLocked() map[string]bool {
	m := map[string]bool{}
	for _, r := range e.rules[objProcess] {
		m[r.metric.name] = true
	}
	for k, g := range e.generic {
		if k.object == objProcess {
			m[g.value.name] = true
			if g.second.name != "" {
				m[g.second.name] = true
			}
		}
	}
	return m
}

// resourceGroup is the metrics of one resource being built.
type resourceGroup struct {
	rm     metricdata.ResourceMetrics
	byName map[string]int // metric name -> position in rm.ScopeMetrics[0].Metrics
}

// shape returns the ResourceMetrics to send for rm: one, or with
// Options.ProcessResources the host's and one per process. rm is the
// SDK's and is not changed.
func (x *shapingExporter) shape(rm *metricdata.ResourceMetrics, tab *startTable, procMetrics map[string]bool) []*metricdata.ResourceMetrics {
	split := x.e.opts.ProcessResources && tab != nil
	host := &metricdata.ResourceMetrics{Resource: rm.Resource}
	groups := map[int64]*resourceGroup{}
	var order []int64
	for _, sm := range rm.ScopeMetrics {
		hs := metricdata.ScopeMetrics{Scope: sm.Scope}
		for _, m := range sm.Metrics {
			byProc := map[int64]metricdata.Aggregation{}
			var procOrder []int64
			seen := map[int64]bool{}
			find := func(attrs attribute.Set) *procInfo {
				if tab == nil {
					return nil
				}
				if v, ok := attrs.Value("process.pid"); ok {
					return tab.pids[v.AsInt64()]
				}
				if procMetrics[m.Name] {
					if v, ok := attrs.Value("perf.instance"); ok {
						return tab.procs[v.AsString()]
					}
				}
				return nil
			}
			route := func(p *procInfo) bool {
				if !split || p == nil {
					return false
				}
				if !seen[p.pid] {
					seen[p.pid] = true
					procOrder = append(procOrder, p.pid)
				}
				return true
			}
			var hostData metricdata.Aggregation
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				h, per := splitSum(d, tab, find, route, split)
				hostData = h
				for pid, a := range per {
					byProc[pid] = a
				}
			case metricdata.Sum[float64]:
				h, per := splitSum(d, tab, find, route, split)
				hostData = h
				for pid, a := range per {
					byProc[pid] = a
				}
			case metricdata.Gauge[int64]:
				h, per := splitGauge(d, find, route, split)
				hostData = h
				for pid, a := range per {
					byProc[pid] = a
				}
			case metricdata.Gauge[float64]:
				h, per := splitGauge(d, find, route, split)
				hostData = h
				for pid, a := range per {
					byProc[pid] = a
				}
			default:
				hostData = m.Data
			}
			if hostData != nil {
				hs.Metrics = append(hs.Metrics, metricdata.Metrics{Name: m.Name, Description: m.Description, Unit: m.Unit, Data: hostData})
			}
			for _, pid := range procOrder {
				a, ok := byProc[pid]
				if !ok {
					continue
				}
				g := groups[pid]
				if g == nil {
					g = &resourceGroup{byName: map[string]int{}}
					g.rm.Resource = x.processResource(rm.Resource, tab.pids[pid])
					g.rm.ScopeMetrics = []metricdata.ScopeMetrics{{Scope: sm.Scope}}
					groups[pid] = g
					order = append(order, pid)
				}
				g.rm.ScopeMetrics[0].Metrics = append(g.rm.ScopeMetrics[0].Metrics, metricdata.Metrics{Name: m.Name, Description: m.Description, Unit: m.Unit, Data: a})
			}
		}
		if len(hs.Metrics) > 0 {
			host.ScopeMetrics = append(host.ScopeMetrics, hs)
		}
	}
	out := []*metricdata.ResourceMetrics{host}
	for _, pid := range order {
		out = append(out, &groups[pid].rm)
	}
	x.forget(groups)
	return out
}

// number is the value type of a data point.
type number interface{ int64 | float64 }

// splitSum stamps the start times of a sum's points and, when split,
// moves the points of processes into per-process sums (their
// process.pid and process.executable.name become the resource's). host
// is nil when no point is left to the host.
func splitSum[N number](d metricdata.Sum[N], tab *startTable, find func(attribute.Set) *procInfo, route func(*procInfo) bool, split bool) (host metricdata.Aggregation, per map[int64]metricdata.Aggregation) {
	hs := metricdata.Sum[N]{Temporality: d.Temporality, IsMonotonic: d.IsMonotonic}
	ps := map[int64]*metricdata.Sum[N]{}
	for _, dp := range d.DataPoints {
		p := find(dp.Attributes)
		dp.StartTime = startFor(dp.StartTime, dp.Time, tab, p)
		if route(p) {
			s := ps[p.pid]
			if s == nil {
				s = &metricdata.Sum[N]{Temporality: d.Temporality, IsMonotonic: d.IsMonotonic}
				ps[p.pid] = s
			}
			dp.Attributes = withoutProcess(dp.Attributes)
			s.DataPoints = append(s.DataPoints, dp)
			continue
		}
		hs.DataPoints = append(hs.DataPoints, dp)
	}
	if len(hs.DataPoints) > 0 || !split {
		host = hs
	}
	per = make(map[int64]metricdata.Aggregation, len(ps))
	for pid, s := range ps {
		per[pid] = *s
	}
	return host, per
}

// splitGauge moves the points of processes into per-process gauges.
func splitGauge[N number](d metricdata.Gauge[N], find func(attribute.Set) *procInfo, route func(*procInfo) bool, split bool) (host metricdata.Aggregation, per map[int64]metricdata.Aggregation) {
	if !split {
		return d, nil
	}
	var hg metricdata.Gauge[N]
	ps := map[int64]*metricdata.Gauge[N]{}
	for _, dp := range d.DataPoints {
		if p := find(dp.Attributes); route(p) {
			g := ps[p.pid]
			if g == nil {
				g = &metricdata.Gauge[N]{}
				ps[p.pid] = g
			}
			dp.Attributes = withoutProcess(dp.Attributes)
			g.DataPoints = append(g.DataPoints, dp)
			continue
		}
		hg.DataPoints = append(hg.DataPoints, dp)
	}
	if len(hg.DataPoints) > 0 {
		host = hg
	}
	per = make(map[int64]metricdata.Aggregation, len(ps))
	for pid, g := range ps {
		per[pid] = *g
	}
	return host, per
}

// startFor is the start time of a cumulative point: the process's start
// for a point of a process, the boot time for any other, the SDK's (the
// instrument's creation) when the sample gave neither; never after the
// point's time.
func startFor(sdk, at time.Time, tab *startTable, p *procInfo) time.Time {
	var st time.Time
	switch {
	case p != nil && !p.start.IsZero():
		st = p.start
	case tab != nil && !tab.boot.IsZero():
		st = tab.boot
	default:
		return sdk
	}
	if st.After(at) {
		return sdk
	}
	return st
}

// withoutProcess removes the attributes that move to a process's resource.
func withoutProcess(s attribute.Set) attribute.Set {
	if _, ok := s.Value("process.pid"); !ok {
		return s
	}
	kept, _ := s.Filter(func(kv attribute.KeyValue) bool {
		return kv.Key != "process.pid" && kv.Key != "process.executable.name"
	})
	return kept
}

// processResource is the host's resource with a process's attributes:
// process.pid, process.executable.name and, where Options.CommandLine
// reads it, process.command_line.
func (x *shapingExporter) processResource(base *resource.Resource, p *procInfo) *resource.Resource {
	attrs := []attribute.KeyValue{semconv.ProcessPID(int(p.pid)), semconv.ProcessExecutableName(p.exe)}
	if x.e.opts.CommandLine != nil {
		key := procKey{p.pid, p.start}
		x.mu.Lock()
		c, ok := x.cmds[key]
		x.mu.Unlock()
		if !ok {
			c.s, c.ok = x.e.opts.CommandLine(p.pid)
			x.mu.Lock()
			if x.cmds == nil {
				x.cmds = map[procKey]cmdLine{}
			}
			x.cmds[key] = c
			x.mu.Unlock()
		}
		if c.ok {
			attrs = append(attrs, semconv.ProcessCommandLine(c.s))
		}
	}
	// The process's attributes win over the host's of the same key.
	return resource.NewWithAttributes(base.SchemaURL(), append(base.Attributes(), attrs...)...)
}

// forget drops the command lines of processes not in this export.
func (x *shapingExporter) forget(groups map[int64]*resourceGroup) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for k := range x.cmds {
		if _, ok := groups[k.pid]; !ok {
			delete(x.cmds, k)
		}
	}
}
