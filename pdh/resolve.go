package pdh

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
)

// PathError reports a counter path that does not match the data: which
// part did not match and what exists instead, closest names first. It
// unwraps to the PDH status (calc.NoMachine, NoObject, NoCounter,
// NoInstance), so errors.Is(err, calc.NoObject) works.
type PathError struct {
	Path   string      // the path as given
	Part   string      // "machine", "object", "counter" or "instance"
	Name   string      // the name that did not match
	Object string      // the object, for counter and instance errors
	Have   []string    // what exists, closest to Name first
	Close  int         // how many of Have are close to Name
	Status calc.Status // the matching PDH status
	Msg    string      // what was wrong when it is not a plain "no such name"
}

// Error formats as `pdh: PATH: no PART "NAME" (did you mean "X"?)`.
func (e *PathError) Error() string {
	var b strings.Builder
	b.WriteString("pdh: ")
	b.WriteString(e.Path)
	b.WriteString(": ")
	if e.Msg != "" {
		b.WriteString(e.Msg)
	} else {
		fmt.Fprintf(&b, "no %s %q", e.Part, e.Name)
		if e.Object != "" {
			fmt.Fprintf(&b, " in object %q", e.Object)
		}
	}
	switch {
	case e.Close > 0:
		b.WriteString(" (did you mean ")
		writeList(&b, e.Have[:min(e.Close, 3)], " or ")
		b.WriteString("?)")
	case len(e.Have) > 0:
		const show = 8
		fmt.Fprintf(&b, " (%s: ", plural(e.Part))
		writeList(&b, e.Have[:min(len(e.Have), show)], ", ")
		if len(e.Have) > show {
			fmt.Fprintf(&b, " and %d more", len(e.Have)-show)
		}
		b.WriteString(")")
	case e.Msg == "":
		fmt.Fprintf(&b, " (there are no %s)", plural(e.Part))
	}
	return b.String()
}

func plural(part string) string {
	if part == "instance" {
		return "instances"
	}
	return part + "s"
}

func writeList(b *strings.Builder, names []string, sep string) {
	for i, n := range names {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(strconv.Quote(n))
	}
}

// Unwrap returns the PDH status.
func (e *PathError) Unwrap() error { return e.Status }

// newPathError fills Have with names sorted closest first.
func newPathError(path, part, name, object string, st calc.Status, have []string) *PathError {
	e := &PathError{Path: path, Part: part, Name: name, Object: object, Status: st}
	e.Have, e.Close = rankNames(name, have)
	return e
}

// rankNames sorts names by their distance to name (ties keep their order,
// duplicates dropped) and counts the close ones.
func rankNames(name string, names []string) ([]string, int) {
	type ranked struct {
		s string
		d int
	}
	key := strings.ToLower(name)
	seen := make(map[string]bool, len(names))
	r := make([]ranked, 0, len(names))
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		r = append(r, ranked{n, distance(key, strings.ToLower(n))})
	}
	slices.SortStableFunc(r, func(a, b ranked) int { return cmp.Compare(a.d, b.d) })
	out := make([]string, len(r))
	close := 0
	limit := max(2, len([]rune(name))/3)
	for i, x := range r {
		out[i] = x.s
		if x.d <= limit {
			close++
		}
	}
	return out, close
}

// distance is the Levenshtein distance between a and b in runes, except
// that a name containing the other (at least 3 characters) counts as 1.
func distance(a, b string) int {
	if len(a) >= 3 && len(b) >= 3 && (strings.Contains(a, b) || strings.Contains(b, a)) && a != b {
		return 1
	}
	ra, rb := []rune(a), []rune(b)
	row := make([]int, len(rb)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := diag
			if ra[i-1] != rb[j-1] {
				sub++
			}
			diag = row[j]
			row[j] = min(row[j]+1, row[j-1]+1, sub)
		}
	}
	return row[len(rb)]
}

// numeric returns the title index written as a decimal number.
func numeric(s string) (uint32, bool) {
	if s == "" || len(s) > 10 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 32)
	return uint32(n), err == nil
}

