package calc

import (
	"math"
	"testing"

	ct "github.com/perfcounters/perfcounters/countertype"
)

// s builds a raw sample: N, B (base or precision timestamp), M (multi
// count), D (time stamp), F (frequency).
func s(n, b, m, d, f uint64) Raw {
	return Raw{FirstValue: n, SecondValue: b, MultiCount: m, Time: d, Freq: f}
}

// ps is s returning a pointer, for the previous sample.
func ps(n, b, m, d, f uint64) *Raw { r := s(n, b, m, d, f); return &r }

const (
	tick  = 3579545  // the ACPI PM timer frequency of the real Vista data
	f100  = 10000000 // PERF_TIMER_100NS frequency
	noVal = 0.0      // expected number when the status is not ValidData
)

// Case kinds. The coverage test requires kNormal, kFirst, kZeroTime and
// kBackwards for every type, plus kZeroBase for types with a base or a
// multi count. For types where a kind does not change the outcome (a
// one-sample type given an older sample), the case shows that it does not.
const (
	kNormal    = "normal"
	kFirst     = "first"     // prev == nil
	kZeroTime  = "zerotime"  // D1 == D0 (or F == 0 where only F is used)
	kBackwards = "backwards" // N1 < N0
	kZeroBase  = "zerobase"  // B1 == B0, B == 0 or M == 0
)

type typeCase struct {
	name string
	t    ct.Type
	kind string
	cur  Raw
	prev *Raw
	want float64
	st   Status
}

