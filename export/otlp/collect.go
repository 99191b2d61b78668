package otlp

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// totalName is the name of the instance that aggregates the others.
const totalName = "_Total"

// walk maps every exported object of the sample (the first block holding
// an object wins, as in pdh) into c. With c nil it only names the generic
// metrics of the sample's counters.
func (e *Exporter) walk(s *pdh.Sample, c *collection) {
	seen := map[uint32]bool{}
	parents := parentNames{s: s}
	next := map[string]cpuPrev{}
	if c != nil {
		c.boot = bootOf(s)
	}
	for _, blk := range s.Blocks {
		h := blk.Header()
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			idx := o.NameIndex()
			sel, ok := e.export[idx]
			if !ok || seen[idx] {
				continue
			}
			seen[idx] = true
			w := objectWalk{
				e: e, c: c, s: s, o: o, sel: sel,
				clocks: calc.Clocks{PerfTime: h.PerfTime, PerfFreq: h.PerfFreq, PerfTime100nSec: h.PerfTime100nSec,
					ObjectTime: o.PerfTime(), ObjectFreq: o.PerfFreq()},
				missing: missingOf(s.Problems, idx, h.SystemName),
				cpuNext: next,
			}
			w.run(&parents)
		}
	}
	if c != nil {
		e.prevCPU = next
	}
}

// missingOf lists the placeholder values of object idx of machine system.
func missingOf(problems []pdh.Problem, idx uint32, system string) []pdh.MissingValues {
	var out []pdh.MissingValues
	for _, p := range problems {
		if p.Object == idx && p.Partial && (p.Machine == "" || strings.EqualFold(p.Machine, system)) {
			out = append(out, p.Missing...)
		}
	}
	return out
}

// objectWalk maps one object of one sample.
type objectWalk struct {
	e       *Exporter
	c       *collection // nil: naming only
	s       *pdh.Sample
	o       perfdata.Object
	sel     *Selection
	clocks  calc.Clocks
	missing []pdh.MissingValues
	cpuNext map[string]cpuPrev
	proc    *procInfo // the Process instance walked, nil for any other

	defs    []perfdata.CounterDef
	byIndex map[uint32]int // title index -> position of the first non-base definition
	generic []genericUse
}

// genericUse is a counter of the object exported by the generic mapping.
type genericUse struct {
	pos int
	m   *genericMetric
}

func (w *objectWalk) run(parents *parentNames) {
	o := w.o
	w.defs = o.AppendCounters(nil)
	w.byIndex = make(map[uint32]int, len(w.defs))
	for i, d := range w.defs {
		if d.Type.IsBase() {
			continue
		}
		if _, ok := w.byIndex[d.NameIndex]; !ok {
			w.byIndex[d.NameIndex] = i
		}
	}
	cov := w.e.covered[o.NameIndex()]
	for i, d := range w.defs {
		if cov[d.NameIndex] && !w.e.opts.GenericAll {
			continue
		}
		if m := w.e.genericFor(o.NameIndex(), d); m != nil {
			w.generic = append(w.generic, genericUse{pos: i, m: m})
		}
	}
	if w.c == nil {
		return
	}
	if o.SingleInstance() {
		w.instance(o.SingleBlock(), -1, "", "", nil)
		return
	}
	type dupKey struct {
		pti, pos uint32
		name     string
	}
	dups := map[dupKey]int{}
	pos := 0
	for it := o.Instances(); it.Next(); pos++ {
		in := it.Instance()
		name := in.Name()
		dk := dupKey{in.ParentObjectTitleIndex(), in.ParentObjectInstance(), name}
		n := dups[dk]
		dups[dk] = n + 1
		if name == totalName && !w.e.opts.Totals {
			continue
		}
		display := name
		if n > 0 {
			display = name + "#" + strconv.Itoa(n)
		}
		if !matchAny(w.sel.Instances, display) {
			continue
		}
		var gattrs []attribute.KeyValue
		gattrs = append(gattrs, attribute.String("perf.instance", display))
		if pti := in.ParentObjectTitleIndex(); pti != 0 {
			gattrs = append(gattrs, attribute.String("perf.parent", parents.name(pti, in.ParentObjectInstance())))
		}
		w.instance(in.Block(), pos, name, display, gattrs)
	}
}

