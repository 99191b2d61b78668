package pdh

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// Input is one recorded source to merge, with the name messages give it
// (its file name).
type Input struct {
	Name   string
	Source Source
}

// Merged is several recorded sources read as one, in time order
// (relog's several input files, of any formats): a sample of each
// distinct time (to the 100 ns of a FILETIME), holding the blocks of
// every input that has a sample at that time, in the order the inputs
// were given. pdh keys objects by machine and title index, so logs of
// two machines show side by side; the same object of the same machine
// from two inputs at one time is an overlap (the same file given twice),
// reported as a Problem of the sample, and the earlier input's is read.
//
// The inputs' title databases may disagree (a BLG's own table, English
// Windows', the indexes a text log gives names that English lacks).
// Merged names its blocks with one database, the union of the inputs':
// the first input's indexes stay; a later input's index stays where the
// union has the same name there, or no name there and the name nowhere
// else; otherwise it moves to the index the union has for the name (one
// index per name, so that pdh finds an object of every machine by the
// index its name resolves to), or to a new one after every input's
// last. The moved inputs' blocks and problems are rewritten with the new
// numbers (Notes lists the moves).
//
// A Merged is not safe for concurrent use, nor are its inputs while it
// reads them.
type Merged struct {
	inputs   []mergeInput
	db       *titles.DB
	samples  []mergedSample
	pos      int
	notes    []string
	counters []string
}

type mergeInput struct {
	name  string
	src   Source
	rec   Recorded
	remap map[uint32]uint32 // name index -> merged name index, where they differ
}

type mergedSample struct {
	ft    int64
	t     time.Time
	parts []mergePart
}

type mergePart struct{ input, pos int }

// Merge opens the merged view of inputs, which must all be recorded
// sources (a live one is an error). It reads every input's sample times,
// not its samples.
func Merge(inputs ...Input) (*Merged, error) {
	if len(inputs) == 0 {
		return nil, errors.New("merge: no input")
	}
	m := &Merged{inputs: make([]mergeInput, len(inputs))}
	for k, in := range inputs {
		rec := in.Source.Recorded()
		if rec == nil {
			return nil, fmt.Errorf("input %s: a live source cannot be merged with recordings", in.Name)
		}
		m.inputs[k] = mergeInput{name: in.Name, src: in.Source, rec: rec}
	}
	if err := m.unionTitles(); err != nil {
		return nil, err
	}
	type entry struct {
		ft    int64
		t     time.Time
		input int
		pos   int
	}
	var all []entry
	for k, in := range m.inputs {
		n := in.rec.Len()
		var prev int64
		sorted := true
		for i := range n {
			t := in.rec.Time(i).UTC()
			ft := perfdata.FileTime(t)
			if i > 0 && ft < prev {
				sorted = false
			}
			prev = ft
			all = append(all, entry{ft: ft, t: t, input: k, pos: i})
		}
		if !sorted {
			m.notes = append(m.notes, fmt.Sprintf("input %s: its samples are not in time order; they are read in time order", in.name))
		}
	}
	slices.SortStableFunc(all, func(a, b entry) int {
		if a.ft != b.ft {
			if a.ft < b.ft {
				return -1
			}
			return 1
		}
		return a.input - b.input
	})
	for _, e := range all {
		if n := len(m.samples); n > 0 {
			last := &m.samples[n-1]
			if last.ft == e.ft && !slices.ContainsFunc(last.parts, func(p mergePart) bool { return p.input == e.input }) {
				last.parts = append(last.parts, mergePart{e.input, e.pos})
				continue
			}
		}
		m.samples = append(m.samples, mergedSample{ft: e.ft, t: e.t, parts: []mergePart{{e.input, e.pos}}})
	}
	m.counters = m.unionCounters()
	return m, nil
}

