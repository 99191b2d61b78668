package prom

import (
	"strings"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/export/metricname"
)

// shape is how the default profile exports one counter, beyond what its
// type says (MAPPING.md, "The default profile").
type shape struct {
	skip    bool    // a duplicated scale of another counter of the object
	stem    string  // the counter's name part, when not counterName's
	extra   string  // constant labels of the counter's series (mode="user")
	factor  float64 // raw gauges: multiplied into base units (0: none)
	counter bool    // a raw count that only grows: a counter, not a gauge
	// value, for a fraction a reader wants as a number (a load, a
	// share): the counter is one gauge, its formatted value (as typeperf
	// shows it) times value, instead of its numerator and base.
	value float64
}

// modes are the counters of the CPU time families: one family per
// object, "<object>_time_seconds_total", with the mode as a label, as
// node_exporter's node_cpu_seconds_total and windows_exporter's
// windows_cpu_time_total have it. % Processor Time is not a mode (it is
// the sum of user and privileged time) and keeps its own family.
var modes = map[string]string{
	"% user time":       "user",
	"% privileged time": "privileged",
	"% interrupt time":  "interrupt",
	"% dpc time":        "dpc",
	"% idle time":       "idle",
	// Linux's own shares (package system, issue 45): inside the Windows
	// modes above, as node_exporter names them.
	"% nice time":           "nice",
	"% io wait time":        "iowait",
	"% steal time":          "steal",
	"% guest time":          "guest",
	"% soft interrupt time": "softirq",
}

// modeObjects are the objects whose time counters are modes.
var modeObjects = map[string]bool{"processor": true, "processor information": true, "process": true, "process v2": true}

// unitCounters are counters whose unit is not a base unit and that the
// name does not say (the Linux objects of package system declare them so):
// exported converted, under a name with the base unit.
var unitCounters = map[[2]string]struct {
	stem   string
	factor float64
}{
	{"processor information", "processor frequency"}: {"processor_frequency_hertz", 1e6}, // MHz
	{"power meter", "power"}:                         {"power_watts", 1e-3},              // mW
	// pages: "huge_pages_total" would be a counter's name, not a gauge's
	{"memory", "huge pages total"}: {"huge_pages", 1},
}

// valueCounters are fractions exported as the number they show: the
// System load averages as node_exporter's node_load1 (the load, 0.74),
// Pressure's averages as ratios (avg10=6.80 is 0.068).
var valueCounters = map[[2]string]struct {
	stem  string
	scale float64
}{
	{"system", "load average (1 minute)"}:   {"load1", 1},
	{"system", "load average (5 minutes)"}:  {"load5", 1},
	{"system", "load average (15 minutes)"}: {"load15", 1},
	{"pressure", "% some stall avg10"}:      {"some_stall_avg10_ratio", 0.01},
	{"pressure", "% some stall avg60"}:      {"some_stall_avg60_ratio", 0.01},
	{"pressure", "% some stall avg300"}:     {"some_stall_avg300_ratio", 0.01},
	{"pressure", "% full stall avg10"}:      {"full_stall_avg10_ratio", 0.01},
	{"pressure", "% full stall avg60"}:      {"full_stall_avg60_ratio", 0.01},
	{"pressure", "% full stall avg300"}:     {"full_stall_avg300_ratio", 0.01},
}

// scaleWords are the words of a byte count in a non-base scale, with the
// factor to bytes (2^10 per step, as Windows' KBytes and MBytes are).
var scaleWords = map[string]float64{"kbytes": 1 << 10, "mbytes": 1 << 20, "gbytes": 1 << 30}

// shapeOf is the default profile's shape of counter name (of object obj,
// whose counter names are all) of type t; cumulative says whether the
// source declares the counter a raw count that only grows.
func shapeOf(obj, name string, t ct.Type, all []string, cumulative bool) shape {
	var s shape
	fo, fn := fold(obj), fold(name)
	raw := t == ct.PERF_COUNTER_RAWCOUNT || t == ct.PERF_COUNTER_LARGE_RAWCOUNT
	if m, ok := modes[fn]; ok && modeObjects[fo] && (t == ct.PERF_100NSEC_TIMER || t == ct.PERF_COUNTER_TIMER) {
		s.stem, s.extra = "time", `mode="`+m+`"`
		return s
	}
	if v, ok := valueCounters[[2]string{fo, fn}]; ok && (t == ct.PERF_RAW_FRACTION || t == ct.PERF_LARGE_RAW_FRACTION) {
		s.stem, s.value = v.stem, v.scale
		return s
	}
	if u, ok := unitCounters[[2]string{fo, fn}]; ok && raw {
		s.stem, s.factor = u.stem, u.factor
		return s
	}
	if raw {
		w := metricname.Words(name, nil)
		for i, x := range w {
			f, ok := scaleWords[x]
			if !ok {
				continue
			}
			twin := append(append(append([]string{}, w[:i]...), "bytes"), w[i+1:]...)
			for _, other := range all {
				if strings.Join(metricname.Words(other, nil), "_") == strings.Join(twin, "_") {
					s.skip = true
					return s
				}
			}
			s.stem, s.factor = join(twin), f
			break
		}
		s.counter = cumulative
	}
	return s
}

// labelScheme says how an object's instance names become labels in the
// default profile: the label of the name, and for objects whose names
// hold two things, how to split them.
type labelScheme struct {
	label string // the instance name's label
	// split, when set, cuts a name into labels (label=value pairs)
	// and reports whether it could.
	split func(name string) (pairs [][2]string, ok bool)
	pid   bool // add pid="<ID Process>" and drop the #n of duplicates
}

// schemes are the default profile's labels per object (MAPPING.md);
// other objects keep perf_instance and perf_parent.
var schemes = map[string]labelScheme{
	"processor":             {label: "cpu"},
	"processor information": {label: "core"},
	"physicaldisk":          {label: "device", split: splitDisk},
	"logicaldisk":           {label: "volume"},
	"network interface":     {label: "interface"},
	"network adapter":       {label: "interface"},
	"process":               {label: "process", pid: true},
	"process v2":            {label: "process", split: splitProcessV2},
	"thread":                {label: "thread", pid: true},
	"pressure":              {label: "resource"},
}

// splitDisk cuts Windows' "N NAME" of a physical disk ("0 C:", "0 vda")
// into disk="N" and device="NAME".
func splitDisk(name string) ([][2]string, bool) {
	n, dev, ok := strings.Cut(name, " ")
	if !ok || n == "" || dev == "" || strings.Trim(n, "0123456789") != "" {
		return nil, false
	}
	return [][2]string{{"disk", n}, {"device", dev}}, true
}

// splitProcessV2 cuts Process V2's "name:pid" into process and pid.
func splitProcessV2(name string) ([][2]string, bool) {
	i := strings.LastIndexByte(name, ':')
	if i <= 0 || i == len(name)-1 || strings.Trim(name[i+1:], "0123456789") != "" {
		return nil, false
	}
	return [][2]string{{"process", name[:i]}, {"pid", name[i+1:]}}, true
}
