package pdhcsv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
)

// NoValue ends the reason of the problems a text log's samples report
// for its blank cells: a blank is a value the log does not hold (the
// first sample of a counter computed from two samples, a counter that
// was not available), not a failure of the reader. Tools that report a
// source's problems leave these out.
const NoValue = "blank cells: the log holds no value for them"

// source is a Log as a recorded pdh.Source: each row is a sample whose
// values are PERF_DOUBLE_RAW counters, as Windows' PDH represents the
// values of text logs, so that every counter computes to the number in
// its cell.
type source struct {
	name     string
	list     []rawlog.Counter
	db       *titles.DB
	machines []*machinePlan
	objs     []*objPlan
	cells    []cellPos        // per column
	vals     map[[2]int][]int // (object, instance) -> its columns
	b        *perfdata.Builder
	pos      int
	notes    []string
}

// machinePlan is one block of every sample: the objects of a machine.
type machinePlan struct {
	name string // without the leading backslashes
	objs []int  // positions in source.objs, in order of first column
}

// objPlan is one object of a machine's block.
type objPlan struct {
	machine string
	name    string
	index   uint32
	single  bool
	defs    []perfdata.CounterSpec
	layout  *perfdata.Layout
	byName  map[string]int // counter (lower case) -> definition
	insts   []instPlan     // block order
	parents int            // position in source.objs of the object naming the parents; -1 none
	// placeholders are the instances no column names (the lower
	// duplicates of a name#n column): every value missing.
	placeholders []int
}

// instPlan is one instance of an object, as the block names it.
type instPlan struct {
	name   string
	parent int // position of the parent instance in the parents object; -1 none
}

// cellPos is where a column's value lands in a sample's blocks.
type cellPos struct {
	obj, inst, def int // inst -1: single instance
}

// Open reads the PDH-CSV or PDH-TSV log at path as a recorded pdh.Source.
// A last line that the file ends inside (a writer stopped mid-row) is
// left out with a note; every other malformed line is an error naming
// the file, the line and the cell. The text's encoding is decided from
// its bytes (ReadOptions.CodePage Auto).
func Open(path string) (*Log, error) {
	return OpenWith(path, ReadOptions{})
}

// ReadOptions are how OpenWith and ReadLogWith read a log.
type ReadOptions struct {
	// CodePage names the code page of a log whose bytes do not say theirs
	// (no byte-order mark, not valid UTF-8), as relog's -codepage does;
	// utf16le.Auto guesses it, and the log's Notes say what was assumed.
	CodePage utf16le.CodePage
	// Limit bounds the bytes read; 0 or less: no limit.
	Limit int64
}

// OpenWith is Open with options.
func OpenWith(path string, opts ReadOptions) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLogWith(f, path, opts)
}

// ReadLog reads a PDH-CSV or PDH-TSV log from r as Open does; name names
// it in errors and notes, and limit bounds the bytes read (negative: no
// limit). Console output (typeperf without -o) is refused: its header
// names no time zone, so its times cannot be placed.
func ReadLog(r io.Reader, name string, limit int64) (*Log, error) {
	if limit < 0 {
		limit = 0
	} else if limit == 0 {
		limit = -1 // nothing may be read
	}
	return ReadLogWith(r, name, ReadOptions{Limit: limit})
}

// ReadLogWith is ReadLog with options.
func ReadLogWith(r io.Reader, name string, opts ReadOptions) (*Log, error) {
	limit := opts.Limit
	if limit != 0 {
		r = &limitReader{r: r, n: max(limit, 0)}
	}
	var notes []string
	lg, err := read(r, nil, config{file: name, codePage: opts.CodePage, tornTail: true, notes: &notes})
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("%s: larger than %d bytes, the limit on a text log", orText(name), max(limit, 0))
	}
	if err != nil {
		return nil, err
	}
	if lg.Style == StyleConsole {
		return nil, &ReadError{File: name, Line: 1, Cell: 1, Msg: "typeperf's console output (the header names no time zone): save it with typeperf -o to read it as a log"}
	}
	s, err := newSource(lg, name)
	if err != nil {
		return nil, err
	}
	s.notes = append(notes, s.notes...)
	lg.src = s
	return lg, nil
}

var errTooLarge = errors.New("input over its size limit")

// limitReader fails with errTooLarge once more than n bytes were read.
type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		return 0, errTooLarge
	}
	return n, err
}

