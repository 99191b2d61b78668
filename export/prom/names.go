package prom

import (
	"strconv"
	"strings"
	"unicode"

	ct "github.com/perfcounters/perfcounters/countertype"
)

// abbreviations are the words Prometheus' naming rules (promtool check
// metrics) refuse in a metric name, with the word written instead: unit
// abbreviations ("sec", "ms", "kb") and units that are not base units
// ("megabytes", "milliseconds", "minutes"). The values are not converted:
// a counter named in megabytes holds megabytes (its type does not say
// so), and its name keeps saying it, in words the rules accept.
var abbreviations = map[string]string{
	"s": "seconds", "sec": "seconds", "secs": "seconds",
	"ms": "msec", "us": "usec", "ns": "nsec",
	"milliseconds": "msec", "microseconds": "usec", "nanoseconds": "nsec",
	"minutes": "mins", "hours": "hrs", "days": "dys", "weeks": "wks",
	"b": "byte", "kb": "kbytes", "mb": "mbytes", "gb": "gbytes", "tb": "tbytes", "pb": "pbytes",
	"kilobytes": "kbytes", "megabytes": "mbytes", "gigabytes": "gbytes", "terabytes": "tbytes", "petabytes": "pbytes",
	"kibibytes": "kibytes", "mebibytes": "mibytes", "gibibytes": "gibytes", "tebibytes": "tibytes", "pebibytes": "pibytes",
	"bits": "bit", "kilobits": "kbit", "megabits": "mbit", "gigabits": "gbit",
	"m": "m_", "h": "h_", "d": "d_",
}

// words splits a Windows object or counter name into the lowercase words
// of a metric name:
//
//   - ASCII letters and digits form words; a lowercase letter or digit
//     followed by an uppercase letter starts a new word ("PhysicalDisk" ->
//     physical, disk);
//   - '%' is the word "percent" and '/' the word "per", '#' the word
//     "number" (other punctuation and spaces only separate words);
//   - other letters and digits (localized names) are the word "u" followed
//     by their code point in hex, so that distinct names stay distinct;
//   - words Prometheus' naming rules take for unit abbreviations ("sec",
//     "ms", "kb", ...) are spelled out (see abbreviations).
func words(s string, dst []string) []string {
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			dst = append(dst, string(cur))
			cur = cur[:0]
		}
	}
	prevLowerOrDigit := false
	for _, r := range s {
		switch {
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9'):
			cur = append(cur, byte(r))
			prevLowerOrDigit = true
		case r >= 'A' && r <= 'Z':
			if prevLowerOrDigit {
				flush()
			}
			cur = append(cur, byte(r-'A'+'a'))
			prevLowerOrDigit = false
		case r == '%':
			flush()
			dst = append(dst, "percent")
			prevLowerOrDigit = false
		case r == '/':
			flush()
			dst = append(dst, "per")
			prevLowerOrDigit = false
		case r == '#':
			flush()
			dst = append(dst, "number")
			prevLowerOrDigit = false
		case r >= 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			flush()
			dst = append(dst, "u"+strconv.FormatInt(int64(r), 16))
			prevLowerOrDigit = false
		default:
			flush()
			prevLowerOrDigit = false
		}
	}
	flush()
	for i, w := range dst {
		if a, ok := abbreviations[w]; ok {
			dst[i] = strings.TrimSuffix(a, "_")
			if strings.HasSuffix(a, "_") {
				// single letters (m, h, d): kept, joined to the previous word
				// so that they are no longer a word of their own
				if i > 0 {
					dst[i-1] += dst[i]
					dst[i] = ""
				} else {
					dst[i] += "x"
				}
			}
		}
	}
	out := dst[:0]
	for _, w := range dst {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// objectName is the metric-name part of an object name.
func objectName(name string) string {
	return join(words(name, nil))
}

// counterName is the metric-name part of a counter name: its words, less
// what the counter's display suffix says and the export does not show:
// a "percent" word where the type displays a percentage (the export is a
// time or a count, never a percentage), and a trailing "per sec(ond)"
// where the type displays a rate per second (the export is the running
// count, of which rate() is the per-second value).
func counterName(name string, t ct.Type) string {
	w := words(name, nil)
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
