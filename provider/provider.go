// Package provider is the V2 publishing API: a program starts a provider
// (PerfStartProviderEx), declares counter sets, creates and deletes
// instances, and updates values with one atomic operation each — through
// Instance.Set/Add (PerfSetULongCounterValue, PerfIncrementULongCounterValue),
// a Counter handle for hot paths, a single-writer Ref (PerfSetCounterRefValue)
// or a ShardedCounter for contended writers.
//
// Values live in a shared-memory segment (package shm) that consumers in
// other processes copy without calling into the provider. Aggregate sets
// (globalAggregate, multipleAggregate) are aggregated by consumers with
// shm.Aggregate; a provider publishes plain instances.
package provider

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/shm"
)

// DirEnv names the environment variable that moves the base directory of
// the segments from /dev/shm, for providers (Options.Dir empty) and
// perfc's tools alike.
const DirEnv = "PERFC_SHM_DIR"

// Options configure a provider. Zero fields take defaults.
type Options struct {
	// Dir is the base directory shared with consumers; the segment goes in
	// this user's directory under it (perfc-<uid>, see package shm's
	// SECURITY.md). When empty, the environment's PERFC_SHM_DIR, where
	// perfc's tools look, else /dev/shm (DirEnv).
	Dir  string
	Mode os.FileMode // segment file mode; 0640 (user and group read) when 0
	// AllowDiskBacked lets tests use a directory that is not tmpfs/ramfs.
	AllowDiskBacked bool
	MaxInstances    int // instance slots (default 16384)
	MaxSets         int // counter sets (default 64)
	MaxCounters     int // counters over all sets (default 4096)
	MaxSharded      int // sharded counters (default 4096)
	HeapSize        int // bytes for names and values (default 32 MiB, sparse)
	Shards          int // shards per sharded counter (default 4 x GOMAXPROCS, at least 8, at most 256)
	// Logger receives what Start found wrong but worked around (another
	// user squatting this user's segment directory name, stale segments
	// that could not be removed); slog.Default() when nil.
	Logger *slog.Logger
}

// Provider is a running provider with its segment.
type Provider struct {
	guid   string
	w      *shm.Writer
	shards int

	mu   sync.Mutex
	sets []*Set
}

// Start creates the provider's segment in the configured directory and
// removes segments left there by crashed processes of the same provider.
func Start(guid string, opts Options) (*Provider, error) {
	if strings.TrimSpace(guid) == "" {
		return nil, errors.New("provider: empty provider guid")
	}
	dir := opts.Dir
	if dir == "" {
		dir = os.Getenv(DirEnv)
	}
	if dir == "" {
		dir = shm.DefaultDir
	}
	w, err := shm.Create(guid, shm.Options{
		Dir: dir, Mode: opts.Mode, AllowDiskBacked: opts.AllowDiskBacked,
		MaxSets: opts.MaxSets, MaxCounters: opts.MaxCounters, MaxInstances: opts.MaxInstances,
		MaxSharded: opts.MaxSharded, HeapSize: opts.HeapSize,
	})
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", guid, err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	for _, e := range w.Warnings() {
		log.Warn("provider segment", "provider", guid, "problem", e)
	}
	n := opts.Shards
	if n <= 0 {
		n = max(8, 4*runtime.GOMAXPROCS(0))
	}
	return &Provider{guid: guid, w: w, shards: min(n, 256)}, nil
}

// Path returns the segment file.
func (p *Provider) Path() string { return p.w.Path() }

// Close removes the segment; every instance and handle of the provider is
// dead afterwards (writes through old handles go to private memory).
func (p *Provider) Close() error {
	p.mu.Lock()
	for _, s := range p.sets {
		s.mu.Lock()
		for _, in := range s.insts {
			in.dead.Store(true)
		}
		s.mu.Unlock()
	}
	p.mu.Unlock()
	return p.w.Close()
}

// Set is a counter set added to a provider.
type Set struct {
	p      *Provider
	def    counterset.Set
	idx    int              // set index in the segment
	dense  []int32          // counter id -> counter index, -1 for none
	sparse map[uint32]int32 // used instead of dense for large ids
	single *Instance

	mu    sync.Mutex
	insts map[instKey]*Instance
}

type instKey struct {
	name string // lower case: instance names are case-insensitive
	id   uint32
}

