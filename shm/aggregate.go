package shm

import "github.com/perfcounters/perfcounters/counterset"

// TotalInstanceName is the name of the instance a consumer adds to an
// aggregate set (multipleAggregate), as Windows' _Total.
const TotalInstanceName = "_Total"

// Aggregate combines rows of raw values of one counter set into a single
// row, counter by counter, with each counter's aggregate function: sum,
// average (integer, rounded down), minimum or maximum; a counter whose
// function is undefined yields 0. Consumers call it for aggregate sets:
// for globalAggregate (and globalAggregateHistory) sets the result is the
// set's only row, formed from the single instance of every provider; for
// multipleAggregate sets it is the _Total instance, formed from every
// instance of every provider. No rows yield all zeros. dst is reused when
// it is long enough.
func Aggregate(dst []uint64, set *counterset.Set, rows [][]uint64) []uint64 {
	n := len(set.Counters)
	if cap(dst) < n {
		dst = make([]uint64, n)
	}
	dst = dst[:n]
	for c := range set.Counters {
		var v uint64
		fn := set.Counters[c].Aggregate
		for i, r := range rows {
			if c >= len(r) {
				continue
			}
			x := r[c]
			switch {
			case i == 0 && (fn == counterset.AggregateMin || fn == counterset.AggregateMax):
				v = x
			case fn == counterset.AggregateTotal || fn == counterset.AggregateAvg:
				v += x
			case fn == counterset.AggregateMin:
				v = min(v, x)
			case fn == counterset.AggregateMax:
				v = max(v, x)
			}
		}
		if fn == counterset.AggregateAvg && len(rows) > 0 {
			v /= uint64(len(rows))
		}
		if set.Counters[c].ValueSize() == 4 {
			v &= 0xFFFFFFFF
		}
		dst[c] = v
	}
	return dst
}