// newSource plans the blocks of the log's columns: per machine one block,
// per object one PERF_OBJECT_TYPE whose counters are the object's
// columns, per instance (parent, name and #index) one instance. A name
// whose column has #n gets its lower duplicates too (placeholders with no
// value), since pdh numbers equal names by their order in the block.
// Parent instances (Thread(svchost/0)) live in an object of their own
// without counters, "Parents of <object>", which the instances point to.
func newSource(lg *Log, name string) (*source, error) {
	s := &source{name: name, b: perfdata.NewBuilder(nil)}
	paths := make([]counterpath.Path, len(lg.Columns))
	s.list = make([]rawlog.Counter, len(lg.Columns))
	for i, col := range lg.Columns {
		p, err := counterpath.ParseWindows(col) // Windows writes instance names unescaped
		if err == nil && (strings.ContainsAny(p.Instance+p.Parent+p.Counter, "*") || p.Index < 0) {
			err = fmt.Errorf("a counter path with a wildcard cannot be a column")
		}
		if err != nil {
			return nil, &ReadError{File: name, Line: 1, Cell: i + 2, Msg: fmt.Sprintf("column %q: %v", col, err)}
		}
		paths[i] = p
		s.list[i] = rawlog.Counter{Machine: p.Machine, Object: p.Object, Instance: p.Instance, Parent: p.Parent, Name: p.Counter, Type: countertype.PERF_DOUBLE_RAW}
	}
	var err error
	if s.db, err = rawlog.Titles(s.list, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", orText(name), err)
	}
	next := s.db.LastCounter() + 2
	next += next % 2
	byMachine := map[string]*machinePlan{}
	byObj := map[string]int{}
	type ikey struct {
		parent, name string
	}
	type igroup struct {
		max   int
		first int // column of first appearance
	}
	groups := map[int]map[ikey]*igroup{}
	var gorder = map[int][]ikey{}
	first := map[string]int{}
	for i, p := range paths {
		if j, dup := first[strings.ToLower(lg.Columns[i])]; dup {
			s.notes = append(s.notes, fmt.Sprintf("column %d repeats column %d (%s): one counter, whose value is the later column's", i+2, j+2, lg.Columns[i]))
		} else {
			first[strings.ToLower(lg.Columns[i])] = i
		}
		m := byMachine[strings.ToLower(p.Machine)]
		if m == nil {
			m = &machinePlan{name: p.Machine}
			byMachine[strings.ToLower(p.Machine)] = m
			s.machines = append(s.machines, m)
		}
		ok := strings.ToLower(p.Machine + `\` + p.Object)
		oi, seen := byObj[ok]
		if !seen {
			idx, _ := s.db.Index(p.Object)
			oi = len(s.objs)
			byObj[ok] = oi
			s.objs = append(s.objs, &objPlan{machine: p.Machine, name: p.Object, index: idx, single: p.Instance == "", byName: map[string]int{}, parents: -1})
			m.objs = append(m.objs, oi)
			groups[oi] = map[ikey]*igroup{}
		}
		o := s.objs[oi]
		if o.single != (p.Instance == "") {
			return nil, &ReadError{File: name, Line: 1, Cell: i + 2, Msg: fmt.Sprintf("column %q: object %s has columns with and without instances", lg.Columns[i], p.Object)}
		}
		ck := strings.ToLower(p.Counter)
		if _, ok := o.byName[ck]; !ok {
			idx, _ := s.db.Index(p.Counter)
			o.byName[ck] = len(o.defs)
			o.defs = append(o.defs, perfdata.CounterSpec{NameIndex: idx, HelpIndex: idx + 1, DetailLevel: 100, Type: countertype.PERF_DOUBLE_RAW, Size: 8})
		}
		if p.Parent != "" && o.parents < 0 {
			pn := rawlog.ParentsObject(p.Object)
			pidx, ok := s.db.Index(pn)
			if !ok {
				if err := s.db.SetAt(next, pn, "The parent instances named by the columns of "+p.Object+" in a text log."); err != nil {
					return nil, fmt.Errorf("%s: %w", orText(name), err)
				}
				pidx, next = next, next+2
			}
			o.parents = len(s.objs)
			s.objs = append(s.objs, &objPlan{machine: p.Machine, name: pn, index: pidx, byName: map[string]int{}, parents: -1})
			m.objs = append(m.objs, o.parents)
		}
		if !o.single {
			k := ikey{p.Parent, p.Instance}
			g := groups[oi][k]
			if g == nil {
				g = &igroup{first: i}
				groups[oi][k] = g
				gorder[oi] = append(gorder[oi], k)
			}
			if p.HasIndex {
				g.max = max(g.max, p.Index)
			}
		}
	}
	// Instances: each (parent, name) at its first column, with every
	// index up to the highest a column names.
	total := 0
	instAt := map[int]map[ikey]int{} // object -> first instance position of a group
	for oi, o := range s.objs {
		if o.single {
			continue
		}
		instAt[oi] = map[ikey]int{}
		parentPos := map[string]int{}
		for _, k := range gorder[oi] {
			g := groups[oi][k]
			total += g.max + 1
			if total > 2*len(paths)+1024 {
				return nil, &ReadError{File: name, Line: 1, Cell: g.first + 2, Msg: fmt.Sprintf("column %q: instance index #%d: more instances than the log could hold", lg.Columns[g.first], g.max)}
			}
			pp := -1
			if k.parent != "" {
				par := s.objs[o.parents]
				var ok bool
				if pp, ok = parentPos[k.parent]; !ok {
					pp = len(par.insts)
					parentPos[k.parent] = pp
					par.insts = append(par.insts, instPlan{name: k.parent, parent: -1})
				}
			}
			instAt[oi][k] = len(o.insts)
			for range g.max + 1 {
				o.insts = append(o.insts, instPlan{name: k.name, parent: pp})
			}
		}
	}
	s.cells = make([]cellPos, len(paths))
	named := map[[2]int]bool{}
	for i, p := range paths {
		oi := byObj[strings.ToLower(p.Machine+`\`+p.Object)]
		o := s.objs[oi]
		c := cellPos{obj: oi, inst: -1, def: o.byName[strings.ToLower(p.Counter)]}
		if !o.single {
			c.inst = instAt[oi][ikey{p.Parent, p.Instance}]
			if p.HasIndex {
				c.inst += p.Index
			}
			named[[2]int{oi, c.inst}] = true
		}
		s.cells[i] = c
	}
	s.vals = make(map[[2]int][]int, len(s.objs))
	for k, c := range s.cells {
		key := [2]int{c.obj, c.inst}
		s.vals[key] = append(s.vals[key], k)
	}
	for oi, o := range s.objs {
		if len(o.defs) == 0 {
			continue // a parents object has no values
		}
		for ii := range o.insts {
			if !named[[2]int{oi, ii}] {
				o.placeholders = append(o.placeholders, ii)
			}
		}
	}
	for _, o := range s.objs {
		if o.layout, err = perfdata.NewLayout(o.defs); err != nil {
			return nil, fmt.Errorf("%s: object %s: %w", orText(name), o.name, err)
		}
	}
	return s, nil
}

// sample builds row i's blocks.
func (s *source) sample(lg *Log, i int) (*pdh.Sample, error) {
	r := &lg.Rows[i]
	t := r.Time.UTC()
	ft := perfdata.FileTime(t)
	smp := &pdh.Sample{Time: t}
	// missing[obj][inst] are the counters without a value.
	missing := map[int]map[int][]uint32{}
	for k, v := range r.Values {
		if v.OK {
			continue
		}
		c := s.cells[k]
		m := missing[c.obj]
		if m == nil {
			m = map[int][]uint32{}
			missing[c.obj] = m
		}
		m[c.inst] = append(m[c.inst], s.objs[c.obj].defs[c.def].NameIndex)
	}
	for _, m := range s.machines {
		h := perfdata.Header{SystemTime: perfdata.SystemTimeOf(t), PerfTime: ft, PerfFreq: 10_000_000, PerfTime100nSec: ft, SystemName: m.name}
		if len(m.objs) > 0 {
			h.DefaultObject = int32(s.objs[m.objs[0]].index)
		}
		b := s.b
		b.Reset(h)
		for _, oi := range m.objs {
			o := s.objs[oi]
			if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: o.index, HelpIndex: o.index + 1, DetailLevel: 100, DefaultCounter: -1, Single: o.single}, o.layout, o.defs); err != nil {
				return nil, fmt.Errorf("%s: line %d: object %s: %w", orText(s.name), i+2, o.name, err)
			}
			n := len(o.insts)
			if o.single {
				n = 1
			}
			for ii := range n {
				var v perfdata.Values
				inst := ii
				if o.single {
					v = b.Single()
					inst = -1
				} else {
					in := o.insts[ii]
					if in.parent >= 0 {
						v = b.Instance(in.name, s.objs[o.parents].index, uint32(in.parent), perfdata.NoUniqueID)
					} else {
						v = b.Instance(in.name, 0, 0, perfdata.NoUniqueID)
					}
				}
				for _, k := range s.vals[[2]int{oi, inst}] {
					if x := r.Values[k]; x.OK {
						v.Set(s.cells[k].def, math.Float64bits(x.Number))
					}
				}
			}
			if err := b.EndObject(); err != nil {
				return nil, fmt.Errorf("%s: line %d: object %s: %w", orText(s.name), i+2, o.name, err)
			}
			var mv []pdh.MissingValues
			for _, ii := range o.placeholders {
				mv = append(mv, pdh.MissingValues{Instance: ii})
			}
			if m := missing[oi]; m != nil {
				for inst := -1; inst < len(o.insts); inst++ {
					if ctrs, ok := m[inst]; ok {
						mv = append(mv, pdh.MissingValues{Instance: inst, Counters: ctrs})
					}
				}
			}
			if len(mv) > 0 {
				smp.Problems = append(smp.Problems, pdh.Problem{Object: o.index, ObjectName: o.name, Machine: o.machine, Partial: true, Missing: mv,
					Reason: strings.TrimPrefix(o.machine, `\\`) + ": " + NoValue})
			}
		}
		blk, err := perfdata.Parse(slices.Clone(b.Bytes()))
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: the sample built from it: %w", orText(s.name), i+2, err)
		}
		smp.Blocks = append(smp.Blocks, blk)
	}
	return smp, nil
}

// ready returns the log's source, planning it for a Log from Read.
func (l *Log) ready() (*source, error) {
	if l.src != nil {
		return l.src, nil
	}
	if l.Style == StyleConsole {
		return nil, fmt.Errorf("typeperf's console output (the header names no time zone) cannot be read as a log")
	}
	s, err := newSource(l, "")
	if err != nil {
		return nil, err
	}
	l.src = s
	return s, nil
}

// Sample returns the next row as a sample: one PERF_DATA_BLOCK per
// machine and object, each value a PERF_DOUBLE_RAW counter; blank cells
// are the sample's Problems (Missing, ending with NoValue), so pdh gives
// them the status NoData. objects is ignored. After the last row it
// returns io.EOF.
func (l *Log) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	s, err := l.ready()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.pos >= len(l.Rows) {
		return nil, io.EOF
	}
	smp, err := s.sample(l, s.pos)
	s.pos++
	return smp, err
}

// Titles is the title database naming the log's objects and counters:
// English Windows' indexes where the name is known there, spelled as the
// log spells them, and new indexes after the last for the others.
func (l *Log) Titles() *titles.DB {
	s, err := l.ready()
	if err != nil {
		return titles.New()
	}
	return s.db
}

// Recorded returns the Log itself: its rows are recorded samples.
func (l *Log) Recorded() pdh.Recorded { return l }

// Len is the number of rows.
func (l *Log) Len() int { return len(l.Rows) }

// Pos is the position of the row the next Sample returns.
func (l *Log) Pos() int {
	if l.src == nil {
		return 0
	}
	return l.src.pos
}

// Seek makes the next Sample return row i.
func (l *Log) Seek(i int) error {
	s, err := l.ready()
	if err != nil {
		return err
	}
	if i < 0 || i > len(l.Rows) {
		return fmt.Errorf("%s: sample %d out of range 0..%d", orText(s.name), i, len(l.Rows))
	}
	s.pos = i
	return nil
}

// Time is the time of row i (UTC).
func (l *Log) Time(i int) time.Time { return l.Rows[i].Time.UTC() }

// Counters returns the header's counter paths, in the header's order: a
// column Windows wrote with parentheses in an instance name (which
// counterpath.Parse asks to be escaped) is given in counterpath's form,
// so that pdh reads it back.
func (l *Log) Counters() []string {
	var out []string // a copy, made at the first column to respell
	for i, col := range l.Columns {
		if _, err := counterpath.Parse(col); err == nil {
			continue
		}
		if p, err := counterpath.ParseWindows(col); err == nil {
			if out == nil {
				out = slices.Clone(l.Columns)
			}
			out[i] = p.String()
		}
	}
	if out == nil {
		return l.Columns
	}
	return out
}

// Location is the time zone the header names, with its name: text logs
// written in it have the same header zone and the same row times.
func (l *Log) Location() *time.Location {
	if l.Style == StyleConsole {
		return time.Local
	}
	return l.Zone.Location()
}

// Notes says what the reader did that its user should know (a last line
// left out because the file ends inside it, a repeated column).
func (l *Log) Notes() []string {
	if l.src == nil {
		return nil
	}
	return l.src.notes
}

// Close releases nothing (Open reads the whole file); it is there so a
// Log closes like the other logs.
func (l *Log) Close() error { return nil }

var _ pdh.Source = (*Log)(nil)
