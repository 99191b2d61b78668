package relog

import (
	"context"
	"errors"
	"io"
	"slices"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
)

// rowSource is a recording of listed counters that gives a sample's raw
// values without rebuilding its blocks (perflog/blg's Log).
type rowSource interface {
	NewRows() *rawlog.Rows
	SampleRows(ctx context.Context, rows *rawlog.Rows) (t time.Time, listed bool, err error)
}

// steady computes, in a one-pass conversion of a log of listed counters,
// the samples that repeat the shape of the sample before them (the same
// counters of the same instances, every value valid: rawlog's Complete
// and SameShape) straight from their raw values, as pdh would compute
// them from the blocks rawlog rebuilds: rebuilding the blocks and
// collecting them cost five times what the values do.
//
// After pdh collected a sample (the general path), arm decodes that
// sample's raw values again and asks pdh where each item placed in a
// column lies in its blocks (pdh.Counter.AppendOrigins), which rawlog
// turns into the value put there (rawlog.Rows.Ref). While the samples
// that follow keep the shape, each item's value is calc.Compute over the
// raw values at its Ref in the sample and the one before, with the
// clocks of the blocks Build would make. A sample of the same shape in
// which some objects have no valid value at all (rawlog's Unanswered: a
// machine that did not answer) is computed too, as pdh computes the
// blocks Build makes of it: those objects left out, with a Problem each,
// and their items blank, keeping their raw values of the last sample that
// had them for the sample after to pair with. The first sample that does not
// keep the shape goes back to pdh, which is first given the sample before
// it (the last one it saw may be older), so that it pairs the sample with
// the one before as it always does.
type steady struct {
	src       rowSource
	rec       pdh.Recorded
	cur, prev *rawlog.Rows
	items     []steadyItem
	refs      []rawlog.Ref  // each item's value in the sample's Rows
	raws      [2][]calc.Raw // each item's raw value: [0] the sample before, [1] the sample read
	left      []bool        // each item's object left out of the sample read (Rows.Left)
	problems  []pdh.Problem // the sample read's, when it leaves objects out
	origins   []pdh.Origin
	armed     bool
	pending   bool // pdh collected a sample and nothing since: arm may try
	pdhAt     int  // position of the sample pdh collected last
	whole     int  // position of the last sample read that left no object out
	run       int  // samples computed since arming
	bad, good int  // failed arms and short runs; samples computed
}

// steadyItem is one item of pdh's: the column it goes to and its
// counter's type (its value: refs).
type steadyItem struct {
	col int32
	typ countertype.Type
}

// newSteady returns the steady path for src, nil when src cannot give
// raw values (or is not read directly: -t, merged inputs).
func newSteady(src pdh.Source) *steady {
	rs, ok := src.(rowSource)
	if !ok {
		return nil
	}
	return &steady{src: rs, rec: src.Recorded(), cur: rs.NewRows(), prev: rs.NewRows()}
}

// collected tells the steady path that pdh collected the sample before
// the recording's position.
func (s *steady) collected() {
	if s == nil {
		return
	}
	s.pdhAt, s.pending = s.rec.Pos()-1, true
}

// worth reports whether arming is still worth trying: a log whose shape
// keeps changing is left to pdh.
func (s *steady) worth() bool {
	return s.bad < 8 || s.bad*16 < s.good
}

