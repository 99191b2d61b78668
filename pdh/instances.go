package pdh

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
)

// instKey identifies an instance between samples (see the package doc).
type instKey struct {
	parent, name string
	index        int32
	uid          int32 // UniqueID, -1 none
	byID         bool  // identified by id and start time
	id, start    uint64
}

// instInfo is one instance of the current sample of an object.
type instInfo struct {
	name, parent string
	interned     *internedName // the name's entry in the query's name table; nil for 8-bit names
	index        int32         // #index among equal (parent, name)
	display      string        // PDH array name: "parent/name#n"
	key          instKey
	prev         int32 // position in the previous sample, -1 new
	blk          perfdata.CounterBlock
}

type dupKey struct{ parent, name string }

// objState is what a query knows of one object: its definitions and the
// instances of the last sample in which it was present, matched with the
// sample before.
type objState struct {
	index   uint32
	name    string
	machine string // as the counter paths name it; "" for the sample's own

	defRaw []byte // the definitions as last seen, to detect a change
	defs   []perfdata.CounterDef
	names  []string // counter names by definition position
	bases  []int    // BaseOf by definition position
	gen    int      // bumped when the definitions change
	// nameGen is bumped when the current sample's instance names (parent,
	// name, #index, in order) differ from the previous present sample's,
	// or the definitions changed: counters read it for their Layout.
	nameGen int
	idPos   int // "ID Process"/"ID Thread" position, -1 none
	stPos   int // "Elapsed Time" position, -1 none

	present bool // in the current sample
	down    bool // absent because its machine did not answer (fleet.go)
	obj     perfdata.Object
	clocks  calc.Clocks
	system  string

	cur, prev []instInfo
	// missing: placeholder values of the current sample by instance
	// position (nil slice: every counter); nil map when there are none.
	missing   map[int][]uint32
	prevMap   map[instKey]int32
	prevMapOK bool
	dups      map[dupKey]int32
	// byName finds the current sample's instances by (parent, name)
	// folded (foldKey), for counters that name one instance: built at
	// the first such lookup of a sample, so that N such counters cost N
	// lookups, not N scans of every instance.
	byName   map[string][]int32
	byNameOK bool
	// byCounter finds the definitions (not bases) by counter name folded
	// (foldKey), byIndex by title index, for counters that name one
	// counter (counterAt): built at the first lookup after the
	// definitions change (byCounterGen is the gen they were built for),
	// so that N such counters of an object of N counters cost N lookups,
	// not N scans of the definitions (relog of a log of N counters of one
	// object was quadratic). oddNames are the definitions whose names are
	// not UTF-8, which only a scan compares as strings.EqualFold does.
	byCounter    map[string][]int32
	byIndex      map[uint32]int32
	oddNames     []int32
	byCounterGen int
}

// linearCounters is the most definitions counterAt scans instead of
// indexing them.
const linearCounters = 16

// counterAt is the position of the first definition, not a base, whose
// counter the path's counter part name names (nameMatches: its name under
// simple case folding, or its title index in decimal); -1 when none.
func (s *objState) counterAt(name string) int {
	if len(s.defs) <= linearCounters || !utf8.ValidString(name) {
		for i, def := range s.defs {
			if !def.Type.IsBase() && nameMatches(name, s.names[i], def.NameIndex) {
				return i
			}
		}
		return -1
	}
	if s.byCounter == nil || s.byCounterGen != s.gen {
		if s.byCounter == nil {
			s.byCounter = make(map[string][]int32, len(s.defs))
			s.byIndex = make(map[uint32]int32, len(s.defs))
		}
		clear(s.byCounter)
		clear(s.byIndex)
		s.oddNames = s.oddNames[:0]
		for i, def := range s.defs {
			if def.Type.IsBase() {
				continue
			}
			if _, ok := s.byIndex[def.NameIndex]; !ok {
				s.byIndex[def.NameIndex] = int32(i)
			}
			if !utf8.ValidString(s.names[i]) {
				s.oddNames = append(s.oddNames, int32(i))
				continue
			}
			k := foldKey(s.names[i])
			s.byCounter[k] = append(s.byCounter[k], int32(i))
		}
		s.byCounterGen = s.gen
	}
	at := -1
	if n, ok := numeric(name); ok {
		if i, ok := s.byIndex[n]; ok {
			at = int(i)
		}
	}
	first := func(pos []int32) {
		for _, i := range pos {
			if at >= 0 && int(i) >= at {
				return
			}
			if strings.EqualFold(name, s.names[i]) {
				at = int(i)
				return
			}
		}
	}
	first(s.byCounter[foldKey(name)])
	first(s.oddNames)
	return at
}