// nameMatches reports whether a name in a path names the title index
// idx (whose name in the database is title): the name itself compared
// case-insensitively, or the index as a decimal number.
func nameMatches(pathName, title string, idx uint32) bool {
	if n, ok := numeric(pathName); ok && n == idx {
		return true
	}
	return strings.EqualFold(pathName, title)
}

// counterMatches reports whether counter definition (name, idx) matches
// the path's counter part.
func counterMatches(pattern, name string, idx uint32, wild bool) bool {
	if wild {
		return counterpath.Match(counterpath.Path{Object: "o", Counter: pattern}, counterpath.Path{Object: "o", Counter: name})
	}
	return nameMatches(pattern, name, idx)
}

// titleName is the database's name of idx, or the number when it has none.
func titleName(db *titles.DB, idx uint32) string {
	if n := db.Name(idx); n != "" {
		return n
	}
	return strconv.FormatUint(uint64(idx), 10)
}

// found is an object located in a sample.
type located struct {
	obj    perfdata.Object
	system string
	smp    *Sample // the sample it came from
}

// locate finds the object a path names in a sample of the source: first
// asking for the object by its title index, then, when that fails, in
// everything the source has (whose object names feed the error).
//
// catalog, when not nil, holds the sample the last lookup took and
// receives the one this lookup takes: paths of one object added one after
// the other (typeperf -cf) are then checked against one sample instead of
// one each, which is what makes a one-shot query cheap on a live source.
// systemOf gives a block's system name (Query.systemOf, which decodes
// each name once, or blockSystem).
func locate(ctx context.Context, src Source, db *titles.DB, p counterpath.Path, path string, catalog **Sample, systemOf func(perfdata.Block) system) (located, error) {
	idx, ok := numeric(p.Object)
	if !ok {
		idx, ok = db.Index(p.Object)
	}
	if ok && catalog != nil && *catalog != nil {
		if l, ok := find(*catalog, db, p.Machine, p.Object, idx, true, systemOf); ok {
			return l, nil
		}
	}
	if ok {
		smp, err := peek(ctx, src, []uint32{idx})
		if err != nil {
			return located{}, err
		}
		if l, ok := find(smp, db, p.Machine, p.Object, idx, true, systemOf); ok {
			if catalog != nil {
				*catalog = smp
			}
			return l, nil
		}
		if e := failedObject(smp, path, p.Object, idx); e != nil {
			return located{}, e
		}
	}
	smp, err := peek(ctx, src, nil)
	if err != nil {
		return located{}, err
	}
	if l, ok := find(smp, db, p.Machine, p.Object, idx, ok, systemOf); ok {
		return l, nil
	}
	if e := noMachine(smp, path, p.Machine); e != nil {
		return located{}, e
	}
	if e := failedObject(smp, path, p.Object, idx); ok && e != nil {
		return located{}, e
	}
	var have []string
	for _, blk := range smp.Blocks {
		for it := blk.Objects(); it.Next(); {
			have = append(have, titleName(db, it.Object().NameIndex()))
		}
	}
	return located{}, newPathError(path, "object", p.Object, "", calc.NoObject, have)
}

// failedObject is the error for an object the source knows but could not
// deliver (its provider failed): the provider's reason, not "no object".
func failedObject(smp *Sample, path, name string, idx uint32) *PathError {
	for _, pr := range smp.Problems {
		if pr.Object == idx && !pr.Partial {
			return &PathError{Path: path, Part: "object", Name: name, Status: calc.NoObject,
				Msg: fmt.Sprintf("object %q could not be collected: %s", name, pr.Reason)}
		}
	}
	return nil
}

// noMachine is the error for a path whose machine has no block in the
// sample, naming the machines that have; nil when machine is "" or has.
func noMachine(smp *Sample, path, machine string) *PathError {
	if machine == "" {
		return nil
	}
	var have []string
	for _, blk := range smp.Blocks {
		sys := blk.Header().SystemName
		if foldMachine(sys) == foldMachine(machine) {
			return nil
		}
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, sys) }) {
			have = append(have, sys)
		}
	}
	return newPathError(path, "machine", machine, "", calc.NoMachine, have)
}