// typeCases: every expectation is worked out by hand from
// counter-type-formulas.md §2 (arithmetic in the comment).
var typeCases = []typeCase{
	// PERF_COUNTER_RAWCOUNT: N
	{"max dword", ct.PERF_COUNTER_RAWCOUNT, kNormal, s(4294967295, 0, 0, 0, 0), nil, 4294967295, ValidData}, // N, unsigned DWORD
	{"with prev", ct.PERF_COUNTER_RAWCOUNT, kFirst, s(42, 0, 0, 0, 0), nil, 42, ValidData},
	{"same time", ct.PERF_COUNTER_RAWCOUNT, kZeroTime, s(7, 0, 0, 100, tick), ps(5, 0, 0, 100, tick), 7, ValidData},
	{"lower", ct.PERF_COUNTER_RAWCOUNT, kBackwards, s(5, 0, 0, 200, tick), ps(7, 0, 0, 100, tick), 5, ValidData},
	// PERF_COUNTER_LARGE_RAWCOUNT: N as LONGLONG
	{"2^33", ct.PERF_COUNTER_LARGE_RAWCOUNT, kNormal, s(8589934592, 0, 0, 0, 0), ps(1, 0, 0, 0, 0), 8589934592, ValidData},
	{"all ones is -1", ct.PERF_COUNTER_LARGE_RAWCOUNT, kNormal, s(math.MaxUint64, 0, 0, 0, 0), nil, -1, ValidData}, // LONGLONG 0xFFFF…FF
	{"one sample", ct.PERF_COUNTER_LARGE_RAWCOUNT, kFirst, s(1234567890123, 0, 0, 0, 0), nil, 1234567890123, ValidData},
	{"same time", ct.PERF_COUNTER_LARGE_RAWCOUNT, kZeroTime, s(9, 0, 0, 50, tick), ps(3, 0, 0, 50, tick), 9, ValidData},
	{"lower", ct.PERF_COUNTER_LARGE_RAWCOUNT, kBackwards, s(3, 0, 0, 60, tick), ps(9, 0, 0, 50, tick), 3, ValidData},
	// PERF_COUNTER_RAWCOUNT_HEX: N
	{"0xBEEF", ct.PERF_COUNTER_RAWCOUNT_HEX, kNormal, s(0xBEEF, 0, 0, 0, 0), ps(1, 0, 0, 0, 0), 48879, ValidData}, // 0xBEEF = 48879
	{"one sample", ct.PERF_COUNTER_RAWCOUNT_HEX, kFirst, s(0x10, 0, 0, 0, 0), nil, 16, ValidData},
	{"same time", ct.PERF_COUNTER_RAWCOUNT_HEX, kZeroTime, s(0x20, 0, 0, 1, 1), ps(0x10, 0, 0, 1, 1), 32, ValidData},
	{"lower", ct.PERF_COUNTER_RAWCOUNT_HEX, kBackwards, s(0x10, 0, 0, 2, 1), ps(0x20, 0, 0, 1, 1), 16, ValidData},
	// PERF_COUNTER_LARGE_RAWCOUNT_HEX: N
	{"2^32", ct.PERF_COUNTER_LARGE_RAWCOUNT_HEX, kNormal, s(0x100000000, 0, 0, 0, 0), nil, 4294967296, ValidData},
	{"one sample", ct.PERF_COUNTER_LARGE_RAWCOUNT_HEX, kFirst, s(0xFF, 0, 0, 0, 0), nil, 255, ValidData},
	{"same time", ct.PERF_COUNTER_LARGE_RAWCOUNT_HEX, kZeroTime, s(0xFF, 0, 0, 1, 1), ps(0x1, 0, 0, 1, 1), 255, ValidData},
	{"lower", ct.PERF_COUNTER_LARGE_RAWCOUNT_HEX, kBackwards, s(0x1, 0, 0, 2, 1), ps(0xFF, 0, 0, 1, 1), 1, ValidData},
	// PERF_DOUBLE_RAW: FirstValue carries IEEE-754 bits
	{"2.5", ct.PERF_DOUBLE_RAW, kNormal, s(math.Float64bits(2.5), 0, 0, 0, 0), nil, 2.5, ValidData},
	{"NaN bits", ct.PERF_DOUBLE_RAW, kNormal, s(math.Float64bits(math.NaN()), 0, 0, 0, 0), nil, noVal, InvalidData},
	{"+Inf bits", ct.PERF_DOUBLE_RAW, kNormal, s(math.Float64bits(math.Inf(1)), 0, 0, 0, 0), nil, noVal, InvalidData},
	{"one sample", ct.PERF_DOUBLE_RAW, kFirst, s(math.Float64bits(-0.125), 0, 0, 0, 0), nil, -0.125, ValidData},
	{"same time", ct.PERF_DOUBLE_RAW, kZeroTime, s(math.Float64bits(3), 0, 0, 1, 1), ps(math.Float64bits(1), 0, 0, 1, 1), 3, ValidData},
	{"lower", ct.PERF_DOUBLE_RAW, kBackwards, s(math.Float64bits(1), 0, 0, 2, 1), ps(math.Float64bits(3), 0, 0, 1, 1), 1, ValidData},
	// PERF_COUNTER_DELTA: N1 − N0
	{"350-100", ct.PERF_COUNTER_DELTA, kNormal, s(350, 0, 0, 20, tick), ps(100, 0, 0, 10, tick), 250, ValidData}, // 350-100 = 250
	{"one sample", ct.PERF_COUNTER_DELTA, kFirst, s(350, 0, 0, 20, tick), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_DELTA, kZeroTime, s(350, 0, 0, 10, tick), ps(100, 0, 0, 10, tick), 250, ValidData}, // no time in formula
	{"wrap", ct.PERF_COUNTER_DELTA, kBackwards, s(5, 0, 0, 20, tick), ps(4294967290, 0, 0, 10, tick), noVal, NegativeValue},
	// PERF_COUNTER_LARGE_DELTA: N1 − N0
	{"1000", ct.PERF_COUNTER_LARGE_DELTA, kNormal, s(5000001000, 0, 0, 0, 0), ps(5000000000, 0, 0, 0, 0), 1000, ValidData}, // 5000001000-5000000000
	{"one sample", ct.PERF_COUNTER_LARGE_DELTA, kFirst, s(5000001000, 0, 0, 0, 0), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_LARGE_DELTA, kZeroTime, s(12, 0, 0, 5, 1), ps(2, 0, 0, 5, 1), 10, ValidData}, // 12-2
	{"lower", ct.PERF_COUNTER_LARGE_DELTA, kBackwards, s(2, 0, 0, 6, 1), ps(12, 0, 0, 5, 1), noVal, NegativeValue},
	// PERF_SAMPLE_COUNTER: ΔN / (ΔD / F)
	{"2 s", ct.PERF_SAMPLE_COUNTER, kNormal, s(1600, 0, 0, 17159090, tick), ps(1000, 0, 0, 10000000, tick), 300, ValidData}, // 600/(7159090/3579545) = 600/2
	{"one sample", ct.PERF_SAMPLE_COUNTER, kFirst, s(1600, 0, 0, 17159090, tick), nil, noVal, NewData},
	{"same time", ct.PERF_SAMPLE_COUNTER, kZeroTime, s(1600, 0, 0, 10000000, tick), ps(1000, 0, 0, 10000000, tick), noVal, NegativeTimebase},
	{"lower", ct.PERF_SAMPLE_COUNTER, kBackwards, s(1000, 0, 0, 17159090, tick), ps(1600, 0, 0, 10000000, tick), noVal, NegativeValue},
	// PERF_COUNTER_QUEUELEN_TYPE: ΔN / ΔD
	{"2.5", ct.PERF_COUNTER_QUEUELEN_TYPE, kNormal, s(5000, 0, 0, 3000, tick), ps(0, 0, 0, 1000, tick), 2.5, ValidData}, // 5000/2000
	{"one sample", ct.PERF_COUNTER_QUEUELEN_TYPE, kFirst, s(5000, 0, 0, 3000, tick), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_QUEUELEN_TYPE, kZeroTime, s(5000, 0, 0, 1000, tick), ps(0, 0, 0, 1000, tick), noVal, NegativeTimebase},
	{"lower", ct.PERF_COUNTER_QUEUELEN_TYPE, kBackwards, s(0, 0, 0, 3000, tick), ps(5000, 0, 0, 1000, tick), noVal, NegativeValue},
	// PERF_COUNTER_LARGE_QUEUELEN_TYPE: ΔN / ΔD
	{"0.75", ct.PERF_COUNTER_LARGE_QUEUELEN_TYPE, kNormal, s(1000003000, 0, 0, 4000, tick), ps(1000000000, 0, 0, 0, tick), 0.75, ValidData}, // 3000/4000
	{"one sample", ct.PERF_COUNTER_LARGE_QUEUELEN_TYPE, kFirst, s(1000003000, 0, 0, 4000, tick), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_LARGE_QUEUELEN_TYPE, kZeroTime, s(1000003000, 0, 0, 4000, tick), ps(1000000000, 0, 0, 4000, tick), noVal, NegativeTimebase},
	{"clock reset", ct.PERF_COUNTER_LARGE_QUEUELEN_TYPE, kZeroTime, s(1000003000, 0, 0, 3000, tick), ps(1000000000, 0, 0, 4000, tick), noVal, NegativeTimebase},
	{"lower", ct.PERF_COUNTER_LARGE_QUEUELEN_TYPE, kBackwards, s(1000000000, 0, 0, 4000, tick), ps(1000003000, 0, 0, 0, tick), noVal, NegativeValue},
	// PERF_COUNTER_100NS_QUEUELEN_TYPE: ΔN / ΔD
	{"0.25", ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, kNormal, s(150000000, 0, 0, 128315940986596596, f100), ps(0, 0, 0, 128315940386596596, f100), 0.25, ValidData}, // 1.5e8/6e8
	{"one sample", ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, kFirst, s(150000000, 0, 0, 128315940986596596, f100), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, kZeroTime, s(150000000, 0, 0, 128315940386596596, f100), ps(0, 0, 0, 128315940386596596, f100), noVal, NegativeTimebase},
	{"lower", ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, kBackwards, s(0, 0, 0, 128315940986596596, f100), ps(150000000, 0, 0, 128315940386596596, f100), noVal, NegativeValue},
	// PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE: ΔN / ΔD
	{"1.5", ct.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, kNormal, s(40, 0, 0, 120, 1000), ps(10, 0, 0, 100, 1000), 1.5, ValidData}, // 30/20
	{"one sample", ct.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, kFirst, s(40, 0, 0, 120, 1000), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, kZeroTime, s(40, 0, 0, 100, 1000), ps(10, 0, 0, 100, 1000), noVal, NegativeTimebase},
	{"lower", ct.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, kBackwards, s(10, 0, 0, 120, 1000), ps(40, 0, 0, 100, 1000), noVal, NegativeValue},
	// PERF_COUNTER_COUNTER: ΔN / (ΔD / F)
	{"125/s", ct.PERF_COUNTER_COUNTER, kNormal, s(2500, 0, 0, 5000, 1000), ps(2000, 0, 0, 1000, 1000), 125, ValidData}, // 500/(4000/1000)
	{"one sample", ct.PERF_COUNTER_COUNTER, kFirst, s(2500, 0, 0, 5000, 1000), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_COUNTER, kZeroTime, s(2500, 0, 0, 1000, 1000), ps(2000, 0, 0, 1000, 1000), noVal, NegativeTimebase},
	{"zero freq", ct.PERF_COUNTER_COUNTER, kZeroTime, s(2500, 0, 0, 5000, 0), ps(2000, 0, 0, 1000, 0), noVal, NegativeTimebase},
	{"lower", ct.PERF_COUNTER_COUNTER, kBackwards, s(2000, 0, 0, 5000, 1000), ps(2500, 0, 0, 1000, 1000), noVal, NegativeValue},
	// PERF_COUNTER_BULK_COUNT: ΔN / (ΔD / F)
	{"1 MiB per 2 s", ct.PERF_COUNTER_BULK_COUNT, kNormal, s(1048576, 0, 0, 7159190, tick), ps(0, 0, 0, 100, tick), 524288, ValidData}, // 1048576/(7159090/3579545)
	{"one sample", ct.PERF_COUNTER_BULK_COUNT, kFirst, s(1048576, 0, 0, 7159190, tick), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_BULK_COUNT, kZeroTime, s(1048576, 0, 0, 100, tick), ps(0, 0, 0, 100, tick), noVal, NegativeTimebase},
	{"lower", ct.PERF_COUNTER_BULK_COUNT, kBackwards, s(0, 0, 0, 7159190, tick), ps(1048576, 0, 0, 100, tick), noVal, NegativeValue},
	// PERF_RAW_FRACTION: 100 × N / B
	{"1/3", ct.PERF_RAW_FRACTION, kNormal, s(1, 3, 0, 0, 0), ps(2, 3, 0, 0, 0), 33.333333333333333, ValidData}, // 100*1/3
	{"one sample", ct.PERF_RAW_FRACTION, kFirst, s(1, 4, 0, 0, 0), nil, 25, ValidData},                         // 100*1/4
	{"same time", ct.PERF_RAW_FRACTION, kZeroTime, s(1, 4, 0, 9, 1), ps(3, 4, 0, 9, 1), 25, ValidData},
	{"lower", ct.PERF_RAW_FRACTION, kBackwards, s(1, 4, 0, 10, 1), ps(3, 4, 0, 9, 1), 25, ValidData},
	{"B=0", ct.PERF_RAW_FRACTION, kZeroBase, s(1, 0, 0, 0, 0), nil, noVal, NegativeDenominator},
	// PERF_LARGE_RAW_FRACTION: 100 × N / B
	{"3e9/4e9", ct.PERF_LARGE_RAW_FRACTION, kNormal, s(3000000000, 4000000000, 0, 0, 0), ps(1, 2, 0, 0, 0), 75, ValidData}, // 100*3e9/4e9
	{"one sample", ct.PERF_LARGE_RAW_FRACTION, kFirst, s(3000000000, 4000000000, 0, 0, 0), nil, 75, ValidData},             // unlike .NET: not 0
	{"same time", ct.PERF_LARGE_RAW_FRACTION, kZeroTime, s(1, 8, 0, 5, 1), ps(1, 2, 0, 5, 1), 12.5, ValidData},             // 100*1/8
	{"lower", ct.PERF_LARGE_RAW_FRACTION, kBackwards, s(1, 8, 0, 6, 1), ps(5, 8, 0, 5, 1), 12.5, ValidData},
	{"B=0", ct.PERF_LARGE_RAW_FRACTION, kZeroBase, s(1, 0, 0, 0, 0), nil, noVal, NegativeDenominator},
	// PERF_COUNTER_TIMER: 100 × ΔN / ΔD (F not applied)
	{"25%", ct.PERF_COUNTER_TIMER, kNormal, s(1250, 0, 0, 6000, tick), ps(1000, 0, 0, 5000, tick), 25, ValidData}, // 100*250/1000
	{"one sample", ct.PERF_COUNTER_TIMER, kFirst, s(1250, 0, 0, 6000, tick), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_TIMER, kZeroTime, s(1250, 0, 0, 5000, tick), ps(1000, 0, 0, 5000, tick), noVal, NegativeTimebase},
	{"lower", ct.PERF_COUNTER_TIMER, kBackwards, s(1000, 0, 0, 6000, tick), ps(1250, 0, 0, 5000, tick), noVal, NegativeValue},
	// PERF_PRECISION_SYSTEM_TIMER: 100 × ΔN / ΔB
	{"25%", ct.PERF_PRECISION_SYSTEM_TIMER, kNormal, s(400, 2200, 0, 9, tick), ps(100, 1000, 0, 5, tick), 25, ValidData}, // 100*300/1200
	{"one sample", ct.PERF_PRECISION_SYSTEM_TIMER, kFirst, s(400, 2200, 0, 9, tick), nil, noVal, NewData},
	{"same block time", ct.PERF_PRECISION_SYSTEM_TIMER, kZeroTime, s(400, 2200, 0, 5, tick), ps(100, 1000, 0, 5, tick), 25, ValidData}, // D unused
	{"lower", ct.PERF_PRECISION_SYSTEM_TIMER, kBackwards, s(100, 2200, 0, 9, tick), ps(400, 1000, 0, 5, tick), noVal, NegativeValue},
	{"same stamp", ct.PERF_PRECISION_SYSTEM_TIMER, kZeroBase, s(400, 1000, 0, 9, tick), ps(100, 1000, 0, 5, tick), noVal, NegativeTimebase},
	// PERF_100NSEC_TIMER: 100 × ΔN / ΔD
	{"40%", ct.PERF_100NSEC_TIMER, kNormal, s(4000000, 0, 0, 10000000, f100), ps(0, 0, 0, 0, f100), 40, ValidData}, // 100*4e6/1e7
	{"one sample", ct.PERF_100NSEC_TIMER, kFirst, s(4000000, 0, 0, 10000000, f100), nil, noVal, NewData},
	{"same time", ct.PERF_100NSEC_TIMER, kZeroTime, s(4000000, 0, 0, 10000000, f100), ps(0, 0, 0, 10000000, f100), noVal, NegativeTimebase},
	{"lower", ct.PERF_100NSEC_TIMER, kBackwards, s(0, 0, 0, 10000000, f100), ps(4000000, 0, 0, 0, f100), noVal, NegativeValue},
	// PERF_PRECISION_100NS_TIMER: 100 × ΔN / ΔB
	{"25%", ct.PERF_PRECISION_100NS_TIMER, kNormal, s(2500000, 20000000, 0, 2, f100), ps(0, 10000000, 0, 1, f100), 25, ValidData}, // 100*2.5e6/1e7
	{"one sample", ct.PERF_PRECISION_100NS_TIMER, kFirst, s(2500000, 20000000, 0, 2, f100), nil, noVal, NewData},
	{"same block time", ct.PERF_PRECISION_100NS_TIMER, kZeroTime, s(2500000, 20000000, 0, 1, f100), ps(0, 10000000, 0, 1, f100), 25, ValidData},
	{"lower", ct.PERF_PRECISION_100NS_TIMER, kBackwards, s(0, 20000000, 0, 2, f100), ps(2500000, 10000000, 0, 1, f100), noVal, NegativeValue},
	{"stamp back", ct.PERF_PRECISION_100NS_TIMER, kZeroBase, s(2500000, 9000000, 0, 2, f100), ps(0, 10000000, 0, 1, f100), noVal, NegativeTimebase},
	// PERF_OBJ_TIME_TIMER: 100 × ΔN / ΔD
	{"87.5%", ct.PERF_OBJ_TIME_TIMER, kNormal, s(8, 0, 0, 10, 1000), ps(1, 0, 0, 2, 1000), 87.5, ValidData}, // 100*7/8
	{"one sample", ct.PERF_OBJ_TIME_TIMER, kFirst, s(8, 0, 0, 10, 1000), nil, noVal, NewData},
	{"same time", ct.PERF_OBJ_TIME_TIMER, kZeroTime, s(8, 0, 0, 2, 1000), ps(1, 0, 0, 2, 1000), noVal, NegativeTimebase},
	{"lower", ct.PERF_OBJ_TIME_TIMER, kBackwards, s(1, 0, 0, 10, 1000), ps(8, 0, 0, 2, 1000), noVal, NegativeValue},
	// PERF_PRECISION_OBJECT_TIMER: 100 × ΔN / ΔB
	{"1/3", ct.PERF_PRECISION_OBJECT_TIMER, kNormal, s(1, 3, 0, 7, 1), ps(0, 0, 0, 6, 1), 33.333333333333333, ValidData}, // 100*1/3
	{"one sample", ct.PERF_PRECISION_OBJECT_TIMER, kFirst, s(1, 3, 0, 7, 1), nil, noVal, NewData},
	{"same block time", ct.PERF_PRECISION_OBJECT_TIMER, kZeroTime, s(1, 3, 0, 6, 1), ps(0, 0, 0, 6, 1), 33.333333333333333, ValidData},
	{"lower", ct.PERF_PRECISION_OBJECT_TIMER, kBackwards, s(0, 3, 0, 7, 1), ps(1, 0, 0, 6, 1), noVal, NegativeValue},
	{"same stamp", ct.PERF_PRECISION_OBJECT_TIMER, kZeroBase, s(1, 3, 0, 7, 1), ps(0, 3, 0, 6, 1), noVal, NegativeTimebase},
	// PERF_SAMPLE_FRACTION: 100 × ΔN / ΔB
	{"3/4", ct.PERF_SAMPLE_FRACTION, kNormal, s(13, 24, 0, 0, 0), ps(10, 20, 0, 0, 0), 75, ValidData}, // 100*(13-10)/(24-20)
	{"one sample", ct.PERF_SAMPLE_FRACTION, kFirst, s(13, 24, 0, 0, 0), nil, noVal, NewData},
	{"same time", ct.PERF_SAMPLE_FRACTION, kZeroTime, s(13, 24, 0, 5, 1), ps(10, 20, 0, 5, 1), 75, ValidData}, // no time in formula
	{"lower", ct.PERF_SAMPLE_FRACTION, kBackwards, s(10, 24, 0, 0, 0), ps(13, 20, 0, 0, 0), noVal, NegativeValue},
	{"same base", ct.PERF_SAMPLE_FRACTION, kZeroBase, s(13, 20, 0, 0, 0), ps(10, 20, 0, 0, 0), noVal, NegativeDenominator},
	// PERF_COUNTER_TIMER_INV: 100 × (1 − ΔN/ΔD)
	{"75%", ct.PERF_COUNTER_TIMER_INV, kNormal, s(400, 0, 0, 2200, tick), ps(100, 0, 0, 1000, tick), 75, ValidData},             // 100*(1-300/1200)
	{"skew below 0", ct.PERF_COUNTER_TIMER_INV, kNormal, s(1100, 0, 0, 1000, tick), ps(0, 0, 0, 0, tick), noVal, NegativeValue}, // 100*(1-1100/1000) = -10: PDH_CALC_NEGATIVE_VALUE
	{"idle = time", ct.PERF_COUNTER_TIMER_INV, kNormal, s(1000, 0, 0, 1000, tick), ps(0, 0, 0, 0, tick), 0, ValidData},          // 100*(1-1000/1000) = 0 exactly
	{"one sample", ct.PERF_COUNTER_TIMER_INV, kFirst, s(400, 0, 0, 2200, tick), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_TIMER_INV, kZeroTime, s(400, 0, 0, 1000, tick), ps(100, 0, 0, 1000, tick), noVal, NegativeTimebase},
	{"lower", ct.PERF_COUNTER_TIMER_INV, kBackwards, s(100, 0, 0, 2200, tick), ps(400, 0, 0, 1000, tick), noVal, NegativeValue},
	// PERF_100NSEC_TIMER_INV: 100 × (1 − ΔN/ΔD)
	{"75%", ct.PERF_100NSEC_TIMER_INV, kNormal, s(2500000, 0, 0, 10000000, f100), ps(0, 0, 0, 0, f100), 75, ValidData}, // 100*(1-2.5e6/1e7)
	{"one sample", ct.PERF_100NSEC_TIMER_INV, kFirst, s(2500000, 0, 0, 10000000, f100), nil, noVal, NewData},
	{"same time", ct.PERF_100NSEC_TIMER_INV, kZeroTime, s(2500000, 0, 0, 10000000, f100), ps(0, 0, 0, 10000000, f100), noVal, NegativeTimebase},
	{"lower", ct.PERF_100NSEC_TIMER_INV, kBackwards, s(0, 0, 0, 10000000, f100), ps(2500000, 0, 0, 0, f100), noVal, NegativeValue},
	// PERF_COUNTER_MULTI_TIMER: 100 × (ΔN/ΔD) / M (no F, see doc)
	{"75%", ct.PERF_COUNTER_MULTI_TIMER, kNormal, s(1500, 0, 2, 1000, tick), ps(0, 0, 2, 0, tick), 75, ValidData}, // 100*(1500/1000)/2
	{"one sample", ct.PERF_COUNTER_MULTI_TIMER, kFirst, s(1500, 0, 2, 1000, tick), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_MULTI_TIMER, kZeroTime, s(1500, 0, 2, 0, tick), ps(0, 0, 2, 0, tick), noVal, NegativeTimebase},
	{"lower", ct.PERF_COUNTER_MULTI_TIMER, kBackwards, s(0, 0, 2, 1000, tick), ps(1500, 0, 2, 0, tick), noVal, NegativeValue},
	{"M=0", ct.PERF_COUNTER_MULTI_TIMER, kZeroBase, s(1500, 0, 0, 1000, tick), ps(0, 0, 0, 0, tick), noVal, NegativeDenominator},
	// PERF_100NSEC_MULTI_TIMER: 100 × (ΔN/ΔD) / M
	{"75%", ct.PERF_100NSEC_MULTI_TIMER, kNormal, s(30000000, 0, 4, 10000000, f100), ps(0, 0, 4, 0, f100), 75, ValidData}, // 100*(3e7/1e7)/4
	{"one sample", ct.PERF_100NSEC_MULTI_TIMER, kFirst, s(30000000, 0, 4, 10000000, f100), nil, noVal, NewData},
	{"same time", ct.PERF_100NSEC_MULTI_TIMER, kZeroTime, s(30000000, 0, 4, 0, f100), ps(0, 0, 4, 0, f100), noVal, NegativeTimebase},
	{"lower", ct.PERF_100NSEC_MULTI_TIMER, kBackwards, s(0, 0, 4, 10000000, f100), ps(30000000, 0, 4, 0, f100), noVal, NegativeValue},
	{"M=0", ct.PERF_100NSEC_MULTI_TIMER, kZeroBase, s(30000000, 0, 0, 10000000, f100), ps(0, 0, 0, 0, f100), noVal, NegativeDenominator},
	// PERF_COUNTER_MULTI_TIMER_INV: 100 × (M − ΔN/ΔD)
	{"150%", ct.PERF_COUNTER_MULTI_TIMER_INV, kNormal, s(500, 0, 2, 1000, tick), ps(0, 0, 2, 0, tick), 150, ValidData}, // 100*(2-500/1000)
	{"one sample", ct.PERF_COUNTER_MULTI_TIMER_INV, kFirst, s(500, 0, 2, 1000, tick), nil, noVal, NewData},
	{"same time", ct.PERF_COUNTER_MULTI_TIMER_INV, kZeroTime, s(500, 0, 2, 0, tick), ps(0, 0, 2, 0, tick), noVal, NegativeTimebase},
	{"lower", ct.PERF_COUNTER_MULTI_TIMER_INV, kBackwards, s(0, 0, 2, 1000, tick), ps(500, 0, 2, 0, tick), noVal, NegativeValue},
	{"M=0", ct.PERF_COUNTER_MULTI_TIMER_INV, kZeroBase, s(500, 0, 0, 1000, tick), ps(0, 0, 0, 0, tick), noVal, NegativeDenominator},
	// PERF_100NSEC_MULTI_TIMER_INV: 100 × (M − ΔN/ΔD)
	{"50%", ct.PERF_100NSEC_MULTI_TIMER_INV, kNormal, s(35000000, 0, 4, 10000000, f100), ps(0, 0, 4, 0, f100), 50, ValidData}, // 100*(4-3.5e7/1e7)
	{"one sample", ct.PERF_100NSEC_MULTI_TIMER_INV, kFirst, s(35000000, 0, 4, 10000000, f100), nil, noVal, NewData},
	{"same time", ct.PERF_100NSEC_MULTI_TIMER_INV, kZeroTime, s(35000000, 0, 4, 0, f100), ps(0, 0, 4, 0, f100), noVal, NegativeTimebase},
	{"lower", ct.PERF_100NSEC_MULTI_TIMER_INV, kBackwards, s(0, 0, 4, 10000000, f100), ps(35000000, 0, 4, 0, f100), noVal, NegativeValue},
	{"skew below 0", ct.PERF_100NSEC_MULTI_TIMER_INV, kNormal, s(45000000, 0, 4, 10000000, f100), ps(0, 0, 4, 0, f100), noVal, NegativeValue}, // 100*(4-4.5e7/1e7) = -50
	{"M=0", ct.PERF_100NSEC_MULTI_TIMER_INV, kZeroBase, s(35000000, 0, 0, 10000000, f100), ps(0, 0, 0, 0, f100), noVal, NegativeDenominator},
	// PERF_AVERAGE_TIMER: (ΔN / F) / ΔB
	{"30 ms", ct.PERF_AVERAGE_TIMER, kNormal, s(10738635, 100, 0, 9, tick), ps(0, 0, 0, 1, tick), 0.03, ValidData}, // (10738635/3579545)/100 = 3/100
	{"one sample", ct.PERF_AVERAGE_TIMER, kFirst, s(10738635, 100, 0, 9, tick), nil, noVal, NewData},
	{"zero freq", ct.PERF_AVERAGE_TIMER, kZeroTime, s(10738635, 100, 0, 9, 0), ps(0, 0, 0, 1, 0), noVal, NegativeTimebase},
	{"lower", ct.PERF_AVERAGE_TIMER, kBackwards, s(0, 100, 0, 9, tick), ps(10738635, 0, 0, 1, tick), noVal, NegativeValue},
	{"idle disk", ct.PERF_AVERAGE_TIMER, kZeroBase, s(10738635, 100, 0, 9, tick), ps(10738635, 100, 0, 1, tick), 0, ValidData}, // no operation, no time: 0
	{"time without ops", ct.PERF_AVERAGE_TIMER, kZeroBase, s(10738635, 100, 0, 9, tick), ps(0, 100, 0, 1, tick), noVal, NegativeDenominator},
	// PERF_AVERAGE_BULK: ΔN / ΔB
	{"64 KiB", ct.PERF_AVERAGE_BULK, kNormal, s(655360, 15, 0, 0, 0), ps(0, 5, 0, 0, 0), 65536, ValidData}, // 655360/(15-5)
	{"one sample", ct.PERF_AVERAGE_BULK, kFirst, s(655360, 15, 0, 0, 0), nil, noVal, NewData},
	{"same time", ct.PERF_AVERAGE_BULK, kZeroTime, s(655360, 15, 0, 3, tick), ps(0, 5, 0, 3, tick), 65536, ValidData}, // no time in formula
	{"lower", ct.PERF_AVERAGE_BULK, kBackwards, s(0, 15, 0, 0, 0), ps(655360, 5, 0, 0, 0), noVal, NegativeValue},
	{"same base", ct.PERF_AVERAGE_BULK, kZeroBase, s(655360, 5, 0, 0, 0), ps(0, 5, 0, 0, 0), noVal, NegativeDenominator},
	{"idle", ct.PERF_AVERAGE_BULK, kZeroBase, s(655360, 5, 0, 0, 0), ps(655360, 5, 0, 0, 0), 0, ValidData}, // no operation: 0
	// PERF_ELAPSED_TIME: (D − N) / F from one sample
	{"10 s", ct.PERF_ELAPSED_TIME, kNormal, s(50000000, 0, 0, 150000000, f100), ps(1, 0, 0, 2, f100), 10, ValidData}, // (1.5e8-5e7)/1e7
	{"start unknown", ct.PERF_ELAPSED_TIME, kNormal, s(0, 0, 0, 150000000, f100), nil, 0, ValidData},                 // §3: N = 0 shows 0
	{"one sample", ct.PERF_ELAPSED_TIME, kFirst, s(50000000, 0, 0, 150000000, f100), nil, 10, ValidData},
	{"zero freq", ct.PERF_ELAPSED_TIME, kZeroTime, s(50000000, 0, 0, 150000000, 0), nil, noVal, NegativeTimebase},
	{"start after now", ct.PERF_ELAPSED_TIME, kBackwards, s(200000000, 0, 0, 150000000, f100), nil, 0, ValidData}, // §3: N ≥ D shows 0
}

