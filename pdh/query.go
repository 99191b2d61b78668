package pdh

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
)

// DefaultHistory is how many raw samples a counter keeps for Statistics
// unless SetHistory says otherwise.
const DefaultHistory = 1024

// Query is a set of counters collected together from one Source
// (PdhOpenQuery). It is not safe for concurrent use.
type Query struct {
	src      Source
	db       *titles.DB
	alt      *titles.DB // SetTitles: the names a path may also use (English); nil none
	counters []*Counter
	objs     []*objState
	want     []uint32 // object title indexes to ask the source for
	history  int

	// the current sample
	stamp    int
	blocks   []perfdata.Block
	found    map[objKey]foundObj
	time     time.Time
	system   string
	names    map[string]*internedName // the latest sample's instance names by their UTF-16 bytes (intern)
	used     int                      // the entries of names the current sample used
	systems  map[string]system        // blocks' system names by their UTF-16 bytes
	parents  map[objKey]*parentNames
	problems []Problem // the current sample's
	gap      bool      // the current sample follows a gap

	// catalog is the sample the last path check took (resolve.go), reused
	// by the next AddCounter; Collect drops it, so paths added later are
	// checked against fresh data.
	catalog    *Sample
	catalogPos int // the recorded source's position when catalog was taken
	// prime is AddCounters' sample of a live source, which the first
	// Collect uses when it comes soon enough (primeFresh) instead of
	// collecting again; nil once used, dropped, or after a later
	// AddCounter.
	prime   *Sample
	primeAt time.Time
	// wantCtrs caches wantCounters until a counter is added.
	wantCtrs map[uint32][]uint32
	closed   bool      // Close
	rangeEnd time.Time // SetTimeRange's end; zero none
	// maxItems bounds the values one Collect may expand the counters to
	// (SetMaxItems; 0 none); items counts them in the Collect under way.
	maxItems, items int
	overflow        bool
	// inst caches, for the sample paths are checked against, the
	// instances of the object the last explicit instance path named, so
	// that N such paths cost one pass over the instances (instancesOf).
	inst struct {
		smp     *Sample
		machine string
		index   uint32
		st      *objState
	}
	// ctrs caches, for the catalog sample, the counter definitions of the
	// object the last explicit counter path named, so that N such paths
	// of one object cost N lookups, not N scans (counterNamed).
	ctrs struct {
		smp    *Sample
		system string
		index  uint32
		st     *objState
	}

	layouts   uint64 // the last Counter.Layout given out
	namesOnly bool   // SetNamesOnly
}

// objKey identifies an object in a sample: its machine (the block's system
// name, folded to lower case) and its title index. Samples of several
// machines (a BLG of remote counters, merged logs) hold the same object
// once per machine.
type objKey struct {
	system string
	index  uint32
}

type foundObj struct {
	obj    perfdata.Object
	clocks calc.Clocks
	system string
}

// OpenQuery opens a query on src.
func OpenQuery(src Source) *Query {
	return &Query{
		src:     src,
		db:      src.Titles(),
		history: DefaultHistory,
		found:   make(map[objKey]foundObj),
		names:   make(map[string]*internedName),
		systems: make(map[string]system),
		parents: make(map[objKey]*parentNames),
	}
}

// SetTitles makes the query name objects and counters as db does and
// resolve paths in db's names (PdhAddCounter in the user's language): db
// is typically titles.Over(English, a language's names), or a log's own
// title table. A path's object or counter name that db does not know is
// then looked up in alt, by title index, when alt is not nil
// (PdhAddEnglishCounter's names beside the language's: a German log's
// counters by their English names). Call it before adding counters; nil db
// keeps the source's titles.
func (q *Query) SetTitles(db, alt *titles.DB) {
	if db != nil {
		q.db = db
	}
	q.alt = alt
	q.ctrs.st = nil // its names are db's
}

// SetMaxItems bounds the values (instances × counters, over every
// counter of the query) that one Collect may expand its paths to: a
// Collect that would pass n stops reading and returns a *TooManyError
// before it allocates for more. 0, the default, sets no bound. A server
// that expands its callers' paths sets it, so that memory follows the
// answer it is willing to give, not the paths it is sent.
func (q *Query) SetMaxItems(n int) { q.maxItems = max(n, 0) }

// TooManyError is a Collect that would expand the query's paths to more
// values than SetMaxItems allows.
type TooManyError struct{ Limit int }

func (e *TooManyError) Error() string {
	return fmt.Sprintf("pdh: the paths expand to more than %d values", e.Limit)
}

// SetHistory sets how many raw samples each counter without wildcards
// keeps for Statistics (at least 2). It applies to counters added after.
func (q *Query) SetHistory(n int) { q.history = max(n, 2) }

// Source returns the query's data source.
func (q *Query) Source() Source { return q.src }

// Counters returns the counters in the order they were added.
func (q *Query) Counters() []*Counter { return q.counters }

