package blg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/internal/utf16le"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// Sub-record kinds of a sample record ("BL", 3, kind, uint32 length).
const (
	subSample  = 0x00 // the whole sample: the sub-records follow
	subRaw     = 0x01 // one PDH_RAW_COUNTER
	subRawList = 0x02 // the instances of a counter with a wildcard instance
	subBlock   = 0x05 // one PERF_DATA_BLOCK (a wildcard object)
	subHeader  = 8
	rawSize    = 40 // PDH_RAW_COUNTER as stored (8-byte aligned)
	itemSize   = 24 // one instance of a subRawList
	listHead   = 24 // subRawList header after the sub-record header
	maxItems   = 1 << 20
)

// PDH counter status values (pdhmsg.h).
const (
	cstatusValid   = 0x00000000
	cstatusNewData = 0x00000001
)

var cstatusNames = map[uint32]string{
	0x800007D0: "PDH_CSTATUS_NO_MACHINE: the computer was not available",
	0x800007D1: "PDH_CSTATUS_NO_INSTANCE: the instance was not found",
}

func cstatusText(s uint32) string {
	if t, ok := cstatusNames[s]; ok {
		return fmt.Sprintf("%s (status 0x%08X)", t, s)
	}
	return fmt.Sprintf("PDH counter status 0x%08X", s)
}

// plan is how the explicitly listed counters become PERF_DATA_BLOCKs: one
// block per machine and object, holding that object's listed counters
// (each followed by the base the type needs) and the instances the sample
// has values for.
type plan struct {
	groups  []*group
	entries []entrySlot // per counter-list entry
}

type entrySlot struct {
	group   int // -1: a whole-object entry (its data are PERF_DATA_BLOCKs)
	counter int // position in the group's counters
}

type group struct {
	machine  string
	object   string
	objIndex uint32
	single   bool
	defs     []perfdata.CounterSpec
	layout   *perfdata.Layout
	counters []gcounter
	byKey    map[gkey]int
	b        *perfdata.Builder
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
	timeBase  int64
}

