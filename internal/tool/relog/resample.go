package relog

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/titles"
)

// everyNth is its source's samples 0, n, 2n, ...: a recorded source of its
// own (positions count the samples it keeps), so nothing that asks it what
// it can do gets the wrong answer.
//
// Raw values need nothing more: pdh computes a rate between two kept
// samples from their raw values exactly as over any two samples. A value
// that is already formatted (PERF_DOUBLE_RAW: read from a CSV or TSV
// log) cannot be recomputed over the longer interval; for those counters
// the kept sample p carries the average of the counter's values in the
// samples p-n+1..p it stands for (blank values left out; all blank gives
// a blank), which is what the rate over that interval is when the
// samples are evenly spaced. Other counters of the same sample (inputs
// of mixed formats merged) keep their raw values.
type everyNth struct {
	src    pdh.Source
	rec    pdh.Recorded
	n      int
	warn   func(string) // told once that formatted values are averaged
	warned bool
}

func (e *everyNth) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	p := e.rec.Pos()
	s, err := e.src.Sample(ctx, objects)
	if err != nil {
		return nil, err
	}
	if hasFormatted(s) {
		e.tell(s)
		if p > 0 {
			if s, err = e.average(ctx, objects, s, p); err != nil {
				return nil, err
			}
		}
	}
	// Skip to the next kept sample; past the end, Pos stays at Len.
	return s, e.rec.Seek(min(p+e.n, e.rec.Len()))
}

func (e *everyNth) Titles() *titles.DB     { return e.src.Titles() }
func (e *everyNth) Recorded() pdh.Recorded { return e }
func (e *everyNth) Len() int               { return (e.rec.Len() + e.n - 1) / e.n }
func (e *everyNth) Pos() int               { return (e.rec.Pos() + e.n - 1) / e.n }
func (e *everyNth) Seek(i int) error       { return e.rec.Seek(min(i*e.n, e.rec.Len())) }
func (e *everyNth) Time(i int) time.Time   { return e.rec.Time(i * e.n) }
func (e *everyNth) Counters() []string     { return e.rec.Counters() }

// tell warns, once, that formatted values are averaged.
func (e *everyNth) tell(s *pdh.Sample) {
	if e.warned || e.warn == nil {
		return
	}
	e.warned = true
	if allFormatted(s) {
		e.warn(fmt.Sprintf("input holds formatted values only (CSV/TSV): -t %d averages each counter's values over %d samples instead of recomputing them from raw values", e.n, e.n))
		return
	}
	e.warn(fmt.Sprintf("some counters of the input hold formatted values only (CSV/TSV): -t %d averages their values over %d samples instead of recomputing them from raw values; counters with raw values are recomputed", e.n, e.n))
}

// formatted reports a counter that holds a formatted value.
func formatted(d perfdata.CounterDef) bool { return d.Type == countertype.PERF_DOUBLE_RAW }

func hasFormatted(s *pdh.Sample) bool {
	for _, b := range s.Blocks {
		for it := b.Objects(); it.Next(); {
			o := it.Object()
			for i := range o.NumCounters() {
				if formatted(o.Counter(i)) {
					return true
				}
			}
		}
	}
	return false
}

func allFormatted(s *pdh.Sample) bool {
	for _, b := range s.Blocks {
		for it := b.Objects(); it.Next(); {
			o := it.Object()
			for i := range o.NumCounters() {
				if d := o.Counter(i); !formatted(d) && !d.Type.IsBase() {
					return false
				}
			}
		}
	}
	return true
}

// cellKey names one formatted value across samples: machine, object,
// instance (name and occurrence among equal names) and counter.
type cellKey struct {
	machine  string
	object   uint32
	instance string
	occ      int
	counter  uint32
}

// cell is one formatted value of the kept sample being averaged.
type cell struct {
	sum     float64
	n       int
	blk     []byte // the kept sample's counter block (a copy), written in place
	off     uint32
	pos     int // instance position; -1 single-instance
	obj     uint32
	machine string // the block's system name
}

