package system

import (
	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
)

// Counter types used by the built-in objects, as Windows declares them
// (checked against real blocks in shared/conformance/perfdata).
const (
	tRaw        = countertype.PERF_COUNTER_RAWCOUNT
	tLargeRaw   = countertype.PERF_COUNTER_LARGE_RAWCOUNT
	tCounter    = countertype.PERF_COUNTER_COUNTER
	tBulk       = countertype.PERF_COUNTER_BULK_COUNT
	tTimer      = countertype.PERF_100NSEC_TIMER
	tTimerInv   = countertype.PERF_100NSEC_TIMER_INV
	tFraction   = countertype.PERF_RAW_FRACTION
	tRawBase    = countertype.PERF_RAW_BASE
	tPrecision  = countertype.PERF_PRECISION_100NS_TIMER
	tLargeBase  = countertype.PERF_LARGE_RAW_BASE
	tQueueLen   = countertype.PERF_COUNTER_100NS_QUEUELEN_TYPE
	tAvgTimer   = countertype.PERF_AVERAGE_TIMER
	tAvgBulk    = countertype.PERF_AVERAGE_BULK
	tAvgBase    = countertype.PERF_AVERAGE_BASE
	tElapsed    = countertype.PERF_ELAPSED_TIME
	detNovice   = counterset.DetailNovice
	detAdvanced = counterset.DetailAdvanced
	detExpert   = counterset.DetailExpert
	detWizard   = counterset.DetailWizard
)

// ctr declares one counter.
func ctr(name string, t countertype.Type, scale int32, detail uint32, help string) counterset.Counter {
	return counterset.Counter{
		Name: name, Help: help, Type: t, DefaultScale: scale, DetailLevel: detail,
	}
}

// grows marks a raw count that only grows (counterset.Counter.Cumulative).
func grows(c counterset.Counter) counterset.Counter {
	c.Cumulative = true
	return c
}

// newSet finishes a declaration: IDs are definition positions and each
// counter that needs a base names the counter after it.
func newSet(name string, index uint32, inst counterset.Instancing, detail uint32, def int, help string, cs []counterset.Counter) *counterset.Set {
	for i := range cs {
		cs[i].ID = uint32(i)
		if cs[i].Type.NeedsBase() && i+1 < len(cs) {
			cs[i].BaseID = uint32(i + 1)
		}
	}
	return &counterset.Set{
		Name: name, Help: help, NameIndex: index, Instancing: inst,
		DetailLevel: detail, DefaultCounter: def, Counters: cs,
	}
}