// noNumberTypes have no formula: every case yields InvalidData.
var noNumberTypes = []ct.Type{
	ct.PERF_COUNTER_TEXT, ct.PERF_COUNTER_NODATA, ct.PERF_COUNTER_HISTOGRAM_TYPE,
	ct.PERF_SAMPLE_BASE, ct.PERF_AVERAGE_BASE, ct.PERF_RAW_BASE, ct.PERF_LARGE_RAW_BASE,
	ct.PERF_COUNTER_MULTI_BASE,
}

func allTypeCases() []typeCase {
	cases := append([]typeCase(nil), typeCases...)
	for _, t := range noNumberTypes {
		cases = append(cases,
			typeCase{"no formula", t, kNormal, s(5, 10, 1, 20, 1), ps(1, 5, 1, 10, 1), noVal, InvalidData},
			typeCase{"no formula", t, kFirst, s(5, 10, 1, 20, 1), nil, noVal, InvalidData},
			typeCase{"no formula", t, kZeroTime, s(5, 10, 1, 10, 1), ps(1, 5, 1, 10, 1), noVal, InvalidData},
			typeCase{"no formula", t, kBackwards, s(1, 10, 1, 20, 1), ps(5, 5, 1, 10, 1), noVal, InvalidData},
			typeCase{"no formula", t, kZeroBase, s(5, 0, 0, 20, 1), nil, noVal, InvalidData},
		)
	}
	return cases
}