func newPlan(list []Counter, db *titles.DB) (*plan, error) {
	p := &plan{entries: make([]entrySlot, len(list))}
	byKey := map[string]int{}
	for k, c := range list {
		if !c.explicit() {
			p.entries[k] = entrySlot{group: -1}
			continue
		}
		key := strings.ToLower(c.Machine + `\` + c.Object)
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
		ckey := gkey{name: strings.ToLower(c.Name), typ: c.Type}
		ci, ok := g.byKey[ckey]
		if !ok {
			idx, _ := db.Index(c.Name)
			if !c.Type.Known() || c.Type.IsBase() || c.Type.IsText() {
				return nil, fmt.Errorf("counter %s: counter type 0x%08X cannot be logged as a raw value", c.Path(), uint32(c.Type))
			}
			gc := gcounter{def: len(g.defs), base: -1, typ: c.Type, timeBase: c.TimeBase}
			g.defs = append(g.defs, perfdata.CounterSpec{NameIndex: idx, HelpIndex: idx + 1, DefaultScale: c.Scale, DetailLevel: 100, Type: c.Type, Size: numSize(c.Type)})
			if bt, ok := c.Type.Base(); ok {
				gc.base = len(g.defs)
				g.defs = append(g.defs, perfdata.CounterSpec{NameIndex: idx, HelpIndex: idx + 1, DetailLevel: 100, Type: bt, Size: numSize(bt)})
			}
			ci = len(g.counters)
			g.counters = append(g.counters, gc)
			g.byKey[ckey] = ci
		}
		p.entries[k] = entrySlot{group: gi, counter: ci}
	}
	for _, g := range p.groups {
		l, err := perfdata.NewLayout(g.defs)
		if err != nil {
			return nil, fmt.Errorf("object %s%s: %w", g.machine, g.object, err)
		}
		g.layout = l
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

// rawValue is one PDH_RAW_COUNTER.
type rawValue struct {
	status        uint32
	first, second int64
	multi         uint32
}

// cell is a value of one counter of one instance in a sample.
type cell struct {
	v   rawValue
	set bool
}

// gsample is one group's data in one sample.
type gsample struct {
	instances []string
	byName    map[string]int
	cells     map[[2]int]cell // instance, counter
}

func (gs *gsample) instance(name string) int {
	if i, ok := gs.byName[name]; ok {
		return i
	}
	gs.byName[name] = len(gs.instances)
	gs.instances = append(gs.instances, name)
	return len(gs.instances) - 1
}

// decodeSample decodes one sample record.
func (l *Log) decodeSample(b []byte, rec *record) (*pdh.Sample, error) {
	if len(b) < subHeader || string(b[:3]) != "BL\x03" || b[3] != subSample {
		return nil, fmt.Errorf("sample record starts with % x, not the sample header \"BL\" 03 00", b[:min(len(b), 4)])
	}
	total := int(le.Uint32(b[4:]))
	if total < subHeader || total > len(b) {
		return nil, fmt.Errorf("sample header: length %d outside %d..%d", total, subHeader, len(b))
	}
	b = b[:total]
	var raw [][]byte
	gss := map[int]*gsample{} // by group; only the groups this record has
	var touched []int
	k := 0
	for off := subHeader; off < total; k++ {
		if total-off < subHeader {
			return nil, fmt.Errorf("sub-record at byte %d: %d bytes left, a header needs %d", off, total-off, subHeader)
		}
		if string(b[off:off+3]) != "BL\x03" {
			return nil, fmt.Errorf("sub-record at byte %d starts with % x, not \"BL\" 03", off, b[off:off+3])
		}
		kind := b[off+3]
		n := int(le.Uint32(b[off+4:]))
		if n < subHeader || n > total-off {
			return nil, fmt.Errorf("sub-record at byte %d: length %d outside %d..%d", off, n, subHeader, total-off)
		}
		sub := b[off : off+n]
		switch kind {
		case subBlock:
			raw = append(raw, sub[subHeader:])
		case subRaw, subRawList:
			if k >= len(l.list) || l.plan.entries[k].group < 0 {
				return nil, fmt.Errorf("sub-record %d at byte %d: raw counter values, but the counter list has no listed counter %d", k, off, k)
			}
			e := l.plan.entries[k]
			gs := gss[e.group]
			if gs == nil {
				gs = &gsample{byName: map[string]int{}, cells: map[[2]int]cell{}}
				gss[e.group] = gs
				touched = append(touched, e.group)
			}
			c := l.list[k]
			if kind == subRaw {
				if n < subHeader+rawSize {
					return nil, fmt.Errorf("sub-record %d at byte %d: length %d, a raw counter needs %d", k, off, n, subHeader+rawSize)
				}
				v := rawValue{status: le.Uint32(sub[8:]), first: int64(le.Uint64(sub[24:])), second: int64(le.Uint64(sub[32:])), multi: le.Uint32(sub[40:])}
				inst := c.Instance
				if c.Index > 0 {
					inst = fmt.Sprintf("%s#%d", inst, c.Index)
				}
				gs.cells[[2]int{gs.instance(inst), e.counter}] = cell{v: v, set: true}
				break
			}
			if err := decodeRawList(sub, off, k, e.counter, gs); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("sub-record %d at byte %d: unknown kind %d", k, off, kind)
		}
		off += n
	}
	s, err := pdh.NewSample(raw)
	if err != nil {
		return nil, err
	}
	s.Time = l.localTime(rec.stamp)
	slices.Sort(touched)
	for _, gi := range touched {
		gs := gss[gi]
		blk, probs, err := l.plan.groups[gi].build(gs, s, l.hdr.PerfFreq)
		if err != nil {
			return nil, err
		}
		s.Problems = append(s.Problems, probs...)
		if blk != nil {
			pb, err := perfdata.Parse(blk)
			if err != nil {
				return nil, fmt.Errorf("object %s\\%s rebuilt from raw values: %w", l.plan.groups[gi].machine, l.plan.groups[gi].object, err)
			}
			s.Blocks = append(s.Blocks, pb)
		}
	}
	return s, nil
}

// decodeRawList reads the instances of a wildcard-instance counter: a
// header (size, count, status, time stamp) and count items of name offset,
// multi count, first and second value; names follow the items.
func decodeRawList(sub []byte, off, k, counter int, gs *gsample) error {
	n := len(sub)
	if n < subHeader+listHead {
		return fmt.Errorf("sub-record %d at byte %d: length %d, an instance list needs %d", k, off, n, subHeader+listHead)
	}
	count := int(le.Uint32(sub[12:]))
	if count > maxItems || subHeader+listHead+count*itemSize > n {
		return fmt.Errorf("sub-record %d at byte %d: %d instances do not fit in %d bytes", k, off, count, n)
	}
	status := le.Uint32(sub[16:])
	base := sub[subHeader:]
	for i := range count {
		it := sub[subHeader+listHead+i*itemSize:]
		no := int(le.Uint32(it[0:]))
		if no < listHead+count*itemSize || no >= len(base) || no%2 != 0 {
			return fmt.Errorf("sub-record %d at byte %d: instance %d: name offset %d outside the names (%d..%d)", k, off, i, no, listHead+count*itemSize, len(base))
		}
		e := utf16le.IndexNUL(base[no:])
		if e < 0 {
			return fmt.Errorf("sub-record %d at byte %d: instance %d: name at %d has no NUL", k, off, i, no)
		}
		name := utf16le.DecodeLenient(base[no : no+e])
		v := rawValue{status: status, multi: le.Uint32(it[4:]), first: int64(le.Uint64(it[8:])), second: int64(le.Uint64(it[16:]))}
		gs.cells[[2]int{gs.instance(name), counter}] = cell{v: v, set: true}
	}
	return nil
}

func statusOK(s uint32) bool { return s == cstatusValid || s == cstatusNewData }

// build makes the group's PERF_DATA_BLOCK for one sample. Values with a
// failed status, and instances a counter has no value for, are reported as
// missing; a group with no valid value at all gives no block, only a
// Problem.
func (g *group) build(gs *gsample, s *pdh.Sample, perfFreq int64) ([]byte, []pdh.Problem, error) {
	h := perfdata.Header{
		DefaultObject:   int32(g.objIndex),
		SystemTime:      perfdata.SystemTimeOf(s.Time),
		PerfFreq:        perfFreq,
		PerfTime100nSec: perfdata.FileTime(s.Time),
		SystemName:      strings.TrimPrefix(g.machine, `\\`),
	}
	// The block holds every instance × every counter; values hold only
	// what the record has. Bound the block by the record's size, so that
	// a crafted record cannot make it grow with the square of its size.
	if cells := len(gs.instances) * len(g.counters); cells > 4096 && cells > 16*len(gs.cells) {
		return nil, nil, fmt.Errorf("object %s\\%s: %d instances × %d counters for %d values: too sparse to rebuild", g.machine, g.object, len(gs.instances), len(g.counters), len(gs.cells))
	}
	var objTime, objFreq int64
	var setTick, setFreq, set100, setObj, setObjFreq bool
	valid := 0
	var reasons []string
	seenReason := map[uint32]bool{}
	for key := range orderedKeys(gs, len(g.counters)) {
		c, ok := gs.cells[key]
		if !ok {
			continue
		}
		gc := g.counters[key[1]]
		if !statusOK(c.v.status) {
			if !seenReason[c.v.status] {
				seenReason[c.v.status] = true
				reasons = append(reasons, cstatusText(c.v.status))
			}
			continue
		}
		valid++
		t := gc.typ
		tb := t.TimeBase()
		if gc.timeBase > 0 {
			switch {
			case tb == countertype.PERF_TIMER_TICK && !setFreq:
				h.PerfFreq, setFreq = gc.timeBase, true
			case tb == countertype.PERF_OBJECT_TIMER && !setObjFreq:
				objFreq, setObjFreq = gc.timeBase, true
			}
		}
		if !secondIsTime(t) {
			continue
		}
		switch tb {
		case countertype.PERF_TIMER_TICK:
			if !setTick {
				h.PerfTime, setTick = c.v.second, true
			}
		case countertype.PERF_TIMER_100NS:
			if !set100 {
				h.PerfTime100nSec, set100 = c.v.second, true
			}
		case countertype.PERF_OBJECT_TIMER:
			if !setObj {
				objTime, setObj = c.v.second, true
			}
		}
	}
	var probs []pdh.Problem
	if valid == 0 {
		return nil, []pdh.Problem{{Object: g.objIndex, ObjectName: g.object, Reason: g.machine + ": " + strings.Join(reasons, "; ")}}, nil
	}
	b := g.b
	b.Reset(h)
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: g.objIndex, HelpIndex: g.objIndex + 1, DetailLevel: 100, PerfTime: objTime, PerfFreq: objFreq, Single: g.single}, g.layout, g.defs); err != nil {
		return nil, nil, err
	}
	var missing []pdh.MissingValues
	n := len(gs.instances)
	if g.single {
		n = 1
	}
	for i := range n {
		var v perfdata.Values
		if g.single {
			v = b.Single()
		} else {
			v = b.Instance(gs.instances[i], 0, 0, -1)
		}
		var miss []uint32
		for ci, gc := range g.counters {
			c, ok := gs.cells[[2]int{i, ci}]
			if !ok || !statusOK(c.v.status) {
				miss = append(miss, g.defs[gc.def].NameIndex)
				continue
			}
			v.Set(gc.def, uint64(c.v.first))
			if t := gc.typ; t.Multi() && gc.base < 0 {
				v.SetMulti(gc.def, c.v.multi)
			}
			if gc.base >= 0 {
				if g.defs[gc.base].Type == countertype.PERF_COUNTER_MULTI_BASE {
					v.Set(gc.base, uint64(c.v.multi))
				} else {
					v.Set(gc.base, uint64(c.v.second))
				}
			}
		}
		if len(miss) > 0 {
			inst := i
			if g.single {
				inst = -1
			}
			if len(miss) == len(g.counters) {
				miss = nil
			}
			missing = append(missing, pdh.MissingValues{Instance: inst, Counters: miss})
		}
	}
	if err := b.EndObject(); err != nil {
		return nil, nil, err
	}
	if len(missing) > 0 {
		reason := "no value for some counters of some instances in this sample"
		if len(reasons) > 0 {
			reason = strings.Join(reasons, "; ")
		}
		probs = append(probs, pdh.Problem{Object: g.objIndex, ObjectName: g.object, Partial: true, Missing: missing, Reason: g.machine + ": " + reason})
	}
	return b.Bytes(), probs, nil
}

// secondIsTime reports a type whose PDH_RAW_COUNTER.SecondValue is the
// time stamp of its time base (not a base value).
func secondIsTime(t countertype.Type) bool {
	if bt, ok := t.Base(); ok {
		return bt == countertype.PERF_COUNTER_MULTI_BASE
	}
	return t.NeedsTwoSamples() || t == countertype.PERF_ELAPSED_TIME
}

// orderedKeys yields the cells' keys instance by instance, counter by
// counter, so that the first value wins deterministically.
func orderedKeys(gs *gsample, counters int) func(func([2]int) bool) {
	return func(yield func([2]int) bool) {
		for i := range gs.instances {
			for c := range counters {
				if !yield([2]int{i, c}) {
					return
				}
			}
		}
	}
}