// AddSet validates a counter set and publishes its definition. A
// single-instance set (Single, GlobalAggregate, GlobalAggregateHistory)
// gets its one instance at once, returned by Set.Single.
func (p *Provider) AddSet(def *counterset.Set) (*Set, error) {
	if err := validate(def); err != nil {
		return nil, err
	}
	s := &Set{p: p, def: *def, insts: map[instKey]*Instance{}}
	s.def.Counters = append([]counterset.Counter(nil), def.Counters...)
	maxID := uint32(0)
	for _, c := range def.Counters {
		maxID = max(maxID, c.ID)
	}
	if int(maxID) < 4*len(def.Counters)+64 {
		s.dense = make([]int32, maxID+1)
		for i := range s.dense {
			s.dense[i] = -1
		}
		for i, c := range def.Counters {
			s.dense[c.ID] = int32(i)
		}
	} else {
		s.sparse = make(map[uint32]int32, len(def.Counters))
		for i, c := range def.Counters {
			s.sparse[c.ID] = int32(i)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	idx, err := p.w.AddSet(&s.def)
	if err != nil {
		return nil, fmt.Errorf("provider: set %s (%s): %w", def.Name, def.GUID, err)
	}
	s.idx = idx
	if !def.Instancing.Multi() {
		in, err := s.create("", 0)
		if err != nil {
			return nil, fmt.Errorf("provider: set %s: instance: %w", def.Name, err)
		}
		s.single = in
	}
	p.sets = append(p.sets, s)
	return s, nil
}

// validate checks what the segment and consumers rely on beyond
// counterset.Set.Validate: a GUID, a known instancing, unique counter ids,
// and companion references (base, multi, time, frequency) that name a
// counter of the set. A reference of NoID is unset; so is 0 when the set
// has no counter 0 (the zero value of an unset field).
func validate(def *counterset.Set) error {
	if def == nil {
		return errors.New("provider: nil counter set")
	}
	if strings.TrimSpace(def.GUID) == "" {
		return fmt.Errorf("provider: set %q has no guid", def.Name)
	}
	switch def.Instancing {
	case counterset.Single, counterset.Multiple, counterset.GlobalAggregate, counterset.MultipleAggregate,
		counterset.GlobalAggregateHistory, counterset.InstanceAggregate:
	default:
		return fmt.Errorf("provider: set %s: unknown instancing %d", def.Name, uint32(def.Instancing))
	}
	if len(def.Counters) == 0 {
		return fmt.Errorf("provider: set %s has no counters", def.Name)
	}
	if err := def.Validate(); err != nil {
		return fmt.Errorf("provider: %w", err)
	}
	ids := make(map[uint32]bool, len(def.Counters))
	for _, c := range def.Counters {
		if ids[c.ID] {
			return fmt.Errorf("provider: set %s: counter id %d used twice", def.Name, c.ID)
		}
		ids[c.ID] = true
	}
	for _, c := range def.Counters {
		// Only the references the counter's type uses count.
		base, multi, ptime, pfreq := c.WireRefs()
		for _, r := range []struct {
			what string
			id   uint32
		}{{"baseID", base}, {"multiCounterID", multi}, {"perfTimeID", ptime}, {"perfFreqID", pfreq}} {
			if r.id == counterset.NoID {
				continue
			}
			if !ids[r.id] {
				return fmt.Errorf("provider: set %s: counter %d (%s): %s %d names no counter of the set", def.Name, c.ID, c.Name, r.what, r.id)
			}
		}
	}
	return nil
}

// Single returns the one instance of a single-instance set, nil for a
// multi-instance set.
func (s *Set) Single() *Instance { return s.single }

// CreateInstance creates and publishes an instance of a multi-instance
// set (PerfCreateInstance). Names are case-insensitive; a name and id pair
// may exist once.
func (s *Set) CreateInstance(name string, id uint32) (*Instance, error) {
	if !s.def.Instancing.Multi() {
		return nil, fmt.Errorf("provider: set %s is single-instance; use Single", s.def.Name)
	}
	return s.create(name, id)
}

func (s *Set) create(name string, id uint32) (*Instance, error) {
	k := instKey{strings.ToLower(name), id}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.insts[k] != nil {
		return nil, fmt.Errorf("provider: set %s: instance %q id %d already exists", s.def.Name, name, id)
	}
	slot, b, err := s.p.w.NewInstance(s.idx, name, id)
	if err != nil {
		return nil, fmt.Errorf("provider: set %s: instance %q: %w", s.def.Name, name, err)
	}
	in := &Instance{set: s, key: k, name: name, id: id, slot: slot, block: b}
	if s.dense != nil {
		in.byID = make([]shm.Word, len(s.dense))
		for cid, i := range s.dense {
			if i >= 0 {
				in.byID[cid] = b.Word(int(i))
			}
		}
	}
	s.insts[k] = in
	return in, nil
}

// Instance is one row of a set.
type Instance struct {
	set   *Set
	key   instKey
	name  string
	id    uint32
	slot  int
	block shm.Block
	byID  []shm.Word // value word by counter id, for sets with dense ids
	dead  atomic.Bool

	mu      sync.Mutex
	sharded map[int]*ShardedCounter
}

// Delete unpublishes the instance (PerfDeleteInstance). Its handles must
// not be used afterwards: the value block is recycled for later instances.
func (in *Instance) Delete() error {
	s := in.set
	s.mu.Lock()
	defer s.mu.Unlock()
	if in.dead.Load() {
		return fmt.Errorf("provider: set %s: instance %q already deleted", s.def.Name, in.name)
	}
	if in == s.single {
		return fmt.Errorf("provider: set %s: the instance of a single-instance set cannot be deleted", s.def.Name)
	}
	in.dead.Store(true)
	delete(s.insts, in.key)
	return s.p.w.DeleteInstance(in.slot)
}

// index returns the value index of counter id, or -1.
func (s *Set) index(id uint32) int {
	if s.dense != nil {
		if id < uint32(len(s.dense)) {
			return int(s.dense[id])
		}
		return -1
	}
	if i, ok := s.sparse[id]; ok {
		return int(i)
	}
	return -1
}

// Add atomically adds delta to counter id (PerfIncrementULongCounterValue;
// a 4-byte counter wraps at 2^32 as on Windows).
func (in *Instance) Add(id uint32, delta uint64) error {
	if id < uint32(len(in.byID)) && in.byID[id].Valid() && !in.dead.Load() {
		in.byID[id].Add(delta)
		return nil
	}
	return in.addSlow(id, delta)
}

func (in *Instance) addSlow(id uint32, delta uint64) error {
	i, err := in.lookup(id)
	if err != nil {
		return err
	}
	in.block.Add(i, delta)
	return nil
}

// Set atomically stores v into counter id (PerfSetULongCounterValue).
func (in *Instance) Set(id uint32, v uint64) error {
	if id < uint32(len(in.byID)) && in.byID[id].Valid() && !in.dead.Load() {
		in.byID[id].Store(v)
		return nil
	}
	return in.setSlow(id, v)
}

func (in *Instance) setSlow(id uint32, v uint64) error {
	i, err := in.lookup(id)
	if err != nil {
		return err
	}
	in.block.Store(i, v)
	return nil
}

func (in *Instance) lookup(id uint32) (int, error) {
	if in.dead.Load() {
		return 0, fmt.Errorf("provider: set %s: instance %q was deleted", in.set.def.Name, in.name)
	}
	i := in.set.index(id)
	if i < 0 {
		return 0, fmt.Errorf("provider: set %s: no counter id %d", in.set.def.Name, id)
	}
	return i, nil
}

// AddPair adds to two counters as one update — a fraction and its base, an
// average timer and its count, a timer and its timestamp — so that a
// consumer reads either both old or both new values. It costs four atomic
// operations.
func (in *Instance) AddPair(id1 uint32, d1 uint64, id2 uint32, d2 uint64) error {
	i1, err := in.lookup(id1)
	if err != nil {
		return err
	}
	i2, err := in.lookup(id2)
	if err != nil {
		return err
	}
	in.block.BeginMulti()
	in.block.Add(i1, d1)
	in.block.Add(i2, d2)
	in.block.EndMulti()
	return nil
}

// SetPair stores two counters as one update; see AddPair.
func (in *Instance) SetPair(id1 uint32, v1 uint64, id2 uint32, v2 uint64) error {
	i1, err := in.lookup(id1)
	if err != nil {
		return err
	}
	i2, err := in.lookup(id2)
	if err != nil {
		return err
	}
	in.block.BeginMulti()
	in.block.Store(i1, v1)
	in.block.Store(i2, v2)
	in.block.EndMulti()
	return nil
}

// Counter returns a direct handle to counter id for hot paths. It fails
// when the set has no such counter or the instance was deleted.
func (in *Instance) Counter(id uint32) (*Counter, error) {
	i, err := in.lookup(id)
	if err != nil {
		return nil, err
	}
	return &Counter{in.block.Word(i)}, nil
}

// MustCounter is Counter for ids known to be right (generated code,
// constants): it panics on an error.
func (in *Instance) MustCounter(id uint32) *Counter {
	return must(in.Counter(id))
}

// Ref returns a single-writer handle to counter id (PerfSetCounterRefValue:
// the calling goroutine owns the value). It fails when the set has no such
// counter or the instance was deleted.
func (in *Instance) Ref(id uint32) (*Ref, error) {
	i, err := in.lookup(id)
	if err != nil {
		return nil, err
	}
	return &Ref{in.block.Word(i)}, nil
}

// MustRef is Ref that panics on an error.
func (in *Instance) MustRef(id uint32) *Ref {
	return must(in.Ref(id))
}

// Sharded returns the sharded form of counter id: writers on different
// goroutines add to different cache lines and consumers see the sum (plus
// anything added through the other handles). Repeated calls return the
// same ShardedCounter. It fails when the set has no such counter, the
// instance was deleted or the segment has no room left for shards.
func (in *Instance) Sharded(id uint32) (*ShardedCounter, error) {
	i, err := in.lookup(id)
	if err != nil {
		return nil, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if sc := in.sharded[i]; sc != nil {
		return sc, nil
	}
	set, err := in.set.p.w.NewShards(in.slot, i, in.set.p.shards)
	if err != nil {
		return nil, fmt.Errorf("provider: set %s: instance %q: counter id %d: %w", in.set.def.Name, in.name, id, err)
	}
	sc := &ShardedCounter{set: set}
	if in.sharded == nil {
		in.sharded = map[int]*ShardedCounter{}
	}
	in.sharded[i] = sc
	return sc, nil
}

// MustSharded is Sharded that panics on an error.
func (in *Instance) MustSharded(id uint32) *ShardedCounter {
	return must(in.Sharded(id))
}

// must returns v, or panics with err: the Must methods' form.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Counter is a direct handle to one value; each method is one atomic
// operation, safe from any number of goroutines.
type Counter struct{ w shm.Word }

// Add adds delta.
func (c *Counter) Add(delta uint64) { c.w.Add(delta) }

// Inc adds one.
func (c *Counter) Inc() { c.w.Add(1) }

// Set stores v.
func (c *Counter) Set(v uint64) { c.w.Store(v) }

// Value loads the value.
func (c *Counter) Value() uint64 { return c.w.Load() }

// Ref is a single-writer handle: one goroutine at a time owns the value
// and updates it with plain stores, which consumers read untorn (see
// shm.Word.StoreOwned for why that is sound). Use Counter when several
// goroutines write.
type Ref struct{ w shm.Word }

// Set stores v.
func (r *Ref) Set(v uint64) { r.w.StoreOwned(v) }

// Add adds delta; only the owning goroutine may call it.
func (r *Ref) Add(delta uint64) { r.w.AddOwned(delta) }

// Value loads the value.
func (r *Ref) Value() uint64 { return r.w.Load() }

// ShardedCounter spreads a contended counter over cache-line shards.
type ShardedCounter struct {
	set  shm.ShardSet
	next atomic.Uint32
}

// Add adds delta to the shard chosen by a hash of the calling goroutine's
// stack address: no runtime hook, one atomic add; concurrent goroutines
// usually hit different shards.
func (s *ShardedCounter) Add(delta uint64) { s.set.Add(shm.StackHint(), delta) }

// Inc adds one.
func (s *ShardedCounter) Inc() { s.Add(1) }

// Value returns the sum of the shards (not counting values written through
// the counter's other handles).
func (s *ShardedCounter) Value() uint64 { return s.set.Sum() }

// Writer returns a handle bound to one shard, handed out round-robin: a
// goroutine that keeps its own Writer never shares a cache line with the
// next Shards-1 writers. Any number of goroutines may still share one.
func (s *ShardedCounter) Writer() *ShardWriter {
	return &ShardWriter{s.set.Shard(s.next.Add(1) - 1)}
}

// ShardWriter adds to one shard of a ShardedCounter.
type ShardWriter struct{ w shm.Word }

// Add atomically adds delta to the writer's shard.
func (w *ShardWriter) Add(delta uint64) { w.w.Add(delta) }

// Inc adds one.
func (w *ShardWriter) Inc() { w.Add(1) }
