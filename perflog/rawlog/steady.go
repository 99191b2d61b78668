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

// Ref names one value of a sample's Rows: its group (object) and its
// place among the group's values. It names the same counter and instance
// in every sample of the same shape (SameShape).
type Ref struct{ group, cell, counter int32 } // cell -1: no value there

// Stamp gives the sample the time t and the PerfFreq perfFreq that Build
// would be given, and works out what Raw and Complete need: each object's
// clocks (those of the block Build makes), and whether the sample is
// complete. Values set after Stamp need another Stamp.
//
// When r follows a complete sample (Follow) and keeps its shape with
// every value valid, the clocks come from the same places in r's values
// as in that sample's, found again only for a sample of another shape.
func (r *Rows) Stamp(t time.Time, perfFreq int64) {
	if !slices.IsSorted(r.touched) {
		slices.Sort(r.touched) // Build's order of blocks
	}
	ft := perfdata.FileTime(t)
	if p := r.follow; p != nil && p != r && p.complete && r.invalid == 0 && (r.shape == p.shape || r.SameShape(p)) {
		// p complete: no value set twice, no object pdh pairs by
		// value or too large to index; r has its places and its
		// order of values, so the same, and its values are valid.
		r.shape = p.shape
		for _, gi := range r.touched {
			gs := &r.groups[gi]
			gs.src = p.groups[gi].src
			gs.clk = gs.src.clocks(gs, perfFreq, ft)
			gs.none = false
		}
		r.complete, r.partial, r.indexed, r.followed = true, false, false, true
		return
	}
	r.complete, r.indexed, r.followed = true, true, false
	r.partial = r.invalid > 0
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
		set, valid, none := gs.index(nc)
		switch {
		case set != len(gs.cells): // a value set twice
			r.complete, r.partial = false, false
		case none:
			r.complete, gs.none = false, true
		case !valid:
			r.complete, r.partial = false, false
		default:
			answered = true
		}
		gs.src = g.sources(gs)
		gs.clk = gs.src.clocks(gs, perfFreq, ft)
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
			_, reasons := gs.statuses()
			dst = append(dst, r.p.groups[gi].unanswered(reasons))
		}
	}
	return dst
}

// SameShape reports whether r and o hold values of the same counters for
// the same instances, set in the same order: samples whose blocks Build
// makes alike but for the values, so that a Ref of one names the same
// value in the other.
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
			if a.cells[k].inst != b.cells[k].inst || a.cells[k].counter != b.cells[k].counter {
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
	if !r.indexed {
		gs.index(len(g.counters)) // Stamp took the short way
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
			ref := Ref{group: int32(gi), cell: -1, counter: int32(ci)}
			if i >= 0 {
				ref.cell = gs.at[i*len(g.counters)+ci]
			}
			return ref, true
		}
	}
	return Ref{}, false
}

// Raw returns the value at ref as pdh reads it from Build's block
// (calc.Raw, with the clocks Stamp worked out) and its counter's type.
func (r *Rows) Raw(ref Ref) (calc.Raw, countertype.Type) {
	gs := &r.groups[ref.group]
	gc := &r.p.groups[ref.group].counters[ref.counter]
	if ref.cell < 0 {
		return calc.Raw{Status: calc.NoData}, gc.typ
	}
	c := &gs.cells[ref.cell]
	raw := calc.Raw{FirstValue: uint64(c.v.First)}
	switch {
	case gc.multiBase:
		raw.SecondValue = uint64(c.v.Multi)
		raw.MultiCount = raw.SecondValue
	case gc.base >= 0:
		raw.SecondValue = uint64(c.v.Second)
	case gc.typ.Multi():
		raw.MultiCount = uint64(c.v.Multi)
	}
	raw.Time, raw.Freq = calc.TimeBase(gc.typ, gs.clk)
	return raw, gc.typ
}
