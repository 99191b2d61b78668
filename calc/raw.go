package calc

import "github.com/perfcounters/perfcounters/countertype"

// Raw is one raw sample of one counter instance: PDH_RAW_COUNTER plus the
// time stamp and frequency the counter's type needs, so that a value can be
// computed from two Raw values alone. It is a plain value (no pointers): a
// consumer decoding two PERF_DATA_BLOCKs fills two Raw values on the stack
// with MakeRaw and passes their addresses to Format, without allocating.
type Raw struct {
	// Status is the collection status (PDH_RAW_COUNTER.CStatus). Anything
	// other than ValidData or NewData is passed through by Compute.
	Status Status
	// FirstValue is the counter's own value N, read with the definition's
	// CounterSize (a DWORD zero-extended). Like PDH's LONGLONG it is taken
	// as a signed 64-bit number where a single value is shown.
	FirstValue uint64
	// SecondValue is the base value B (the PERF_*_BASE definition that
	// follows the counter) or, for PERF_PRECISION_* timers, the provider's
	// timestamp (PERF_PRECISION_TIMESTAMP).
	SecondValue uint64
	// MultiCount is M, the number of items of PERF_*_MULTI_TIMER(_INV)
	// types: the DWORD stored after the value, or the PERF_COUNTER_MULTI_BASE
	// value for the _INV types.
	MultiCount uint64
	// Time is D, the time stamp of the type's time base (see TimeBase).
	Time uint64
	// Freq is F, the frequency of Time in ticks per second.
	Freq uint64
}

// Clocks are the time fields of one sample: PERF_DATA_BLOCK.PerfTime,
// PerfFreq and PerfTime100nSec, and the PERF_OBJECT_TYPE's PerfTime and
// PerfFreq of the object holding the counter.
type Clocks struct {
	PerfTime        int64
	PerfFreq        int64
	PerfTime100nSec int64
	ObjectTime      int64
	ObjectFreq      int64
}

// freq100ns is the frequency of PERF_TIMER_100NS time stamps (FILETIME units).
const freq100ns = 10_000_000

// TimeBase picks D and F for counter type t from a sample's clocks by the
// type's timer bits: PERF_TIMER_TICK -> block PerfTime/PerfFreq,
// PERF_TIMER_100NS -> block PerfTime100nSec and 10^7, PERF_OBJECT_TIMER ->
// object PerfTime/PerfFreq. Negative clocks are carried as their two's
// complement; Compute reads them back as signed and reports a bad time base.
func TimeBase(t countertype.Type, c Clocks) (d, f uint64) {
	switch t.TimeBase() {
	case countertype.PERF_TIMER_100NS:
		return uint64(c.PerfTime100nSec), freq100ns
	case countertype.PERF_OBJECT_TIMER:
		return uint64(c.ObjectTime), uint64(c.ObjectFreq)
	}
	return uint64(c.PerfTime), uint64(c.PerfFreq)
}

// MakeRaw builds a valid sample of type t from the counter value, the
// base (or precision timestamp), the multi count and the sample's clocks.
func MakeRaw(t countertype.Type, c Clocks, first, second, multi uint64) Raw {
	d, f := TimeBase(t, c)
	return Raw{FirstValue: first, SecondValue: second, MultiCount: multi, Time: d, Freq: f}
}