// unionCounters is the union of what the inputs recorded, every path
// naming its input's computer: an input's counter list, its paths without
// a computer given the computer of its samples; for an input that holds
// whole objects, `\\machine\Object(*)\*` (or `\\machine\Object\*`) for
// every object of every computer it holds. So a path binds to the input
// that recorded it, never to another input's computer that has the same
// object, and a merge lists exactly what its inputs recorded.
func (m *Merged) unionCounters() []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if k := strings.ToLower(p); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	for k := range m.inputs {
		in := &m.inputs[k]
		list := in.rec.Counters()
		machine, objects := in.contents(m.db, list == nil)
		if list == nil {
			for _, p := range objects {
				add(p)
			}
			continue
		}
		for _, c := range list {
			if p, err := counterpath.Parse(c); err == nil && p.Machine == "" && machine != "" {
				p.Machine = machine
				c = p.String()
			}
			add(c)
		}
	}
	return out
}

// contents reads the input's samples: the computer of its first block
// and, when whole is set, a path of every object of every computer it
// holds, named as db (the merged titles) names it. The input is rewound;
// a sample it cannot give ends the reading (what came before counts).
func (in *mergeInput) contents(db *titles.DB, whole bool) (machine string, paths []string) {
	defer in.rec.Seek(0)
	if in.rec.Seek(0) != nil {
		return "", nil
	}
	type key struct {
		machine string
		index   uint32
	}
	seen := map[key]bool{}
	for read := 0; read < in.rec.Len(); read++ {
		smp, err := in.src.Sample(context.Background(), nil)
		if err != nil {
			break
		}
		for _, blk := range smp.Blocks {
			name := blk.Header().SystemName
			if machine == "" {
				machine = name
			}
			if !whole {
				return machine, nil
			}
			for it := blk.Objects(); it.Next(); {
				o := it.Object()
				idx := o.NameIndex()
				if j, ok := in.remap[idx]; ok {
					idx = j
				}
				k := key{strings.ToLower(name), idx}
				if seen[k] {
					continue
				}
				seen[k] = true
				obj := db.Name(idx)
				if obj == "" {
					obj = strconv.FormatUint(uint64(idx), 10) // pdh takes title indexes for names
				}
				p := counterpath.Path{Machine: name, Object: obj, Counter: "*"}
				if o.NumInstances() != perfdata.NoInstances {
					p.Instance = "*"
				}
				paths = append(paths, p.String())
			}
		}
	}
	return machine, paths
}

// unionTitles builds the merged title database and each input's moves.
func (m *Merged) unionTitles() error {
	next := uint32(0)
	for _, in := range m.inputs {
		next = max(next, in.src.Titles().LastCounter())
	}
	next += 2
	next += next % 2
	m.db = titles.New()
	for k := range m.inputs {
		in := &m.inputs[k]
		for _, e := range in.src.Titles().Entries() {
			if e.Name == "" {
				continue
			}
			cur := m.db.Name(e.Index)
			if k == 0 || cur == e.Name {
				// The first input's indexes stay (an odd one, which no
				// block names an object or counter by, is left out).
				_ = m.db.SetAt(e.Index, e.Name, e.Help)
				continue
			}
			// One index per name, spelled as the input spells it (a
			// "processor" of one log and a "Processor" of another are two
			// names, so that each input's paths come out as it stored
			// them), so that a machine's object is found by the index its
			// name resolves to.
			j, ok := m.db.Index(e.Name)
			ok = ok && m.db.Name(j) == e.Name
			if !ok && cur == "" && m.db.SetAt(e.Index, e.Name, e.Help) == nil {
				continue
			}
			if !ok {
				if next > 1<<31 {
					return fmt.Errorf("input %s: title index %d (%q): no free index left in the merged title table", in.name, e.Index, e.Name)
				}
				if err := m.db.SetAt(next, e.Name, e.Help); err != nil {
					return fmt.Errorf("input %s: title index %d (%q): %w", in.name, e.Index, e.Name, err)
				}
				j, next = next, next+2
			}
			if j == e.Index {
				continue
			}
			// The input's blocks are renumbered as they are read: its
			// names stay as they are, so nothing is said (a title index
			// is nothing a reader of the output can act on).
			if in.remap == nil {
				in.remap = map[uint32]uint32{}
			}
			in.remap[e.Index] = j
		}
	}
	return nil
}

// Titles is the merged title database.
func (m *Merged) Titles() *titles.DB { return m.db }

// Recorded returns the Merged itself.
func (m *Merged) Recorded() Recorded { return m }

// Len is the number of merged samples (distinct times).
func (m *Merged) Len() int { return len(m.samples) }