// near compares with a relative tolerance of 1e-12 (the expectations are
// written to 15–17 significant digits).
func near(got, want float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

func TestTypes(t *testing.T) {
	for _, c := range allTypeCases() {
		t.Run(c.t.String()+"/"+c.kind+"/"+c.name, func(t *testing.T) {
			x, st := Compute(c.t, &c.cur, c.prev)
			if st != c.st || !near(x, c.want) {
				t.Errorf("Compute = %v, %v; want %v, %v", x, st, c.want, c.st)
			}
			v := Format(c.t, 0, &c.cur, c.prev, FmtDouble|FmtNoCap100)
			if v.Status != c.st || !near(v.Double, c.want) {
				t.Errorf("Format = %+v; want %v, %v", v, c.want, c.st)
			}
			if v.HasValue() != (c.st == ValidData) {
				t.Errorf("HasValue = %v with status %v", v.HasValue(), v.Status)
			}
		})
	}
}

// TestTypesCovered fails when a type of countertype.All has no case of a
// required kind, so a type cannot be forgotten.
func TestTypesCovered(t *testing.T) {
	have := map[ct.Type]map[string]bool{}
	for _, c := range allTypeCases() {
		if have[c.t] == nil {
			have[c.t] = map[string]bool{}
		}
		have[c.t][c.kind] = true
	}
	for _, typ := range ct.All() {
		need := []string{kNormal, kFirst, kZeroTime, kBackwards}
		if typ.NeedsBase() || typ.Multi() {
			need = append(need, kZeroBase)
		}
		for _, c := range allTypeCases() {
			// countertype's NeedsTwoSamples and calc must agree on which
			// types have no value after one sample.
			if c.t == typ && c.kind == kFirst && (c.st == NewData) != typ.NeedsTwoSamples() {
				t.Errorf("%v: first sample gives %v but NeedsTwoSamples = %v", typ, c.st, typ.NeedsTwoSamples())
			}
		}
		for _, k := range need {
			if !have[typ][k] {
				t.Errorf("%v: no %q case", typ, k)
			}
		}
	}
}

func TestStatusInputs(t *testing.T) {
	good := s(20, 0, 0, 2000, 1000)
	prev := s(10, 0, 0, 1000, 1000)
	bad := prev
	bad.Status = NoInstance
	newer := good
	newer.Status = NewData
	tests := []struct {
		name      string
		t         ct.Type
		cur, prev *Raw
		want      float64
		st        Status
	}{
		{"cur status passes through", ct.PERF_COUNTER_COUNTER, &Raw{Status: NoInstance}, &prev, noVal, NoInstance},
		{"cur status passes through, raw type", ct.PERF_COUNTER_RAWCOUNT, &Raw{Status: NoObject, FirstValue: 3}, nil, noVal, NoObject},
		{"failed prev restarts the pair", ct.PERF_COUNTER_COUNTER, &good, &bad, noVal, NewData},
		{"NewData raw is usable", ct.PERF_COUNTER_COUNTER, &newer, &prev, 10, ValidData}, // 10/(1000/1000)
		{"nil cur", ct.PERF_COUNTER_COUNTER, nil, &prev, noVal, NoData},
		{"undocumented type", ct.Type(0x12345678), &good, &prev, noVal, InvalidData},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			x, st := Compute(c.t, c.cur, c.prev)
			if st != c.st || !near(x, c.want) {
				t.Errorf("Compute = %v, %v; want %v, %v", x, st, c.want, c.st)
			}
		})
	}
}