// Time is the time of the last collected sample, from its block header
// (PerfTime100nSec, or SystemTime when that is 0), in UTC.
func (q *Query) Time() time.Time { return q.time }

// Machine is the system name in the last collected sample's header.
func (q *Query) Machine() string { return q.system }

// Problems returns what the source could not deliver in the last
// collected sample (objects dropped, or delivered with data missing), with
// the reasons. Values the source marked as missing carry the status
// NoData; the reasons are here, for a tool to report.
func (q *Query) Problems() []Problem { return q.problems }

// ProblemsShown returns the problems of the last collected sample that
// touch what the query shows, for a tool that warns about its output and
// nothing else: the source's own (no object), and an object's when a
// counter of the query reads that object of that machine and, when the
// problem names placeholder values (Missing), one of them is a value a
// counter of the query shows. Quiet problems are left out.
func (q *Query) ProblemsShown() []Problem {
	var out []Problem
	for _, p := range q.problems {
		if p.Quiet() {
			continue
		}
		if p.Object == 0 {
			out = append(out, p)
			continue
		}
		for _, s := range q.objs {
			if s.index != p.Object {
				continue
			}
			m := s.machine
			if s.present {
				m = s.system
			}
			if m == "" {
				m = q.system
			}
			if p.Machine != "" && foldMachine(p.Machine) != foldMachine(m) {
				continue
			}
			if len(p.Missing) > 0 && !q.showsAny(s, p.Missing) {
				continue
			}
			out = append(out, p)
			break
		}
	}
	return out
}

// showsAny reports whether a counter of the query on object s shows one of
// the values m names in the current sample.
func (q *Query) showsAny(s *objState, m []MissingValues) bool {
	var rows []bool // instance positions the counter shows
	for _, c := range q.counters {
		if c.obj != s || len(c.cols) == 0 {
			continue
		}
		rows = slices.Grow(rows[:0], len(s.cur))[:max(len(s.cur), 1)]
		clear(rows)
		for _, p := range c.rowPos {
			if int(p) < len(rows) {
				rows[p] = true
			}
		}
		for _, v := range m {
			pos := max(v.Instance, 0) // -1: the single instance
			if pos >= len(rows) || !rows[pos] {
				continue
			}
			if len(v.Counters) == 0 {
				return true
			}
			for k := range c.cols {
				if slices.Contains(v.Counters, c.cols[k].def.NameIndex) {
					return true
				}
			}
		}
	}
	return false
}

// SetNamesOnly makes Collect follow the objects and instances of each
// sample without reading their values: a tool that only learns what the
// samples hold (relog's pass over a log for its columns) does not pay for
// them. Counters then have items (AppendItems, AppendItemRows, Layout)
// but no values: Formatted gives NoData, the arrays of values are empty.
func (q *Query) SetNamesOnly(on bool) { q.namesOnly = on }

func (q *Query) wants(idx uint32) bool { return slices.Contains(q.want, idx) }

// Collect takes one sample from the source and updates every counter
// (PdhCollectQueryData). It returns io.EOF at the end of a finite source,
// and an error when the source fails or a block does not parse; a counter
// whose object, counter or instance is missing from the sample is not an
// error: its values carry the status.
func (q *Query) Collect(ctx context.Context) error {
	if q.closed {
		return ErrClosed
	}
	if !q.rangeEnd.IsZero() {
		if rec := q.src.Recorded(); rec != nil {
			if p := rec.Pos(); p < rec.Len() && rec.Time(p).After(q.rangeEnd) {
				return io.EOF
			}
		}
	}
	var smp *Sample
	if q.prime != nil && time.Since(q.primeAt) < primeFresh {
		smp = q.prime
	} else {
		var err error
		if smp, err = q.machineSample(ctx); err != nil {
			q.prime = nil
			return err
		}
	}
	q.prime = nil
	q.blocks = append(q.blocks[:0], smp.Blocks...)
	q.problems = smp.Problems
	q.gap = smp.Gap
	q.catalog = nil
	// The caches of the paths' checks go with the sample they were
	// checked against (resolve.go): a query collecting for days does not
	// keep the instances of its first sample.
	q.ctrs.st, q.ctrs.smp = nil, nil
	q.inst.st, q.inst.smp = nil, nil
	q.stamp++
	clear(q.found)
	q.time = smp.Time
	q.system = ""
	for i, blk := range q.blocks {
		sys := q.systemOf(blk)
		if i == 0 {
			q.system = sys.name
		}
		pt, pf, p100 := blk.Clocks()
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			k := objKey{sys.fold, o.NameIndex()}
			if _, dup := q.found[k]; dup {
				continue
			}
			q.found[k] = foundObj{obj: o, system: sys.name, clocks: calc.Clocks{
				PerfTime: pt, PerfFreq: pf, PerfTime100nSec: p100,
				ObjectTime: o.PerfTime(), ObjectFreq: o.PerfFreq(),
			}}
		}
	}
	if smp.Gap {
		for _, c := range q.counters {
			c.collected = false // nothing to pair with across a gap
		}
	}
	for _, s := range q.objs {
		f, ok := q.found[q.keyOf(s.machine, s.index)]
		if !ok {
			s.present, s.down = false, q.machineDown(s.machine)
			continue
		}
		s.down = false
		s.update(q, f.obj, f.clocks, f.system)
		s.setMissing(q.problems, f.system)
	}
	q.sweepNames()
	q.items, q.overflow = 0, false
	for _, c := range q.counters {
		c.collect()
		if q.overflow {
			return &TooManyError{Limit: q.maxItems}
		}
	}
	return nil
}

