package prom

import (
	ct "github.com/perfcounters/perfcounters/countertype"
)

// metricKind is the Prometheus type of one exported series family.
type metricKind uint8

const (
	kindCounter metricKind = iota
	kindGauge
)

// source says which raw number of a counter a part exports.
type source uint8

const (
	srcValue      source = iota // N, the counter's own value
	srcBase                     // B, the base definition after the counter (or the precision timestamp)
	srcMultiBlock               // M, the DWORD after a MULTI_TIMER value
	srcDouble                   // N holds the IEEE-754 bits of a float (PERF_DOUBLE_RAW)
	srcStartTime                // ELAPSED_TIME: the start time, from N and the object timer
)

// unit says how a raw number is converted to the exported one.
type unit uint8

const (
	unitNone unit = iota // the raw number as it is
	unitTime             // ticks of the counter's time base -> seconds
)

// part is one exported series family of a counter.
type part struct {
	suffix string // appended to the counter's name (before _total)
	kind   metricKind
	src    source
	unit   unit
	note   string // what the part is, appended to the explain text in HELP
}

// mapping is how one counter type is exported: its parts, and whether a
// formatted gauge can be added (Options.Formatted).
type mapping struct {
	parts     []part
	formatted bool
}

// mappingOf returns the export of counter type t; ok is false for types
// that have no number to export (text, NODATA, histogram, bases on their
// own, undocumented types).
//
// The decision uses the type's fields only: its calculation (the
// composite type), its time-base bits for the conversion to seconds, and
// the display suffix only for the formatted gauge.
func mappingOf(t ct.Type) (m mapping, ok bool) {
	switch t {
	case ct.PERF_COUNTER_RAWCOUNT, ct.PERF_COUNTER_LARGE_RAWCOUNT,
		ct.PERF_COUNTER_RAWCOUNT_HEX, ct.PERF_COUNTER_LARGE_RAWCOUNT_HEX:
		return mapping{parts: []part{{kind: kindGauge, src: srcValue, note: "the raw value"}}}, true
	case ct.PERF_DOUBLE_RAW:
		return mapping{parts: []part{{kind: kindGauge, src: srcDouble, note: "the value"}}}, true

	case ct.PERF_COUNTER_COUNTER, ct.PERF_COUNTER_BULK_COUNT, ct.PERF_SAMPLE_COUNTER,
		ct.PERF_COUNTER_DELTA, ct.PERF_COUNTER_LARGE_DELTA:
		return mapping{parts: []part{{kind: kindCounter, src: srcValue, note: "the running count; rate() gives the per-second value"}}, formatted: true}, true

	case ct.PERF_COUNTER_TIMER, ct.PERF_100NSEC_TIMER, ct.PERF_OBJ_TIME_TIMER:
		return mapping{parts: []part{{suffix: "_seconds", kind: kindCounter, src: srcValue, unit: unitTime,
			note: "the time measured, in seconds; rate() gives the busy fraction (1 = 100 %)"}}, formatted: true}, true
	case ct.PERF_COUNTER_TIMER_INV, ct.PERF_100NSEC_TIMER_INV:
		return mapping{parts: []part{{suffix: "_inverse_seconds", kind: kindCounter, src: srcValue, unit: unitTime,
			note: "inverse timer: the time NOT counted by the displayed value (e.g. idle time), in seconds; 1 - rate() gives the displayed fraction"}}, formatted: true}, true

	case ct.PERF_COUNTER_MULTI_TIMER, ct.PERF_100NSEC_MULTI_TIMER:
		return mapping{parts: []part{
			{suffix: "_seconds", kind: kindCounter, src: srcValue, unit: unitTime, note: "the time measured over all items, in seconds"},
			{suffix: "_items", kind: kindGauge, src: srcMultiBlock, note: "the number of items the time is divided by"},
		}, formatted: true}, true
	case ct.PERF_COUNTER_MULTI_TIMER_INV, ct.PERF_100NSEC_MULTI_TIMER_INV:
		return mapping{parts: []part{
			{suffix: "_inverse_seconds", kind: kindCounter, src: srcValue, unit: unitTime,
				note: "inverse multi timer: the time NOT counted over all items, in seconds; items - rate() gives the displayed fraction"},
			{suffix: "_items", kind: kindGauge, src: srcBase, note: "the number of items (the multi base)"},
		}, formatted: true}, true

	case ct.PERF_COUNTER_QUEUELEN_TYPE, ct.PERF_COUNTER_LARGE_QUEUELEN_TYPE,
		ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, ct.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
		return mapping{parts: []part{{kind: kindCounter, src: srcValue, unit: unitTime,
			note: "the queue length integrated over time (length x seconds); rate() gives the average queue length"}}, formatted: true}, true

	case ct.PERF_RAW_FRACTION, ct.PERF_LARGE_RAW_FRACTION:
		return mapping{parts: []part{
			{kind: kindGauge, src: srcValue, note: "the numerator of the fraction"},
			{suffix: "_base", kind: kindGauge, src: srcBase, note: "the denominator of the fraction"},
		}, formatted: true}, true
	case ct.PERF_SAMPLE_FRACTION:
		return mapping{parts: []part{
			{kind: kindCounter, src: srcValue, note: "the running count of hits; rate() over rate() of the base gives the fraction"},
			{suffix: "_base", kind: kindCounter, src: srcBase, note: "the running count of trials, the base of the fraction"},
		}, formatted: true}, true
	case ct.PERF_AVERAGE_TIMER:
		return mapping{parts: []part{
			{suffix: "_seconds", kind: kindCounter, src: srcValue, unit: unitTime, note: "the total time of the operations, in seconds"},
			{suffix: "_base", kind: kindCounter, src: srcBase, note: "the number of operations; rate() of the time over rate() of this gives the average"},
		}, formatted: true}, true
	case ct.PERF_AVERAGE_BULK:
		return mapping{parts: []part{
			{kind: kindCounter, src: srcValue, note: "the running total of the quantity"},
			{suffix: "_base", kind: kindCounter, src: srcBase, note: "the number of operations; rate() of the total over rate() of this gives the average"},
		}, formatted: true}, true
	case ct.PERF_PRECISION_SYSTEM_TIMER, ct.PERF_PRECISION_100NS_TIMER, ct.PERF_PRECISION_OBJECT_TIMER:
		return mapping{parts: []part{
			{suffix: "_seconds", kind: kindCounter, src: srcValue, unit: unitTime, note: "the time measured, in seconds"},
			{suffix: "_base_seconds", kind: kindCounter, src: srcBase, unit: unitTime,
				note: "the provider's own time stamp, in seconds; rate() of the time over rate() of this gives the busy fraction"},
		}, formatted: true}, true

	case ct.PERF_ELAPSED_TIME:
		return mapping{parts: []part{{suffix: "_start_time_seconds", kind: kindGauge, src: srcStartTime,
			note: "the start time, in seconds since 1970 (time() - this = the elapsed time)"}}}, true
	}
	return mapping{}, false
}
