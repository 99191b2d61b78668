package remote

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// shot is one shared collection: the sample, when it was taken (the
// process's clock, for the interval), and which objects it was asked for.
type shot struct {
	at      time.Time
	smp     *pdh.Sample
	objects map[uint32]bool // asked for (QueryIndexes); nil: the whole query
}

// covers reports whether the shot was asked for every object of objects.
func (s *shot) covers(objects []uint32) bool {
	if s.objects == nil {
		return true
	}
	for _, o := range objects {
		if !s.objects[o] {
			return false
		}
	}
	return true
}

// sampler shares collections among every client of a handler: it takes
// at most one collection per min interval, of the union of the objects
// clients asked for within the keep interval, and hands each request the
// latest two collections (rates need two). A request for objects the
// latest collection lacks waits for the next one, at most min after the
// latest; a request that finds the latest collection younger than min,
// with its objects, costs no collection at all.
type sampler struct {
	b         Backend
	kind      engine.QueryKind // QueryIndexes: the union of objects asked; QueryGlobal or QueryCostly: everything
	min, keep time.Duration

	mu          sync.Mutex
	want        map[uint32]time.Time // object -> last asked
	prev, cur   *shot
	busy        chan struct{} // closed when the collection under way ends; nil when none
	collections int           // collections taken, for tests and the log
	// The last failed collection: requests within min of it get its
	// error instead of another try, so a failing host is not asked once
	// per waiting client.
	failed   error
	failedAt time.Time
}

func newSampler(b Backend, kind engine.QueryKind, min, keep time.Duration) *sampler {
	return &sampler{b: b, kind: kind, min: min, keep: keep, want: make(map[uint32]time.Time)}
}

// get returns the latest two shared collections (prev may be nil) with
// objects in the latest. It collects when the latest is older than min or
// lacks objects; waits (for the collection under way, or for the min
// interval to pass) end with ctx.
func (s *sampler) get(ctx context.Context, objects []uint32) (prev, cur *shot, err error) {
	s.mu.Lock()
	now := time.Now()
	for _, o := range objects {
		s.want[o] = now
	}
	for {
		if s.cur != nil && s.cur.covers(objects) && time.Since(s.cur.at) < s.min {
			prev, cur = s.prev, s.cur
			s.mu.Unlock()
			return prev, cur, nil
		}
		if s.failed != nil && time.Since(s.failedAt) < s.min {
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
			if d := s.min - time.Since(s.cur.at); d > 0 {
				// The latest collection lacks objects of this request
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
	// This request collects; later ones wait for it.
	done := make(chan struct{})
	s.busy = done
	q, asked := s.query(time.Now())
	s.collections++
	s.mu.Unlock()

	// The collection is shared: a client that goes away must not cancel
	// it for the others.
	smp, err := collectSample(context.WithoutCancel(ctx), s.b, q)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = nil
	close(done)
	if err != nil {
		s.failed, s.failedAt = err, time.Now()
		return nil, nil, err
	}
	s.failed = nil
	sh := &shot{at: time.Now(), smp: smp, objects: asked}
	s.prev, s.cur = s.cur, sh
	if s.prev != nil && sh.at.Sub(s.prev.at) > s.keep {
		s.prev = nil // too old to pair with: rates start afresh
	}
	return s.prev, s.cur, nil
}

// query is the query of the next collection: the union of the objects
// asked for within keep (older ones are dropped), or the whole Global or
// Costly query.
func (s *sampler) query(now time.Time) (engine.Query, map[uint32]bool) {
	if s.kind != engine.QueryIndexes {
		return engine.Query{Kind: s.kind}, nil
	}
	asked := make(map[uint32]bool, len(s.want))
	for o, t := range s.want {
		if now.Sub(t) > s.keep {
			delete(s.want, o)
			continue
		}
		asked[o] = true
	}
	idx := slices.Sorted(maps.Keys(asked))
	return engine.Query{Kind: engine.QueryIndexes, Indexes: idx}, asked
}

// count is the number of collections taken so far.
func (s *sampler) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.collections
}

// collectSample runs one engine query and parses its block into a sample
// with its problems.
func collectSample(ctx context.Context, b Backend, q engine.Query) (*pdh.Sample, error) {
	r, err := b.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	blk, err := perfdata.Parse(r.Block)
	if err != nil {
		return nil, fmt.Errorf("the host's block does not parse: %w", err)
	}
	smp := &pdh.Sample{Blocks: []perfdata.Block{blk}, Time: blockTime(blk.Header())}
	for _, p := range ResultProblems(r) {
		pp := pdh.Problem{Object: p.Object, ObjectName: p.ObjectName, Reason: p.Reason, Partial: p.Partial}
		for _, m := range p.Missing {
			pp.Missing = append(pp.Missing, pdh.MissingValues{Instance: m.Instance, Counters: m.Counters})
		}
		smp.Problems = append(smp.Problems, pp)
	}
	return smp, nil
}

// blockTime is the time of a block: PerfTime100nSec, or SystemTime when
// that is 0.
func blockTime(h perfdata.Header) time.Time {
	if h.PerfTime100nSec != 0 {
		return perfdata.FileTimeToTime(h.PerfTime100nSec)
	}
	return h.SystemTime.Time()
}

// pairSource replays the shared collections a request is answered from
// (the previous one, if any, then the latest) as a recorded pdh source,
// so a pdh query of the request's own computes rates between them and
// matches instances as pdh does. Each request has its own; the samples
// are shared and only read.
type pairSource struct {
	db      *titles.DB
	samples []*pdh.Sample
	pos     int
}

func newPairSource(db *titles.DB, prev, cur *shot) *pairSource {
	s := &pairSource{db: db}
	if prev != nil {
		s.samples = append(s.samples, prev.smp)
	}
	s.samples = append(s.samples, cur.smp)
	return s
}

// Sample returns the next of the request's samples; the objects are
// those the shared collection was asked for.
func (s *pairSource) Sample(ctx context.Context, _ []uint32) (*pdh.Sample, error) {
	if s.pos >= len(s.samples) {
		return nil, io.EOF
	}
	smp := s.samples[s.pos]
	s.pos++
	return smp, nil
}

// The rest is pdh.Source and pdh.Recorded over the request's samples.

func (s *pairSource) Titles() *titles.DB     { return s.db }
func (s *pairSource) Recorded() pdh.Recorded { return s }
func (s *pairSource) Len() int               { return len(s.samples) }
func (s *pairSource) Pos() int               { return s.pos }
func (s *pairSource) Time(i int) time.Time   { return s.samples[i].Time }
func (s *pairSource) Counters() []string     { return nil }
func (s *pairSource) Seek(i int) error {
	if i < 0 || i > len(s.samples) {
		return fmt.Errorf("sample %d out of range 0..%d", i, len(s.samples))
	}
	s.pos = i
	return nil
}