// maxSystems bounds the table of system names; past it the table starts
// afresh, so that blocks naming ever new machines cannot grow it without
// end.
const maxSystems = 1 << 16

// system is a block's system name and its key (foldMachine).
type system struct{ name, fold string }

// systemOf returns blk's system name and key, decoded once for each name
// the query meets: a sample of many machines has a block for each.
func (q *Query) systemOf(blk perfdata.Block) system {
	b := blk.SystemNameBytes()
	if s, ok := q.systems[string(b)]; ok {
		return s
	}
	if len(q.systems) >= maxSystems {
		clear(q.systems)
	}
	name := utf16le.DecodeLenient(b)
	s := system{name: name, fold: foldMachine(name)}
	q.systems[string(b)] = s
	return s
}

// foldMachine is a machine name as objects are keyed: without leading
// backslashes, in lower case.
func foldMachine(m string) string {
	return strings.ToLower(strings.TrimLeft(m, `\`))
}

// keyOf is the key of object index of machine in the current sample;
// machine "" is the sample's own machine (its first block's).
func (q *Query) keyOf(machine string, index uint32) objKey {
	if machine == "" {
		machine = q.system
	}
	return objKey{foldMachine(machine), index}
}

// objState returns the state of object index of machine ("" for the
// sample's own), creating it.
func (q *Query) objState(machine string, index uint32, name string) *objState {
	for _, s := range q.objs {
		if s.index == index && foldMachine(s.machine) == foldMachine(machine) {
			return s
		}
	}
	s := newObjState(index, name)
	s.machine = machine
	q.objs = append(q.objs, s)
	if !q.wants(index) {
		q.want = append(q.want, index)
	}
	return s
}

// Item is one instance (and counter) of a counter's array of values
// (PDH_FMT_COUNTERVALUE_ITEM).
type Item struct {
	Instance string           // PDH's array name: "parent/instance#n" form, "" for single-instance objects
	Path     counterpath.Path // the concrete path (no wildcards)
	Value    calc.Value
	Computed float64     // calc.Compute: unscaled, uncapped (text logs write this)
	Status   calc.Status // status of Computed
}

// RawItem is one instance's raw value (PDH_RAW_COUNTER_ITEM) with its type.
type RawItem struct {
	Instance string
	Path     counterpath.Path
	Raw      calc.Raw
	Type     countertype.Type
	Scale    int32 // the counter definition's DefaultScale (SQL logs store it per counter)
}

// CounterInfo describes a counter (PDH_COUNTER_INFO).
type CounterInfo struct {
	Path         counterpath.Path
	Type         countertype.Type
	DefaultScale int32
	DetailLevel  uint32
	Help         string
	NameIndex    uint32
}

// column is one counter definition a Counter reads.
type column struct {
	pos           int // definition position
	def           perfdata.CounterDef
	base          perfdata.CounterDef
	hasBase       bool
	multiFromBase bool // PERF_COUNTER_MULTI_BASE gives the item count
	multi         bool // the item count follows the value
	name          string
	time, freq    uint64 // the time base of the current sample (calc.TimeBase)
}

// Counter is one counter path in a query (a PDH counter handle). A path
// with wildcards stands for every counter and instance that matches it in
// each sample; it is expanded again on every sample.
type Counter struct {
	q    *Query
	path counterpath.Path // as added
	obj  *objState

	matchAll bool             // every instance matches
	oneName  bool             // the path names one (parent, name), no wildcard in it
	matchGen int              // the object's nameGen when the instances were last matched
	ipat     counterpath.Path // instance part of the pattern, for Match
	wildCtr  bool
	wild     bool

	gen      int // objState.gen the columns belong to
	cols     []column
	colNames []string // the names of cols

	// values of the current and previous sample in which the object was
	// present: rows are selected instances, row-major [row*len(cols)+col]
	missing        bool // object absent from the current sample
	collected      bool
	hasPrev        bool
	curRaw, prvRaw []calc.Raw
	rowPos         []int32 // object position of each current row
	rowPrev        []int32 // previous row of each current row, -1 none
	prvRowPos      []int32 // rowPos of the previous sample (oneName counters)
	posRow, prvPos []int32 // row by object position (current, previous sample)

	scale        int32 // 10^scale applied to formatted values
	defaultScale bool  // apply each definition's DefaultScale instead

	hist     []calc.Raw // ring of raw samples (counters without wildcards)
	histNext int
	histFull bool

	layout    uint64    // Layout
	layoutSig layoutSig // what the items of layout were made of
}

// layoutSig is what a counter's items depend on besides its path: the
// object's definitions and instance names, and whether it has values.
type layoutSig struct {
	gen, names int
	status     calc.Status
}

// Path returns the path as added (it may hold wildcards).
func (c *Counter) Path() counterpath.Path { return c.path }

// Info describes the counter: type, scale, detail level and help of its
// (first) matching counter definition, and the path with the object and
// counter names as the title database spells them.
func (c *Counter) Info() CounterInfo {
	p := c.path
	p.Object = c.obj.name
	if len(c.cols) == 0 {
		return CounterInfo{Path: p}
	}
	col := &c.cols[0]
	if !c.wildCtr {
		p.Counter = col.name
	}
	return CounterInfo{Path: p, Type: col.def.Type, DefaultScale: col.def.DefaultScale,
		DetailLevel: col.def.DetailLevel, Help: c.q.db.Help(col.def.HelpIndex), NameIndex: col.def.NameIndex}
}

// resolveColumns finds the definitions the counter reads.
func (c *Counter) resolveColumns() {
	s := c.obj
	c.cols = c.cols[:0]
	c.colNames = nil // a new slice: callers of AppendItemRows keep the old one
	from := 0
	if !c.wildCtr {
		// One counter: found by name, not by a scan of the definitions.
		if from = s.counterAt(c.path.Counter); from < 0 {
			c.gen = s.gen
			return
		}
	}
	for i, def := range s.defs[from:] {
		i += from
		if def.Type.IsBase() {
			continue
		}
		if !counterMatches(c.path.Counter, s.names[i], def.NameIndex, c.wildCtr) {
			continue
		}
		col := column{pos: i, def: def, name: s.names[i], multi: def.Type.Multi()}
		if b := s.bases[i]; b >= 0 {
			col.base, col.hasBase = s.defs[b], true
			col.multiFromBase = s.defs[b].Type == countertype.PERF_COUNTER_MULTI_BASE
		}
		c.cols = append(c.cols, col)
		c.colNames = append(c.colNames, col.name)
		if !c.wildCtr {
			break
		}
	}
	c.gen = s.gen
}

// matches reports whether instance in is selected by the path.
func (c *Counter) matches(in *instInfo) bool {
	if c.matchAll {
		return true
	}
	return counterpath.Match(c.ipat, counterpath.Path{Object: c.ipat.Object, Counter: c.ipat.Counter,
		Parent: in.parent, Instance: in.name, Index: int(in.index), HasIndex: in.index > 0})
}

func (c *Counter) collect() {
	defer c.stampLayout()
	s := c.obj
	if !s.present {
		c.missing = true
		st := calc.NoObject
		if s.down {
			// its machine did not answer: no data, and rates start over
			// when it does
			st, c.collected = calc.NoData, false
		}
		if !c.wild {
			c.record(st)
		}
		return
	}
	c.missing = false
	if c.gen != s.gen {
		c.resolveColumns()
		c.hasPrev = false
	} else {
		c.hasPrev = c.collected
	}
	c.collected = true
	c.prvRaw, c.curRaw = c.curRaw, c.prvRaw[:0]
	c.prvPos, c.posRow = c.posRow, c.prvPos[:0]
	prevRows := c.rowPrev // reuse the storage
	c.prvRowPos, c.rowPos = c.rowPos, c.prvRowPos[:0]
	c.rowPrev = prevRows[:0]
	n := len(c.cols)
	for k := range c.cols {
		col := &c.cols[k]
		col.time, col.freq = calc.TimeBase(col.def.Type, s.clocks) // the sample's, for every instance
	}
	if c.oneName {
		// A path that names one instance finds it by name: N such
		// counters over an object of M instances cost N lookups, not N×M
		// comparisons and N×M row slots (relog of a CSV of explicit
		// instance paths was quadratic).
		for _, p := range s.named(c.ipat.Parent, c.ipat.Instance) {
			in := &s.cur[p]
			if !c.matches(in) {
				continue
			}
			pr := int32(-1)
			if c.hasPrev && in.prev >= 0 {
				if k := slices.Index(c.prvRowPos, in.prev); k >= 0 {
					pr = int32(k)
				}
			}
			c.addRow(s, int(p), pr, n)
		}
		if !c.wild && !c.q.namesOnly {
			c.record(calc.ValidData)
		}
		return
	}
	if q := c.q; q.maxItems == 0 || len(s.cur)*max(n, 1) <= q.maxItems-q.items {
		c.curRaw = slices.Grow(c.curRaw, len(s.cur)*n)
	}
	// The names by position are the previous sample's (same
	// definitions, same nameGen): each instance matches as the one at
	// its position did.
	sameNames := c.hasPrev && c.matchGen == s.nameGen && len(c.prvPos) == len(s.cur)
	c.matchGen = s.nameGen
	for p := range s.cur {
		in := &s.cur[p]
		if sameNames && !c.matchAll {
			if c.prvPos[p] < 0 {
				c.posRow = append(c.posRow, -1)
				continue
			}
		} else if !c.matches(in) {
			c.posRow = append(c.posRow, -1)
			continue
		}
		if c.q.overflow {
			return
		}
		c.posRow = append(c.posRow, int32(len(c.rowPos)))
		pr := int32(-1)
		if c.hasPrev && in.prev >= 0 && int(in.prev) < len(c.prvPos) {
			pr = c.prvPos[in.prev]
		}
		c.addRow(s, p, pr, n)
	}
	if !c.wild && !c.q.namesOnly {
		c.record(calc.ValidData)
	}
}

// addRow selects instance p of the current sample as the counter's next
// row, paired with the previous sample's row pr (-1 none), and reads its
// n columns.
func (c *Counter) addRow(s *objState, p int, pr int32, n int) {
	if q := c.q; q.maxItems > 0 {
		if q.items += max(n, 1); q.items > q.maxItems {
			q.overflow = true
			return
		}
	}
	c.rowPos = append(c.rowPos, int32(p))
	c.rowPrev = append(c.rowPrev, pr)
	if n == 0 || c.q.namesOnly {
		return
	}
	in := &s.cur[p]
	at := len(c.curRaw)
	c.curRaw = slices.Grow(c.curRaw, n)[:at+n]
	raw := c.curRaw[at : at+n]
	cols := c.cols[:len(raw)]
	for k := range raw {
		readRaw(&raw[k], &cols[k], in.blk)
	}
	if held, ok := s.missing[p]; ok {
		for k := range raw {
			if held == nil || slices.Contains(held, cols[k].def.NameIndex) {
				raw[k].Status = calc.NoData // a placeholder, not a value
			}
		}
	}
}

// stampLayout gives the counter a new Layout when what its items are made
// of changed since the last sample.
func (c *Counter) stampLayout() {
	sig := layoutSig{gen: c.obj.gen, names: c.obj.nameGen, status: c.status()}
	if c.layout == 0 || sig != c.layoutSig {
		c.q.layouts++
		c.layout, c.layoutSig = c.q.layouts, sig
	}
}

// Layout identifies the items of the current sample: as long as it stays
// the same from one sample to the next, AppendItems, AppendFormattedArray
// and AppendComputed return the same instances and paths, in the same
// order; a new value means they may differ. A tool that places items in
// columns (relog) places them again only when it changes. Values are
// unique within the query; 0 is before the first sample.
func (c *Counter) Layout() uint64 { return c.layout }

// readRaw reads one value with its base and item count into r, with the
// column's time base of the current sample (calc.TimeBase): calc.MakeRaw's
// value without working the time base out for every instance.
func readRaw(r *calc.Raw, col *column, blk perfdata.CounterBlock) {
	*r = calc.Raw{FirstValue: blk.Value(col.def), Time: col.time, Freq: col.freq}
	if col.hasBase {
		r.SecondValue = blk.Value(col.base)
		if col.multiFromBase {
			r.MultiCount = r.SecondValue
		}
	}
	if col.multi && !col.multiFromBase {
		r.MultiCount = uint64(blk.Multi(col.def))
	}
}

// record appends the current value of a counter without wildcards to its
// history; a replaced instance (no match with the previous sample) starts
// the history afresh, so that statistics never pair two instances.
func (c *Counter) record(st calc.Status) {
	if c.hist == nil {
		// Grown as samples come: a short input (or a counter whose
		// statistics nobody asks for) does not pay for the whole ring.
		c.hist = make([]calc.Raw, 0, min(c.q.history, 16))
	}
	var r calc.Raw
	switch {
	case st != calc.ValidData:
		r.Status = st
	case len(c.cols) == 0:
		r.Status = calc.NoCounter
	case len(c.rowPos) == 0:
		r.Status = calc.NoInstance
	default:
		if c.rowPrev[0] < 0 {
			c.hist, c.histNext, c.histFull = c.hist[:0], 0, false
		}
		r = c.curRaw[0]
	}
	if !c.histFull {
		c.hist = append(c.hist, r)
		if len(c.hist) >= c.q.history {
			c.histFull = true
		}
		return
	}
	c.hist[c.histNext] = r
	c.histNext = (c.histNext + 1) % len(c.hist)
}

// status is the status of the counter as a whole in the current sample.
func (c *Counter) status() calc.Status {
	switch {
	case !c.collected && !c.missing:
		return calc.NoData
	case c.missing && c.obj.down:
		return calc.NoData
	case c.missing:
		return calc.NoObject
	case len(c.cols) == 0 && !c.wildCtr:
		return calc.NoCounter
	}
	return calc.ValidData
}

// value formats row r, column k.
func (c *Counter) value(r, k int, opts calc.Options) (calc.Value, float64, calc.Status) {
	n := len(c.cols)
	cur := &c.curRaw[r*n+k]
	var prev *calc.Raw
	if pr := c.rowPrev[r]; pr >= 0 && int(pr)*n+k < len(c.prvRaw) {
		prev = &c.prvRaw[int(pr)*n+k]
	}
	t := c.cols[k].def.Type
	x, st := calc.Compute(t, cur, prev)
	return calc.Format(t, c.scaleOf(k), cur, prev, opts), x, st
}

func (c *Counter) scaleOf(k int) int32 {
	if c.defaultScale {
		return c.cols[k].def.DefaultScale
	}
	return c.scale
}

// SetScale sets the power of ten formatted values are multiplied by
// (PdhSetCounterScaleFactor), calc.MinScale..calc.MaxScale. The default is
// 0: like PDH's formatted values (typeperf prints Available Bytes in
// bytes, although the counter's DefaultScale is -6), a counter's
// DefaultScale is only a hint for graphs (Info().DefaultScale) unless
// UseDefaultScale is called. calc.FmtNoScale still turns scaling off.
func (c *Counter) SetScale(scale int32) error {
	if scale < calc.MinScale || scale > calc.MaxScale {
		return fmt.Errorf("pdh: %s: scale %d outside %d..%d", c.path, scale, calc.MinScale, calc.MaxScale)
	}
	c.scale, c.defaultScale = scale, false
	return nil
}

// UseDefaultScale makes formatted values use each counter definition's
// DefaultScale (perfmon's graph scaling).
func (c *Counter) UseDefaultScale() { c.defaultScale = true }

// Formatted returns the value of a counter without wildcards
// (PdhGetFormattedCounterValue). A missing object, counter or instance,
// or no sample yet, is a status in the value (NoObject, NoCounter,
// NoInstance, NoData); the error is for a path with wildcards, which has
// no single value (use FormattedArray).
func (c *Counter) Formatted(opts calc.Options) (calc.Value, error) {
	if c.wild {
		return calc.Value{Status: calc.InvalidArgument}, fmt.Errorf("pdh: %s: a path with wildcards has no single value (use FormattedArray)", c.path)
	}
	if st := c.status(); st != calc.ValidData {
		return calc.Value{Status: st}, nil
	}
	if len(c.rowPos) == 0 {
		return calc.Value{Status: calc.NoInstance}, nil
	}
	if c.q.namesOnly {
		return calc.Value{Status: calc.NoData}, nil
	}
	v, _, _ := c.value(0, 0, opts)
	return v, nil
}

// FormattedArray returns the values of every instance (and counter) that
// matches the path in the current sample (PdhGetFormattedCounterArray),
// in the object's instance order, counters in definition order within an
// instance. It is empty when nothing matches, before the first sample and
// when the object is missing.
func (c *Counter) FormattedArray(opts calc.Options) []Item {
	return c.AppendFormattedArray(nil, opts)
}

// AppendFormattedArray is FormattedArray appending to dst, which lets a
// caller reuse one slice across samples.
func (c *Counter) AppendFormattedArray(dst []Item, opts calc.Options) []Item {
	if c.status() != calc.ValidData || c.q.namesOnly {
		return dst
	}
	dst = slices.Grow(dst, len(c.rowPos)*len(c.cols))
	for r, p := range c.rowPos {
		in := &c.obj.cur[p]
		for k := range c.cols {
			v, x, st := c.value(r, k, opts)
			dst = append(dst, Item{Instance: in.display, Path: c.itemPath(in, k), Value: v, Computed: x, Status: st})
		}
	}
	return dst
}

// Computed is one item's value as PDH writes it into text logs.
type Computed struct {
	Value  float64     // calc.Compute: unscaled, uncapped (Item.Computed)
	Status calc.Status // status of Value (Item.Status)
}

// AppendComputed appends the Computed and Status of each item that
// AppendFormattedArray returns, in the same order, without naming or
// formatting them: what a tool writing text logs needs for each sample
// once it knows where the items go (Layout).
func (c *Counter) AppendComputed(dst []Computed) []Computed {
	if c.status() != calc.ValidData || c.q.namesOnly {
		return dst
	}
	n := len(c.cols)
	dst = slices.Grow(dst, len(c.rowPos)*n)
	for r := range c.rowPos {
		cur := c.curRaw[r*n : r*n+n]
		var prev []calc.Raw // as value() pairs them
		if pr := int(c.rowPrev[r]); pr >= 0 && pr*n < len(c.prvRaw) {
			prev = c.prvRaw[pr*n : min(pr*n+n, len(c.prvRaw))]
		}
		for k := range cur {
			var p *calc.Raw
			if k < len(prev) {
				p = &prev[k]
			}
			x, st := calc.Compute(c.cols[k].def.Type, &cur[k], p)
			dst = append(dst, Computed{Value: x, Status: st})
		}
	}
	return dst
}

// AppendItems appends the items of the current sample as
// AppendFormattedArray does, with their instances and paths but without
// computing their values (Value, Computed and Status are zero): what a
// tool needs to learn the columns a log will have.
func (c *Counter) AppendItems(dst []Item) []Item {
	if c.status() != calc.ValidData {
		return dst
	}
	dst = slices.Grow(dst, len(c.rowPos)*len(c.cols))
	for _, p := range c.rowPos {
		in := &c.obj.cur[p]
		for k := range c.cols {
			dst = append(dst, Item{Instance: in.display, Path: c.itemPath(in, k)})
		}
	}
	return dst
}

// AppendItemRows appends, for each instance that has items in the current
// sample, the path of its items without the counter, and returns the
// counter of each item of an instance: item r*len(counters)+k of
// AppendItems is rows[r] with Counter counters[k]. It lists the items as
// AppendItems does for a fraction of the cost (one path per instance); the
// counters slice must not be modified, and stays as it is while Layout
// does.
func (c *Counter) AppendItemRows(dst []counterpath.Path) (rows []counterpath.Path, counters []string) {
	if c.status() != calc.ValidData {
		return dst, nil
	}
	dst = slices.Grow(dst, len(c.rowPos))
	for _, p := range c.rowPos {
		in := &c.obj.cur[p]
		dst = append(dst, c.rowPath(in))
	}
	return dst, c.colNames
}

// rowPath is the path of instance in's items, without the counter.
func (c *Counter) rowPath(in *instInfo) counterpath.Path {
	return counterpath.Path{Machine: c.path.Machine, Object: c.obj.name, Parent: in.parent,
		Instance: in.name, Index: int(in.index), HasIndex: in.index > 0}
}

func (c *Counter) itemPath(in *instInfo, k int) counterpath.Path {
	p := c.rowPath(in)
	p.Counter = c.cols[k].name
	return p
}

// Raw returns the raw values of the current sample (PdhGetRawCounterArray).
func (c *Counter) Raw() []RawItem {
	if c.status() != calc.ValidData || c.q.namesOnly {
		return nil
	}
	out := make([]RawItem, 0, len(c.rowPos)*len(c.cols))
	for r, p := range c.rowPos {
		in := &c.obj.cur[p]
		for k := range c.cols {
			out = append(out, RawItem{Instance: in.display, Path: c.itemPath(in, k),
				Raw: c.curRaw[r*len(c.cols)+k], Type: c.cols[k].def.Type, Scale: c.cols[k].def.DefaultScale})
		}
	}
	return out
}

// AppendRaw appends what Raw returns without making the items' paths:
// each item's raw value to vals and its instance's array name
// ("parent/name#n", "" for a single-instance object) to names, item
// r*len(counters)+k being instance r's value of counters[k], the
// counter names of the path's columns (not to be modified). A log that
// records every sample's raw values (a Windows BLG) reads them so, at a
// fraction of Raw's cost.
func (c *Counter) AppendRaw(vals []calc.Raw, names []string) ([]calc.Raw, []string, []string) {
	if c.status() != calc.ValidData || c.q.namesOnly {
		return vals, names, nil
	}
	n := len(c.cols)
	vals = append(vals, c.curRaw[:len(c.rowPos)*n]...)
	for _, p := range c.rowPos {
		names = append(names, c.obj.cur[p].display)
	}
	return vals, names, c.colNames
}

// IdentityRaw returns the raw values of the counters that identify the
// instances Raw returns between samples, where their object has such
// counters (see the package doc): "ID Process" (Thread: "ID Thread") and
// "Elapsed Time", the start, for each instance in Raw's order; nil for an
// object whose instances are identified by name. A log that keeps only
// some counters keeps these too, so that a reader pairs instances across
// samples as this query paired them (perflog/sqllog).
func (c *Counter) IdentityRaw() []RawItem {
	s := c.obj
	if s == nil || c.status() != calc.ValidData || c.q.namesOnly || s.idPos < 0 {
		return nil
	}
	pos := []int{s.idPos}
	if s.stPos >= 0 {
		pos = append(pos, s.stPos)
	}
	out := make([]RawItem, 0, len(c.rowPos)*len(pos))
	for _, p := range c.rowPos {
		in := &s.cur[p]
		for _, at := range pos {
			def := s.defs[at]
			t, f := calc.TimeBase(def.Type, s.clocks)
			raw := calc.Raw{FirstValue: in.blk.Value(def), Time: t, Freq: f}
			if s.missing != nil && s.isMissing(int(p), def.NameIndex) {
				raw.Status = calc.NoData
			}
			path := c.rowPath(in)
			path.Counter = s.names[at]
			out = append(out, RawItem{Instance: in.display, Path: path, Raw: raw, Type: def.Type, Scale: def.DefaultScale})
		}
	}
	return out
}

// AppendIdentityRaw is IdentityRaw as AppendRaw gives Raw: the raw
// values of the identifying counters appended to vals, instance by
// instance, the instances' array names to names, and the counters'
// names (ID Process, then Elapsed Time where the object has it); nothing
// for an object whose instances are identified by name.
func (c *Counter) AppendIdentityRaw(vals []calc.Raw, names []string) ([]calc.Raw, []string, []string) {
	s := c.obj
	if s == nil || c.status() != calc.ValidData || c.q.namesOnly || s.idPos < 0 {
		return vals, names, nil
	}
	var pos [2]int
	cols := pos[:1]
	pos[0] = s.idPos
	if s.stPos >= 0 {
		pos[1] = s.stPos
		cols = pos[:2]
	}
	for _, p := range c.rowPos {
		in := &s.cur[p]
		for _, at := range cols {
			def := s.defs[at]
			t, f := calc.TimeBase(def.Type, s.clocks)
			raw := calc.Raw{FirstValue: in.blk.Value(def), Time: t, Freq: f}
			if s.missing != nil && s.isMissing(int(p), def.NameIndex) {
				raw.Status = calc.NoData
			}
			vals = append(vals, raw)
		}
		names = append(names, in.display)
	}
	counters := []string{s.names[pos[0]]}
	if len(cols) == 2 {
		counters = append(counters, s.names[pos[1]])
	}
	return vals, names, counters
}

// Statistics summarises the raw samples collected since the counter was
// added (PdhComputeCounterStatistics, see calc.Statistics): at most the
// query's history length (DefaultHistory unless SetHistory), the oldest
// dropped first. A sample where the object, counter or instance was
// missing takes part with that status; when the instance is replaced by
// another of the same name (a new process), the history starts afresh.
// A path with wildcards has no statistics (Status InvalidArgument).
func (c *Counter) Statistics(opts calc.Options) calc.Stats {
	if c.wild {
		return calc.Stats{Status: calc.InvalidArgument}
	}
	if len(c.cols) == 0 {
		if len(c.hist) == 0 {
			return calc.Stats{Status: calc.NoData}
		}
		return calc.Stats{Status: calc.NoCounter}
	}
	h := c.hist
	if c.histFull && c.histNext != 0 {
		h = append(slices.Clone(c.hist[c.histNext:]), c.hist[:c.histNext]...)
	}
	return calc.Statistics(c.cols[0].def.Type, c.scaleOf(0), h, opts)
}

// Recorder stores what a query collects, sample by sample: a binary log
// or an SQL log set. A tool calls WriteQuery after each Collect; the
// recorder reads the counters' raw values (Counter.Raw) or the objects
// they read (Query.Sample).
type Recorder interface {
	WriteQuery(ctx context.Context, q *Query) error
}

// Sample returns the last collected sample reduced to what this query
// reads: the objects of its counters (of their machines) and the parent
// objects their instance names need, each block keeping its header. A
// tool that records what a query collects (relog -c into a binary log)
// writes this. It is nil before the first Collect; the blocks are the
// caller's until the next Collect.
func (q *Query) Sample() (*Sample, error) {
	if q.stamp == 0 {
		return nil, nil
	}
	keep := make(map[objKey]bool, len(q.objs))
	for _, s := range q.objs {
		keep[q.keyOf(s.machine, s.index)] = true
	}
	out := &Sample{Time: q.time, Gap: q.gap, Problems: q.problems}
	b := perfdata.NewBuilder(nil)
	for _, blk := range q.blocks {
		h := blk.Header()
		sys := foldMachine(h.SystemName)
		all, n := true, 0
		for it := blk.Objects(); it.Next(); {
			idx := it.Object().NameIndex()
			if keep[objKey{sys, idx}] || q.parents[objKey{sys, idx}] != nil {
				n++
			} else {
				all = false
			}
		}
		switch {
		case n == 0:
			continue
		case all:
			out.Blocks = append(out.Blocks, blk)
			continue
		}
		b.Reset(h)
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			if k := (objKey{sys, o.NameIndex()}); keep[k] || q.parents[k] != nil {
				if err := b.AppendObjects(o.Bytes(), 1); err != nil {
					return nil, fmt.Errorf("pdh: object %s of %s: %w", titleName(q.db, o.NameIndex()), h.SystemName, err)
				}
			}
		}
		nb, err := perfdata.Parse(append([]byte(nil), b.Bytes()...))
		if err != nil {
			return nil, fmt.Errorf("pdh: the sample's objects of %s re-blocked: %w", h.SystemName, err)
		}
		out.Blocks = append(out.Blocks, nb)
	}
	return out, nil
}
