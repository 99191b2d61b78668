package sysperf

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/pdh"
)

// DefaultDuration is how long the report collects, as Windows' System
// Performance set does.
const DefaultDuration = 60 * time.Second

// Options says how a report is made. Zero values take the defaults.
type Options struct {
	Duration time.Duration // how long to collect (DefaultDuration); a recorded source is read to its end
	Interval time.Duration // between samples (1 s)
	Top      int           // processes per top list (10)
	Rules    []Rule        // DefaultRules()
	Computer string        // the computer's name, for the title
}

// Counters are the counter paths the report reads: every rule's counter
// and those of the resource sections. A path the source does not have (no
// Pressure before Linux 4.20, no control groups in a log) is left out and
// named in Report.Missing.
var Counters = []string{
	`\Processor(*)\% Processor Time`,
	`\System\Processor Queue Length`,
	`\System\Load Average (1 minute)`,
	`\Memory\Available MBytes`,
	`\Memory\% Committed Bytes In Use`,
	`\Memory\Pages/sec`,
	`\Memory\Page Faults/sec`,
	`\PhysicalDisk(*)\% Idle Time`,
	`\PhysicalDisk(*)\Avg. Disk Queue Length`,
	`\PhysicalDisk(*)\Avg. Disk sec/Transfer`,
	`\PhysicalDisk(*)\Disk Bytes/sec`,
	`\Network Interface(*)\Bytes Total/sec`,
	`\Network Interface(*)\Current Bandwidth`,
	`\Network Interface(*)\Packets Received Errors`,
	`\Network Interface(*)\Packets Outbound Errors`,
	`\Process(*)\% Processor Time`,
	`\Process(*)\Working Set - Private`,
	`\Process(*)\IO Data Bytes/sec`,
	`\Process(*)\ID Process`,
	`\Control Group(*)\% Throttled Periods`,
	`\Pressure(*)\% Some Stall Time`,
}

// Series is one counter of one instance over the run: the statistics of
// its formatted values (PDH's, uncapped), one per sample that had one.
type Series struct {
	Path     string // the concrete path, \Object(instance)\Counter
	Object   string
	Counter  string
	Instance string // PDH's array name ("parent/name#n"); "" for a single instance
	N        int    // samples with a value
	Sum      float64
	Min, Max float64
	First    float64
	Last     float64
}

// Avg is the mean of the samples' values.
func (s *Series) Avg() float64 {
	if s.N == 0 {
		return 0
	}
	return s.Sum / float64(s.N)
}

// Stat returns the statistic a rule names: avg, max or delta.
func (s *Series) Stat(name string) float64 {
	switch name {
	case "max":
		return s.Max
	case "delta":
		return s.Last - s.First
	}
	return s.Avg()
}

func (s *Series) add(v float64) {
	if s.N == 0 {
		s.Min, s.Max, s.First = v, v, v
	}
	s.N++
	s.Sum += v
	s.Min, s.Max, s.Last = min(s.Min, v), max(s.Max, v), v
}

// Collect samples src for opts.Duration (a recorded source to its end)
// and returns the report of what it saw; when ctx ends first, the report
// of what it saw until then (Report.Stopped). The first sample only starts
// the rates; every later one adds a value to each series.
func Collect(ctx context.Context, src pdh.Source, opts Options) (*Report, error) {
	if opts.Duration <= 0 {
		opts.Duration = DefaultDuration
	}
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.Top <= 0 {
		opts.Top = 10
	}
	if opts.Rules == nil {
		opts.Rules = DefaultRules()
	}
	q := pdh.OpenQuery(src)
	defer q.Close()
	r := &Report{Computer: opts.Computer, Interval: opts.Interval, top: opts.Top, rules: opts.Rules, series: map[string]*Series{}}
	var counters []*pdh.Counter
	for _, p := range Counters {
		c, err := q.AddCounterContext(ctx, p)
		if err != nil {
			r.Missing = append(r.Missing, p)
			continue
		}
		counters = append(counters, c)
	}
	if len(counters) == 0 {
		return nil, errors.New("system performance report: the source has none of the report's counters")
	}
	live := src.Recorded() == nil
	var ctxRun context.Context = ctx
	if live {
		var cancel context.CancelFunc
		ctxRun, cancel = context.WithTimeout(ctx, opts.Duration+opts.Interval/2)
		defer cancel()
	}
	var items []pdh.Item
	first := true
	for err := range q.Every(ctxRun, opts.Interval) {
		if err != nil {
			continue // a failed sample (counted by its absence)
		}
		t := q.Time()
		if r.Start.IsZero() {
			r.Start = t
		}
		r.End = t
		if first {
			first = false
			continue
		}
		r.Samples++
		for _, c := range counters {
			items = c.AppendFormattedArray(items[:0], calc.FmtDouble|calc.FmtNoCap100)
			for _, it := range items {
				if !it.Value.HasValue() {
					continue
				}
				key := it.Path.String()
				s := r.series[key]
				if s == nil {
					s = &Series{Path: key, Object: it.Path.Object, Counter: it.Path.Counter, Instance: it.Instance}
					r.series[key] = s
				}
				s.add(it.Value.Double)
			}
		}
	}
	// A caller that stops the collection early (CTRL+C) gets the report
	// of what was collected until then, as long as it holds an interval.
	if r.Samples == 0 {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("system performance report: stopped before a second sample: %w", err)
		}
		return nil, errors.New("system performance report: fewer than two samples were taken")
	}
	r.Stopped = ctx.Err() != nil
	r.analyze()
	return r, nil
}

// sorted returns the series of counter (object and counter name, any
// instance), in instance order.
func (r *Report) sorted(object, counter string) []*Series {
	var out []*Series
	for _, s := range r.series {
		if strings.EqualFold(s.Object, object) && strings.EqualFold(s.Counter, counter) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *Series) int { return strings.Compare(a.Instance, b.Instance) })
	return out
}

// one returns the series of counter of instance inst ("" for a single
// instance), or nil.
func (r *Report) one(object, inst, counter string) *Series {
	for _, s := range r.sorted(object, counter) {
		if strings.EqualFold(s.Instance, inst) {
			return s
		}
	}
	return nil
}