// isMissing reports a placeholder value: counter (title index) of the
// instance at pos (-1: the single instance).
func (w *objectWalk) isMissing(pos int, counter uint32) bool {
	for _, m := range w.missing {
		if m.Instance != pos {
			continue
		}
		if len(m.Counters) == 0 {
			return true
		}
		for _, c := range m.Counters {
			if c == counter {
				return true
			}
		}
	}
	return false
}

// instance maps one instance: the semantic-convention rules of the
// object, then the generic metrics.
func (w *objectWalk) instance(cb perfdata.CounterBlock, pos int, name, display string, gattrs []attribute.KeyValue) {
	w.proc = nil
	if w.o.NameIndex() == objProcess && display != "" {
		w.proc = w.noteProcess(cb, pos, name)
	}
	if rules := w.e.rules[w.o.NameIndex()]; len(rules) > 0 {
		if attrs, ok := w.semconvAttrs(name, display); ok {
			for i := range rules {
				w.rule(&rules[i], cb, pos, name, attrs)
			}
		}
	}
	set := attribute.NewSet(gattrs...)
	for _, g := range w.generic {
		w.genericValue(g, cb, pos, set)
	}
}

// semconvAttrs are the attributes an instance gives every metric of the
// table; ok is false for instances the conventions leave out (_Total,
// Process's Idle).
func (w *objectWalk) semconvAttrs(name, display string) ([]attribute.KeyValue, bool) {
	if name == totalName {
		return nil, false
	}
	if key := w.e.instAttr[w.o.NameIndex()]; key != "" {
		return []attribute.KeyValue{attribute.String(key, display)}, true
	}
	switch w.o.NameIndex() {
	case objProcessor:
		if n, err := strconv.Atoi(name); err == nil {
			return []attribute.KeyValue{attribute.Int("cpu.logical_number", n)}, true
		}
		return nil, true
	case objPhysical:
		return []attribute.KeyValue{attribute.String("system.device", diskDevice(name))}, true
	case objPagingFile:
		return []attribute.KeyValue{attribute.String("system.device", name)}, true
	case objNetwork:
		return []attribute.KeyValue{attribute.String("network.interface.name", name)}, true
	case objProcess:
		if w.proc == nil {
			return nil, false // Idle, or no process id
		}
		return []attribute.KeyValue{attribute.Int64("process.pid", w.proc.pid), attribute.String("process.executable.name", name)}, true
	}
	return nil, true
}

// diskDevice is the device of a PhysicalDisk instance: Windows and our
// Linux object name disks "<n> <device>" (n the disk's number); the
// device is what follows the number.
func diskDevice(name string) string {
	n, dev, ok := strings.Cut(name, " ")
	if !ok || dev == "" {
		return name
	}
	if _, err := strconv.ParseUint(n, 10, 32); err != nil {
		return name
	}
	return dev
}

