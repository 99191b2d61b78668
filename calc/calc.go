package calc

import (
	"math"

	ct "github.com/perfcounters/perfcounters/countertype"
)

// Options is a set of PDH_FMT_* flags with PDH's values, so that a flag
// word read from a log or an API call converts directly.
type Options uint32

// PDH_FMT_* flags (pdh.h). FmtRaw, FmtANSI, FmtUnicode and FmtNoData are
// listed for completeness; Format ignores them.
const (
	FmtRaw      Options = 0x0010 // PDH_FMT_RAW
	FmtANSI     Options = 0x0020 // PDH_FMT_ANSI
	FmtUnicode  Options = 0x0040 // PDH_FMT_UNICODE
	FmtLong     Options = 0x0100 // PDH_FMT_LONG: fill Value.Long
	FmtDouble   Options = 0x0200 // PDH_FMT_DOUBLE: fill Value.Double
	FmtLarge    Options = 0x0400 // PDH_FMT_LARGE: fill Value.Large
	FmtNoScale  Options = 0x1000 // PDH_FMT_NOSCALE: do not multiply by 10^scale
	Fmt1000     Options = 0x2000 // PDH_FMT_1000: multiply the result by 1000
	FmtNoData   Options = 0x4000 // PDH_FMT_NODATA
	FmtNoCap100 Options = 0x8000 // PDH_FMT_NOCAP100: do not clamp percentages
)

// MinScale and MaxScale bound the scale Format accepts: the union of PDH's
// −7..+7 (PDH_MIN_SCALE/PDH_MAX_SCALE) and the V2 manifest schema's −10..+10,
// because manifests are a legitimate source of DefaultScale.
const (
	MinScale = -10
	MaxScale = 10
)

// Value is a formatted counter value (PDH_FMT_COUNTERVALUE). Unlike PDH's
// union, every field asked for by the options is filled.
type Value struct {
	Status Status
	Double float64 // FmtDouble, or when no type flag is given
	Large  int64   // FmtLarge: Double truncated toward zero, saturated
	Long   int32   // FmtLong: Double truncated toward zero, saturated
}

// HasValue reports whether v carries a number: only ValidData does.
// NewData (first sample of a two-sample type) is OK but carries none.
func (v Value) HasValue() bool { return v.Status == ValidData }

// Format computes the displayable value of a counter of type t from its
// newest sample cur and the previous sample prev (nil when there is only
// one), then applies the options as PDH does: percentages (PERF_DISPLAY_PERCENT
// types) are clamped to [0, 100] unless FmtNoCap100; the result is
// multiplied by 10^scale unless FmtNoScale (scale outside MinScale..MaxScale
// gives InvalidArgument), then by 1000 with Fmt1000. Any status other than
// ValidData comes with zero numbers. It never returns Inf or NaN.
func Format(t ct.Type, scale int32, cur, prev *Raw, opts Options) Value {
	x, st := Compute(t, cur, prev)
	if st != ValidData {
		return Value{Status: st}
	}
	x, st = apply(t, scale, x, opts)
	if st != ValidData {
		return Value{Status: st}
	}
	return project(x, opts)
}

// apply performs the cap, scale and ×1000 steps. The cap acts on the
// computed percentage before scaling, because the cap is a statement about
// the quantity (a fraction of time) and not about its display unit.
func apply(t ct.Type, scale int32, x float64, opts Options) (float64, Status) {
	if opts&FmtNoCap100 == 0 && t.Display() == ct.PERF_DISPLAY_PERCENT {
		x = min(x, 100)
	}
	if opts&FmtNoScale == 0 && scale != 0 {
		if scale < MinScale || scale > MaxScale {
			return 0, InvalidArgument
		}
		x *= math.Pow10(int(scale)) // correctly rounded for |scale| ≤ 10
	}
	if opts&Fmt1000 != 0 {
		x *= 1000
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, InvalidData
	}
	return x, ValidData
}

// project fills the fields the options ask for.
func project(x float64, opts Options) Value {
	v := Value{Status: ValidData}
	if opts&(FmtDouble|FmtLong|FmtLarge) == 0 || opts&FmtDouble != 0 {
		v.Double = x
	}
	if opts&FmtLarge != 0 {
		v.Large = toLarge(x)
	}
	if opts&FmtLong != 0 {
		v.Long = toLong(x)
	}
	return v
}

// toLarge truncates toward zero like C's (LONGLONG) conversion, which PDH
// uses; out-of-range values saturate instead of being undefined.
func toLarge(x float64) int64 {
	switch {
	case x >= 1<<63:
		return math.MaxInt64
	case x <= -(1 << 63):
		return math.MinInt64
	}
	return int64(x)
}