// TestWorkedExamples uses the raw values of
// shared/conformance/perfdata/README.md (real Vista blocks, samples 1→2).
// The README rounds; the literals below carry the full quotient.
func TestWorkedExamples(t *testing.T) {
	const (
		pt100a = 128315940386596596 // PerfTime100nSec, sample 1
		pt100b = 128315940986148066 // PerfTime100nSec, sample 2
	)
	tests := []struct {
		name      string
		t         ct.Type
		cur, prev Raw
		one       bool // single-sample type: prev unused
		want      float64
		readme    float64 // as printed in the README
		tol       float64 // README rounding
	}{
		{
			"Processor(_Total)\\% Processor Time", ct.PERF_100NSEC_TIMER_INV,
			MakeRaw(ct.PERF_100NSEC_TIMER_INV, Clocks{PerfTime100nSec: pt100b}, 12665781250, 0, 0),
			MakeRaw(ct.PERF_100NSEC_TIMER_INV, Clocks{PerfTime100nSec: pt100a}, 12558750000, 0, 0), false,
			82.1481131553226, // 100*(1-(12665781250-12558750000)/(128315940986148066-128315940386596596))
			82.148113, 5e-7,
		},
		{
			"Process(Idle)\\% Processor Time", ct.PERF_100NSEC_TIMER,
			MakeRaw(ct.PERF_100NSEC_TIMER, Clocks{PerfTime100nSec: pt100b}, 12665781250, 0, 0),
			MakeRaw(ct.PERF_100NSEC_TIMER, Clocks{PerfTime100nSec: pt100a}, 12558750000, 0, 0), false,
			17.8518868446774, // 100*(12665781250-12558750000)/(128315940986148066-128315940386596596)
			17.851887, 5e-7,
		},
		{
			"Processor(_Total)\\Interrupts/sec", ct.PERF_COUNTER_COUNTER,
			MakeRaw(ct.PERF_COUNTER_COUNTER, Clocks{PerfTime: 7393519392, PerfFreq: 3579545}, 2199337, 0, 0),
			MakeRaw(ct.PERF_COUNTER_COUNTER, Clocks{PerfTime: 7178903079, PerfFreq: 3579545}, 2125688, 0, 0), false,
			1228.377778090894715, // (2199337-2125688)/((7393519392-7178903079)/3579545)
			1228.377778, 5e-7,
		},
		{
			"System\\System Up Time", ct.PERF_ELAPSED_TIME,
			MakeRaw(ct.PERF_ELAPSED_TIME, Clocks{ObjectTime: 128315940386606361, ObjectFreq: 10000000}, 128315920365000000, 0, 0),
			Raw{}, true,
			2002.1606361, // (128315940386606361-128315920365000000)/10^7
			2002.161, 5e-4,
		},
		{
			"LogicalDisk(C:)\\% Free Space", ct.PERF_RAW_FRACTION,
			MakeRaw(ct.PERF_RAW_FRACTION, Clocks{}, 54488, 72469, 0),
			Raw{}, true,
			75.188011425575073, // 100*54488/72469
			75.188011, 5e-7,
		},
		{
			"LogicalDisk(C:)\\% Disk Time", ct.PERF_PRECISION_100NS_TIMER,
			MakeRaw(ct.PERF_PRECISION_100NS_TIMER, Clocks{PerfTime100nSec: pt100b}, 27824893000, 128315940986148066, 0),
			MakeRaw(ct.PERF_PRECISION_100NS_TIMER, Clocks{PerfTime100nSec: pt100a}, 27637997000, 128315940386606361, 0), false,
			31.173144160171476, // 100*(27824893000-27637997000)/(128315940986148066-128315940386606361)
			31.173144, 5e-7,
		},
		{
			"LogicalDisk(C:)\\Avg. Disk sec/Transfer", ct.PERF_AVERAGE_TIMER,
			MakeRaw(ct.PERF_AVERAGE_TIMER, Clocks{PerfTime: 7393519392, PerfFreq: 3579545}, 9960045661, 119955, 0),
			MakeRaw(ct.PERF_AVERAGE_TIMER, Clocks{PerfTime: 7178903079, PerfFreq: 3579545}, 9893145397, 117670, 0), false,
			0.008179255989141, // ((9960045661-9893145397)/3579545)/(119955-117670)
			0.008179256, 5e-10,
		},
		{
			"LogicalDisk(C:)\\Avg. Disk Bytes/Transfer", ct.PERF_AVERAGE_BULK,
			MakeRaw(ct.PERF_AVERAGE_BULK, Clocks{}, 2339683840, 119955, 0),
			MakeRaw(ct.PERF_AVERAGE_BULK, Clocks{}, 2251698176, 117670, 0), false,
			38505.761050328227571, // (2339683840-2251698176)/(119955-117670)
			38505.761, 5e-4,
		},
		{
			"LogicalDisk(_Total)\\Avg. Disk Queue Length", ct.PERF_COUNTER_100NS_QUEUELEN_TYPE,
			MakeRaw(ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, Clocks{PerfTime100nSec: pt100b}, 27886273000, 0, 0),
			MakeRaw(ct.PERF_COUNTER_100NS_QUEUELEN_TYPE, Clocks{PerfTime100nSec: pt100a}, 27699377000, 0, 0), false,
			0.311726364377023, // (27886273000-27699377000)/(128315940986148066-128315940386596596)
			0.311726, 5e-7,
		},
		{
			"Memory\\% Committed Bytes In Use", ct.PERF_RAW_FRACTION,
			MakeRaw(ct.PERF_RAW_FRACTION, Clocks{}, 139480, 369342, 0),
			Raw{}, true,
			37.764456790725127, // 100*139480/369342
			37.764457, 5e-7,
		},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			var prev *Raw
			if !c.one {
				prev = &c.prev
			}
			v := Format(c.t, 0, &c.cur, prev, FmtDouble)
			if v.Status != ValidData || !near(v.Double, c.want) {
				t.Errorf("got %+v; want %.15g", v, c.want)
			}
			if math.Abs(v.Double-c.readme) > c.tol {
				t.Errorf("got %.15g; README prints %v", v.Double, c.readme)
			}
		})
	}
	// Processor(_Total) and Process(Idle) share N and sum to 100 %.
	cur := MakeRaw(ct.PERF_100NSEC_TIMER, Clocks{PerfTime100nSec: pt100b}, 12665781250, 0, 0)
	prev := MakeRaw(ct.PERF_100NSEC_TIMER, Clocks{PerfTime100nSec: pt100a}, 12558750000, 0, 0)
	busy, _ := Compute(ct.PERF_100NSEC_TIMER_INV, &cur, &prev)
	idle, _ := Compute(ct.PERF_100NSEC_TIMER, &cur, &prev)
	if math.Abs(busy+idle-100) > 1e-9 {
		t.Errorf("busy %v + idle %v != 100", busy, idle)
	}
}