// find looks for the object named name (or with index idx when byIndex)
// in the blocks of machine ("" for any machine).
func find(smp *Sample, db *titles.DB, machine, name string, idx uint32, byIndex bool, systemOf func(perfdata.Block) system) (located, bool) {
	fm := foldMachine(machine)
	for _, blk := range smp.Blocks {
		sys := systemOf(blk)
		if machine != "" && sys.fold != fm {
			continue
		}
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			if (byIndex && o.NameIndex() == idx) || nameMatches(name, db.Name(o.NameIndex()), o.NameIndex()) {
				return located{obj: o, system: sys.name, smp: smp}, true
			}
		}
	}
	return located{}, false
}

// blockSystem decodes a block's system name and its key: systemOf for a
// caller with no query to keep the names decoded.
func blockSystem(blk perfdata.Block) system {
	name := utf16le.DecodeLenient(blk.SystemNameBytes())
	return system{name: name, fold: foldMachine(name)}
}

// machineOnly is smp with only the blocks of machine (all of them for
// ""): a query for a counter of one machine reads nothing of the others'
// blocks, and a sample of many machines (a log of listed counters has a
// block for each machine and object) is not read whole for each of its
// paths.
func (q *Query) machineOnly(smp *Sample, machine string) *Sample {
	if machine == "" || len(smp.Blocks) < 2 {
		return smp
	}
	m := foldMachine(machine)
	c := *smp
	c.Blocks = nil
	for _, blk := range smp.Blocks {
		if q.systemOf(blk).fold == m { // the block's name decoded once per query
			c.Blocks = append(c.Blocks, blk)
		}
	}
	return &c
}

// fixedSource serves the same sample on every call: browsing a sample
// already taken.
type fixedSource struct {
	smp *Sample
	db  *titles.DB
}

func (f fixedSource) Sample(context.Context, []uint32) (*Sample, error) { return f.smp, nil }
func (f fixedSource) Titles() *titles.DB                                { return f.db }
func (f fixedSource) Recorded() Recorded                                { return nil }

// AddCounter adds a counter by path (PdhAddCounter): English names
// (case-insensitive, through the source's title database) or decimal
// title indexes for the object and counter, wildcards in the parent,
// instance, index and counter. The path is checked against a sample of
// the source (Peek when the source has it): a machine, object or counter
// that does not exist, or an instance without wildcards that does not
// exist now, is a *PathError naming the part and what exists. A wildcard
// that matches nothing now is not an error: it is expanded again on
// every sample.
func (q *Query) AddCounter(path string) (*Counter, error) {
	return q.AddCounterContext(context.Background(), path)
}

// AddCounterContext is AddCounter with a context for the sample it takes.
func (q *Query) AddCounterContext(ctx context.Context, path string) (*Counter, error) {
	return q.addCounter(ctx, path, false)
}

// AddEnglishCounter adds a counter by a path in English names
// (PdhAddEnglishCounter), whatever language the query speaks
// (SetTitles): the object and counter are looked up in the English names
// (SetTitles' alt) first, and the counter is named in the query's
// language. Without SetTitles it is AddCounter.
func (q *Query) AddEnglishCounter(path string) (*Counter, error) {
	return q.addCounter(context.Background(), path, true)
}