// toLong truncates toward zero like C's (LONG) conversion, saturating.
func toLong(x float64) int32 {
	switch {
	case x >= 1<<31:
		return math.MaxInt32
	case x <= -(1 << 31):
		return math.MinInt32
	}
	return int32(x)
}

// Compute returns the counter's value by the formula of its type,
// unscaled and uncapped (what relog and text logs store), with its status.
// prev is ignored by single-sample types. The number is 0 whenever the
// status is not ValidData. The checks run in this order: cur status, type,
// first sample, time base, denominator, value sign.
func Compute(t ct.Type, cur, prev *Raw) (float64, Status) {
	if cur == nil {
		return 0, NoData
	}
	if !cur.Status.OK() {
		return 0, cur.Status
	}
	switch t {
	case ct.PERF_COUNTER_RAWCOUNT, ct.PERF_COUNTER_LARGE_RAWCOUNT,
		ct.PERF_COUNTER_RAWCOUNT_HEX, ct.PERF_COUNTER_LARGE_RAWCOUNT_HEX:
		// Hexadecimal display is the caller's business; the number is N.
		return float64(int64(cur.FirstValue)), ValidData
	case ct.PERF_DOUBLE_RAW:
		// PDH's type for values read back from text logs: the value's
		// IEEE-754 bits are in FirstValue.
		x := math.Float64frombits(cur.FirstValue)
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return 0, InvalidData
		}
		return x, ValidData
	case ct.PERF_RAW_FRACTION, ct.PERF_LARGE_RAW_FRACTION:
		// 100 × N / B (formula table; §4 item 4: the PERCENT display bit
		// and SDK-calc win over W2003's formula without × 100). One sample:
		// unlike .NET, LARGE_RAW_FRACTION has a value on the first sample.
		b := int64(cur.SecondValue)
		if b <= 0 {
			return 0, NegativeDenominator
		}
		n := int64(cur.FirstValue)
		if n < 0 {
			return 0, NegativeValue
		}
		// N / B first, then × 100: the order Windows' PDH evaluates in
		// (CounterSamples.csv matches it to the last digit; see
		// perflog/blg/FORMAT.md).
		return float64(n) / float64(b) * 100, ValidData
	case ct.PERF_ELAPSED_TIME:
		return elapsed(cur)
	case ct.PERF_COUNTER_TEXT, ct.PERF_COUNTER_NODATA, ct.PERF_COUNTER_HISTOGRAM_TYPE,
		ct.PERF_SAMPLE_BASE, ct.PERF_AVERAGE_BASE, ct.PERF_RAW_BASE,
		ct.PERF_LARGE_RAW_BASE, ct.PERF_COUNTER_MULTI_BASE:
		// No number to show: text is text, NODATA and HISTOGRAM have no
		// formula in any source, bases only feed the counter before them.
		return 0, InvalidData
	}

	// Everything below differences two samples; anything else is not a
	// documented type.
	if !difference(t) {
		return 0, InvalidData
	}
	if prev == nil || !prev.Status.OK() {
		// No value yet; never a 0 that looks like data. A failed previous
		// sample cannot be differenced either, so it restarts the pair.
		return 0, NewData
	}
	dn := int64(cur.FirstValue - prev.FirstValue)
	switch t {
	case ct.PERF_COUNTER_DELTA, ct.PERF_COUNTER_LARGE_DELTA:
		if dn < 0 {
			return 0, NegativeValue
		}
		return float64(dn), ValidData

	case ct.PERF_COUNTER_COUNTER, ct.PERF_COUNTER_BULK_COUNT, ct.PERF_SAMPLE_COUNTER:
		// ΔN / (ΔD / F). PERF_SAMPLE_COUNTER: §4 item 3, the majority
		// (W2003, CE, SDK-calc, .NET) treat it as a time rate; WMI's
		// "needs PERF_SAMPLE_BASE" belongs to SAMPLE_FRACTION.
		dt, st := timeDelta(cur, prev)
		if st != ValidData {
			return 0, st
		}
		f := int64(cur.Freq)
		if f <= 0 {
			return 0, NegativeTimebase
		}
		if dn < 0 {
			return 0, NegativeValue
		}
		return float64(dn) / (float64(dt) / float64(f)), ValidData

	case ct.PERF_COUNTER_QUEUELEN_TYPE, ct.PERF_COUNTER_LARGE_QUEUELEN_TYPE,
		ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, ct.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
		// ΔN / ΔD: N accumulates queue length × time units.
		return timeRatio(cur, prev, dn, 1)

	case ct.PERF_COUNTER_TIMER, ct.PERF_100NSEC_TIMER, ct.PERF_OBJ_TIME_TIMER:
		// 100 × ΔN / ΔD; no source applies F to PERF_COUNTER_TIMER.
		return timeRatio(cur, prev, dn, 100)

	case ct.PERF_COUNTER_TIMER_INV, ct.PERF_100NSEC_TIMER_INV:
		// 100 × (1 − ΔN/ΔD), N being idle time. Below 0 when the
		// provider's idle clock ran ahead of the time base: a negative
		// result, which PDH reports as PDH_CALC_NEGATIVE_VALUE.
		r, st := timeRatio(cur, prev, dn, 1)
		if st != ValidData {
			return 0, st
		}
		return nonNegative(100 * (1 - r))

	case ct.PERF_COUNTER_MULTI_TIMER, ct.PERF_100NSEC_MULTI_TIMER:
		// 100 × (ΔN/ΔD) / M. §4 item 2: for the tick version CE and SDK-calc
		// divide ΔD by F first; we do not, because N and D are both in
		// ticks (as for PERF_COUNTER_TIMER, where no source applies F) and
		// applying F would inflate a tick-counting provider's value by
		// F (millions of %). No shipped counter exists to settle it.
		m, r, st := multiTimeRatio(cur, prev, dn, 100)
		if st != ValidData {
			return 0, st
		}
		return r / m, ValidData

	case ct.PERF_COUNTER_MULTI_TIMER_INV, ct.PERF_100NSEC_MULTI_TIMER_INV:
		// 100 × (M − ΔN/ΔD). §4 item 1: W2003 (the reference the SDK points
		// to) and SDK-calc agree; CE divides by M and, for ticks, ΔD by F.
		// The result reaches 100 × M (e.g. 400 % for 4 disks) and is
		// clamped by the default cap like any percentage; below 0 it is
		// PDH_CALC_NEGATIVE_VALUE, as for the single inverse timers.
		m, r, st := multiTimeRatio(cur, prev, dn, 1)
		if st != ValidData {
			return 0, st
		}
		return nonNegative(100 * (m - r))

	case ct.PERF_SAMPLE_FRACTION:
		// 100 × ΔN / ΔB, both differenced (PERF_DELTA_BASE).
		db, st := baseDelta(cur, prev, NegativeDenominator)
		if st != ValidData {
			return 0, st
		}
		if dn < 0 {
			return 0, NegativeValue
		}
		return 100 * float64(dn) / float64(db), ValidData

	case ct.PERF_AVERAGE_TIMER:
		// (ΔN / F) / ΔB with F = the block's PerfFreq (tick time base).
		f := int64(cur.Freq)
		if f <= 0 {
			return 0, NegativeTimebase
		}
		return average(cur, prev, float64(f), dn)

	case ct.PERF_AVERAGE_BULK:
		// ΔN / ΔB (§4 item 6: all sources amount to this).
		return average(cur, prev, 1, dn)

	case ct.PERF_PRECISION_SYSTEM_TIMER, ct.PERF_PRECISION_100NS_TIMER, ct.PERF_PRECISION_OBJECT_TIMER:
		// 100 × ΔN / ΔB, B the provider's own timestamp (§4 item 5:
		// SDK-calc and the real Vista data; W2003's line is garbled). The
		// denominator is a clock, so a non-positive ΔB is NegativeTimebase.
		db, st := baseDelta(cur, prev, NegativeTimebase)
		if st != ValidData {
			return 0, st
		}
		if dn < 0 {
			return 0, NegativeValue
		}
		// ΔN / ΔB first, then × 100, as Windows' PDH (CounterSamples.csv).
		return float64(dn) / float64(db) * 100, ValidData
	}
	return 0, InvalidData
}

