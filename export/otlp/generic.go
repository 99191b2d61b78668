package otlp

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/export/metricname"
)

// part is how one raw value (a counter's, or its base's) is exported.
type part uint8

const (
	partNone      part = iota
	partGauge          // the raw value as an Int64 gauge (a 64-bit value read as signed)
	partFloat          // PERF_DOUBLE_RAW: the IEEE bits as a Float64 gauge
	partSum            // a count since some start: an Int64 monotonic cumulative sum
	partTime           // a time in the counter's time base: a Float64 monotonic sum in seconds (raw / F)
	partQueue          // a queue length integrated over time: a Float64 monotonic sum of raw / F (length x seconds), no unit
	partStartTime      // PERF_ELAPSED_TIME: the start time as a Float64 gauge, Unix seconds
)

// plan is the generic mapping of one counter type: how its value and its
// second part (the base definition after it, or a multi-timer's item
// count) are exported.
type plan struct {
	value, second part
	// items names the second part ".items" (the number of things a multi
	// timer timed) instead of ".base"; multi reads it from the DWORD after
	// the value (PERF_COUNTER_MULTI_TIMER and PERF_100NSEC_MULTI_TIMER
	// have no base definition).
	items, multi bool
	// inverse marks _INV timers, whose raw value is the time NOT in the
	// named state: the name says so ("_inverse").
	inverse bool
}

// planOf is the generic mapping, from the counter type alone (never from
// names; MAPPING.md has it as a table, the same as export/prom's). ok is
// false for the types that are not exported: bases (exported with the
// counter they serve), text, PERF_COUNTER_NODATA, histograms and types
// winperf does not define.
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
	case countertype.PERF_COUNTER_TIMER, countertype.PERF_100NSEC_TIMER, countertype.PERF_OBJ_TIME_TIMER:
		return plan{value: partTime}, true
	case countertype.PERF_COUNTER_TIMER_INV, countertype.PERF_100NSEC_TIMER_INV:
		return plan{value: partTime, inverse: true}, true
	case countertype.PERF_COUNTER_QUEUELEN_TYPE, countertype.PERF_COUNTER_LARGE_QUEUELEN_TYPE,
		countertype.PERF_COUNTER_100NS_QUEUELEN_TYPE, countertype.PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
		return plan{value: partQueue}, true
	case countertype.PERF_COUNTER_MULTI_TIMER, countertype.PERF_100NSEC_MULTI_TIMER:
		return plan{value: partTime, second: partGauge, items: true, multi: true}, true
	case countertype.PERF_COUNTER_MULTI_TIMER_INV, countertype.PERF_100NSEC_MULTI_TIMER_INV:
		return plan{value: partTime, second: partGauge, items: true, inverse: true}, true
	case countertype.PERF_PRECISION_SYSTEM_TIMER, countertype.PERF_PRECISION_100NS_TIMER,
		countertype.PERF_PRECISION_OBJECT_TIMER:
		// The base is the provider's timestamp in the same time base.
		return plan{value: partTime, second: partTime}, true
	case countertype.PERF_RAW_FRACTION, countertype.PERF_LARGE_RAW_FRACTION:
		return plan{value: partGauge, second: partGauge}, true
	case countertype.PERF_SAMPLE_FRACTION, countertype.PERF_AVERAGE_BULK:
		return plan{value: partSum, second: partSum}, true
	case countertype.PERF_AVERAGE_TIMER:
		return plan{value: partTime, second: partSum}, true
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

// nameUnit is the UCUM unit a counter's name gives a count whose type
// gives none: "By" for a name with the word Bytes (Disk Read Bytes/sec,
// Available Bytes, Bytes Total/sec), "KiBy" and "MiBy" for KBytes and
// MBytes or Megabytes (Windows' kilo- and megabytes are 1024 and 1024²),
// "{packet}" for Packets; "" otherwise (Packets/sec and Bytes/sec both
// count with PERF_COUNTER_BULK_COUNT, so only the name tells), and for a
// percentage, whose value and base are the parts of a ratio.
func nameUnit(counter string) string {
	if strings.HasPrefix(strings.TrimSpace(counter), "%") {
		return "" // a percentage's parts (% Committed Bytes In Use): the fraction is the unit
	}
	for _, w := range strings.FieldsFunc(counter, func(r rune) bool { return !unicode.IsLetter(r) }) {
		switch strings.ToLower(w) {
		case "bytes":
			return "By"
		case "kbytes":
			return "KiBy"
		case "mbytes", "megabytes":
			return "MiBy"
		case "packets":
			return "{packet}"
		}
	}
	return ""
}

// maxNameLen is the OpenTelemetry limit on instrument names.
const maxNameLen = 255

// genericName is the metric name of a counter of the generic mapping:
// "perfc." + the object's words + "." + the counter's words (see words),
// each joined by '_'. Before joining, what the type's display suffix says
// and the export does not show is taken off the counter's words: the word
// "percent" for PERF_DISPLAY_PERCENT types (the metric is the parts, not a
// percentage), a trailing "per seconds" for PERF_DISPLAY_PER_SEC types (the
// metric is the running count; the rate is the backend's). _INV timers end
// in "_inverse", ELAPSED_TIME counters in ".start_time", and a gauge whose
// name ends in a suffix OpenMetrics reserves gets "_value", so that an OTLP
// to Prometheus translation gives export/prom's names. A title that is
// missing gives "object_<index>" or "counter_<index>", one without words
// "unnamed".
func genericName(object string, objIndex uint32, counter string, ctrIndex uint32, t countertype.Type) string {
	o := "object_" + strconv.FormatUint(uint64(objIndex), 10)
	if object != "" {
		o = join(metricname.Words(object, nil))
	}
	c := "counter_" + strconv.FormatUint(uint64(ctrIndex), 10)
	if counter != "" {
		w := metricname.Words(counter, nil)
		switch t.Display() {
		case countertype.PERF_DISPLAY_PERCENT:
			out := w[:0]
			for _, x := range w {
				if x != "percent" {
					out = append(out, x)
				}
			}
			w = out
		case countertype.PERF_DISPLAY_PER_SEC:
			if n := len(w); n >= 2 && w[n-2] == "per" && (w[n-1] == "seconds" || w[n-1] == "second") {
				w = w[:n-2]
			}
		}
		c = join(w)
	}
	name := "perfc." + o + "." + c
	p, _ := planOf(t)
	switch {
	case p.inverse:
		name += "_inverse"
	case t == countertype.PERF_ELAPSED_TIME:
		name += ".start_time"
	case (p.value == partGauge || p.value == partFloat) && hasReservedSuffix(name):
		name += "_value"
	}
	return clip(name)
}

// clip keeps a name within maxNameLen, leaving room for ".items" and a
// "_<n>" to tell apart two counters of one name.
func clip(name string) string {
	const room = len(".items") + len("_4294967295")
	if len(name) > maxNameLen-room {
		name = strings.TrimRight(name[:maxNameLen-room], "_.")
	}
	return name
}

// reservedSuffixes are the name endings OpenMetrics gives a meaning to.
var reservedSuffixes = [...]string{"_total", "_created", "_count", "_sum", "_bucket", "_info", "_gcount", "_gsum"}

func hasReservedSuffix(s string) bool {
	for _, r := range reservedSuffixes {
		if strings.HasSuffix(s, r) {
			return true
		}
	}
	return false
}

func join(w []string) string {
	if len(w) == 0 {
		return "unnamed"
	}
	return strings.Join(w, "_")
}
