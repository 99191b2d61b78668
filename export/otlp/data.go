package otlp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// collection is the metric data of one sample as a walk builds it: the
// metrics in the order first seen.
type collection struct {
	limit   int // Options.CardinalityLimit
	metrics []*series
	byName  map[string]*series
	boot    time.Time // the host's boot as the sample tells it (bootOf), zero when it does not
}

// series is one metric's points in a collection.
type series struct {
	spec
	points []point
	index  map[attribute.Distinct]int // position in points by attributes
}

// point is one data point: its attributes, its value (i for the Int64
// kinds, f for the Float64 ones) and the process it belongs to (nil: the
// host's).
type point struct {
	attrs attribute.Set
	i     int64
	f     float64
	proc  *procInfo
}

// overflowSet is the attributes of the point that takes the values beyond
// the cardinality limit (the OpenTelemetry SDK's).
var overflowSet = attribute.NewSet(attribute.Bool("otel.metric.overflow", true))

func newCollection(limit int) *collection {
	return &collection{limit: max(limit, 0), byName: map[string]*series{}}
}

// add records a value of metric sp. As the OpenTelemetry SDK aggregates
// observations, a second value of the same attributes adds to a sum's and
// replaces a gauge's, and beyond the cardinality limit (Options) values go
// to one overflow point.
func (c *collection) add(sp spec, attrs attribute.Set, i int64, f float64, proc *procInfo) {
	s := c.byName[sp.name]
	if s == nil {
		s = &series{spec: sp, index: map[attribute.Distinct]int{}}
		c.byName[sp.name] = s
		c.metrics = append(c.metrics, s)
	}
	k, ok := s.index[attrs.Equivalent()]
	if !ok && c.limit > 0 && len(s.points) >= c.limit-1 {
		attrs, proc = overflowSet, nil
		k, ok = s.index[attrs.Equivalent()]
	}
	switch {
	case !ok:
		s.index[attrs.Equivalent()] = len(s.points)
		s.points = append(s.points, point{attrs: attrs, i: i, f: f, proc: proc})
	case s.kind == kindIntGauge || s.kind == kindFloatGauge:
		s.points[k].i, s.points[k].f = i, f
	default:
		s.points[k].i += i
		s.points[k].f += f
	}
}

// collectAndExport takes one sample, builds its metric data and exports
// it, within Options.Timeout. e.mu is held.
func (e *Exporter) collectAndExport(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	c, err := e.collect(ctx)
	if err != nil {
		return err
	}
	return e.send(ctx, e.resourceMetrics(c, time.Now()))
}

// collect takes one sample of the source and walks it. A recording that
// has ended gives an empty collection. e.mu is held.
func (e *Exporter) collect(ctx context.Context) (c *collection, err error) {
	// A panic (of the source, or in mapping its sample) is this
	// collection's error; the next export collects again.
	defer func() {
		if v := recover(); v != nil {
			c, err = nil, fmt.Errorf("OTLP export: collection panicked: %v\n%s", v, debug.Stack())
			e.log.Warn("OTLP export: collection panicked", "panic", fmt.Sprint(v))
		}
	}()
	c = newCollection(e.opts.CardinalityLimit)
	s, err := e.src.Sample(ctx, e.objects)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil // a recording that has ended: nothing new
		}
		e.log.Warn("OTLP export: sample failed", "err", err)
		return nil, fmt.Errorf("OTLP export: sample: %w", err)
	}
	for _, p := range s.Problems {
		e.log.Debug("OTLP export: sample problem", "problem", p.String())
	}
	e.walk(s, c)
	return c, nil
}

// maxParallelExports bounds the requests in flight of one export with
// per-process resources.
const maxParallelExports = 8