// rule evaluates one semantic-convention rule for an instance.
func (w *objectWalk) rule(r *rule, cb perfdata.CounterBlock, pos int, name string, iattrs []attribute.KeyValue) {
	var plus, neg uint64
	var first countertype.Type
	for i, tm := range r.terms {
		p, ok := w.byIndex[tm.counter]
		if !ok || w.isMissing(pos, tm.counter) {
			return
		}
		d := w.defs[p]
		if i == 0 {
			first = d.Type
		}
		if tm.base {
			b := w.o.BaseOf(p)
			if b < 0 {
				return
			}
			d = w.defs[b]
		}
		v := cb.Value(d)
		var carry uint64
		if tm.neg {
			neg, carry = bits.Add64(neg, v, 0)
		} else {
			plus, carry = bits.Add64(plus, v, 0)
		}
		if carry != 0 {
			return
		}
	}
	if neg > plus {
		return // inconsistent parts (a torn or foreign sample): no value rather than a wrong one
	}
	v := plus - neg
	attrs := attribute.NewSet(append(append([]attribute.KeyValue(nil), iattrs...), r.attrs...)...)
	switch r.how {
	case howCount:
		if r.scale > 1 {
			hi, lo := bits.Mul64(v, r.scale)
			if hi != 0 {
				return
			}
			v = lo
		}
		if v > math.MaxInt64 {
			return
		}
		w.c.add(r.metric, attrs, int64(v), 0, w.proc)
	case howTime:
		d, f := calc.TimeBase(first, w.clocks)
		if f == 0 || f > math.MaxInt64 {
			return
		}
		sec := float64(v) / float64(f)
		w.c.add(r.metric, attrs, 0, sec, w.proc)
		if r.metric.name == scCPUTime.name && w.e.opts.CPUUtilization {
			w.utilization(name, r.attrs, sec, float64(d)/float64(f), iattrs)
		}
	case howCelsius:
		// Tenths of Kelvin: (v - 2731.5) / 10 degrees, rounded half away
		// from zero.
		c := math.Round((float64(v) - 2731.5) / 10)
		if c > math.MaxInt64 || c < math.MinInt64 {
			return
		}
		w.c.add(r.metric, attrs, int64(c), 0, w.proc)
	case howElapsed:
		d, f := calc.TimeBase(first, w.clocks)
		if f == 0 || f > math.MaxInt64 || v == 0 || v > d {
			return
		}
		w.c.add(r.metric, attrs, 0, float64(d-v)/float64(f), w.proc)
	}
}

// utilization records system.cpu.utilization for one CPU mode: the
// mode's seconds over the clock's seconds since the previous sample.
func (w *objectWalk) utilization(cpu string, mode []attribute.KeyValue, sec, clock float64, iattrs []attribute.KeyValue) {
	key := cpu
	for _, a := range mode {
		key += "\x00" + a.Value.String()
	}
	w.cpuNext[key] = cpuPrev{seconds: sec, clock: clock}
	prev, ok := w.e.prevCPU[key]
	if !ok || clock <= prev.clock || sec < prev.seconds {
		return
	}
	attrs := attribute.NewSet(append(append([]attribute.KeyValue(nil), iattrs...), mode...)...)
	w.c.add(scCPUUtilization, attrs, 0, (sec-prev.seconds)/(clock-prev.clock), nil)
}

// genericValue records a counter's generic metrics for an instance.
func (w *objectWalk) genericValue(g genericUse, cb perfdata.CounterBlock, pos int, attrs attribute.Set) {
	d := w.defs[g.pos]
	if w.isMissing(pos, d.NameIndex) {
		return
	}
	if d.Type.NeedsBase() && w.o.BaseOf(g.pos) < 0 {
		return // a base that does not follow its counter: neither part can be read right
	}
	w.part(g.m.plan.value, g.m.value, d.Type, cb.Value(d), attrs)
	switch {
	case g.m.plan.second == partNone:
	case g.m.plan.multi:
		w.part(g.m.plan.second, g.m.second, d.Type, uint64(cb.Multi(d)), attrs)
	default:
		b := w.o.BaseOf(g.pos)
		if b < 0 || w.isMissing(pos, w.defs[b].NameIndex) {
			return
		}
		w.part(g.m.plan.second, g.m.second, d.Type, cb.Value(w.defs[b]), attrs)
	}
}

// part records one raw value of a counter of type typ.
func (w *objectWalk) part(p part, sp spec, typ countertype.Type, raw uint64, attrs attribute.Set) {
	switch p {
	case partGauge:
		// A 64-bit raw count is signed where providers give it a sign;
		// a DWORD is zero-extended, as PDH shows it.
		w.c.add(sp, attrs, int64(raw), 0, w.proc)
	case partSum:
		if raw > math.MaxInt64 {
			return
		}
		w.c.add(sp, attrs, int64(raw), 0, w.proc)
	case partFloat:
		v := math.Float64frombits(raw)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		w.c.add(sp, attrs, 0, v, w.proc)
	case partTime, partQueue:
		_, f := calc.TimeBase(typ, w.clocks)
		if f == 0 || f > math.MaxInt64 {
			return
		}
		w.c.add(sp, attrs, 0, float64(raw)/float64(f), w.proc)
	case partStartTime:
		d, f := calc.TimeBase(typ, w.clocks)
		if f == 0 || f > math.MaxInt64 || raw == 0 || raw >= d {
			return
		}
		age := float64(d-raw) / float64(f)
		w.c.add(sp, attrs, 0, float64(w.s.Time.UnixNano())/1e9-age, w.proc)
	}
}

