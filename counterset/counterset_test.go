package counterset

import (
	"strings"
	"testing"

	ct "github.com/perfcounters/perfcounters/countertype"
)

func TestValidate(t *testing.T) {
	c := func(name string, ty ct.Type) Counter { return Counter{Name: name, Type: ty} }
	tests := []struct {
		name string
		set  Set
		want string // error substring, "" = valid
	}{
		{"fraction with base", Set{Name: "Disk", Counters: []Counter{c("% Free Space", ct.PERF_RAW_FRACTION), c("% Free Space", ct.PERF_RAW_BASE)}}, ""},
		{"large base accepted for a DWORD fraction", Set{Name: "D", Counters: []Counter{c("f", ct.PERF_RAW_FRACTION), c("f", ct.PERF_LARGE_RAW_BASE)}}, ""},
		{"precision timer with timestamp", Set{Name: "D", Counters: []Counter{c("% Disk Time", ct.PERF_PRECISION_100NS_TIMER), c("ts", ct.PERF_PRECISION_TIMESTAMP)}}, ""},
		{"no name", Set{Counters: []Counter{c("x", ct.PERF_COUNTER_RAWCOUNT)}}, "no name"},
		{"fraction without base", Set{Name: "D", Counters: []Counter{c("f", ct.PERF_RAW_FRACTION)}}, "must be followed by a PERF_RAW_BASE"},
		{"average with wrong base", Set{Name: "D", Counters: []Counter{c("avg", ct.PERF_AVERAGE_TIMER), c("b", ct.PERF_RAW_BASE)}}, "must be followed by a PERF_AVERAGE_BASE"},
		{"lonely base", Set{Name: "D", Counters: []Counter{c("n", ct.PERF_COUNTER_RAWCOUNT), c("b", ct.PERF_AVERAGE_BASE)}}, "does not follow a counter that uses it"},
		{"unknown type", Set{Name: "D", Counters: []Counter{c("x", ct.Type(0x40030503))}}, "undocumented counter type"},
		{"bad size", Set{Name: "D", Counters: []Counter{{Name: "x", Type: ct.PERF_COUNTER_RAWCOUNT, Size: 2}}}, "value size 2"},
		{"default counter out of range", Set{Name: "D", DefaultCounter: 3, Counters: []Counter{c("x", ct.PERF_COUNTER_RAWCOUNT)}}, "default counter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.set.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestCounterByNameSkipsBases(t *testing.T) {
	s := Set{Name: "LogicalDisk", Counters: []Counter{
		{Name: "% Free Space", Type: ct.PERF_RAW_FRACTION},
		{Name: "% Free Space", Type: ct.PERF_RAW_BASE},
		{Name: "Free Megabytes", Type: ct.PERF_COUNTER_RAWCOUNT},
	}}
	if i := s.CounterByName("% free space"); i != 0 {
		t.Errorf("CounterByName = %d, want 0 (the fraction, not its base)", i)
	}
	if i := s.CounterByName("nope"); i != -1 {
		t.Errorf("CounterByName(nope) = %d", i)
	}
}

func TestInstancing(t *testing.T) {
	for _, tt := range []struct {
		i     Instancing
		multi bool
		s     string
	}{{Single, false, "single"}, {Multiple, true, "multiple"}, {GlobalAggregate, false, "globalAggregate"}, {MultipleAggregate, true, "multipleAggregate"}, {GlobalAggregateHistory, false, "globalAggregateHistory"}, {InstanceAggregate, true, "instanceAggregate"}} {
		if tt.i.Multi() != tt.multi || tt.i.String() != tt.s {
			t.Errorf("%d: Multi %v String %q", tt.i, tt.i.Multi(), tt.i.String())
		}
	}
}

// TestReferencesCountOnlyWhereTheTypeUsesThem: a zero BaseID (or any
// other reference) on a type that does not use it means nothing, so a
// Counter's zero value needs no "no id" marker; where the type uses the
// reference, 0 names counter 0.
func TestReferencesCountOnlyWhereTheTypeUsesThem(t *testing.T) {
	raw := ct.PERF_COUNTER_RAWCOUNT
	frac := ct.PERF_RAW_FRACTION
	multi := ct.PERF_COUNTER_MULTI_TIMER
	obj := ct.PERF_ELAPSED_TIME
	const none = NoID
	for _, tc := range []struct {
		name               string
		c                  Counter
		base, mult, pt, pf uint32 // as WireRefs gives them
	}{
		{"rawcount, zero value", Counter{Type: raw}, none, none, none, none},
		{"rawcount, stray ids", Counter{Type: raw, BaseID: 4, MultiID: 5, PerfTimeID: 6, PerfFreqID: 7}, none, none, none, none},
		{"fraction, base 0", Counter{Type: frac, BaseID: 0}, 0, none, none, none},
		{"fraction, base 3", Counter{Type: frac, BaseID: 3}, 3, none, none, none},
		{"fraction, no base named", Counter{Type: frac, BaseID: NoID}, none, none, none, none},
		{"multi timer", Counter{Type: multi, MultiID: 2}, none, 2, none, none},
		{"elapsed time, object timer", Counter{Type: obj, PerfTimeID: 8, PerfFreqID: 9}, none, none, 8, 9},
		{"elapsed time, frequency missing", Counter{Type: obj, PerfTimeID: 8, PerfFreqID: NoID}, none, none, none, none},
	} {
		b, m, pt, pf := tc.c.WireRefs()
		if b != tc.base || m != tc.mult || pt != tc.pt || pf != tc.pf {
			t.Errorf("%s: WireRefs = %d %d %d %d, want %d %d %d %d", tc.name, b, m, pt, pf, tc.base, tc.mult, tc.pt, tc.pf)
		}
	}
}