// difference reports the types whose value differences two samples. A
// switch rather than countertype's Known, which searches a table: this is
// the hot path of every formatted value.
func difference(t ct.Type) bool {
	switch t {
	case ct.PERF_COUNTER_DELTA, ct.PERF_COUNTER_LARGE_DELTA,
		ct.PERF_COUNTER_COUNTER, ct.PERF_COUNTER_BULK_COUNT, ct.PERF_SAMPLE_COUNTER,
		ct.PERF_COUNTER_QUEUELEN_TYPE, ct.PERF_COUNTER_LARGE_QUEUELEN_TYPE,
		ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, ct.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE,
		ct.PERF_COUNTER_TIMER, ct.PERF_100NSEC_TIMER, ct.PERF_OBJ_TIME_TIMER,
		ct.PERF_COUNTER_TIMER_INV, ct.PERF_100NSEC_TIMER_INV,
		ct.PERF_COUNTER_MULTI_TIMER, ct.PERF_100NSEC_MULTI_TIMER,
		ct.PERF_COUNTER_MULTI_TIMER_INV, ct.PERF_100NSEC_MULTI_TIMER_INV,
		ct.PERF_SAMPLE_FRACTION, ct.PERF_AVERAGE_TIMER, ct.PERF_AVERAGE_BULK,
		ct.PERF_PRECISION_SYSTEM_TIMER, ct.PERF_PRECISION_100NS_TIMER, ct.PERF_PRECISION_OBJECT_TIMER:
		return true
	}
	return false
}