// genericFor returns the generic metrics of a counter definition of
// object (nil for types the mapping leaves out), naming them the first
// time the counter is seen.
func (e *Exporter) genericFor(object uint32, d perfdata.CounterDef) *genericMetric {
	p, ok := planOf(d.Type)
	if !ok {
		return nil
	}
	key := genericKey{object: object, counter: d.NameIndex, typ: uint32(d.Type)}
	if m := e.generic[key]; m != nil {
		return m
	}
	db := e.src.Titles()
	base := genericName(db.Name(object), object, db.Name(d.NameIndex), d.NameIndex, d.Type)
	second := ".base"
	if p.items {
		second = ".items"
	}
	// A name taken by another counter (two counters whose names give the
	// same words) gets _2, _3... in the order counters are first seen.
	name := base
	for n := 2; e.taken(name, key) || (p.second != partNone && e.taken(name+second, key)); n++ {
		name = base + "_" + strconv.Itoa(n)
	}
	e.owner[name] = key
	m := &genericMetric{plan: p, value: partSpec(p.value, name, helpText(db.Help(d.HelpIndex), d.Type))}
	if m.value.unit == "" {
		m.value.unit = nameUnit(db.Name(d.NameIndex))
	}
	if p.second != partNone {
		e.owner[name+second] = key
		what := "the denominator of the formatted value"
		if p.items {
			what = "the number of items timed"
		}
		m.second = partSpec(p.second, name+second, "Second part of "+name+" ("+d.Type.String()+"): "+what+".")
	}
	e.generic[key] = m
	return m
}

// taken reports a metric name given to a counter other than key.
func (e *Exporter) taken(name string, key genericKey) bool {
	k, ok := e.owner[name]
	return ok && k != key
}

// partSpec is the metric of a part.
func partSpec(p part, name, desc string) spec {
	sp := spec{name: name, unit: p.unit(), desc: desc}
	switch p {
	case partGauge:
		sp.kind = kindIntGauge
	case partSum:
		sp.kind = kindIntCounter
	case partTime, partQueue:
		sp.kind = kindFloatCounter
	case partFloat, partStartTime:
		sp.kind = kindFloatGauge
	}
	return sp
}

// maxDesc bounds a metric's description (the counter's explain text).
const maxDesc = 1024

// helpText is a counter's description: its explain text, with the type.
func helpText(help string, t countertype.Type) string {
	if len(help) > maxDesc {
		cut := maxDesc
		for cut > 0 && !utf8.RuneStart(help[cut]) {
			cut--
		}
		help = help[:cut] + "..."
	}
	if help == "" {
		return t.String()
	}
	return help + " (" + t.String() + ")"
}

// parentNames finds parent instances' names in a sample.
type parentNames struct {
	s     *pdh.Sample
	names map[uint32][]string
}

// name is the name of instance pos of the object with title index pti,
// or the position in decimal when the sample does not hold it.
func (p *parentNames) name(pti, pos uint32) string {
	if p.names == nil {
		p.names = map[uint32][]string{}
	}
	list, ok := p.names[pti]
	if !ok {
		for _, blk := range p.s.Blocks {
			if o, found := blk.Object(pti); found {
				for it := o.Instances(); it.Next(); {
					list = append(list, it.Instance().Name())
				}
				break
			}
		}
		p.names[pti] = list
	}
	if int64(pos) < int64(len(list)) {
		return list[pos]
	}
	return strconv.FormatUint(uint64(pos), 10)
}