// Pos is the position of the sample the next Sample returns.
func (m *Merged) Pos() int { return m.pos }

// Seek makes the next Sample return merged sample i.
func (m *Merged) Seek(i int) error {
	if i < 0 || i > len(m.samples) {
		return fmt.Errorf("sample %d out of range 0..%d", i, len(m.samples))
	}
	m.pos = i
	return nil
}

// Time is the time of merged sample i.
func (m *Merged) Time(i int) time.Time { return m.samples[i].t }

// Counters is what the inputs recorded, in input order, each path naming
// its input's computer (see unionCounters).
func (m *Merged) Counters() []string { return m.counters }

// Notes says what merging did that its user should know: inputs out of
// time order, title indexes moved.
func (m *Merged) Notes() []string { return m.notes }

// Sample returns the next merged sample: the blocks of each input's
// sample at that time, title indexes rewritten where the input's differ
// from the merged database, its problems, and one problem per pair of
// inputs that hold the same object of the same machine.
func (m *Merged) Sample(ctx context.Context, objects []uint32) (*Sample, error) {
	if m.pos >= len(m.samples) {
		return nil, io.EOF
	}
	ms := &m.samples[m.pos]
	m.pos++
	out := &Sample{Time: ms.t}
	type okey struct {
		machine string
		index   uint32
	}
	owner := map[okey]int{}
	type pair struct{ a, b int }
	var order []pair
	shared := map[pair][]string{}
	for _, p := range ms.parts {
		in := &m.inputs[p.input]
		if err := in.rec.Seek(p.pos); err != nil {
			return nil, fmt.Errorf("input %s: %w", in.name, err)
		}
		s, err := in.src.Sample(ctx, in.want(objects))
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.name, err)
		}
		out.Gap = out.Gap || s.Gap
		for _, b := range s.Blocks {
			if len(ms.parts) > 1 {
				// A later part may read the same source again (one log
				// given twice), which may reuse the buffer under b.
				if b, err = perfdata.Parse(slices.Clone(b.Bytes())); err != nil {
					return nil, fmt.Errorf("input %s: sample %d: %w", in.name, p.pos, err)
				}
			}
			if in.remap != nil {
				if b, err = remapBlock(b, in.remap); err != nil {
					return nil, fmt.Errorf("input %s: sample %d: %w", in.name, p.pos, err)
				}
			}
			sys := foldMachine(b.Header().SystemName)
			for it := b.Objects(); it.Next(); {
				k := okey{sys, it.Object().NameIndex()}
				first, ok := owner[k]
				if !ok {
					owner[k] = p.input
					continue
				}
				if first == p.input {
					continue
				}
				pk := pair{first, p.input}
				if _, ok := shared[pk]; !ok {
					order = append(order, pk)
				}
				shared[pk] = append(shared[pk], titleName(m.db, k.index))
			}
			out.Blocks = append(out.Blocks, b)
		}
		for _, pr := range s.Problems {
			if in.remap != nil {
				pr = remapProblem(pr, in.remap)
			}
			out.Problems = append(out.Problems, pr)
		}
	}
	for _, k := range order {
		a, b := m.inputs[k.a].name, m.inputs[k.b].name
		what := b + " repeats " + a
		if a == b {
			what = "the same file given twice"
		}
		out.Problems = append(out.Problems, Problem{Reason: fmt.Sprintf("inputs overlap: %s (objects %s at the same moment); %s is read",
			what, strings.Join(uniq(shared[k]), ", "), a)})
	}
	return out, nil
}

// want maps the object indexes asked for back to the input's numbers.
func (in *mergeInput) want(objects []uint32) []uint32 {
	if objects == nil || in.remap == nil {
		return objects
	}
	out := slices.Clone(objects)
	for from, to := range in.remap {
		for i, o := range objects {
			if o == to {
				out[i] = from
			}
		}
	}
	return out
}

func remapIndex(remap map[uint32]uint32, i uint32) uint32 {
	if j, ok := remap[i]; ok {
		return j
	}
	return i
}

// remapHelp maps a help index (its name's index + 1).
func remapHelp(remap map[uint32]uint32, h uint32) uint32 {
	if h > 0 {
		if j, ok := remap[h-1]; ok {
			return j + 1
		}
	}
	return h
}

