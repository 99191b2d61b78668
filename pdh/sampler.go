package pdh

import (
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/titles"
)

// SamplerOptions configure NewSampler. Zero values select the defaults.
type SamplerOptions struct {
	// MaxAge is how old a collection may be and still answer a request:
	// the shortest time between two collections, whatever the number of
	// consumers; default 1 s.
	MaxAge time.Duration
	// Keep is how long an object stays in every collection after the
	// last request that asked for it, so that consumers asking for
	// different objects are answered by one collection of the union;
	// default 60 s. A pair of collections further apart than Keep is not
	// paired (rates start afresh).
	Keep time.Duration
	// Timeout bounds one collection: it is shared, so it does not end
	// with the context of the request that started it; default 30 s.
	Timeout time.Duration
}

// Sampler is the one collection point in front of a live source that
// several consumers share (perfc serve's API, /metrics and OTLP push, the
// collector service's sets): "a sample no older than MaxAge, holding
// these objects". It collects at most once per MaxAge, the union of the
// objects asked for within Keep, so that consumers asking in the same
// second cost one collection. Collections are shared and read only.
//
// A panic in the source (or in anything the collection calls) becomes
// the error of that collection: the request that collected and every
// request waiting for it get it, and later requests collect again. No
// request ever waits for a collection that cannot end.
//
// A *Sampler is itself a Source (Sample answers the latest collection
// that holds the objects, possibly the one the caller saw last); View
// gives a consumer that computes differences its own Source, which never
// answers the same collection twice in a row. Safe for concurrent use.
type Sampler struct {
	src  Source
	opts SamplerOptions

	mu          sync.Mutex
	want        map[uint32]time.Time // object -> last asked
	wantAll     time.Time            // when everything (nil) was last asked
	prev, cur   *Shot
	lastAll     *Shot         // the latest collection of everything
	busy        chan struct{} // closed when the collection under way ends; nil when none
	collections int
	// The last failed collection: requests within MaxAge of it get its
	// error instead of another try, so a failing source is not asked
	// once per waiting consumer.
	failed   error
	failedAt time.Time
}

// Shot is one shared collection: the sample, when it was taken (the
// process's clock), and what it was asked for.
type Shot struct {
	// Sample is the collection. It is shared: read it, never change it.
	Sample *Sample
	// At is when the collection ended (time.Now).
	At time.Time
	// All says it was asked for everything (a nil object list).
	All     bool
	objects map[uint32]bool // asked for, or present in an All collection
}

// covers reports whether the shot answers a request for objects (nil:
// everything).
func (s *Shot) covers(objects []uint32) bool {
	if objects == nil {
		return s.All
	}
	for _, o := range objects {
		if !s.objects[o] {
			return false
		}
	}
	return true
}

// NewSampler returns a sampler in front of src, a live source.
func NewSampler(src Source, opts SamplerOptions) *Sampler {
	if opts.MaxAge <= 0 {
		opts.MaxAge = time.Second
	}
	if opts.Keep <= 0 {
		opts.Keep = time.Minute
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	return &Sampler{src: src, opts: opts, want: map[uint32]time.Time{}}
}

// Pair returns the latest collection holding objects (nil: everything)
// and taken at most MaxAge ago, with the collection before it (nil when
// there is none, or it is more than Keep older), so that a consumer can
// compute rates between them. It collects when the latest is too old or
// lacks objects, waiting first for MaxAge to pass since the latest;
// waits end with ctx.
func (s *Sampler) Pair(ctx context.Context, objects []uint32) (prev, cur *Shot, err error) {
	return s.get(ctx, objects, nil, false)
}

// Once answers, as Sample does, a collection holding objects (nil:
// everything), without keeping them in the collections after it: for a
// request that reads objects once (an enumeration of the host's objects,
// one object's instances) rather than every interval, so that it does
// not make every consumer's collections read them for Keep.
func (s *Sampler) Once(ctx context.Context, objects []uint32) (*Sample, error) {
	_, cur, err := s.get(ctx, objects, nil, true)
	if err != nil {
		return nil, err
	}
	return cur.Sample, nil
}

// get is Pair, with a collection other than not (the one a view handed
// out last) as the latest; once asks for objects without adding them to
// what later collections ask for.
func (s *Sampler) get(ctx context.Context, objects []uint32, not *Shot, once bool) (prev, cur *Shot, err error) {
	s.mu.Lock()
	now := time.Now()
	if !once {
		if objects == nil {
			s.wantAll = now
		}
		for _, o := range objects {
			s.want[o] = now
		}
	}
	for {
		if c := s.cur; c != nil && c != not && c.covers(objects) && time.Since(c.At) < s.opts.MaxAge {
			prev, cur = s.prev, c
			s.mu.Unlock()
			return prev, cur, nil
		}
		if s.failed != nil && time.Since(s.failedAt) < s.opts.MaxAge {
			err := s.failed
			s.mu.Unlock()
			return nil, nil, err
		}
		if wait := s.busy; wait != nil {
			s.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			s.mu.Lock()
			continue
		}
		if s.cur != nil {
			if d := s.opts.MaxAge - time.Since(s.cur.At); d > 0 {
				// The latest collection does not answer this request
				// and is too young for another: wait for the next slot.
				s.mu.Unlock()
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					return nil, nil, ctx.Err()
				}
				s.mu.Lock()
				continue
			}
		}
		break
	}
	// This request collects; the others wait for it.
	done := make(chan struct{})
	s.busy = done
	ask, all := s.union(time.Now())
	if once {
		ask, all = s.with(ask, all, objects)
	}
	s.collections++
	s.mu.Unlock()

	smp, err := s.collect(ctx, ask)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = nil
	close(done)
	if err != nil {
		s.failed, s.failedAt = err, time.Now()
		return nil, nil, err
	}
	s.failed = nil
	sh := &Shot{Sample: smp, At: time.Now(), All: all, objects: make(map[uint32]bool, len(ask))}
	for _, o := range ask {
		sh.objects[o] = true
	}
	if all {
		for _, blk := range smp.Blocks {
			for it := blk.Objects(); it.Next(); {
				sh.objects[it.Object().NameIndex()] = true
			}
		}
	}
	s.prev, s.cur = s.cur, sh
	if s.prev != nil && sh.At.Sub(s.prev.At) > s.opts.Keep {
		s.prev = nil // too old to pair with: rates start afresh
	}
	if all {
		s.lastAll = sh
	}
	// An object asked for but not delivered (gone from the source) is
	// answered with what there is: the sample's problems say why.
	return s.prev, sh, nil
}