func (q *Query) addCounter(ctx context.Context, path string, english bool) (*Counter, error) {
	if q.closed {
		return nil, ErrClosed
	}
	q.prime = nil // a path added after AddCounters may need objects its sample lacks
	p, err := counterpath.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("pdh: %w", err)
	}
	if q.alt != nil {
		if _, num := numeric(p.Object); !num && strings.IndexByte(p.Object, '*') < 0 {
			if _, ok := q.db.Index(p.Object); !ok || english {
				if i, ok := q.alt.Index(p.Object); ok {
					// By index: the query's names may repeat a name
					// (a language's name over another's English one).
					p.Object = strconv.FormatUint(uint64(i), 10)
				}
			}
		}
	}
	// The catalog is a sample of the position the source was at: a
	// recorded source moved since (Seek) has other samples to check.
	if rec := q.src.Recorded(); rec != nil && rec.Pos() != q.catalogPos {
		q.catalog = nil
	}
	before := q.catalog
	l, err := locate(ctx, q.src, q.db, p, path, &q.catalog, q.systemOf)
	if before == nil || q.catalog != before {
		q.ctrs.st = nil // another sample (a source may hand the same *Sample again)
	}
	if rec := q.src.Recorded(); rec != nil {
		q.catalogPos = rec.Pos()
	}
	if err != nil {
		if c, ok := q.addUnanswered(p, err); ok {
			return c, nil
		}
		return nil, err
	}
	idx := l.obj.NameIndex()
	objName := titleName(q.db, idx)
	wildCtr := strings.IndexByte(p.Counter, '*') >= 0
	if !wildCtr && english && q.alt != nil {
		// The English name first: the object's counter of that index.
		for i := range l.obj.NumCounters() {
			def := l.obj.Counter(i)
			if !def.Type.IsBase() && strings.EqualFold(p.Counter, q.alt.Name(def.NameIndex)) {
				p.Counter = strconv.FormatUint(uint64(def.NameIndex), 10)
				break
			}
		}
	}
	if !wildCtr {
		var have []string
		ok := q.counterNamed(l, p.Counter)
		if !ok {
			for i := range l.obj.NumCounters() {
				if def := l.obj.Counter(i); !def.Type.IsBase() {
					have = append(have, titleName(q.db, def.NameIndex))
				}
			}
		}
		if !ok && q.alt != nil {
			// A counter named as alt names it (English): the object's
			// counter of that index, in db's name.
			for i := range l.obj.NumCounters() {
				def := l.obj.Counter(i)
				if !def.Type.IsBase() && strings.EqualFold(p.Counter, q.alt.Name(def.NameIndex)) {
					p.Counter, ok = strconv.FormatUint(uint64(def.NameIndex), 10), true
					break
				}
			}
		}
		if !ok {
			return nil, newPathError(path, "counter", p.Counter, objName, calc.NoCounter, have)
		}
	}
	single := l.obj.SingleInstance()
	switch {
	case single && p.Instance != "":
		return nil, &PathError{Path: path, Part: "instance", Name: p.Instance, Object: objName, Status: calc.NoInstance,
			Msg: fmt.Sprintf("object %q has no instances (leave out %q)", objName, "("+counterpath.EscapeInstance(p.Instance)+")")}
	case !single && p.Instance == "":
		e := &PathError{Path: path, Part: "instance", Object: objName, Status: calc.NoInstance,
			Msg: fmt.Sprintf("object %q has instances: name one, or write (*) for all", objName)}
		e.Have = instanceNames(l, q.db, objName)
		return nil, e
	}
	if q.alt != nil {
		// A path found by index (English names, above) is named in the
		// query's language from here on.
		if _, num := numeric(p.Object); num {
			p.Object = objName
		}
		if n, num := numeric(p.Counter); num && !wildCtr {
			p.Counter = titleName(q.db, n)
		}
	}
	c := q.newCounter(p, idx, objName)
	instWild := strings.IndexByte(p.Instance, '*') >= 0 || strings.IndexByte(p.Parent, '*') >= 0 ||
		(p.HasIndex && p.Index == counterpath.AnyIndex)
	if !instWild && !single {
		// A concrete instance must exist now.
		st, err := q.instancesOf(ctx, l, p.Machine, idx, objName)
		if err != nil {
			return nil, err
		}
		found := false
		for _, pos := range st.named(p.Parent, p.Instance) {
			if c.matches(&st.cur[pos]) {
				found = true
				break
			}
		}
		if !found {
			name := p.Instance
			if p.Parent != "" {
				name = p.Parent + "/" + name
			}
			if p.HasIndex && p.Index > 0 {
				name += "#" + strconv.Itoa(p.Index)
			}
			return nil, newPathError(path, "instance", name, objName, calc.NoInstance, displays(st))
		}
	}
	q.counters = append(q.counters, c)
	return c, nil
}