// average replaces the formatted values of kept sample s (at p) with
// their averages over samples p-n+1..p.
func (e *everyNth) average(ctx context.Context, objects []uint32, s *pdh.Sample, p int) (*pdh.Sample, error) {
	keep := &pdh.Sample{Time: s.Time, Gap: s.Gap, Problems: slices.Clone(s.Problems)}
	for _, b := range s.Blocks {
		c, err := perfdata.Parse(slices.Clone(b.Bytes()))
		if err != nil {
			return nil, err
		}
		keep.Blocks = append(keep.Blocks, c)
	}
	cells := map[cellKey]*cell{}
	var order []cellKey
	visit(keep, func(k cellKey, pos int, cb perfdata.CounterBlock, d perfdata.CounterDef, missing bool, machine string) {
		c := &cell{blk: cb.Bytes(), off: d.Offset, pos: pos, obj: k.object, machine: machine}
		if v := math.Float64frombits(cb.Value(d)); !missing && !math.IsNaN(v) && !math.IsInf(v, 0) {
			c.sum, c.n = v, 1
		}
		if _, dup := cells[k]; !dup {
			cells[k] = c
			order = append(order, k)
		}
	})
	for q := max(p-e.n+1, 0); q < p; q++ {
		if err := e.rec.Seek(q); err != nil {
			return nil, err
		}
		o, err := e.src.Sample(ctx, objects)
		if err != nil {
			return nil, err
		}
		keep.Gap = keep.Gap || o.Gap
		visit(o, func(k cellKey, _ int, cb perfdata.CounterBlock, d perfdata.CounterDef, missing bool, _ string) {
			c := cells[k]
			if c == nil || missing {
				return
			}
			if v := math.Float64frombits(cb.Value(d)); !math.IsNaN(v) && !math.IsInf(v, 0) {
				c.sum += v
				c.n++
			}
		})
	}
	// Write the averages; the cells with none are the sample's missing
	// values, the others are not.
	miss := map[objKey]*objMiss{}
	var objs []objKey
	for _, k := range order {
		c := cells[k]
		ok := objKey{k.machine, c.obj}
		m := miss[ok]
		if m == nil {
			m = &objMiss{machine: c.machine, byPos: map[int]map[uint32]bool{}}
			miss[ok] = m
			objs = append(objs, ok)
		}
		if m.byPos[c.pos] == nil {
			m.byPos[c.pos] = map[uint32]bool{}
		}
		m.byPos[c.pos][k.counter] = c.n == 0
		if c.n > 0 && int(c.off)+8 <= len(c.blk) {
			binary.LittleEndian.PutUint64(c.blk[c.off:], math.Float64bits(c.sum/float64(c.n)))
		}
	}
	reproblem(keep, objs, miss)
	return keep, nil
}

// objKey is an object of a machine (folded).
type objKey struct {
	machine string
	index   uint32
}

// objMiss is which formatted values of an object's instances are
// missing after averaging (true) or present (false).
type objMiss struct {
	machine string
	byPos   map[int]map[uint32]bool
}

// reproblem rewrites the Missing lists of the objects whose formatted
// values were averaged: those values are missing where no sample had
// one; the object's other counters keep what the kept sample said.
func reproblem(keep *pdh.Sample, objs []objKey, miss map[objKey]*objMiss) {
	for _, ok := range objs {
		oi := ok.index
		m := miss[ok]
		all := counterIndexes(keep, ok)
		now := map[int]map[uint32]bool{}
		var name, reason string
		kept := keep.Problems[:0:0]
		for _, pr := range keep.Problems {
			if pr.Object != oi || !pr.Partial || len(pr.Missing) == 0 || foldMachine(pr.Machine) != ok.machine {
				kept = append(kept, pr)
				continue
			}
			if name == "" {
				name, reason = pr.ObjectName, pr.Reason
			}
			for _, mv := range pr.Missing {
				pos := max(mv.Instance, -1)
				if now[pos] == nil {
					now[pos] = map[uint32]bool{}
				}
				ctrs := mv.Counters
				if len(ctrs) == 0 {
					ctrs = all
				}
				for _, c := range ctrs {
					now[pos][c] = true
				}
			}
		}
		for pos, ctrs := range m.byPos {
			for c, missing := range ctrs {
				if now[pos] == nil {
					now[pos] = map[uint32]bool{}
				}
				if missing {
					now[pos][c] = true
				} else {
					delete(now[pos], c)
				}
			}
		}
		p := pdh.Problem{Object: oi, ObjectName: name, Machine: m.machine, Partial: true, Reason: reason}
		if reason == "" {
			p.Reason = strings.TrimPrefix(m.machine, `\\`) + ": " + pdhcsv.NoValue
		}
		for _, pos := range slices.Sorted(maps.Keys(now)) {
			if len(now[pos]) == 0 {
				continue
			}
			p.Missing = append(p.Missing, pdh.MissingValues{Instance: pos, Counters: slices.Sorted(maps.Keys(now[pos]))})
		}
		if len(p.Missing) > 0 {
			kept = append(kept, p)
		}
		keep.Problems = kept
	}
}