func TestTimeBase(t *testing.T) {
	c := Clocks{PerfTime: 11, PerfFreq: 22, PerfTime100nSec: 33, ObjectTime: 44, ObjectFreq: 55}
	tests := []struct {
		t    ct.Type
		d, f uint64
	}{
		{ct.PERF_COUNTER_COUNTER, 11, 22},    // TICK
		{ct.PERF_AVERAGE_TIMER, 11, 22},      // TICK: F = PerfFreq
		{ct.PERF_100NSEC_TIMER_INV, 33, 1e7}, // 100NS
		{ct.PERF_PRECISION_100NS_TIMER, 33, 1e7},
		{ct.PERF_ELAPSED_TIME, 44, 55}, // OBJECT
		{ct.PERF_OBJ_TIME_TIMER, 44, 55},
		{ct.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, 44, 55},
	}
	for _, c2 := range tests {
		t.Run(c2.t.String(), func(t *testing.T) {
			d, f := TimeBase(c2.t, c)
			if d != c2.d || f != c2.f {
				t.Errorf("TimeBase = %d, %d; want %d, %d", d, f, c2.d, c2.f)
			}
			r := MakeRaw(c2.t, c, 1, 2, 3)
			if r != (Raw{FirstValue: 1, SecondValue: 2, MultiCount: 3, Time: c2.d, Freq: c2.f}) {
				t.Errorf("MakeRaw = %+v", r)
			}
		})
	}
	// A negative clock reads back as a negative time base.
	cur := MakeRaw(ct.PERF_COUNTER_COUNTER, Clocks{PerfTime: 10, PerfFreq: -1}, 5, 0, 0)
	prev := MakeRaw(ct.PERF_COUNTER_COUNTER, Clocks{PerfTime: 5, PerfFreq: -1}, 1, 0, 0)
	if _, st := Compute(ct.PERF_COUNTER_COUNTER, &cur, &prev); st != NegativeTimebase {
		t.Errorf("negative PerfFreq: status %v", st)
	}
}