// counterNamed reports whether the located object has a counter (not a
// base) that name names (nameMatches). The object of the catalog sample
// has its definitions indexed once (q.ctrs, objState.counterAt): N paths
// naming N counters of one object cost N lookups, not N scans.
func (q *Query) counterNamed(l located, name string) bool {
	if l.smp != q.catalog || l.obj.NumCounters() <= linearCounters {
		for i := range l.obj.NumCounters() {
			def := l.obj.Counter(i)
			if !def.Type.IsBase() && nameMatches(name, titleName(q.db, def.NameIndex), def.NameIndex) {
				return true
			}
		}
		return false
	}
	c := &q.ctrs
	if c.st == nil || c.smp != l.smp || c.system != l.system || c.index != l.obj.NameIndex() {
		c.st = newObjState(l.obj.NameIndex(), "")
		c.st.definitions(l.obj, q.db)
		c.smp, c.system, c.index = l.smp, l.system, l.obj.NameIndex()
	}
	return c.st.counterAt(name) >= 0
}

// instancesOf returns the instances (names only) of object idx of machine
// in the sample l was found in, read once for every explicit instance
// path checked against that sample.
func (q *Query) instancesOf(ctx context.Context, l located, machine string, idx uint32, objName string) (*objState, error) {
	if c := &q.inst; c.st != nil && c.smp == l.smp && c.machine == machine && c.index == idx {
		return c.st, nil
	}
	tq := OpenQuery(fixedSource{q.machineOnly(l.smp, machine), q.db})
	// One sample, read once: no history of DefaultHistory raw values
	// (48 KiB a counter) to allocate and drop.
	tq.SetHistory(2)
	tq.namesOnly = true // which instances, not their values
	tc := tq.newCounter(counterpath.Path{Machine: machine, Object: objName, Instance: "*", Counter: "*"}, idx, objName)
	tq.counters = append(tq.counters, tc)
	if err := tq.Collect(ctx); err != nil {
		return nil, err
	}
	q.inst.smp, q.inst.machine, q.inst.index, q.inst.st = l.smp, machine, idx, tc.obj
	return tc.obj, nil
}

// newCounter adds a counter for a checked path.
func (q *Query) newCounter(p counterpath.Path, idx uint32, objName string) *Counter {
	q.wantCtrs = nil
	c := &Counter{q: q, path: p, obj: q.objState(p.Machine, idx, objName)}
	c.wildCtr = strings.IndexByte(p.Counter, '*') >= 0
	c.wild = p.HasWildcard()
	c.ipat = counterpath.Path{Object: "o", Counter: "c", Parent: p.Parent, Instance: p.Instance, Index: p.Index, HasIndex: p.HasIndex}
	c.matchAll = p.Instance == "*" && p.Parent == "" && (!p.HasIndex || p.Index == counterpath.AnyIndex)
	if p.Instance == "" {
		c.matchAll = true // single-instance object
	}
	c.oneName = !c.matchAll && !strings.ContainsRune(p.Instance, '*') && !strings.ContainsRune(p.Parent, '*') &&
		!(p.HasIndex && p.Index == counterpath.AnyIndex)
	c.gen = -1
	if !c.wildCtr {
		c.cols = make([]column, 0, 1)
	}
	return c
}

// instanceNames lists the instances of a located object.
func instanceNames(l located, db *titles.DB, objName string) []string {
	tq := OpenQuery(fixedSource{l.smp, db})
	tc := tq.newCounter(counterpath.Path{Object: objName, Instance: "*", Counter: "*"}, l.obj.NameIndex(), objName)
	if err := tq.Collect(context.Background()); err != nil {
		return nil
	}
	return displays(tc.obj)
}

func displays(s *objState) []string {
	out := make([]string, 0, len(s.cur))
	for i := range s.cur {
		out = append(out, s.cur[i].display)
	}
	return out
}

// primeFresh is how old AddCounters' sample of a live source may be for
// the first Collect to use it: a one-shot reader (typeperf -sc 1) adds its
// counters and collects at once, and then needs no second collection of
// the same objects; a program that collects later gets a fresh sample.
const primeFresh = 250 * time.Millisecond

