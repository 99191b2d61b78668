package rawlog

import (
	"slices"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// A log of listed counters mostly repeats itself: sample after sample,
// the same counters of the same instances, every value valid. For such
// samples a reader need not rebuild blocks for pdh to compute from: once
// pdh has computed one sample from Build's blocks and told where each of
// its items lies in them (pdh.Counter.AppendOrigins), Ref turns each
// origin into the value that was put there, and the next samples of the
// same shape are computed from their Rows directly (Raw, calc.Compute),
// with the clocks Build would have given their blocks (Stamp). The values
// are those pdh computes from the blocks: the same raw values, the same
// clocks, the same pairing of each instance with its previous sample's.

// Ref names one value of a sample's Rows: its group (object), its place
// among the values set (-1: no value there), and what Raw needs to read
// it: its counter's type and what the counter's base holds, and where its
// block's clocks come from. It names the same counter and instance, and
// the same sources of clocks, in every sample of the same shape
// (SameShape) whose values of the object are valid.
type Ref struct {
	group  int32
	at     int32
	typ    countertype.Type
	second secondKind
	time   timeSource
}

// secondKind is what calc.Raw's SecondValue and MultiCount are made of.
type secondKind uint8

const (
	secondNone      secondKind = iota
	secondMultiBase            // a PERF_COUNTER_MULTI_BASE base: the value's Multi, for both
	secondBase                 // a base: the value's Second
	secondMulti                // a _MULTI_ type without a base: MultiCount is Multi
)

// Stamp gives the sample the time t and the PerfFreq perfFreq that Build
// would be given, and works out what Ref, Raw and Complete need: where
// each object's clocks come from (the values that give the clocks of the
// block Build makes), and whether the sample is complete. Values set
// after Stamp need another Stamp.
//
// When r follows a complete sample (Follow) and keeps its shape with
// every value valid, the clocks come from the same places in r's values
// as in that sample's, found again only for a sample of another shape.
// A Ref carries where its value's clock comes from: Raw reads it from the
// Rows it is given, so a Ref serves every sample of its shape.
func (r *Rows) Stamp(t time.Time, perfFreq int64) {
	if r.unsorted {
		slices.Sort(r.touched) // Build's order of blocks
		r.unsorted = false
	}
	r.perfFreq, r.t100 = perfFreq, perfdata.FileTime(t)
	if p := r.follow; p != nil && p != r && p.complete && r.invalid == 0 && (r.shape == p.shape || r.SameShape(p)) {
		// p complete: no value set twice, no object pdh pairs by
		// value or too large to index; r has its places and its
		// order of values, so the same, and its values are valid.
		// Its clocks come from the same cells as p's: p's sources,
		// never written once made, serve r too.
		r.shape, r.srcs = p.shape, p.srcs
		if r.anyNone {
			for _, gi := range r.touched {
				r.groups[gi].none = false
			}
			r.anyNone = false
		}
		r.complete, r.partial, r.indexed, r.followed = true, false, false, true
		return
	}
	r.complete, r.indexed, r.followed = true, true, false
	r.partial = r.invalid > 0
	r.anyNone = false
	// New sources, not r's last: a sample that followed r may share those.
	r.srcs = make([]clockSources, len(r.groups))
	for gi := range r.srcs {
		r.srcs[gi] = noSources()
	}
	answered := false
	for _, gi := range r.touched {
		g := r.p.groups[gi]
		gs := &r.groups[gi]
		nc := len(g.counters)
		gs.none = false
		if g.indirect || len(gs.instances)*nc > maxCells {
			r.complete, r.partial, r.indexed = false, false, false
			continue
		}
		set, valid, none := gs.index(nc, r.vals)
		switch {
		case set != len(gs.cells): // a value set twice
			r.complete, r.partial = false, false
		case none:
			r.complete, gs.none, r.anyNone = false, true, true
		case !valid:
			r.complete, r.partial = false, false
		default:
			answered = true
		}
		r.srcs[gi] = g.sources(gs, r.vals)
	}
	r.partial = r.partial && answered
}

// Follow tells r's Stamp that r holds the sample after p's (nil: none
// known): a sample that keeps p's shape takes its clocks from where p's
// came from. p must be stamped again when it changes; Stamp checks the
// shape, so a p of another sample costs only the check.
func (r *Rows) Follow(p *Rows) { r.follow = p }

// Followed reports whether Stamp found r complete in the shape of the
// sample it follows.
func (r *Rows) Followed() bool { return r.followed }

// Complete reports, after Stamp, a sample whose blocks Build makes with
// no Problem but values missing, and whose instances pdh pairs with the
// previous sample's by name: every value valid, none set twice, and no
// object with a counter that identifies its instances by value
// (pdh.IdentifiesInstances). Values missing (an instance without a value
// of every counter of its object, an instance number skipped) are
// missing alike in every sample of the same shape, with the same
// Problem.
func (r *Rows) Complete() bool { return r.complete }

// Unanswered reports, after Stamp, a sample that is complete (Complete)
// but for objects none of whose values is valid, as when a machine did
// not answer, at least one object having valid values. Build makes no
// block of such an object, only a Problem (AppendUnanswered), and pdh
// then keeps, for the object's counters, the values of the last sample
// that had the object: the sample after pairs with those. Left reports
// which values are of such an object.
func (r *Rows) Unanswered() bool { return r.partial }

// Left reports, after Stamp, whether the value at ref is of an object
// with no valid value in the sample, one that Build leaves out.
func (r *Rows) Left(ref Ref) bool { return r.groups[ref.group].none }

// AppendUnanswered appends to dst the Problems Build gives for the
// objects of an Unanswered sample that it leaves out, in Build's order.
func (r *Rows) AppendUnanswered(dst []pdh.Problem) []pdh.Problem {
	for _, gi := range r.touched {
		if gs := &r.groups[gi]; gs.none {
			_, reasons := gs.statuses(r.vals)
			dst = append(dst, r.p.groups[gi].unanswered(reasons))
		}
	}
	return dst
}

// SameShape reports whether r and o hold values of the same counters for
// the same instances, set in the same order (the order of the objects'
// values among each other too): samples whose blocks Build makes alike
// but for the values, so that a Ref of one names the same value in the
// other.
func (r *Rows) SameShape(o *Rows) bool {
	if r.p != o.p || r.n != o.n || !slices.Equal(r.touched, o.touched) {
		return false
	}
	for _, gi := range r.touched {
		a, b := &r.groups[gi], &o.groups[gi]
		if len(a.cells) != len(b.cells) || !slices.Equal(a.instances, b.instances) {
			return false
		}
		for k := range a.cells {
			if a.cells[k] != b.cells[k] {
				return false
			}
		}
	}
	return true
}

// Ref returns the value that Build puts at o in the blocks it makes of a
// complete sample (Stamp first), or the missing value there (Raw then
// has calc.NoData): o.Block counts Build's blocks (the sample's other
// blocks, if any, must not come before them). ok is false where o is not
// a counter's value in Build's blocks.
func (r *Rows) Ref(o pdh.Origin) (ref Ref, ok bool) {
	if !r.complete || o.Block < 0 || o.Block >= len(r.touched) {
		return Ref{}, false
	}
	gi := r.touched[o.Block]
	g := r.p.groups[gi]
	gs := &r.groups[gi]
	if gi >= len(r.srcs) {
		return Ref{}, false
	}
	if !r.indexed {
		gs.index(len(g.counters), r.vals) // Stamp took the short way
	}
	i := 0
	switch {
	case g.single && o.Instance == -1:
	case g.single || o.Instance < 0:
		return Ref{}, false
	default:
		insts := arrange(gs.instances)
		if o.Instance >= len(insts) {
			return Ref{}, false
		}
		i = insts[o.Instance].src // -1: a placeholder, no value
	}
	for ci := range g.counters {
		if g.counters[ci].def == o.Definition {
			k := int32(-1)
			if i >= 0 {
				k = gs.at[i*len(g.counters)+ci]
			}
			return r.ref(gi, ci, k), true
		}
	}
	return Ref{}, false
}

// ref is the Ref of counter ci of group gi at cell k of the group (-1:
// none), once Stamp found the group's sources of clocks.
func (r *Rows) ref(gi, ci int, k int32) Ref {
	gc := &r.p.groups[gi].counters[ci]
	ref := Ref{group: int32(gi), at: -1, typ: gc.typ, time: r.srcs[gi].timeOf(gc.typ)}
	if k >= 0 {
		ref.at = r.groups[gi].cells[k].at
	}
	switch {
	case gc.multiBase:
		ref.second = secondMultiBase
	case gc.base >= 0:
		ref.second = secondBase
	case gc.typ.Multi():
		ref.second = secondMulti
	}
	return ref
}

// Raw returns the value at ref as pdh reads it from Build's block
// (calc.Raw, its clocks those of r's values where ref says they come
// from, else the time and PerfFreq Stamp was given) and its counter's
// type.
func (r *Rows) Raw(ref Ref) (calc.Raw, countertype.Type) {
	var raw calc.Raw
	r.raw(&raw, &ref)
	return raw, ref.typ
}

// Raws sets dst[i] to the value at refs[i], as Raw gives it, for each i
// below the shorter's length: a sample's values read in one call.
func (r *Rows) Raws(dst []calc.Raw, refs []Ref) {
	for i := range min(len(dst), len(refs)) {
		r.raw(&dst[i], &refs[i])
	}
}

func (r *Rows) raw(d *calc.Raw, ref *Ref) {
	if ref.at < 0 || int(ref.at) >= len(r.vals) {
		*d = calc.Raw{Status: calc.NoData}
		return
	}
	v := &r.vals[ref.at]
	*d = calc.Raw{FirstValue: uint64(v.First)}
	switch ref.second {
	case secondMultiBase:
		d.SecondValue = uint64(v.Multi)
		d.MultiCount = d.SecondValue
	case secondBase:
		d.SecondValue = uint64(v.Second)
	case secondMulti:
		d.MultiCount = uint64(v.Multi)
	}
	// calc.TimeBase(ref.typ, the clocks of the sources Ref was made
	// with), reading only the clock the type's time base takes.
	ts := &ref.time
	switch {
	case ts.at >= 0 && int(ts.at) < len(r.vals):
		d.Time = uint64(r.vals[ts.at].Second)
	case ts.sampleTime:
		d.Time = uint64(r.t100)
	}
	d.Freq = ts.freq
	if ts.sampleFreq {
		d.Freq = uint64(r.perfFreq)
	}
}

// timeSource is where Raw finds a value's time and frequency: what
// calc.TimeBase picks for a counter type from the clocks a group's
// sources give (clockSources.clocks).
type timeSource struct {
	at         int32 // the value whose Second is the time; -1: none
	sampleTime bool  // with none, the sample's PerfTime100nSec (else 0)
	sampleFreq bool  // the frequency is the sample's PerfFreq (else freq)
	freq       uint64
}

// timeOf is the timeSource of a counter of type t whose group's clocks
// come from src.
func (src *clockSources) timeOf(t countertype.Type) timeSource {
	switch t.TimeBase() {
	case countertype.PERF_TIMER_100NS:
		_, f := calc.TimeBase(t, calc.Clocks{}) // FILETIME units: a constant
		return timeSource{at: src.t100, sampleTime: true, freq: f}
	case countertype.PERF_OBJECT_TIMER:
		return timeSource{at: src.obj, freq: uint64(src.objFreq)}
	}
	return timeSource{at: src.tick, sampleFreq: !src.freqSet, freq: uint64(src.freq)}
}