func remapProblem(p Problem, remap map[uint32]uint32) Problem {
	p.Object = remapIndex(remap, p.Object)
	if len(p.Missing) > 0 {
		mv := make([]MissingValues, len(p.Missing))
		for i, v := range p.Missing {
			mv[i] = MissingValues{Instance: v.Instance}
			for _, c := range v.Counters {
				mv[i].Counters = append(mv[i].Counters, remapIndex(remap, c))
			}
		}
		p.Missing = mv
	}
	return p
}

// remapBlock returns blk with its title indexes moved: a copy where any
// index moves, blk itself where none does. The block is validated, so
// the walk stays inside it; a bound is still checked at every step.
func remapBlock(blk perfdata.Block, remap map[uint32]uint32) (perfdata.Block, error) {
	touches := false
	for it := blk.Objects(); it.Next() && !touches; {
		o := it.Object()
		_, touches = remap[o.NameIndex()]
		for i := range o.NumCounters() {
			if _, ok := remap[o.Counter(i).NameIndex]; ok {
				touches = true
			}
		}
		if o.SingleInstance() {
			continue
		}
		for is := o.Instances(); is.Next(); {
			if _, ok := remap[is.Instance().ParentObjectTitleIndex()]; ok {
				touches = true
			}
		}
	}
	if !touches {
		return blk, nil
	}
	b := slices.Clone(blk.Bytes())
	le := binary.LittleEndian
	patch := func(off int, f func(uint32) uint32) error {
		if off < 0 || off+4 > len(b) {
			return fmt.Errorf("title index at byte %d outside the block (%d bytes)", off, len(b))
		}
		le.PutUint32(b[off:], f(le.Uint32(b[off:])))
		return nil
	}
	name := func(i uint32) uint32 { return remapIndex(remap, i) }
	help := func(i uint32) uint32 { return remapHelp(remap, i) }
	if err := patch(32, name); err != nil { // DefaultObject
		return blk, err
	}
	at := int(le.Uint32(b[24:])) // HeaderLength
	for range blk.NumObjects() {
		if at < 0 || at+perfdata.ObjectTypeSize > len(b) {
			return blk, fmt.Errorf("object at byte %d outside the block", at)
		}
		o := b[at:]
		total, defLen, hdrLen := int(le.Uint32(o[0:])), int(le.Uint32(o[4:])), int(le.Uint32(o[8:]))
		numCtr, numInst := int(le.Uint32(o[32:])), int32(le.Uint32(o[40:]))
		if err := errors.Join(patch(at+12, name), patch(at+20, help)); err != nil {
			return blk, err
		}
		d := at + hdrLen
		for range numCtr {
			if d+perfdata.CounterDefSize > len(b) {
				return blk, fmt.Errorf("counter definition at byte %d outside the block", d)
			}
			if err := errors.Join(patch(d+4, name), patch(d+12, help)); err != nil {
				return blk, err
			}
			n := int(le.Uint32(b[d:]))
			if n <= 0 {
				return blk, fmt.Errorf("counter definition at byte %d: ByteLength %d", d, n)
			}
			d += n
		}
		if numInst > 0 {
			p := at + defLen
			for range numInst {
				if p+perfdata.InstanceDefSize > len(b) {
					return blk, fmt.Errorf("instance at byte %d outside the block", p)
				}
				if err := patch(p+4, name); err != nil {
					return blk, err
				}
				il := int(le.Uint32(b[p:]))
				if il <= 0 || p+il+4 > len(b) {
					return blk, fmt.Errorf("instance at byte %d: ByteLength %d", p, il)
				}
				cl := int(le.Uint32(b[p+il:]))
				if cl <= 0 {
					return blk, fmt.Errorf("counter block at byte %d: ByteLength %d", p+il, cl)
				}
				p += il + cl
			}
		}
		if total <= 0 {
			return blk, fmt.Errorf("object at byte %d: TotalByteLength %d", at, total)
		}
		at += total
	}
	return perfdata.Parse(b)
}

// uniq drops repeated names, keeping the first of each.
func uniq(names []string) []string {
	seen := map[string]bool{}
	out := names[:0:0]
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