// union is what the next collection asks for: the objects asked for
// within Keep (older ones are dropped), or everything when a consumer
// asked for everything within Keep. A source's "everything" may leave
// out objects that must be asked for by name (Windows' Costly ones):
// when one of those is wanted too, the collection names every object of
// the latest collection of everything, and those.
func (s *Sampler) union(now time.Time) (objects []uint32, all bool) {
	for o, t := range s.want {
		if now.Sub(t) > s.opts.Keep {
			delete(s.want, o)
		}
	}
	if s.wantAll.IsZero() || now.Sub(s.wantAll) > s.opts.Keep {
		return slices.Sorted(maps.Keys(s.want)), false
	}
	if s.lastAll == nil {
		return nil, true
	}
	extra := false
	for o := range s.want {
		if !s.lastAll.objects[o] {
			extra = true
			break
		}
	}
	if !extra {
		return nil, true
	}
	set := maps.Clone(s.lastAll.objects)
	for o := range s.want {
		set[o] = true
	}
	return slices.Sorted(maps.Keys(set)), true
}

// with adds a once request's objects (nil: everything) to what union
// asks for. When one of them is everything and the other names objects,
// the collection names every object of the source's everything (the
// latest collection of everything, else the source's list) and those;
// when neither is known, it asks for everything, and a named object that
// it lacks is collected again when its consumer next asks.
func (s *Sampler) with(ask []uint32, all bool, objects []uint32) ([]uint32, bool) {
	if objects == nil && all {
		return ask, true
	}
	set := map[uint32]bool{}
	for _, o := range ask {
		set[o] = true
	}
	for _, o := range objects {
		set[o] = true
	}
	if objects != nil && !all {
		return slices.Sorted(maps.Keys(set)), false
	}
	var every map[uint32]bool
	if s.lastAll != nil {
		every = s.lastAll.objects
	} else if list, ok := s.Objects(false); ok {
		every = map[uint32]bool{}
		for _, o := range list {
			every[o] = true
		}
	} else {
		return nil, true
	}
	extra := false
	for o := range set {
		if !every[o] {
			extra = true
			every = maps.Clone(every)
			break
		}
	}
	if !extra {
		return nil, true
	}
	for o := range set {
		every[o] = true
	}
	return slices.Sorted(maps.Keys(every)), true
}

// collect takes one sample of the source. The collection is shared: a
// consumer that goes away does not cancel it for the others, and a panic
// in it is an error, never a wedge.
func (s *Sampler) collect(ctx context.Context, objects []uint32) (smp *Sample, err error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.Timeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			smp, err = nil, fmt.Errorf("pdh: the source panicked while collecting: %v\n%s", v, debug.Stack())
		}
	}()
	smp, err = s.src.Sample(ctx, objects)
	if err == nil && smp == nil {
		err = fmt.Errorf("pdh: the source returned no sample")
	}
	return smp, err
}

// Collections is the number of collections the sampler has started.
func (s *Sampler) Collections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.collections
}

// Sample answers the latest collection that holds objects and is at most
// MaxAge old, collecting when there is none. The sample is shared: read
// it, never change it.
func (s *Sampler) Sample(ctx context.Context, objects []uint32) (*Sample, error) {
	_, cur, err := s.Pair(ctx, objects)
	if err != nil {
		return nil, err
	}
	return cur.Sample, nil
}

// Objects names the objects of the sampler's source without collecting
// them, when the source can (ObjectLister); complete is false otherwise.
func (s *Sampler) Objects(costly bool) ([]uint32, bool) {
	if l, ok := s.src.(ObjectLister); ok {
		return l.Objects(costly)
	}
	return nil, false
}

// Titles is the source's title database.
func (s *Sampler) Titles() *titles.DB { return s.src.Titles() }

// Recorded is nil: a sampler stands in front of a live source.
func (s *Sampler) Recorded() Recorded { return nil }

// View returns a Source for one consumer of the sampler: each Sample is
// a shared collection that holds the objects asked for and that this
// view has not answered before, so that a consumer computing rates (a
// Query, a /metrics collector) never pairs a collection with itself. A
// view is for one goroutine at a time.
func (s *Sampler) View() Source { return &view{s: s} }

type view struct {
	s    *Sampler
	last *Shot
}

func (v *view) Sample(ctx context.Context, objects []uint32) (*Sample, error) {
	_, cur, err := v.s.get(ctx, objects, v.last, false)
	if err != nil {
		return nil, err
	}
	v.last = cur
	return cur.Sample, nil
}

func (v *view) Titles() *titles.DB { return v.s.Titles() }

// Objects is the sampler's (ObjectLister).
func (v *view) Objects(costly bool) ([]uint32, bool) { return v.s.Objects(costly) }
func (v *view) Recorded() Recorded                   { return nil }