func TestFormatOptions(t *testing.T) {
	raw := func(n uint64) *Raw { r := s(n, 0, 0, 0, 0); return &r }
	dbl := func(x float64) *Raw { r := s(math.Float64bits(x), 0, 0, 0, 0); return &r }
	busy150 := s(15000000, 0, 0, 10000000, f100) // 100NSEC_TIMER: 100*1.5e7/1e7 = 150
	zero := s(0, 0, 0, 0, f100)
	skew := s(1100, 0, 0, 1000, tick) // TIMER_INV: 100*(1-1100/1000) = -10
	skew0 := s(0, 0, 0, 0, tick)
	rate := s(2500, 0, 0, 5000, 1000) // COUNTER: 500/4 = 125
	rate0 := s(2000, 0, 0, 1000, 1000)
	avg := s(10738635, 100, 0, 9, tick) // AVERAGE_TIMER: 0.03 s
	avg0 := s(0, 0, 0, 1, tick)
	mi := s(500, 0, 2, 1000, tick) // MULTI_TIMER_INV: 150
	mi0 := s(0, 0, 2, 0, tick)
	tests := []struct {
		name      string
		t         ct.Type
		scale     int32
		cur, prev *Raw
		opts      Options
		want      Value
	}{
		{"scale -3", ct.PERF_COUNTER_RAWCOUNT, -3, raw(12345), nil, FmtDouble, Value{Double: 12.345}}, // 12345*10^-3
		{"scale +2", ct.PERF_COUNTER_RAWCOUNT, 2, raw(12345), nil, FmtDouble, Value{Double: 1234500}}, // 12345*10^2
		{"noscale", ct.PERF_COUNTER_RAWCOUNT, 3, raw(12345), nil, FmtDouble | FmtNoScale, Value{Double: 12345}},
		{"scale out of range", ct.PERF_COUNTER_RAWCOUNT, 11, raw(1), nil, FmtDouble, Value{Status: InvalidArgument}},
		{"scale -10 ok", ct.PERF_COUNTER_RAWCOUNT, -10, raw(20000000000), nil, FmtDouble, Value{Double: 2}}, // 2e10*1e-10
		{"scale out of range ignored with noscale", ct.PERF_COUNTER_RAWCOUNT, 11, raw(1), nil, FmtDouble | FmtNoScale, Value{Double: 1}},
		{"cap 150 to 100", ct.PERF_100NSEC_TIMER, 0, &busy150, &zero, FmtDouble, Value{Double: 100}},
		{"nocap 150", ct.PERF_100NSEC_TIMER, 0, &busy150, &zero, FmtDouble | FmtNoCap100, Value{Double: 150}},
		{"cap -10 is negative", ct.PERF_COUNTER_TIMER_INV, 0, &skew, &skew0, FmtDouble, Value{Status: NegativeValue}},
		{"nocap -10 is negative", ct.PERF_COUNTER_TIMER_INV, 0, &skew, &skew0, FmtDouble | FmtNoCap100, Value{Status: NegativeValue}},
		{"nocap raw keeps its sign", ct.PERF_COUNTER_LARGE_RAWCOUNT, 0, raw(uint64(1<<64 - 5)), nil, FmtDouble | FmtNoCap100, Value{Double: -5}},
		{"cap multi inv 150", ct.PERF_COUNTER_MULTI_TIMER_INV, 0, &mi, &mi0, FmtDouble, Value{Double: 100}},
		{"rate not a percentage", ct.PERF_COUNTER_COUNTER, 0, &rate, &rate0, FmtDouble, Value{Double: 125}},
		{"cap before scale", ct.PERF_100NSEC_TIMER, 1, &busy150, &zero, FmtDouble, Value{Double: 1000}},    // min(150,100)*10
		{"x1000", ct.PERF_AVERAGE_TIMER, 0, &avg, &avg0, FmtDouble | Fmt1000, Value{Double: 30}},           // 0.03*1000
		{"scale and x1000", ct.PERF_AVERAGE_TIMER, -1, &avg, &avg0, FmtDouble | Fmt1000, Value{Double: 3}}, // 0.03*0.1*1000
		{"long truncates", ct.PERF_DOUBLE_RAW, 0, dbl(38505.761), nil, FmtLong, Value{Long: 38505}},
		{"large truncates", ct.PERF_DOUBLE_RAW, 0, dbl(38505.761), nil, FmtLarge, Value{Large: 38505}},
		{"long toward zero", ct.PERF_DOUBLE_RAW, 0, dbl(-2.7), nil, FmtLong, Value{Long: -2}},
		{"large toward zero", ct.PERF_DOUBLE_RAW, 0, dbl(-2.7), nil, FmtLarge, Value{Large: -2}},
		{"long 99.99", ct.PERF_DOUBLE_RAW, 0, dbl(99.99), nil, FmtLong, Value{Long: 99}},
		{"long saturates", ct.PERF_COUNTER_LARGE_RAWCOUNT, 0, raw(1 << 40), nil, FmtLong | FmtLarge, Value{Long: math.MaxInt32, Large: 1 << 40}},
		{"long saturates low", ct.PERF_DOUBLE_RAW, 0, dbl(-1e30), nil, FmtLong | FmtLarge, Value{Long: math.MinInt32, Large: math.MinInt64}},
		{"large saturates", ct.PERF_DOUBLE_RAW, 0, dbl(1e30), nil, FmtLarge, Value{Large: math.MaxInt64}},
		{"all three", ct.PERF_DOUBLE_RAW, 0, dbl(7.9), nil, FmtDouble | FmtLong | FmtLarge, Value{Double: 7.9, Long: 7, Large: 7}},
		{"no type flag gives double", ct.PERF_DOUBLE_RAW, 0, dbl(7.9), nil, 0, Value{Double: 7.9}},
		{"overflow to Inf is invalid", ct.PERF_DOUBLE_RAW, 10, dbl(1e300), nil, FmtDouble | Fmt1000, Value{Status: InvalidData}},
		{"error carries no number", ct.PERF_COUNTER_COUNTER, 0, &rate, nil, FmtDouble | FmtLong | FmtLarge, Value{Status: NewData}},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			got := Format(c.t, c.scale, c.cur, c.prev, c.opts)
			if got.Status != c.want.Status || !near(got.Double, c.want.Double) || got.Long != c.want.Long || got.Large != c.want.Large {
				t.Errorf("Format = %+v; want %+v", got, c.want)
			}
		})
	}
}