// nonNegative returns x as valid data, or NegativeValue when x < 0: the
// rule for every type whose formula cannot give a negative number (all but
// the raw counts, whose number is the provider's own). The formulas that
// difference N already refuse ΔN < 0; the inverse timers can still go
// below 0 when idle time ran ahead of the time base, and that result has
// no meaning as a percentage of time. PDH reports it as
// PDH_CALC_NEGATIVE_VALUE (0x800007D8, "A counter with a negative value
// was detected"), and typeperf and relog then write no value.
func nonNegative(x float64) (float64, Status) {
	if x < 0 {
		return 0, NegativeValue
	}
	return x, ValidData
}

// timeDelta returns D1 − D0, or NegativeTimebase when it is not positive
// (a zero interval has no rate; a negative one is a clock reset).
func timeDelta(cur, prev *Raw) (int64, Status) {
	dt := int64(cur.Time - prev.Time)
	if dt <= 0 {
		return 0, NegativeTimebase
	}
	return dt, ValidData
}

// timeRatio returns k × ΔN / ΔD after the time-base and sign checks.
func timeRatio(cur, prev *Raw, dn int64, k float64) (float64, Status) {
	dt, st := timeDelta(cur, prev)
	if st != ValidData {
		return 0, st
	}
	if dn < 0 {
		return 0, NegativeValue
	}
	return k * float64(dn) / float64(dt), ValidData
}

// idleAverage reports an average over an interval with no operations: the
// base (operation count) and the numerator both unchanged, as on an idle
// disk. The sources leave ΔB = 0 undocumented (conformance §3); we show a
// valid 0, as .NET does and as an operator reads an idle disk's latency,
// rather than a gap in every log row of an idle disk. ΔB = 0 with ΔN ≠ 0
// is inconsistent data and stays NegativeDenominator.
func idleAverage(cur, prev *Raw, dn int64) bool {
	return dn == 0 && cur.SecondValue == prev.SecondValue
}

// baseDelta returns B1 − B0, or bad when it is not positive.
func baseDelta(cur, prev *Raw, bad Status) (int64, Status) {
	db := int64(cur.SecondValue - prev.SecondValue)
	if db <= 0 {
		return 0, bad
	}
	return db, ValidData
}

// multi returns the newest sample's item count; zero items (or a count
// that is negative as a signed number) is NegativeDenominator.
func multi(cur *Raw) (float64, Status) {
	m := int64(cur.MultiCount)
	if m <= 0 {
		return 0, NegativeDenominator
	}
	return float64(m), ValidData
}

// average is the averages' (ΔN / f) / ΔB: 0 as valid data over an
// interval without events (idleAverage), NegativeValue for ΔN < 0.
func average(cur, prev *Raw, f float64, dn int64) (float64, Status) {
	if idleAverage(cur, prev, dn) {
		return 0, ValidData
	}
	db, st := baseDelta(cur, prev, NegativeDenominator)
	if st != ValidData {
		return 0, st
	}
	if dn < 0 {
		return 0, NegativeValue
	}
	return (float64(dn) / f) / float64(db), ValidData
}

// multiTimeRatio is the multi timers' two parts: the newest sample's item
// count (multi) and timeRatio's k × ΔN/ΔD.
func multiTimeRatio(cur, prev *Raw, dn int64, k float64) (m, r float64, st Status) {
	if m, st = multi(cur); st != ValidData {
		return 0, 0, st
	}
	r, st = timeRatio(cur, prev, dn, k)
	return m, r, st
}

// elapsed computes PERF_ELAPSED_TIME = (D − N) / F from one sample, D and F
// being the object timer of the same block (§4 item 7: type bits and SDK-raw;
// .NET's mix of two samples agrees to within one interval). §3 (.NET rules):
// a start time of 0 (unknown) or at/after D (started after the object's time
// stamp) shows 0 as valid data; a non-positive F is NegativeTimebase.
func elapsed(cur *Raw) (float64, Status) {
	f := int64(cur.Freq)
	if f <= 0 {
		return 0, NegativeTimebase
	}
	n, d := cur.FirstValue, cur.Time
	if n == 0 || n >= d {
		return 0, ValidData
	}
	return float64(d-n) / float64(f), ValidData
}