// named returns the positions of the current sample's instances whose
// parent and name equal parent and name under simple case folding, as
// counterpath.Match compares them.
func (s *objState) named(parent, name string) []int32 {
	if !s.byNameOK {
		if s.byName == nil {
			s.byName = make(map[string][]int32, len(s.cur))
		}
		clear(s.byName)
		for p := range s.cur {
			in := &s.cur[p]
			k := foldKey(in.parent) + "\x00" + foldKey(in.name)
			s.byName[k] = append(s.byName[k], int32(p))
		}
		s.byNameOK = true
	}
	return s.byName[foldKey(parent)+"\x00"+foldKey(name)]
}

// foldKey maps s to one string for all the strings equal to it under
// simple case folding (every rune to the least rune of its
// unicode.SimpleFold orbit); bytes that are not UTF-8 stay as they are,
// as counterpath compares them.
func foldKey(s string) string {
	ascii, lower := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			ascii = false
			break
		}
		lower = lower || 'a' <= c && c <= 'z'
	}
	if ascii {
		// The least rune of an ASCII letter's orbit is its upper case.
		if !lower {
			return s
		}
		return strings.ToUpper(s)
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w <= 1 {
			b = append(b, s[i])
			i++
			continue
		}
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b = utf8.AppendRune(b, least)
		i += w
	}
	return string(b)
}

func newObjState(index uint32, name string) *objState {
	return &objState{index: index, name: name, idPos: -1, stPos: -1,
		prevMap: make(map[instKey]int32), dups: make(map[dupKey]int32)}
}

// setMissing records the placeholder values the sample's problems name
// for this object.
func (s *objState) setMissing(problems []Problem, system string) {
	s.missing = nil
	for i := range problems {
		p := &problems[i]
		if p.Object != s.index || len(p.Missing) == 0 || (p.Machine != "" && foldMachine(p.Machine) != foldMachine(system)) {
			continue
		}
		if s.missing == nil {
			s.missing = make(map[int][]uint32)
		}
		for _, m := range p.Missing {
			pos := m.Instance
			if pos < 0 {
				pos = 0 // the single instance
			}
			if old, ok := s.missing[pos]; ok && (old == nil || len(m.Counters) == 0) {
				s.missing[pos] = nil
				continue
			} else if ok {
				s.missing[pos] = append(old, m.Counters...)
				continue
			}
			if len(m.Counters) == 0 {
				s.missing[pos] = nil
			} else {
				s.missing[pos] = slices.Clone(m.Counters)
			}
		}
	}
}

// isMissing reports whether counter idx of the instance at position pos is
// a placeholder in the current sample.
func (s *objState) isMissing(pos int, idx uint32) bool {
	c, ok := s.missing[pos]
	return ok && (c == nil || slices.Contains(c, idx))
}

// Title indexes of the counters that identify a process or thread across
// samples. Indexes, not names: they are the same in every language's title
// database (English Windows' ID Process 784, ID Thread 804, Elapsed Time
// 684; our objects use the same indexes).
const (
	idProcessIndex   = 784
	idThreadIndex    = 804
	elapsedTimeIndex = 684
)