// AddCounters adds several counters (AddCounter each, in order) with one
// sample of the source for all their objects, where AddCounter takes one
// per object that the last sample did not hold. A live source's sample
// then serves as the query's first Collect when that follows within
// primeFresh: a query of two objects reads the source twice for its
// first value (paths, priming sample; then the row) instead of four
// times. errs[i] is AddCounter's error for paths[i] (nil when added).
func (q *Query) AddCounters(ctx context.Context, paths []string) (counters []*Counter, errs []error) {
	var idx []uint32
	for _, path := range paths {
		p, err := counterpath.Parse(path)
		if err != nil {
			continue
		}
		i, ok := numeric(p.Object)
		if !ok {
			i, ok = q.db.Index(p.Object)
		}
		if !ok && q.alt != nil {
			i, ok = q.alt.Index(p.Object)
		}
		if ok && !slices.Contains(idx, i) {
			idx = append(idx, i)
		}
	}
	var smp *Sample
	if len(idx) > 1 {
		if s, err := q.peekFor(ctx, paths, idx); err == nil {
			smp = s
			q.catalog = s
			if rec := q.src.Recorded(); rec != nil {
				q.catalogPos = rec.Pos()
			}
		}
	}
	at := time.Now()
	counters, errs = make([]*Counter, len(paths)), make([]error, len(paths))
	for i, path := range paths {
		counters[i], errs[i] = q.AddCounterContext(ctx, path)
	}
	if _, fleet := q.src.(MachineSampler); smp != nil && q.src.Recorded() == nil && !fleet && q.catalog == smp {
		q.prime, q.primeAt = smp, at
	}
	return counters, errs
}

// wantCounters is, per object of the query, the counter title indexes its
// counters read, as their columns resolved them in the last sample: what
// a CounterSampler needs to collect. An object with a wildcard counter,
// or a counter not resolved yet (before the first sample), is asked for
// whole (nil). The answer is kept until a counter is added, once every
// counter is resolved.
func (q *Query) wantCounters() map[uint32][]uint32 {
	if q.wantCtrs != nil {
		return q.wantCtrs
	}
	out := make(map[uint32][]uint32, len(q.want))
	whole := map[uint32]bool{}
	resolved := true
	for _, c := range q.counters {
		i := c.obj.index
		if whole[i] {
			continue
		}
		if c.wildCtr || len(c.cols) == 0 {
			resolved = resolved && c.wildCtr
			whole[i] = true
			out[i] = nil
			continue
		}
		for k := range c.cols {
			if x := c.cols[k].def.NameIndex; !slices.Contains(out[i], x) {
				out[i] = append(out[i], x)
			}
		}
	}
	if resolved {
		q.wantCtrs = out
	}
	return out
}

// peekFor is AddCounters' one sample of objects idx: of the counters the
// paths name only, when the source is a live CounterSampler (a counter
// name may have several title indexes: all of them are asked for; a
// wildcard or an unknown name asks for the whole object).
func (q *Query) peekFor(ctx context.Context, paths []string, idx []uint32) (*Sample, error) {
	cs, ok := q.src.(CounterSampler)
	if !ok || q.src.Recorded() != nil {
		return peek(ctx, q.src, idx)
	}
	byName := map[uint64][]uint32{}
	for _, e := range q.db.Entries() {
		if e.Name != "" {
			h := titles.FoldHash(e.Name)
			byName[h] = append(byName[h], e.Index)
		}
	}
	counters := map[uint32][]uint32{}
	whole := map[uint32]bool{}
	for _, path := range paths {
		p, err := counterpath.Parse(path)
		if err != nil {
			continue
		}
		o, ok := numeric(p.Object)
		if !ok {
			if o, ok = q.db.Index(p.Object); !ok && q.alt != nil {
				o, ok = q.alt.Index(p.Object)
			}
		}
		if !ok || whole[o] {
			continue
		}
		var named []uint32
		if n, num := numeric(p.Counter); num {
			named = []uint32{n}
		} else if strings.IndexByte(p.Counter, '*') < 0 {
			for _, i := range byName[titles.FoldHash(p.Counter)] {
				if strings.EqualFold(q.db.Name(i), p.Counter) {
					named = append(named, i)
				}
			}
			if q.alt != nil {
				if i, ok := q.alt.Index(p.Counter); ok {
					named = append(named, i)
				}
			}
		}
		if len(named) == 0 {
			whole[o] = true
			counters[o] = nil
			continue
		}
		counters[o] = append(counters[o], named...)
	}
	return cs.SampleCounters(ctx, idx, counters)
}
