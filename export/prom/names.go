package prom

import (
	"strings"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/export/metricname"
)

// objectName is the metric-name part of an object name.
func objectName(name string) string {
	return join(metricname.Words(name, nil))
}

// counterName is the metric-name part of a counter name: its words, less
// what the counter's display suffix says and the export does not show:
// a "percent" word where the type displays a percentage (the export is a
// time or a count, never a percentage), and a trailing "per sec(ond)"
// where the type displays a rate per second (the export is the running
// count, of which rate() is the per-second value).
func counterName(name string, t ct.Type) string {
	w := metricname.Words(name, nil)
	if t.Display() == ct.PERF_DISPLAY_PERCENT {
		out := w[:0]
		for _, x := range w {
			if x != "percent" {
				out = append(out, x)
			}
		}
		w = out
	}
	if t.Display() == ct.PERF_DISPLAY_PER_SEC {
		if n := len(w); n >= 2 && w[n-2] == "per" && (w[n-1] == "seconds" || w[n-1] == "second") {
			w = w[:n-2]
		}
	}
	return join(w)
}

func join(w []string) string {
	s := strings.Join(w, "_")
	if s == "" {
		return "unnamed"
	}
	return s
}

// reservedSuffixes are the name endings OpenMetrics gives a meaning to;
// a gauge whose name ends in one gets "_value" appended.
var reservedSuffixes = []string{"_total", "_created", "_count", "_sum", "_bucket", "_info", "_gcount", "_gsum"}

func hasReservedSuffix(s string) bool {
	for _, r := range reservedSuffixes {
		if strings.HasSuffix(s, r) {
			return true
		}
	}
	return false
}