// definitions refreshes the definition cache when o's definitions differ
// from the last ones seen; it reports whether they changed.
func (s *objState) definitions(o perfdata.Object, db *titles.DB) bool {
	b := o.Bytes()
	d := b[perfdata.ObjectTypeSize:min(int(o.DefinitionLength()), len(b))]
	if s.defRaw != nil && bytes.Equal(d, s.defRaw) {
		return false
	}
	s.defRaw = append(s.defRaw[:0], d...)
	s.defs = o.AppendCounters(s.defs[:0])
	s.names = s.names[:0]
	s.bases = s.bases[:0]
	s.idPos, s.stPos = -1, -1
	procPos, threadPos := -1, -1
	for i, def := range s.defs {
		n := db.Name(def.NameIndex)
		if n == "" {
			n = strconv.FormatUint(uint64(def.NameIndex), 10)
		}
		s.names = append(s.names, n)
		s.bases = append(s.bases, o.BaseOf(i))
		if def.Type.IsBase() {
			continue
		}
		switch def.NameIndex {
		case idProcessIndex:
			if procPos < 0 {
				procPos = i
			}
		case idThreadIndex:
			if threadPos < 0 {
				threadPos = i
			}
		case elapsedTimeIndex:
			if s.stPos < 0 {
				s.stPos = i
			}
		}
	}
	// A thread is identified by its tid (a Thread object also carries its
	// process's pid), a process by its pid; an object with neither is
	// identified by name.
	s.idPos = cmp.Or(threadPos+1, procPos+1) - 1
	if s.idPos < 0 {
		s.stPos = -1
	}
	s.gen++
	return true
}

// update takes the object's instances from the current sample and matches
// them with the previous sample's.
func (s *objState) update(q *Query, o perfdata.Object, clocks calc.Clocks, system string) {
	s.present = true
	s.obj = o
	s.clocks = clocks
	s.system = system
	changed := s.definitions(o, q.db)
	// Past its length a list holds zero values (dropTail), so that the
	// names and sample bytes of instances gone are not kept.
	reuse := s.prev
	s.prev, s.cur = s.cur, s.prev[:0]
	defer func() { dropTail(s.cur, len(reuse)) }()
	s.prevMapOK = false
	s.byNameOK = false
	if changed {
		clear(s.prev)
		s.prev = s.prev[:0] // other definitions: nothing to pair with
	}
	if o.NumInstances() == perfdata.NoInstances {
		var prev int32 = -1
		if len(s.prev) == 1 {
			prev = 0
		} else {
			s.nameGen++
		}
		s.cur = append(s.cur, instInfo{prev: prev, blk: o.SingleBlock(), key: instKey{uid: -1}})
		return
	}
	same := true // the names are the previous sample's, position by position
	// While they are, each instance takes the name and #index of the one
	// at its position before, without decoding nor counting; the first
	// that differs counts the instances before it into dups.
	counted := false
	delta := 0 // last prev-position minus position: guesses shifted lists
	pos := 0
	for it := o.Instances(); it.Next(); pos++ {
		in := it.Instance()
		parent := ""
		if pti := in.ParentObjectTitleIndex(); pti != 0 {
			parent = q.parentName(s.machine, pti, in.ParentObjectInstance())
		}
		var name string
		var nm *internedName
		var idx int32
		if b := in.NameBytes(); same && pos < len(s.prev) && s.prev[pos].interned.inTable() &&
			s.prev[pos].interned.raw == string(b) && s.prev[pos].parent == parent {
			pi := &s.prev[pos]
			name, nm, idx = pi.name, pi.interned, pi.index
			q.touch(nm)
		} else {
			if !counted {
				clear(s.dups)
				for i := range s.cur {
					s.dups[dupKey{s.cur[i].parent, s.cur[i].name}]++
				}
				counted = true
			}
			if o.CodePage() != 0 {
				name = in.Name()
			} else {
				nm = q.intern(b)
				name = nm.name
			}
			dk := dupKey{parent, name}
			idx = s.dups[dk]
			s.dups[dk] = idx + 1
		}
		blk := in.Block()
		key := instKey{parent: parent, name: name, index: idx, uid: -1}
		if uid := in.UniqueID(); uid != perfdata.NoUniqueID {
			key = instKey{parent: parent, uid: uid}
		} else if s.idPos >= 0 {
			if id := blk.Value(s.defs[s.idPos]); id != 0 {
				key = instKey{uid: -1, byID: true, id: id}
				if s.stPos >= 0 {
					key.start = blk.Value(s.defs[s.stPos])
				}
			}
		}
		prev := int32(-1)
		if g := pos + delta; g >= 0 && g < len(s.prev) && s.prev[g].key == key {
			prev = int32(g)
		} else if len(s.prev) > 0 {
			if !s.prevMapOK {
				clear(s.prevMap)
				for i := range s.prev {
					if _, dup := s.prevMap[s.prev[i].key]; !dup {
						s.prevMap[s.prev[i].key] = int32(i)
					}
				}
				s.prevMapOK = true
			}
			if p, ok := s.prevMap[key]; ok {
				prev = p
				delta = int(p) - pos
			}
		}
		display := ""
		if prev >= 0 {
			if pi := &s.prev[prev]; pi.name == name && pi.parent == parent && pi.index == idx {
				display = pi.display
			}
		}
		if display == "" {
			display = arrayName(parent, name, idx)
		}
		if same && pos < len(s.prev) {
			pi := &s.prev[pos]
			same = pi.name == name && pi.parent == parent && pi.index == idx
		}
		s.cur = append(s.cur, instInfo{name: name, interned: nm, parent: parent, index: idx, display: display, key: key, prev: prev, blk: blk})
	}
	if !same || len(s.cur) != len(s.prev) {
		s.nameGen++
	}
}

