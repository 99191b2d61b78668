package prom

import (
	"slices"
	"strconv"
	"strings"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// layout is what an object's counter definitions give the export: one
// family per exported part of every counter, with its names and its
// metadata lines written out. It is kept while the definitions do not
// change.
type layout struct {
	defs     []perfdata.CounterDef
	families []family
	names    []string // the metric names it reserved
}

// family is one exported series family.
type family struct {
	ctr           int // position of the counter's definition
	def           perfdata.CounterDef
	base          perfdata.CounterDef
	hasBase       bool
	multiFromBase bool // MULTI_TIMER_INV: the item count is the base
	part          part
	formatted     bool      // the formatted gauge (Options.Formatted)
	extra         []byte    // constant labels of its series (mode="user"), default profile
	factor        float64   // raw gauges: multiplied into base units (0: none)
	value         float64   // the formatted value's factor, when it is the only gauge (shape.value)
	cont          bool      // a member of the family before it: no TYPE and HELP lines
	sample        []byte    // the metric name of its samples
	header        [2][]byte // TYPE and HELP lines, by Format
}

// layoutOf returns object o's layout, building it when o's definitions
// differ from the last ones seen.
func (col *Collector) layoutOf(db *titles.DB, o perfdata.Object) *layout {
	st := &col.st
	idx := o.NameIndex()
	var defs [64]perfdata.CounterDef
	cur := o.AppendCounters(defs[:0])
	if lay, ok := st.layouts[idx]; ok && slices.Equal(lay.defs, cur) {
		return lay
	}
	if old, ok := st.layouts[idx]; ok {
		for _, n := range old.names {
			delete(st.used, n)
		}
	}
	lay := &layout{defs: slices.Clone(cur)}
	st.layouts[idx] = lay
	col.build(db, idx, lay)
	return lay
}

// pidDef is the definition of the object's "ID Process" counter, if
// it has one.
func (lay *layout) pidDef(db *titles.DB) (perfdata.CounterDef, bool) {
	for _, d := range lay.defs {
		if !d.Type.IsBase() && fold(db.Name(d.NameIndex)) == "id process" {
			return d, true
		}
	}
	return perfdata.CounterDef{}, false
}

// reserve takes names for object idx if none is in use; it reports
// whether it did.
func (col *Collector) reserve(idx uint32, lay *layout, names []string) bool {
	for i, n := range names {
		if _, taken := col.st.used[n]; taken || slices.Contains(names[:i], n) {
			return false
		}
	}
	for _, n := range names {
		col.st.used[n] = idx
	}
	lay.names = append(lay.names, names...)
	return true
}

// build derives the families of object idx from its definitions.
//
// Names: prefix + object words + "_" + counter words (see words and
// counterName) + the part's suffix (+ "_total" for a counter's samples).
// The object part is reserved as "<prefix><object>_" for the object: a
// second object with the same words gets "_2", "_3"... in the order the
// objects are first seen. Within an object, a counter whose names are
// taken (by an earlier counter, in definition order) gets "_2", "_3"...
// after its words.
func (col *Collector) build(db *titles.DB, idx uint32, lay *layout) {
	prefix := col.c.prefix
	obj := objectName(db.Name(idx))
	if db.Name(idx) == "" {
		obj = "object_" + strconv.FormatUint(uint64(idx), 10)
	}
	objKey := "\x00object:" + obj
	for n := 2; ; n++ {
		if owner, taken := col.st.used[objKey]; !taken || owner == idx {
			if !taken {
				col.reserve(idx, lay, []string{objKey})
			} else {
				lay.names = append(lay.names, objKey)
			}
			break
		}
		obj = objectName(db.Name(idx)) + "_" + strconv.Itoa(n)
		objKey = "\x00object:" + obj
	}

	var names []string
	objName := db.Name(idx)
	profile := col.c.profile == ProfileDefault
	var all []string
	if profile {
		for _, d := range lay.defs {
			if !d.Type.IsBase() {
				all = append(all, db.Name(d.NameIndex))
			}
		}
	}
	groups := map[string]bool{} // the mode families' names, taken once for all their members
	for i, d := range lay.defs {
		if d.Type.IsBase() {
			continue
		}
		m, ok := mappingOf(d.Type)
		if !ok {
			continue
		}
		if col.opts.DetailLevel != 0 && d.DetailLevel > col.opts.DetailLevel {
			continue
		}
		f := family{ctr: i, def: d}
		if d.Type.NeedsBase() {
			b := -1
			if i+1 < len(lay.defs) && lay.defs[i+1].Type.IsBase() {
				b = i + 1
			}
			if b < 0 {
				continue // no base: neither part can be read right
			}
			f.base, f.hasBase = lay.defs[b], true
			f.multiFromBase = d.Type == ct.PERF_COUNTER_MULTI_TIMER_INV || d.Type == ct.PERF_100NSEC_MULTI_TIMER_INV
		}
		cname := db.Name(d.NameIndex)
		stem := counterName(cname, d.Type)
		if cname == "" {
			stem = "counter_" + strconv.FormatUint(uint64(d.NameIndex), 10)
		}
		var sh shape
		if profile {
			grows := col.opts.Cumulative != nil && col.opts.Cumulative(objName, cname)
			sh = shapeOf(objName, cname, d.Type, all, grows)
			if sh.skip {
				continue
			}
			if sh.stem != "" {
				stem = sh.stem
			}
			if sh.counter {
				m.parts = []part{{kind: kindCounter, src: srcValue, note: "a raw count that only grows; rate() gives the per-second value"}}
			}
			if m.parts[0].kind == kindCounter && m.parts[0].suffix == "" {
				// "Bytes Total/sec" is bytes_total, not bytes_total_total
				stem = strings.TrimSuffix(stem, "_total")
			}
			f.extra, f.factor = []byte(sh.extra), sh.factor
			if sh.value != 0 {
				// one gauge: the formatted value under the counter's name
				m.parts, m.formatted, f.value = nil, true, sh.value
			}
		}
		base := prefix + obj + "_" + stem
		for n := 2; ; n++ {
			names = names[:0]
			fams := make([]family, 0, len(m.parts)+1)
			for _, p := range m.parts {
				g := f
				g.part = p
				fname := base + p.suffix
				if p.kind == kindGauge && hasReservedSuffix(fname) {
					fname += "_value"
				}
				sample := fname
				if p.kind == kindCounter {
					sample += "_total"
				}
				names = append(names, fname, sample)
				g.sample = []byte(sample)
				g.header = headers(fname, sample, p.kind, familyHelp(db, d, cname, p.note, f.extra))
				fams = append(fams, g)
			}
			if m.formatted {
				g := f
				g.formatted = true
				g.part = part{kind: kindGauge}
				fname, note := base+"_formatted", formattedNote(d.Type)
				if f.value != 0 {
					fname, note = base, valueNote(f.value)
				}
				names = append(names, fname)
				g.sample = []byte(fname)
				g.header = headers(fname, fname, kindGauge, familyHelp(db, d, cname, note, f.extra))
				fams = append(fams, g)
			}
			if len(f.extra) > 0 {
				// A mode family: its first member takes the names, the
				// others join it.
				if groups[base] || col.reserve(idx, lay, uniq(names)) {
					groups[base] = true
					lay.families = append(lay.families, fams...)
					break
				}
			} else if col.reserve(idx, lay, uniq(names)) {
				// A counter and its sample names: "x" and "x_total" are both
				// taken by counter x, so that no gauge can be named x_total.
				lay.families = append(lay.families, fams...)
				break
			}
			base = prefix + obj + "_" + stem + "_" + strconv.Itoa(n)
		}
	}
	gather(lay.families)
}

// gather puts the members of each family that several counters share
// (the modes) together, in the order of their first member, and marks
// the members after the first: they write no TYPE and HELP lines.
func gather(fams []family) {
	first := map[string]int{}
	for i := range fams {
		n := string(fams[i].sample)
		if _, ok := first[n]; !ok {
			first[n] = i
		}
	}
	slices.SortStableFunc(fams, func(a, b family) int {
		return first[string(a.sample)] - first[string(b.sample)]
	})
	for i := range fams {
		fams[i].cont = i > 0 && string(fams[i].sample) == string(fams[i-1].sample)
	}
}

// uniq drops the repeats of a gauge's family and sample name.
func uniq(names []string) []string {
	out := names[:0]
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// helpText is the explain text of a counter (its name when it has none)
// and what the part exports.
func helpText(db *titles.DB, d perfdata.CounterDef, name, note string) string {
	h := db.Help(d.HelpIndex)
	if h == "" {
		h = name
	}
	return h + " [" + d.Type.String() + ": " + note + "]"
}

// familyHelp is helpText, or for a mode family (extra labels) what the
// family holds, since its members are several counters.
func familyHelp(db *titles.DB, d perfdata.CounterDef, name, note string, extra []byte) string {
	if len(extra) == 0 {
		return helpText(db, d, name, note)
	}
	return "Processor time by mode (mode: user = % User Time, privileged = % Privileged Time, interrupt = % Interrupt Time, dpc = % DPC Time, idle = % Idle Time, as the object has them) [" +
		d.Type.String() + ": " + note + "]"
}

// formattedNote says what the formatted gauge of type t is.
// valueNote says what a value family (shape.value) exports.
func valueNote(scale float64) string {
	if scale == 1 {
		return "the value as typeperf shows it, one gauge instead of the numerator and base"
	}
	return "the percentage as typeperf shows it, as a ratio (1 = 100 %), one gauge instead of the numerator and base"
}

func formattedNote(t ct.Type) string {
	s := "the value as perfmon shows it"
	switch t.Display() {
	case ct.PERF_DISPLAY_PERCENT:
		s += ", in percent"
	case ct.PERF_DISPLAY_PER_SEC:
		s += ", per second"
	case ct.PERF_DISPLAY_SECONDS:
		s += ", in seconds"
	}
	return s + ", computed between the last two scrapes as typeperf prints it (no display scale, percentages not capped)"
}

// headers writes the TYPE and HELP lines of a family in both formats.
// OpenMetrics names the family (x for samples x_total); the text format
// names the samples.
func headers(fname, sample string, k metricKind, help string) [2][]byte {
	typ := "gauge"
	if k == kindCounter {
		typ = "counter"
	}
	var h [2][]byte
	t := []byte("# HELP " + sample + " ")
	t = appendHelp(t, help, Text)
	t = append(t, "\n# TYPE "+sample+" "+typ+"\n"...)
	h[Text] = t
	o := []byte("# TYPE " + fname + " " + typ + "\n# HELP " + fname + " ")
	o = appendHelp(o, help, OpenMetrics)
	o = append(o, '\n')
	h[OpenMetrics] = o
	return h
}