// arm learns, from the sample pdh collected last, where the items of the
// next samples of its shape come from. It leaves the recording where it
// found it.
func (s *steady) arm(ctx context.Context, q *pdh.Query, cols *columns) error {
	s.pending = false
	if !s.worth() {
		return nil
	}
	for _, p := range q.Problems() {
		// A complete sample's problems are its values missing, the
		// same in every sample of its shape (told once, as warnings
		// are); others come from elsewhere.
		if !p.Partial {
			return nil
		}
	}
	pos := s.rec.Pos()
	if err := s.rec.Seek(s.pdhAt); err != nil {
		return err
	}
	s.prev.Follow(nil) // Ref needs the places found anew
	_, listed, err := s.src.SampleRows(ctx, s.prev)
	if err := s.rec.Seek(pos); err != nil {
		return err
	}
	if err != nil || !listed || !s.prev.Complete() {
		s.bad++
		return nil
	}
	s.items, s.refs = s.items[:0], s.refs[:0]
	for ci, c := range q.Counters() {
		at := cols.place(q, ci, c, false)
		s.origins = c.AppendOrigins(s.origins[:0])
		for j, o := range s.origins[:min(len(s.origins), len(at))] {
			if at[j] < 0 {
				continue
			}
			ref, ok := s.prev.Ref(o)
			if !ok {
				s.bad++
				return nil
			}
			s.items = append(s.items, steadyItem{col: at[j]})
			s.refs = append(s.refs, ref)
		}
	}
	for k := range s.raws {
		s.raws[k] = slices.Grow(s.raws[k][:0], len(s.items))[:len(s.items)]
	}
	s.left = slices.Grow(s.left[:0], len(s.items))[:len(s.items)]
	clear(s.left)
	for i := range s.items {
		s.raws[1][i], s.items[i].typ = s.prev.Raw(s.refs[i])
	}
	s.armed, s.run, s.whole = true, 0, s.pdhAt
	return nil
}

// next reads the next sample and reports whether it keeps the shape (its
// values are then computed by values). When it does not, the recording
// is left where pdh takes over: at the sample before it when pdh did not
// see that one, pdh's Collect given it first (resync).
func (s *steady) next(ctx context.Context) (t time.Time, ok bool, err error) {
	pos := s.rec.Pos()
	s.cur.Follow(s.prev)
	t, listed, err := s.src.SampleRows(ctx, s.cur)
	switch {
	case errors.Is(err, io.EOF):
		return t, false, err
	case ctx.Err() != nil:
		return t, false, ctx.Err()
	case err == nil && listed && (s.cur.Followed() || (s.cur.Complete() || s.cur.Unanswered()) && s.cur.SameShape(s.prev)):
		s.cur, s.prev = s.prev, s.cur
		s.raws[0], s.raws[1] = s.raws[1], s.raws[0]
		prev, cur := s.raws[0], s.raws[1]
		s.problems = s.problems[:0]
		if !s.prev.Unanswered() {
			s.prev.Raws(cur, s.refs)
			s.whole = pos
		} else {
			clear(s.left)
			for i := range s.items {
				if s.prev.Left(s.refs[i]) {
					// pdh keeps the values of the last sample
					// that had the object
					cur[i], s.left[i] = prev[i], true
					continue
				}
				cur[i], _ = s.prev.Raw(s.refs[i])
			}
			s.problems = s.prev.AppendUnanswered(s.problems)
		}
		s.run++
		s.good++
		return t, true, nil
	}
	s.armed = false
	if s.run < 8 {
		s.bad++
	}
	return t, false, s.rec.Seek(pos)
}

// resync gives pdh the sample before the recording's position when the
// last one it collected is older, so that the next Collect pairs the next
// sample with the one before it, as pdh pairs samples when it collects
// them all. When samples before it left objects out, pdh pairs the
// next sample's values of those with the last sample that had them:
// pdh is given every sample from the last that left none out.
func (s *steady) resync(ctx context.Context, q *pdh.Query) error {
	pos := s.rec.Pos()
	if pos == 0 || s.pdhAt == pos-1 {
		return nil
	}
	from := max(min(s.whole, pos-1), s.pdhAt+1)
	if err := s.rec.Seek(from); err != nil {
		return err
	}
	for range pos - from {
		if err := q.Collect(ctx); err != nil {
			return err
		}
	}
	return nil
}

// values computes the row of the sample next read, in n columns, as
// rowMaker.values does from pdh's items: a valid value where an item
// has one, a later item of the same column replacing an earlier one.
func (s *steady) values(r *rowMaker, n int) []pdhcsv.Value {
	r.vals = slices.Grow(r.vals[:0], n)[:n]
	clear(r.vals)
	prev, cur := s.raws[0], s.raws[1]
	var left []bool // nil unless the sample left objects out
	if len(s.problems) > 0 {
		left = s.left
	}
	for i := range s.items {
		it := &s.items[i]
		if left != nil && left[i] {
			continue // its object left out: no value
		}
		if x, st := calc.Compute(it.typ, &cur[i], &prev[i]); st == calc.ValidData {
			r.vals[it.col] = pdhcsv.Value{Number: x, OK: true}
		}
	}
	return r.vals
}
