// Package rawlog turns logs of listed counters back into samples. Such a
// log stores, per sample, one PDH_RAW_COUNTER value (status, FirstValue,
// SecondValue, MultiCount) for each instance of each counter it was asked
// for, named by path: Windows' BLG counter lists, the CounterData table
// relog writes into SQL, and text logs read back (PERF_DOUBLE_RAW values).
// A Plan builds, for each sample, one PERF_DATA_BLOCK per machine and
// object whose counters, bases and clocks reproduce those raw values, so
// that pdh computes exactly the values Windows computed from them.
package rawlog

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// Counter is one listed counter: its path, as the log spells it, with
// the counter's type, time base and default scale.
type Counter struct {
	Machine  string // with or without the leading backslashes
	Object   string
	Instance string // "" none, "*" every instance
	Parent   string
	Index    uint32 // instance index (the #n of duplicate names)
	Name     string // counter name
	Type     countertype.Type
	TimeBase int64 // frequency of the counter's time stamps
	Scale    int32 // default scale
}

// Path is the counter's path as Windows writes it.
func (c Counter) Path() string {
	m := c.Machine
	if m != "" && !strings.HasPrefix(m, `\\`) {
		m = `\\` + m
	}
	p := m + `\` + c.Object
	if c.Instance != "" {
		inst := c.Instance
		if c.Parent != "" {
			inst = c.Parent + "/" + inst
		}
		if c.Index > 0 {
			inst += fmt.Sprintf("#%d", c.Index)
		}
		p += "(" + inst + ")"
	}
	return p + `\` + c.Name
}

// Value is one PDH_RAW_COUNTER as logs store it.
type Value struct {
	Status        uint32 // PDH_CSTATUS_*: 0 and 1 are valid data
	First, Second int64
	Multi         uint32
}

// PDH counter status values (pdhmsg.h).
const (
	CStatusValid   = 0x00000000
	CStatusNewData = 0x00000001
)

var cstatusNames = map[uint32]string{
	0x800007D0: "PDH_CSTATUS_NO_MACHINE: the computer was not available",
	0x800007D1: "PDH_CSTATUS_NO_INSTANCE: the instance was not found",
	0xC0000BB9: "PDH_CSTATUS_NO_OBJECT: the object was not found",
	0xC0000BBA: "PDH_CSTATUS_NO_COUNTER: the counter was not found",
	0xC0000BBC: "PDH_CSTATUS_INVALID_DATA: the data are not valid",
}

// StatusText names a PDH counter status for a message.
func StatusText(s uint32) string {
	if t, ok := cstatusNames[s]; ok {
		return fmt.Sprintf("%s (status 0x%08X)", t, s)
	}
	return fmt.Sprintf("PDH counter status 0x%08X", s)
}

// StatusOK reports a status that carries data.
func StatusOK(s uint32) bool { return s == CStatusValid || s == CStatusNewData }

// maxCells bounds a rebuilt block that the values do not fill: a crafted
// log cannot make a block grow with the square of its size.
const maxCells = 4096

// Plan is how listed counters become PERF_DATA_BLOCKs: one block per
// machine and object, holding that object's listed counters (each
// followed by the base its type needs) and the instances the sample has
// values for. A Plan is not safe for concurrent use.
type Plan struct {
	groups []*group
	slots  []slot // per listed counter
}

type slot struct {
	group   int
	counter int // position in the group's counters
}

type group struct {
	machine  string
	object   string
	objIndex uint32
	single   bool
	parents  uint32           // title index of ParentsObject(object); 0: no instance has a parent
	plain    *perfdata.Layout // of an object without counters (the parents')
	defs     []perfdata.CounterSpec
	layout   *perfdata.Layout
	counters []gcounter
	byKey    map[gkey]int
	b        *perfdata.Builder
	// The block b built last, written again for a sample of the same
	// instances (a log's samples mostly are): the instances' names as
	// the sample gave them, their order in the block, their counter
	// blocks, and the block parsed. A block with a parents object is
	// always built anew.
	reuse     bool
	lastNames []string
	insts     []blockInstance
	vals      []perfdata.Values
	blk       perfdata.Block
}

// gkey identifies a counter within a group: its name, case-insensitively,
// and its type.
type gkey struct {
	name string
	typ  countertype.Type
}

type gcounter struct {
	def, base int // definition positions; base -1 when none
	typ       countertype.Type
	tb        countertype.Type // typ.TimeBase()
	second    bool             // secondIsTime(typ)
	multiBase bool             // the base is PERF_COUNTER_MULTI_BASE
	timeBase  int64
}

// NewPlan plans the blocks of list, naming objects and counters by their
// indexes in db (Titles makes one that has them all). A type that cannot
// be a raw value (a base, text, an unknown type) is an error naming the
// counter.
func NewPlan(list []Counter, db *titles.DB) (*Plan, error) {
	p := &Plan{slots: make([]slot, len(list))}
	byKey := map[string]int{}
	for k, c := range list {
		key := strings.ToLower(strings.TrimPrefix(c.Machine, `\\`) + `\` + c.Object)
		gi, ok := byKey[key]
		if !ok {
			idx, _ := db.Index(c.Object)
			gi = len(p.groups)
			byKey[key] = gi
			p.groups = append(p.groups, &group{machine: c.Machine, object: c.Object, objIndex: idx, single: true, byKey: map[gkey]int{}})
		}
		g := p.groups[gi]
		if c.Instance != "" {
			g.single = false
		}
		if c.Parent != "" && g.parents == 0 {
			g.parents, _ = db.Index(ParentsObject(c.Object))
		}
		ckey := gkey{name: strings.ToLower(c.Name), typ: c.Type}
		ci, ok := g.byKey[ckey]
		if !ok {
			idx, _ := db.Index(c.Name)
			if !c.Type.Known() || c.Type.IsBase() || c.Type.IsText() {
				return nil, fmt.Errorf("counter %s: counter type 0x%08X cannot be logged as a raw value", c.Path(), uint32(c.Type))
			}
			gc := gcounter{def: len(g.defs), base: -1, typ: c.Type, tb: c.Type.TimeBase(), second: secondIsTime(c.Type), timeBase: c.TimeBase}
			g.defs = append(g.defs, perfdata.CounterSpec{NameIndex: idx, HelpIndex: idx + 1, DefaultScale: c.Scale, DetailLevel: 100, Type: c.Type, Size: numSize(c.Type)})
			if bt, ok := c.Type.Base(); ok {
				gc.base, gc.multiBase = len(g.defs), bt == countertype.PERF_COUNTER_MULTI_BASE
				g.defs = append(g.defs, perfdata.CounterSpec{NameIndex: idx, HelpIndex: idx + 1, DetailLevel: 100, Type: bt, Size: numSize(bt)})
			}
			ci = len(g.counters)
			g.counters = append(g.counters, gc)
			g.byKey[ckey] = ci
		}
		p.slots[k] = slot{group: gi, counter: ci}
	}
	for _, g := range p.groups {
		l, err := perfdata.NewLayout(g.defs)
		if err != nil {
			return nil, fmt.Errorf("object %s\\%s: %w", g.machine, g.object, err)
		}
		g.layout = l
		if g.parents != 0 {
			if g.plain, err = perfdata.NewLayout(nil); err != nil {
				return nil, err
			}
		}
		g.b = perfdata.NewBuilder(nil)
	}
	return p, nil
}

// numSize stores every number in 8 bytes: PDH_RAW_COUNTER holds 64-bit
// values whatever the type's width, and readers go by CounterSize.
func numSize(t countertype.Type) uint32 {
	if t.Size() == countertype.PERF_SIZE_ZERO {
		return 0
	}
	return 8
}

// Rows are the values of one sample, filled by Set. Reset empties them
// for the next sample, keeping their storage: a log's samples are
// rebuilt one after another, and the values of one sample are few.
type Rows struct {
	p       *Plan
	groups  []grows // by group
	touched []int
	n       int // values set
}

// grows is one group's values in one sample.
type grows struct {
	used      bool
	instances []string
	byName    map[string]int // past linearInstances instances
	cells     []cell         // in the order set; a later one for the same place wins
	at        []int32        // build's scratch: the cell of each instance × counter
}

// cell is one value set: its instance and its counter in the group.
type cell struct {
	inst, counter int32
	v             Value
}

// linearInstances is how many instances a group looks up by comparing
// names before it keeps a map of them.
const linearInstances = 16

func (gs *grows) instance(name string) int {
	if gs.byName != nil && len(gs.instances) > linearInstances {
		if i, ok := gs.byName[name]; ok {
			return i
		}
	} else {
		for i, n := range gs.instances {
			if n == name {
				return i
			}
		}
	}
	gs.instances = append(gs.instances, name)
	i := len(gs.instances) - 1
	if len(gs.instances) > linearInstances {
		if gs.byName == nil {
			gs.byName = make(map[string]int, 2*linearInstances)
		}
		if len(gs.byName) == 0 {
			for k, n := range gs.instances {
				gs.byName[n] = k
			}
		}
		gs.byName[name] = i
	}
	return i
}

// Rows starts the values of a sample.
func (p *Plan) Rows() *Rows { return &Rows{p: p, groups: make([]grows, len(p.groups))} }

// Reset empties r for another sample of the same plan.
func (r *Rows) Reset() {
	for _, gi := range r.touched {
		gs := &r.groups[gi]
		gs.used = false
		// The names stay in the array until the next sample's
		// replace them: no more than the most a sample had.
		// Clearing them took 3 % of converting a log of 26
		// objects of one value each.
		gs.instances = gs.instances[:0]
		if gs.byName != nil {
			clear(gs.byName)
		}
		gs.cells = gs.cells[:0]
	}
	r.touched = r.touched[:0]
	r.n = 0
}

// Set sets the value of listed counter k for an instance (its name as
// the block will show it; "" for a single-instance object). A later value
// for the same cell replaces an earlier one. k outside the list is an
// error.
func (r *Rows) Set(k int, instance string, v Value) error {
	if k < 0 || k >= len(r.p.slots) {
		return fmt.Errorf("counter %d: the list has %d counters", k, len(r.p.slots))
	}
	s := r.p.slots[k]
	gs := &r.groups[s.group]
	if !gs.used {
		gs.used = true
		r.touched = append(r.touched, s.group)
	}
	gs.cells = append(gs.cells, cell{inst: int32(gs.instance(instance)), counter: int32(s.counter), v: v})
	r.n++
	return nil
}

// SetParent is Set for an instance with a parent instance
// (Thread(svchost/0)): the rebuilt block holds the parents in an object of
// their own, ParentsObject(object), which the instances point to.
func (r *Rows) SetParent(k int, parent, instance string, v Value) error {
	if parent == "" {
		return r.Set(k, instance, v)
	}
	if k >= 0 && k < len(r.p.slots) && r.p.groups[r.p.slots[k].group].parents == 0 {
		return fmt.Errorf("counter %d: a parent instance %q, but the list names no parent for the object", k, parent)
	}
	return r.Set(k, parent+parentSep+instance, v)
}

// parentSep joins a parent and an instance in a sample's instance keys.
const parentSep = "\x00"

// ParentsObject names the object that holds the parent instances of
// object's instances in blocks rebuilt from a log: logs name the parent
// instance, not the parent's object, so perfc gives them one of their own.
func ParentsObject(object string) string { return "Parents of " + object }

// Len is the number of values set (a value set again for the same
// place counts again).
func (r *Rows) Len() int { return r.n }

// Build makes the sample's blocks, in the order of the list's first
// counter of each object, stamped with t (UTC) and perfFreq (the
// PerfFreq of tick counters whose time base the log does not give).
// Values with a failed status, and instances a counter has no value for,
// are the sample's Problems (Missing); an object with no valid value at
// all gives no block, only a Problem.
func (r *Rows) Build(t time.Time, perfFreq int64) (*pdh.Sample, error) {
	s := &pdh.Sample{Time: t}
	if err := r.AppendTo(s, perfFreq); err != nil {
		return nil, err
	}
	return s, nil
}

// AppendTo is Build appending the blocks and Problems to s, stamped with
// s.Time: a reader whose sample also holds blocks of its own (a BLG's
// wildcard objects) makes one Sample.
func (r *Rows) AppendTo(s *pdh.Sample, perfFreq int64) error {
	slices.Sort(r.touched)
	t := s.Time
	h := perfdata.Header{SystemTime: perfdata.SystemTimeOf(t), PerfFreq: perfFreq, PerfTime100nSec: perfdata.FileTime(t)}
	s.Blocks = slices.Grow(s.Blocks, len(r.touched))
	for _, gi := range r.touched {
		g := r.p.groups[gi]
		blk, probs, err := g.build(&r.groups[gi], h)
		if err != nil {
			return err
		}
		s.Problems = append(s.Problems, probs...)
		if blk.Bytes() != nil {
			s.Blocks = append(s.Blocks, blk)
		}
	}
	return nil
}

// build makes the group's PERF_DATA_BLOCK for one sample (none when no
// value is valid). h holds the sample's times; the group adds its object
// and machine. The block is the caller's, never changed by a later build.
func (g *group) build(gs *grows, h perfdata.Header) (perfdata.Block, []pdh.Problem, error) {
	h.DefaultObject = int32(g.objIndex)
	h.SystemName = strings.TrimPrefix(g.machine, `\\`)
	if cells := len(gs.instances) * len(g.counters); cells > maxCells && cells > 16*len(gs.cells) {
		return perfdata.Block{}, nil, fmt.Errorf("object %s\\%s: %d instances × %d counters for %d values: too sparse to rebuild", g.machine, g.object, len(gs.instances), len(g.counters), len(gs.cells))
	}
	// The cell of each instance and counter (-1 none), the last set
	// winning: at most max(maxCells, 16 values) places, by the check above.
	nc := len(g.counters)
	gs.at = slices.Grow(gs.at[:0], len(gs.instances)*nc)[:len(gs.instances)*nc]
	for k := range gs.at {
		gs.at[k] = -1
	}
	for k, c := range gs.cells {
		gs.at[int(c.inst)*nc+int(c.counter)] = int32(k)
	}
	cellAt := func(i, ci int) (Value, bool) {
		if k := gs.at[i*nc+ci]; k >= 0 {
			return gs.cells[k].v, true
		}
		return Value{}, false
	}
	var objTime, objFreq int64
	var setTick, setFreq, set100, setObj, setObjFreq bool
	valid := 0
	var reasons []string
	var seenReason []uint32
	for i := range gs.instances {
		for ci := range g.counters {
			c, ok := cellAt(i, ci)
			if !ok {
				continue
			}
			gc := &g.counters[ci]
			if !StatusOK(c.Status) {
				if !slices.Contains(seenReason, c.Status) {
					seenReason = append(seenReason, c.Status)
					reasons = append(reasons, StatusText(c.Status))
				}
				continue
			}
			valid++
			tb := gc.tb
			if gc.timeBase > 0 {
				switch {
				case tb == countertype.PERF_TIMER_TICK && !setFreq:
					h.PerfFreq, setFreq = gc.timeBase, true
				case tb == countertype.PERF_OBJECT_TIMER && !setObjFreq:
					objFreq, setObjFreq = gc.timeBase, true
				}
			}
			if !gc.second {
				continue
			}
			switch tb {
			case countertype.PERF_TIMER_TICK:
				if !setTick {
					h.PerfTime, setTick = c.Second, true
				}
			case countertype.PERF_TIMER_100NS:
				if !set100 {
					h.PerfTime100nSec, set100 = c.Second, true
				}
			case countertype.PERF_OBJECT_TIMER:
				if !setObj {
					objTime, setObj = c.Second, true
				}
			}
		}
	}
	if valid == 0 {
		reason := "no valid value"
		if len(reasons) > 0 {
			reason = strings.Join(reasons, "; ")
		}
		return perfdata.Block{}, []pdh.Problem{{Object: g.objIndex, ObjectName: g.object, Machine: g.machine, Reason: g.machine + ": " + reason}}, nil
	}
	b := g.b
	reuse := g.reuse && slices.Equal(gs.instances, g.lastNames)
	if reuse {
		b.Restamp(h, objTime, objFreq)
	} else {
		g.reuse = false
		b.Reset(h)
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: g.objIndex, HelpIndex: g.objIndex + 1, DetailLevel: 100, PerfTime: objTime, PerfFreq: objFreq, Single: g.single}, g.layout, g.defs); err != nil {
			return perfdata.Block{}, nil, err
		}
		if g.single {
			g.insts = append(g.insts[:0], blockInstance{src: 0})
		} else {
			g.insts = arrange(gs.instances)
		}
	}
	var missing []pdh.MissingValues
	insts := g.insts
	var parents []string // the parents object's instances
	var parentPos map[string]uint32
	for pos, bi := range insts {
		i := bi.src
		var v perfdata.Values
		switch parent, name, ok := strings.Cut(bi.name, parentSep); {
		case reuse:
			v = g.vals[pos]
			v.Clear()
		case g.single:
			v = b.Single()
		case ok && g.parents != 0:
			pp, seen := parentPos[parent]
			if !seen {
				if parentPos == nil {
					parentPos = map[string]uint32{}
				}
				pp = uint32(len(parents))
				parentPos[parent] = pp
				parents = append(parents, parent)
			}
			v = b.Instance(name, g.parents, pp, -1)
		default:
			v = b.Instance(bi.name, 0, 0, -1)
		}
		var miss []uint32
		for ci, gc := range g.counters {
			var c Value
			ok := i >= 0
			if ok {
				c, ok = cellAt(i, ci)
			}
			if !ok || !StatusOK(c.Status) {
				miss = append(miss, g.defs[gc.def].NameIndex)
				continue
			}
			v.Set(gc.def, uint64(c.First))
			if gc.typ.Multi() && gc.base < 0 {
				v.SetMulti(gc.def, c.Multi)
			}
			if gc.base >= 0 {
				if gc.multiBase {
					v.Set(gc.base, uint64(c.Multi))
				} else {
					v.Set(gc.base, uint64(c.Second))
				}
			}
		}
		if len(miss) > 0 {
			inst := pos
			if g.single {
				inst = -1
			}
			if len(miss) == len(g.counters) {
				miss = nil
			}
			missing = append(missing, pdh.MissingValues{Instance: inst, Counters: miss})
		}
	}
	if reuse {
		return g.blk.Clone(), g.problems(missing, reasons), nil
	}
	if err := b.EndObject(); err != nil {
		return perfdata.Block{}, nil, err
	}
	if len(parents) > 0 {
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: g.parents, HelpIndex: g.parents + 1, DetailLevel: 100}, g.plain, nil); err != nil {
			return perfdata.Block{}, nil, err
		}
		for _, p := range parents {
			b.Instance(p, 0, 0, -1)
		}
		if err := b.EndObject(); err != nil {
			return perfdata.Block{}, nil, err
		}
	}
	blk, err := perfdata.Parse(b.Bytes())
	if err != nil {
		return perfdata.Block{}, nil, fmt.Errorf("object %s\\%s rebuilt from raw values: %w", g.machine, g.object, err)
	}
	if len(parents) == 0 {
		g.reuse, g.blk = true, blk
		g.lastNames = append(g.lastNames[:0], gs.instances...)
		g.vals = b.AppendValues(g.vals[:0])
	}
	// The builder writes these bytes again for the next sample: the
	// sample gets a copy of its own.
	return blk.Clone(), g.problems(missing, reasons), nil
}

// problems are the Problems of a block with values missing.
func (g *group) problems(missing []pdh.MissingValues, reasons []string) []pdh.Problem {
	if len(missing) == 0 {
		return nil
	}
	reason := "no value for some counters of some instances in this sample"
	if len(reasons) > 0 {
		reason = strings.Join(reasons, "; ")
	}
	return []pdh.Problem{{Object: g.objIndex, ObjectName: g.object, Machine: g.machine, Partial: true, Missing: missing, Reason: g.machine + ": " + reason}}
}

// blockInstance is one instance of a rebuilt block: its name there and
// the position of its values in the sample (-1: a placeholder).
type blockInstance struct {
	src  int
	name string
}

// arrange orders a sample's instances for a block. Logs name duplicate
// instances as PDH shows them, "svchost", "svchost#1", "svchost#2"; a
// block holds them all as "svchost", and PDH numbers them in the order
// they appear. So each "#n" suffix is taken off and the instances keep
// the order they were given in, except that the instances of one name
// take their places in the order of n; a gap in the numbers (an instance
// the sample has no value for) is held by a placeholder, so that the
// instances after it keep their numbers. Placeholders are at most as many
// as the instances; past that, gaps close up.
func arrange(instances []string) []blockInstance {
	if !slices.ContainsFunc(instances, func(s string) bool { return strings.IndexByte(s, '#') >= 0 }) {
		out := make([]blockInstance, len(instances)) // no numbered duplicates: as given
		for i, s := range instances {
			out[i] = blockInstance{src: i, name: s}
		}
		return out
	}
	type entry struct{ idx, src int }
	type dup struct {
		name    string
		entries []entry
		byIdx   map[int]bool
		next    int // entries handed out
		prev    int // index of the last one handed out, -1 none
	}
	seq := make([]*dup, len(instances)) // the name of each position
	byName := map[string]*dup{}
	var dups []*dup
	for i, s := range instances {
		name, idx := splitIndex(s)
		d := byName[name]
		if d == nil {
			d = &dup{name: name, byIdx: map[int]bool{}, prev: -1}
			byName[name] = d
			dups = append(dups, d)
		}
		if d.byIdx[idx] {
			// "x#01" after "x#1": the later one keeps its suffix.
			d = &dup{name: s, byIdx: map[int]bool{}, prev: -1}
			dups = append(dups, d)
			idx = 0
		}
		d.byIdx[idx] = true
		d.entries = append(d.entries, entry{idx, i})
		seq[i] = d
	}
	holes := 0
	for _, d := range dups {
		slices.SortFunc(d.entries, func(a, b entry) int { return a.idx - b.idx })
		holes += d.entries[len(d.entries)-1].idx + 1 - len(d.entries)
	}
	fill := holes <= len(instances)
	out := make([]blockInstance, 0, len(instances))
	for _, d := range seq {
		e := d.entries[d.next]
		d.next++
		for idx := d.prev + 1; fill && idx < e.idx; idx++ {
			out = append(out, blockInstance{src: -1, name: d.name})
		}
		d.prev = e.idx
		out = append(out, blockInstance{src: e.src, name: d.name})
	}
	return out
}

// splitIndex splits "name#n" (n decimal, name not empty) into name and n;
// other names have index 0.
func splitIndex(s string) (string, int) {
	i := strings.LastIndexByte(s, '#')
	if i <= 0 || i == len(s)-1 || len(s)-i > 8 {
		return s, 0
	}
	n := 0
	for _, c := range s[i+1:] {
		if c < '0' || c > '9' {
			return s, 0
		}
		n = n*10 + int(c-'0')
	}
	return s[:i], n
}

// logLang is the language of the names of a log without a title table:
// the language of recorded Windows names (titles.LocalizedLangs) that
// names most of the objects and counters of list English Windows' list
// does not name in English, the lowest such language on a tie; English
// when none names any.
func logLang(list []Counter) titles.Lang {
	names := map[string]bool{}
	for _, c := range list {
		for _, n := range []string{c.Object, c.Name} {
			if _, ok := titles.EnglishIndex(n); !ok {
				names[strings.ToLower(n)] = true
			}
		}
	}
	best, most := titles.LangEnglish, 0
	for _, l := range titles.LocalizedLangs() {
		count := 0
		for n := range names {
			if _, ok := titles.EnglishOf(l, n); ok {
				count++
			}
		}
		if count > most {
			best, most = l, count
		}
	}
	return best
}

// secondIsTime reports a type whose PDH_RAW_COUNTER.SecondValue is the
// time stamp of its time base (not a base value).
func secondIsTime(t countertype.Type) bool {
	if bt, ok := t.Base(); ok {
		return bt == countertype.PERF_COUNTER_MULTI_BASE
	}
	return t.NeedsTwoSamples() || t == countertype.PERF_ELAPSED_TIME
}

// OwnIndexBase is the first index Titles makes up for a name of a log
// without a title table (a text or SQL log) that English Windows' list
// does not have in English or in the log's language: far above any index
// a Windows or perfc title database gives, so that a database laid over
// the log's names by index (relog -lang: titles.Over) never renames such
// a name with another counter's, and lists it as one it lacks instead.
const OwnIndexBase = 1 << 30

// Titles makes the title database of a log of listed counters: table (the
// log's own, when it has one) with the names of the listed counters
// added, at new indexes after the table's last. A log without one (text,
// SQL) has no indexes of its own: its names are spelled as the log spells
// them (PDH writes a log's paths as given), at English Windows' index of
// the name, in English or in the log's language (the language of
// recorded Windows names, titles.EnglishOf, that names most of the log's
// objects and counters), and at indexes from OwnIndexBase for the others.
func Titles(list []Counter, table *titles.DB) (*titles.DB, error) {
	refIndex, refLast := titles.EnglishIndex, uint32(OwnIndexBase-2)
	db := table
	lang := titles.LangEnglish
	if table == nil {
		db = titles.New()
		lang = logLang(list)
	} else {
		refIndex, refLast = table.Index, table.LastCounter()
	}
	next := max(refLast, db.LastCounter()) + 2
	next += next % 2
	add := func(name string) error {
		if i, ok := db.Index(name); ok && strings.EqualFold(db.Name(i), name) {
			return nil
		}
		if i, ok := refIndex(name); ok && (db.Name(i) == "" || strings.EqualFold(db.Name(i), name)) {
			return db.SetAt(i, name, "")
		}
		if en, ok := titles.EnglishOf(lang, name); ok && table == nil {
			if i, ok := titles.EnglishIndex(en); ok && db.Name(i) == "" {
				return db.SetAt(i, name, "")
			}
		}
		if err := db.SetAt(next, name, ""); err != nil {
			return err
		}
		next += 2
		return nil
	}
	for _, c := range list {
		if err := add(c.Object); err != nil {
			return nil, fmt.Errorf("counter %s: %w", c.Path(), err)
		}
		if c.Parent != "" {
			if err := add(ParentsObject(c.Object)); err != nil {
				return nil, fmt.Errorf("counter %s: %w", c.Path(), err)
			}
		}
		if err := add(c.Name); err != nil {
			return nil, fmt.Errorf("counter %s: %w", c.Path(), err)
		}
	}
	return db, nil
}