func TestStatistics(t *testing.T) {
	frac := func(n, b uint64) Raw { return s(n, b, 0, 0, 0) }
	rate := func(n, d uint64) Raw { return s(n, 0, 0, d, 1000) }
	tests := []struct {
		name    string
		t       ct.Type
		opts    Options
		samples []Raw
		want    Stats
	}{
		{"instantaneous", ct.PERF_RAW_FRACTION, FmtDouble,
			[]Raw{frac(1, 4), frac(1, 2), frac(3, 4)},    // 25, 50, 75
			Stats{Min: 25, Max: 75, Mean: 50, Count: 3}}, // (25+50+75)/3
		{"instantaneous skips invalid", ct.PERF_RAW_FRACTION, FmtDouble,
			[]Raw{frac(1, 4), frac(1, 0), frac(3, 4)}, // 25, B=0, 75
			Stats{Min: 25, Max: 75, Mean: 50, Count: 2}},
		{"rate mean first to last", ct.PERF_COUNTER_COUNTER, FmtDouble,
			[]Raw{rate(0, 0), rate(100, 1000), rate(400, 2000), rate(500, 4000)}, // 100/1, 300/1, 100/2
			Stats{Min: 50, Max: 300, Mean: 125, Count: 3}},                       // 500/(4000/1000), not (100+300+50)/3
		{"rate with reset: arithmetic mean", ct.PERF_COUNTER_COUNTER, FmtDouble,
			[]Raw{rate(0, 0), rate(100, 1000), rate(50, 2000), rate(250, 3000)}, // 100, reset, 200
			Stats{Min: 100, Max: 200, Mean: 150, Count: 2}},                     // (100+200)/2
		{"long values", ct.PERF_COUNTER_COUNTER, FmtLong,
			[]Raw{rate(0, 0), rate(1005, 10000), rate(3020, 20000)}, // 100.5 -> 100, 201.5 -> 201
			Stats{Min: 100, Max: 201, Mean: 151, Count: 2}},         // 3020/(20000/1000) = 151
		{"capped", ct.PERF_100NSEC_TIMER, FmtDouble,
			[]Raw{s(0, 0, 0, 0, f100), s(15000000, 0, 0, 10000000, f100), s(20000000, 0, 0, 20000000, f100)}, // 150 -> 100, 50
			Stats{Min: 50, Max: 100, Mean: 100, Count: 2}},                                                   // 100*2e7/2e7 = 100
		{"no samples", ct.PERF_COUNTER_COUNTER, FmtDouble, nil, Stats{Status: NoData}},
		{"one sample of a rate", ct.PERF_COUNTER_COUNTER, FmtDouble, []Raw{rate(1, 1)}, Stats{Status: NewData}},
		{"one sample of a raw", ct.PERF_COUNTER_RAWCOUNT, FmtDouble, []Raw{frac(7, 0)}, Stats{Min: 7, Max: 7, Mean: 7, Count: 1}},
		{"nothing valid", ct.PERF_COUNTER_COUNTER, FmtDouble,
			[]Raw{rate(1, 5), rate(2, 5), rate(3, 5)}, Stats{Status: NegativeTimebase}},
		{"text", ct.PERF_COUNTER_TEXT, FmtDouble, []Raw{frac(1, 1)}, Stats{Status: InvalidData}},
		{"undocumented type", ct.Type(0x00400000), FmtDouble, []Raw{frac(1, 1)}, Stats{Status: InvalidData}},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			got := Statistics(c.t, 0, c.samples, c.opts)
			if got.Status != c.want.Status || got.Count != c.want.Count ||
				!near(got.Min, c.want.Min) || !near(got.Max, c.want.Max) || !near(got.Mean, c.want.Mean) {
				t.Errorf("Statistics = %+v; want %+v", got, c.want)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		s    Status
		name string
		ok   bool
	}{
		{ValidData, "PDH_CSTATUS_VALID_DATA", true},
		{NewData, "PDH_CSTATUS_NEW_DATA", true},
		{NoInstance, "PDH_CSTATUS_NO_INSTANCE", false},
		{NoData, "PDH_NO_DATA", false},
		{NegativeDenominator, "PDH_CALC_NEGATIVE_DENOMINATOR", false},
		{NegativeTimebase, "PDH_CALC_NEGATIVE_TIMEBASE", false},
		{NegativeValue, "PDH_CALC_NEGATIVE_VALUE", false},
		{NoObject, "PDH_CSTATUS_NO_OBJECT", false},
		{NoCounter, "PDH_CSTATUS_NO_COUNTER", false},
		{InvalidData, "PDH_CSTATUS_INVALID_DATA", false},
		{PDHInvalidData, "PDH_INVALID_DATA", false},
		{Status(2), "PDH_STATUS(0x00000002)", false}, // success severity, yet not one of PDH's two data codes
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			if c.s.String() != c.name || c.s.OK() != c.ok {
				t.Errorf("%#x: String %q OK %v", uint32(c.s), c.s.String(), c.s.OK())
			}
		})
	}
	var err error = NegativeValue
	if err.Error() != "calc: PDH_CALC_NEGATIVE_VALUE (0x800007D8)" {
		t.Errorf("Error() = %q", err.Error())
	}
	// Values from winperf-constants.md §6, written independently of the
	// constant block.
	for s, v := range map[Status]uint32{ValidData: 0, NewData: 1, NoInstance: 0x800007D1, NoObject: 0xC0000BB8,
		NoCounter: 0xC0000BB9, InvalidData: 0xC0000BBA, NegativeDenominator: 0x800007D6,
		NegativeTimebase: 0x800007D7, NegativeValue: 0x800007D8, NoData: 0x800007D5} {
		if uint32(s) != v {
			t.Errorf("%v = %#x, want %#x", s, uint32(s), v)
		}
	}
	for o, v := range map[Options]uint32{FmtLong: 0x100, FmtDouble: 0x200, FmtLarge: 0x400, FmtNoScale: 0x1000, Fmt1000: 0x2000, FmtNoCap100: 0x8000} {
		if uint32(o) != v {
			t.Errorf("option %#x, want %#x", uint32(o), v)
		}
	}
}

func FuzzFormat(f *testing.F) {
	// Seeds: the worked examples and the edge cases above.
	f.Add(uint32(25), int8(0), uint16(0x0200), uint64(12558750000), uint64(0), uint64(0), uint64(128315940386596596), uint64(1e7),
		uint64(12665781250), uint64(0), uint64(0), uint64(128315940986148066), uint64(1e7), true)
	f.Add(uint32(13), int8(-3), uint16(0x0100), uint64(2125688), uint64(0), uint64(0), uint64(7178903079), uint64(3579545),
		uint64(2199337), uint64(0), uint64(0), uint64(7393519392), uint64(3579545), true)
	f.Add(uint32(28), int8(2), uint16(0x8600), uint64(0), uint64(0), uint64(2), uint64(0), uint64(3579545),
		uint64(500), uint64(0), uint64(2), uint64(1000), uint64(3579545), true)
	f.Add(uint32(5), int8(10), uint16(0x2400), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0),
		uint64(math.Float64bits(1e300)), uint64(0), uint64(0), uint64(0), uint64(0), false)
	f.Add(uint32(0xFFFFFFFF), int8(-11), uint16(0xFFFF), uint64(math.MaxUint64), uint64(1), uint64(0), uint64(math.MaxUint64), uint64(1),
		uint64(0), uint64(math.MaxUint64), uint64(math.MaxUint64), uint64(0), uint64(math.MaxUint64), true)
	all := ct.All()
	f.Fuzz(func(t *testing.T, sel uint32, scale int8, opts uint16,
		n0, b0, m0, d0, f0, n1, b1, m1, d1, f1 uint64, hasPrev bool) {
		typ := ct.Type(sel)
		if i := int(sel % uint32(len(all)+1)); i < len(all) {
			typ = all[i]
		}
		cur, prev := s(n1, b1, m1, d1, f1), s(n0, b0, m0, d0, f0)
		pp := &prev
		if !hasPrev {
			pp = nil
		}
		o := Options(opts)
		x, st := Compute(typ, &cur, pp)
		if math.IsNaN(x) || math.IsInf(x, 0) || (st != ValidData && x != 0) {
			t.Fatalf("Compute(%v) = %v, %v", typ, x, st)
		}
		v := Format(typ, int32(scale), &cur, pp, o)
		if math.IsNaN(v.Double) || math.IsInf(v.Double, 0) {
			t.Fatalf("Format(%v) = %+v", typ, v)
		}
		if !v.HasValue() && (v.Double != 0 || v.Long != 0 || v.Large != 0) {
			t.Fatalf("Format(%v) = %+v: number without a value", typ, v)
		}
		if v.HasValue() && o&FmtDouble != 0 {
			if typ.Display() == ct.PERF_DISPLAY_PERCENT && o&FmtNoCap100 == 0 {
				hi := 100.0
				if o&FmtNoScale == 0 {
					hi *= math.Pow10(int(scale))
				}
				if o&Fmt1000 != 0 {
					hi *= 1000
				}
				if v.Double < 0 || v.Double > hi*(1+1e-15) {
					t.Fatalf("capped %v = %v outside [0, %v]", typ, v.Double, hi)
				}
			}
			if o&FmtLarge != 0 && v.Large != math.MaxInt64 && v.Large != math.MinInt64 &&
				(math.Abs(v.Double-float64(v.Large)) >= 1 || math.Abs(float64(v.Large)) > math.Abs(v.Double)) {
				t.Fatalf("Large %d is not Double %v truncated", v.Large, v.Double)
			}
			if o&FmtLong != 0 && v.Long != math.MaxInt32 && v.Long != math.MinInt32 &&
				(math.Abs(v.Double-float64(v.Long)) >= 1 || math.Abs(float64(v.Long)) > math.Abs(v.Double)) {
				t.Fatalf("Long %d is not Double %v truncated", v.Long, v.Double)
			}
		}
		st2 := Statistics(typ, int32(scale), []Raw{prev, cur, cur}, o)
		for _, y := range []float64{st2.Min, st2.Max, st2.Mean} {
			if math.IsNaN(y) || math.IsInf(y, 0) {
				t.Fatalf("Statistics(%v) = %+v", typ, st2)
			}
		}
		if st2.Count > 0 && (st2.Mean < st2.Min || st2.Mean > st2.Max) {
			t.Fatalf("Statistics(%v) mean outside [min, max]: %+v", typ, st2)
		}
	})
}

func BenchmarkFormat(b *testing.B) {
	cur := MakeRaw(ct.PERF_100NSEC_TIMER_INV, Clocks{PerfTime100nSec: 128315940986148066}, 12665781250, 0, 0)
	prev := MakeRaw(ct.PERF_100NSEC_TIMER_INV, Clocks{PerfTime100nSec: 128315940386596596}, 12558750000, 0, 0)
	b.ReportAllocs()
	var v Value
	for b.Loop() {
		v = Format(ct.PERF_100NSEC_TIMER_INV, 0, &cur, &prev, FmtDouble)
	}
	if !v.HasValue() {
		b.Fatal(v.Status)
	}
}
