package system

import (
	"io/fs"
	"os"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/perfcounters/perfcounters/perfdata"
)

// recorder is a Writer over a real perfdata.Builder: tests collect an
// object into a block, parse it back, and read values by counter index.
type recorder struct {
	b                *perfdata.Builder
	perfTime, perfFr int64
	p                probe
}

func (r *recorder) Instance(name string, pt, pi uint32, id int32) perfdata.Values {
	r.p.inst++
	return r.b.Instance(name, pt, pi, id)
}
func (r *recorder) Single() perfdata.Values    { return r.b.Single() }
func (r *recorder) SetObjectTime(pt, pf int64) { r.perfTime, r.perfFr = pt, pf }
func (r *recorder) objectSpec(o Object) perfdata.ObjectSpec {
	return perfdata.ObjectSpec{NameIndex: 1000, HelpIndex: 1001, DefaultCounter: -1, Single: !o.Set.Instancing.Multi()}
}

// probe is a Collection for tests: it records the partial-data reasons and
// the unavailable marks a collect function reports. The Writer that goes
// with it advances inst on each Instance call, as the engine's does.
type probe struct {
	seq     uint64
	time    int64
	want    []int // the counters asked for; nil all
	reasons []string
	missing []mark
	inst    int // position of the instance last started; -1 before any
}

// mark is one Unavailable call: the instance position and the counters.
type mark struct {
	inst     int
	counters []int
}

func newProbe() probe { return probe{inst: -1} }

func (p *probe) Seq() uint64 { return p.seq }
func (p *probe) Time() int64 { return p.time }
func (p *probe) Wants(c int) bool {
	return p.want == nil || slices.Contains(p.want, c)
}
func (p *probe) Partial(reason string) { p.reasons = append(p.reasons, reason) }
func (p *probe) Unavailable(counters ...int) {
	p.missing = append(p.missing, mark{inst: p.inst, counters: slices.Clone(counters)})
}

// nopCol is a Collection that discards what it is told, for benchmarks and
// allocation tests (a zero-size value costs no allocation as an interface).
type nopCol struct{}

func (nopCol) Seq() uint64        { return 0 }
func (nopCol) Time() int64        { return 0 }
func (nopCol) Wants(int) bool     { return true }
func (nopCol) Partial(string)     {}
func (nopCol) Unavailable(...int) {}

// sample is one collected object, decoded back from its block.
type sample struct {
	reasons []string            // partial-data reasons reported while collecting
	missing []mark              // values reported unavailable
	names   []string            // instance names in block order ("" for single)
	uids    map[string]int32    // instance unique ids (first of duplicates)
	vals    map[string][]uint64 // per instance name (first of duplicates)
	ptime   int64
	pfreq   int64
	object  Object
}

func (s *sample) get(t *testing.T, inst, counter string) uint64 {
	t.Helper()
	i := s.object.Set.CounterByName(counter)
	if i < 0 {
		t.Fatalf("%s: no counter %q", s.object.Set.Name, counter)
	}
	return s.at(t, inst, i)
}

func (s *sample) at(t *testing.T, inst string, i int) uint64 {
	t.Helper()
	v, ok := s.vals[inst]
	if !ok {
		t.Fatalf("%s: no instance %q (have %q)", s.object.Set.Name, inst, s.names)
	}
	return v[i]
}

// collectObject runs o.Collect into a fresh block and decodes it.
func collectObject(t testing.TB, c *Collector, o Object) *sample {
	t.Helper()
	return collectObjectSeq(t, c, o, 0)
}

// collectObjectSeq is collectObject as part of sample seq (Collection.Seq;
// 0 is unknown).
func collectObjectSeq(t testing.TB, c *Collector, o Object, seq uint64) *sample {
	t.Helper()
	if err := o.Set.Validate(); err != nil {
		t.Fatalf("declaration: %v", err)
	}
	specs := make([]perfdata.CounterSpec, len(o.Set.Counters))
	for i, ct := range o.Set.Counters {
		specs[i] = perfdata.CounterSpec{NameIndex: uint32(2000 + 2*i), HelpIndex: uint32(2001 + 2*i), Type: ct.Type, Size: ct.ValueSize(), DefaultScale: ct.DefaultScale, DetailLevel: ct.DetailLevel}
	}
	lay, err := perfdata.NewLayout(specs)
	if err != nil {
		t.Fatalf("%s: layout: %v", o.Set.Name, err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{Version: 1, Revision: 1, LittleEndian: 1, PerfFreq: DefaultPerfFreq, SystemName: "test"})
	r := &recorder{b: b, p: newProbe()}
	r.p.seq = seq
	if err := b.BeginObject(r.objectSpec(o), lay, specs); err != nil {
		t.Fatalf("%s: BeginObject: %v", o.Set.Name, err)
	}
	if err := o.Collect(c, &r.p, r); err != nil {
		t.Fatalf("%s: collect: %v", o.Set.Name, err)
	}
	if err := b.EndObject(); err != nil {
		t.Fatalf("%s: EndObject: %v", o.Set.Name, err)
	}
	blk, err := perfdata.Parse(b.Bytes())
	if err != nil {
		t.Fatalf("%s: parse: %v", o.Set.Name, err)
	}
	it := blk.Objects()
	if !it.Next() {
		t.Fatalf("%s: no object in block", o.Set.Name)
	}
	ob := it.Object()
	s := &sample{vals: map[string][]uint64{}, uids: map[string]int32{}, ptime: r.perfTime, pfreq: r.perfFr, object: o, reasons: r.p.reasons, missing: r.p.missing}
	read := func(name string, cb perfdata.CounterBlock) {
		v := make([]uint64, ob.NumCounters())
		for i := range v {
			v[i] = cb.Value(ob.Counter(i))
		}
		s.names = append(s.names, name)
		if _, dup := s.vals[name]; !dup {
			s.vals[name] = v
		}
	}
	if ob.SingleInstance() {
		read("", ob.SingleBlock())
	} else {
		for ii := ob.Instances(); ii.Next(); {
			in := ii.Instance()
			if _, dup := s.uids[in.Name()]; !dup {
				s.uids[in.Name()] = in.UniqueID()
			}
			read(in.Name(), in.Block())
		}
	}
	return s
}

// objectByName finds a built-in object.
func objectByName(t testing.TB, c *Collector, name string) Object {
	t.Helper()
	for _, o := range c.Objects() {
		if o.Set.Name == name {
			return o
		}
	}
	t.Fatalf("no object %q", name)
	return Object{}
}

// overlay serves files from m first, then from base.
type overlay struct {
	m    fstest.MapFS
	base fs.FS
}

func (o overlay) Open(name string) (fs.File, error) {
	if f, err := o.m.Open(name); err == nil {
		return f, nil
	}
	return o.base.Open(name)
}

// fixedStatfs fakes statfs.
func fixedStatfs(m map[string]StatFS) func(string) (StatFS, error) {
	return func(p string) (StatFS, error) {
		if s, ok := m[p]; ok {
			return s, nil
		}
		return StatFS{}, fs.ErrNotExist
	}
}

// hostCollector reads the committed copy of a real host.
func hostCollector(opts ...Option) *Collector {
	base := []Option{
		WithStatfs(fixedStatfs(map[string]StatFS{"/": {BlockSize: 4096, Blocks: 65536000, BlocksFree: 60000000, BlocksAvail: 50000000}})),
		WithClock(func() time.Time { return time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC) }),
		WithUptime(func() time.Duration { return 3429430 * time.Millisecond }),
	}
	return NewCollector(os.DirFS("testdata/host/proc"), os.DirFS("testdata/host/sys"), append(base, opts...)...)
}