// send exports the resources, each in a request of its own (the OTLP
// exporters send one resource a request), at most maxParallelExports at
// once.
func (e *Exporter) send(ctx context.Context, rms []*metricdata.ResourceMetrics) error {
	if len(rms) == 1 {
		return e.exp.Export(ctx, rms[0])
	}
	errs := make([]error, len(rms))
	sem := make(chan struct{}, maxParallelExports)
	var wg sync.WaitGroup
	for i, rm := range rms {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = e.exp.Export(ctx, rm)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// resourceMetrics is a collection's data at time at: one ResourceMetrics,
// or with Options.ProcessResources the host's and, after it, one per
// process (whose points lose process.pid and process.executable.name to
// the resource). Every slice is new.
func (e *Exporter) resourceMetrics(c *collection, at time.Time) []*metricdata.ResourceMetrics {
	host := &metricdata.ResourceMetrics{Resource: e.res}
	out := []*metricdata.ResourceMetrics{host}
	procs := map[int64]*metricdata.ResourceMetrics{}
	sc := instrumentation.Scope{Name: scope}
	add := func(rm *metricdata.ResourceMetrics, m metricdata.Metrics) {
		if len(rm.ScopeMetrics) == 0 {
			rm.ScopeMetrics = []metricdata.ScopeMetrics{{Scope: sc}}
		}
		rm.ScopeMetrics[0].Metrics = append(rm.ScopeMetrics[0].Metrics, m)
	}
	for _, s := range c.metrics {
		var hostPts []point
		var order []int64
		perProc := map[int64][]point{}
		for _, p := range s.points {
			if !e.opts.ProcessResources || p.proc == nil {
				hostPts = append(hostPts, p)
				continue
			}
			pid := p.proc.pid
			if procs[pid] == nil {
				procs[pid] = &metricdata.ResourceMetrics{Resource: e.processResource(p.proc, at)}
				out = append(out, procs[pid])
			}
			if perProc[pid] == nil {
				order = append(order, pid)
			}
			p.attrs = withoutProcess(p.attrs)
			perProc[pid] = append(perProc[pid], p)
		}
		if len(hostPts) > 0 {
			add(host, e.metric(s, hostPts, c.boot, at))
		}
		for _, pid := range order {
			add(procs[pid], e.metric(s, perProc[pid], c.boot, at))
		}
	}
	e.forget(procs)
	return out
}

// metric is the data of a series' points: a cumulative sum, its points'
// start the process's start or the boot (startFor), or a gauge.
func (e *Exporter) metric(s *series, pts []point, boot, at time.Time) metricdata.Metrics {
	sumStart := func(p *procInfo) time.Time { return startFor(e.created, at, boot, p) }
	gaugeStart := func(*procInfo) time.Time { return e.created }
	iv := func(p point) int64 { return p.i }
	fv := func(p point) float64 { return p.f }
	m := metricdata.Metrics{Name: s.name, Description: s.desc, Unit: s.unit}
	cumulative := metricdata.CumulativeTemporality
	switch s.kind {
	case kindIntCounter, kindIntUpDown:
		m.Data = metricdata.Sum[int64]{Temporality: cumulative, IsMonotonic: s.kind == kindIntCounter, DataPoints: dataPoints(pts, at, sumStart, iv)}
	case kindFloatCounter:
		m.Data = metricdata.Sum[float64]{Temporality: cumulative, IsMonotonic: true, DataPoints: dataPoints(pts, at, sumStart, fv)}
	case kindIntGauge:
		m.Data = metricdata.Gauge[int64]{DataPoints: dataPoints(pts, at, gaugeStart, iv)}
	default:
		m.Data = metricdata.Gauge[float64]{DataPoints: dataPoints(pts, at, gaugeStart, fv)}
	}
	return m
}

// dataPoints is pts as data points of time at, each a new value.
func dataPoints[N int64 | float64](pts []point, at time.Time, start func(*procInfo) time.Time, value func(point) N) []metricdata.DataPoint[N] {
	out := make([]metricdata.DataPoint[N], len(pts))
	for i, p := range pts {
		out[i] = metricdata.DataPoint[N]{Attributes: p.attrs, StartTime: start(p.proc), Time: at, Value: value(p)}
	}
	return out
}

// startFor is the start time of a cumulative point: the process's start
// for a point of a process, the boot time for any other, fallback when
// the sample gave neither; never after the point's time.
func startFor(fallback, at, boot time.Time, p *procInfo) time.Time {
	var st time.Time
	switch {
	case p != nil && !p.start.IsZero():
		st = p.start
	case !boot.IsZero():
		st = boot
	default:
		return fallback
	}
	if st.After(at) {
		return fallback
	}
	return st
}
