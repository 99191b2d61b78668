package otlp

import (
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/countertype"
)

// part is how one raw value (a counter's, or its base's) is exported.
type part uint8

const (
	partNone      part = iota
	partGauge          // the raw value as an Int64 gauge
	partFloat          // PERF_DOUBLE_RAW: the IEEE bits as a Float64 gauge
	partSum            // a count since some start: an Int64 monotonic cumulative sum
	partTime           // a time in the counter's time base: a Float64 monotonic sum in seconds (raw / F)
	partStartTime      // PERF_ELAPSED_TIME: the start time as a Float64 gauge, Unix seconds
)

// plan is the generic mapping of one counter type: how its value and its
// base (for the types with a base definition) are exported.
type plan struct {
	value, base part
}

// planOf is the generic mapping, from the counter type alone (never from
// names; MAPPING.md has it as a table). ok is false for the types that
// are not exported: bases (exported with the counter they serve), text,
// PERF_COUNTER_NODATA, histograms and types winperf does not define.
func planOf(t countertype.Type) (p plan, ok bool) {
	switch t {
	case countertype.PERF_COUNTER_RAWCOUNT, countertype.PERF_COUNTER_LARGE_RAWCOUNT,
		countertype.PERF_COUNTER_RAWCOUNT_HEX, countertype.PERF_COUNTER_LARGE_RAWCOUNT_HEX:
		return plan{value: partGauge}, true
	case countertype.PERF_DOUBLE_RAW:
		return plan{value: partFloat}, true
	case countertype.PERF_COUNTER_COUNTER, countertype.PERF_COUNTER_BULK_COUNT,
		countertype.PERF_COUNTER_DELTA, countertype.PERF_COUNTER_LARGE_DELTA,
		countertype.PERF_SAMPLE_COUNTER:
		return plan{value: partSum}, true
	case countertype.PERF_COUNTER_TIMER, countertype.PERF_100NSEC_TIMER, countertype.PERF_OBJ_TIME_TIMER,
		countertype.PERF_COUNTER_TIMER_INV, countertype.PERF_100NSEC_TIMER_INV,
		countertype.PERF_COUNTER_MULTI_TIMER, countertype.PERF_100NSEC_MULTI_TIMER,
		// Queue-length types accumulate the queue length times the
		// time base: their time integral (request-seconds).
		countertype.PERF_COUNTER_QUEUELEN_TYPE, countertype.PERF_COUNTER_LARGE_QUEUELEN_TYPE,
		countertype.PERF_COUNTER_100NS_QUEUELEN_TYPE, countertype.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
		return plan{value: partTime}, true
	case countertype.PERF_COUNTER_MULTI_TIMER_INV, countertype.PERF_100NSEC_MULTI_TIMER_INV:
		// The base is the number of items timed (processors, disks).
		return plan{value: partTime, base: partGauge}, true
	case countertype.PERF_PRECISION_SYSTEM_TIMER, countertype.PERF_PRECISION_100NS_TIMER,
		countertype.PERF_PRECISION_OBJECT_TIMER:
		// The base is the provider's timestamp in the same time base.
		return plan{value: partTime, base: partTime}, true
	case countertype.PERF_RAW_FRACTION, countertype.PERF_LARGE_RAW_FRACTION:
		return plan{value: partGauge, base: partGauge}, true
	case countertype.PERF_SAMPLE_FRACTION, countertype.PERF_AVERAGE_BULK:
		return plan{value: partSum, base: partSum}, true
	case countertype.PERF_AVERAGE_TIMER:
		return plan{value: partTime, base: partSum}, true
	case countertype.PERF_ELAPSED_TIME:
		return plan{value: partStartTime}, true
	}
	return plan{}, false
}

// unit is the UCUM unit of a part: seconds for times; counts and raw
// numbers carry none, as the type does not say what they count.
func (p part) unit() string {
	if p == partTime || p == partStartTime {
		return "s"
	}
	return ""
}

// maxNameLen is the OpenTelemetry limit on instrument names.
const maxNameLen = 255

// genericName is the metric name of a counter of the generic mapping:
// "perfc." + the object's name + "." + the counter's name, each lowered
// with every run of characters other than a-z and 0-9 turned into one
// '_'. Before that the display suffix the type implies is taken off the
// counter's name: a trailing "/sec" for PERF_DISPLAY_PER_SEC types (the
// metric is the cumulative count, the rate is the backend's), a leading
// "%" for PERF_DISPLAY_PERCENT types (the metric is the parts, not the
// percentage). An empty part is replaced by the title index. ELAPSED_TIME
// counters end in ".start_time" (the value is when the thing started),
// bases get ".base".
func genericName(object string, objIndex uint32, counter string, ctrIndex uint32, t countertype.Type) string {
	switch t.Display() {
	case countertype.PERF_DISPLAY_PER_SEC:
		if n := len(counter); n >= 4 && strings.EqualFold(counter[n-4:], "/sec") {
			counter = counter[:n-4]
		}
	case countertype.PERF_DISPLAY_PERCENT:
		counter = strings.TrimPrefix(strings.TrimSpace(counter), "%")
	}
	o := sanitize(object)
	if o == "" {
		o = "object_" + strconv.FormatUint(uint64(objIndex), 10)
	}
	c := sanitize(counter)
	if c == "" {
		c = "counter_" + strconv.FormatUint(uint64(ctrIndex), 10)
	}
	name := "perfc." + o + "." + c
	if t == countertype.PERF_ELAPSED_TIME {
		name += ".start_time"
	}
	return clip(name)
}

// clip keeps a name within maxNameLen, leaving room for ".base" and a
// "_<index>" to tell apart two counters of one name.
func clip(name string) string {
	const room = len(".base") + len("_4294967295")
	if len(name) > maxNameLen-room {
		name = strings.TrimRight(name[:maxNameLen-room], "_.")
	}
	return name
}

// sanitize lowers s and turns every run of characters other than a-z and
// 0-9 into one '_', trimmed at both ends.
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	under := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteByte(c)
			continue
		}
		under = true
	}
	return b.String()
}