// arrayName is PDH's name of an instance in a counter array.
func arrayName(parent, name string, index int32) string {
	if parent == "" && index == 0 {
		return name
	}
	var b strings.Builder
	if parent != "" {
		b.WriteString(parent)
		b.WriteByte('/')
	}
	b.WriteString(name)
	if index > 0 {
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(int(index)))
	}
	return b.String()
}

// dropTail zeroes list[len(list):n], the entries of a longer list whose
// storage list reuses.
func dropTail[E any](list []E, n int) {
	if n > len(list) {
		clear(list[len(list):n])
	}
}

// The name table (Query.names) holds the instance names of the latest
// sample: the names each sample uses are marked with its stamp (touch),
// and at its end the names it did not use go (sweepNames). A process
// that exits takes its name with it, however many distinct names come
// and go; the table is never larger than the names of the latest sample
// and the one before.

// intern returns the entry of the UTF-16LE name b, decoded once for all
// the samples that use it (the map lookup with string(b) does not
// allocate).
func (q *Query) intern(b []byte) *internedName {
	if e, ok := q.names[string(b)]; ok {
		q.touch(e)
		return e
	}
	e := &internedName{name: utf16le.DecodeLenient(b), raw: string(b), stamp: q.stamp}
	q.names[e.raw] = e
	q.used++
	return e
}

// touch marks e, an entry of the table, as used by the current sample.
func (q *Query) touch(e *internedName) {
	if e.stamp != q.stamp {
		e.stamp = q.stamp
		q.used++
	}
}

// sweepNames drops the names the current sample did not use.
func (q *Query) sweepNames() {
	if len(q.names) > q.used {
		for k, e := range q.names {
			if e.stamp != q.stamp {
				e.stamp = swept
				delete(q.names, k)
			}
		}
	}
	q.used = 0
}

// swept is the stamp of an entry no longer in the name table: an
// instance of an object absent from the latest samples may still hold it,
// and interns its name again when the object returns.
const swept = -1

// internedName is an instance name, its UTF-16 bytes as a string, and the
// last sample (Query.stamp) that used it.
type internedName struct {
	name, raw string
	stamp     int
}

// inTable reports whether e is an entry of the name table.
func (e *internedName) inTable() bool { return e != nil && e.stamp != swept }

// parentName returns the name of instance pos of object pti of machine
// in the current sample ("" when that object is not in it).
func (q *Query) parentName(machine string, pti, pos uint32) string {
	key := q.keyOf(machine, pti)
	pn := q.parents[key]
	if pn == nil {
		pn = &parentNames{}
		q.parents[key] = pn
	}
	if pn.stamp != q.stamp {
		pn.stamp = q.stamp
		n := len(pn.names)
		pn.names = pn.names[:0]
		if f, ok := q.found[key]; ok {
			for it := f.obj.Instances(); it.Next(); {
				in := it.Instance()
				if f.obj.CodePage() != 0 {
					pn.names = append(pn.names, in.Name())
				} else {
					pn.names = append(pn.names, q.intern(in.NameBytes()).name)
				}
			}
		} else if !q.wants(pti) {
			q.want = append(q.want, pti) // fetch the parent from the next sample on
		}
		dropTail(pn.names, n)
	}
	if int(pos) < len(pn.names) {
		return pn.names[pos]
	}
	return ""
}

type parentNames struct {
	stamp int
	names []string
}