// counterIndexes are the title indexes of an object's counters (bases
// left out) in the sample's first block of its machine holding it.
func counterIndexes(s *pdh.Sample, k objKey) []uint32 {
	for _, b := range s.Blocks {
		if foldMachine(b.Header().SystemName) != k.machine {
			continue
		}
		if o, ok := b.Object(k.index); ok {
			var out []uint32
			for i := range o.NumCounters() {
				if d := o.Counter(i); !d.Type.IsBase() {
					out = append(out, d.NameIndex)
				}
			}
			return out
		}
	}
	return nil
}

// visit calls f for every formatted value of a sample: the first object
// of each machine and title index, as pdh reads them; missing says the
// sample marks the value as a placeholder.
func visit(s *pdh.Sample, f func(k cellKey, pos int, cb perfdata.CounterBlock, d perfdata.CounterDef, missing bool, machine string)) {
	isMissing := missingOf(s.Problems)
	seen := map[cellKey]bool{}
	var defs []perfdata.CounterDef
	for _, b := range s.Blocks {
		machine := b.Header().SystemName
		fold := foldMachine(machine)
		for it := b.Objects(); it.Next(); {
			o := it.Object()
			ok := cellKey{machine: fold, object: o.NameIndex()}
			if seen[ok] {
				continue
			}
			seen[ok] = true
			defs = o.AppendCounters(defs[:0])
			if !slices.ContainsFunc(defs, formatted) {
				continue
			}
			one := func(pos int, name string, occ int, cb perfdata.CounterBlock) {
				for _, d := range defs {
					if !formatted(d) {
						continue
					}
					k := cellKey{machine: fold, object: o.NameIndex(), instance: name, occ: occ, counter: d.NameIndex}
					f(k, pos, cb, d, isMissing(fold, o.NameIndex(), pos, d.NameIndex), machine)
				}
			}
			if o.SingleInstance() {
				one(-1, "", 0, o.SingleBlock())
				continue
			}
			occ := map[string]int{}
			pos := 0
			for in := o.Instances(); in.Next(); pos++ {
				inst := in.Instance()
				name := inst.Name()
				one(pos, name, occ[name], inst.Block())
				occ[name]++
			}
		}
	}
}

// missingOf answers whether a value is a placeholder by a sample's
// problems, as pdh does (by machine, "" every one, object index and
// instance position; -1 and 0 are the single instance).
func missingOf(problems []pdh.Problem) func(machine string, obj uint32, pos int, ctr uint32) bool {
	type key struct {
		machine string
		obj     uint32
		pos     int
	}
	m := map[key][]uint32{}
	all := map[key]bool{}
	for _, pr := range problems {
		for _, mv := range pr.Missing {
			k := key{foldMachine(pr.Machine), pr.Object, max(mv.Instance, 0)}
			if len(mv.Counters) == 0 {
				all[k] = true
			}
			m[k] = append(m[k], mv.Counters...)
		}
	}
	return func(machine string, obj uint32, pos int, ctr uint32) bool {
		for _, mk := range []string{machine, ""} {
			k := key{mk, obj, max(pos, 0)}
			if all[k] || slices.Contains(m[k], ctr) {
				return true
			}
		}
		return false
	}
}

// foldMachine is a machine name as pdh keys objects: without leading
// backslashes, in lower case.
func foldMachine(m string) string {
	return strings.ToLower(strings.TrimLeft(m, `\`))
}
