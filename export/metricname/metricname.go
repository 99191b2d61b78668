// Package metricname owns the words of the metric names that exports make
// of Windows object and counter names (export/prom's OpenMetrics names,
// export/otlp's generic OpenTelemetry names): one rule, so that every
// export names a counter alike.
package metricname

import (
	"strconv"
	"unicode"
)

// spelled are the words written differently in metric names: unit
// abbreviations and units that are not base units, spelled as
// Prometheus' naming rules accept them (one rule for every export, so that all
// name a counter alike). Values are never converted: a counter in
// megabytes stays in megabytes and its name says "mbytes". The single
// letters m, h and d are joined to the word before them ("mx" when first).
func spelled(w string) (string, bool) {
	switch w {
	case "s", "sec", "secs":
		return "seconds", false
	case "ms", "milliseconds":
		return "msec", false
	case "us", "microseconds":
		return "usec", false
	case "ns", "nanoseconds":
		return "nsec", false
	case "minutes":
		return "mins", false
	case "hours":
		return "hrs", false
	case "days":
		return "dys", false
	case "weeks":
		return "wks", false
	case "b":
		return "byte", false
	case "kb", "kilobytes":
		return "kbytes", false
	case "mb", "megabytes":
		return "mbytes", false
	case "gb", "gigabytes":
		return "gbytes", false
	case "tb", "terabytes":
		return "tbytes", false
	case "pb", "petabytes":
		return "pbytes", false
	case "kibibytes":
		return "kibytes", false
	case "mebibytes":
		return "mibytes", false
	case "gibibytes":
		return "gibytes", false
	case "tebibytes":
		return "tibytes", false
	case "pebibytes":
		return "pibytes", false
	case "bits":
		return "bit", false
	case "kilobits":
		return "kbit", false
	case "megabits":
		return "mbit", false
	case "gigabits":
		return "gbit", false
	case "m", "h", "d":
		return w, true
	}
	return w, false
}

// Words appends to dst the words of a metric name made of an object or
// counter name, and returns the extended slice. It splits the name into the lowercase words of a
// metric name: ASCII letters and digits form words, and a lowercase
// letter or digit followed by an uppercase letter starts a new one
// ("PhysicalDisk": physical, disk); '%' is the word "percent", '/'
// "per", '#' "number"; other punctuation and blanks only separate words;
// any other letter or digit (a localized name) is the word "u" and its
// code point in hex, so distinct names stay distinct. Then spelled
// rewrites unit words.
func Words(s string, dst []string) []string {
	out := dst
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	lowerOrDigit := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			cur = append(cur, byte(r))
			lowerOrDigit = true
			continue
		case r >= 'A' && r <= 'Z':
			if lowerOrDigit {
				flush()
			}
			cur = append(cur, byte(r-'A'+'a'))
		case r == '%':
			flush()
			out = append(out, "percent")
		case r == '/':
			flush()
			out = append(out, "per")
		case r == '#':
			flush()
			out = append(out, "number")
		case r >= 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			flush()
			out = append(out, "u"+strconv.FormatInt(int64(r), 16))
		default:
			flush()
		}
		lowerOrDigit = false
	}
	flush()
	kept := out[:len(dst)]
	for _, w := range out[len(dst):] {
		sp, glue := spelled(w)
		switch {
		case !glue:
			kept = append(kept, sp)
		case len(kept) > len(dst):
			kept[len(kept)-1] += sp
		default:
			kept = append(kept, sp+"x")
		}
	}
	return kept
}
