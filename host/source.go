package host

import (
	"context"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// LiveSource is the local engine as a pdh.Source: every Sample is a fresh
// collection of the objects asked for (the engine adds related objects,
// such as Process for Thread), parsed once, with the engine's problems
// (objects dropped, objects with unreadable data and which values are
// placeholders) handed to the consumer.
type LiveSource struct {
	e Querier
}

// Querier is what LiveSource reads: an engine's registry queries and its
// title database. *engine.Engine and *Host satisfy it.
type Querier interface {
	Query(ctx context.Context, q engine.Query) (*engine.Result, error)
	Titles() *titles.DB
}

// Source returns the live local host as a data source for pdh queries.
func (h *Host) Source() pdh.Source { return &LiveSource{e: h} }

// EngineSource returns the live samples of an engine as a data source
// for pdh queries (Source is the local host's).
func EngineSource(e Querier) *LiveSource { return &LiveSource{e: e} }

// Sample collects the objects with the given title indexes in one block
// (Global when objects is empty).
func (s *LiveSource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	q := engine.Query{Kind: engine.QueryGlobal}
	if len(objects) > 0 {
		q = engine.Query{Kind: engine.QueryIndexes, Indexes: objects}
	}
	return s.query(ctx, q)
}

// SampleCounters is Sample of objects for a reader of only some of their
// counters (pdh.CounterSampler): counters names, per object, the counter
// title indexes read (nil: all), so that an object leaves the files of
// the others unread — a one-shot of \Process(*)\% Processor Time reads
// each process's stat alone.
func (s *LiveSource) SampleCounters(ctx context.Context, objects []uint32, counters map[uint32][]uint32) (*pdh.Sample, error) {
	if len(objects) == 0 {
		return s.Sample(ctx, nil)
	}
	return s.query(ctx, engine.Query{Kind: engine.QueryIndexes, Indexes: objects, Counters: counters})
}

// Objects names the objects a Global (costly false) or Costly query
// collects without collecting them (pdh.ObjectLister), when the engine
// can (*engine.Engine and *Host can); complete is false otherwise.
func (s *LiveSource) Objects(costly bool) ([]uint32, bool) {
	l, ok := s.e.(interface{ Objects(bool) ([]uint32, bool) })
	if !ok {
		return nil, false
	}
	return l.Objects(costly)
}

// Costly collects the Costly objects, which Global leaves out.
func (s *LiveSource) Costly(ctx context.Context) (*pdh.Sample, error) {
	return s.query(ctx, engine.Query{Kind: engine.QueryCostly})
}

// query runs one engine query and parses its block into a sample with
// the engine's problems.
func (s *LiveSource) query(ctx context.Context, q engine.Query) (*pdh.Sample, error) {
	r, err := s.e.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	// The engine's own builder wrote the block: a failure to parse it is
	// a bug, but it is reported, not trusted.
	smp, err := pdh.NewSample([][]byte{r.Block})
	if err != nil {
		return nil, err
	}
	smp.Problems = SampleProblems(r)
	return smp, nil
}

// SampleProblems converts an engine result's problems to the consumer's
// form: dropped objects, then partial ones with their placeholder values.
// A partial object whose collector gave no reason (placeholders only, such
// as the cells of other users' processes) has an empty Reason.
func SampleProblems(r *engine.Result) []pdh.Problem {
	if len(r.Problems) == 0 && len(r.Partial) == 0 {
		return nil
	}
	out := make([]pdh.Problem, 0, len(r.Problems)+len(r.Partial))
	for _, p := range r.Problems {
		reason := p.Err.Error()
		if p.Provider != "" {
			reason = "V1 provider " + p.Provider + ": " + reason
		}
		out = append(out, pdh.Problem{Object: p.NameIndex, ObjectName: p.Object, Reason: reason})
	}
	for _, p := range r.Partial {
		pp := pdh.Problem{Object: p.NameIndex, ObjectName: p.Object, Reason: p.Err.Error(), Partial: true}
		if pe, ok := p.Err.(*engine.PartialError); ok && len(pe.Reasons) == 0 {
			pp.Reason = "" // placeholders with nothing to say (another user's files)
		}
		for _, m := range p.Missing {
			pp.Missing = append(pp.Missing, pdh.MissingValues{Instance: m.Instance, Counters: m.Counters})
		}
		out = append(out, pp)
	}
	return out
}

// Titles is the engine's title database.
func (s *LiveSource) Titles() *titles.DB { return s.e.Titles() }

// Recorded returns nil: the live host is not a recording.
func (s *LiveSource) Recorded() pdh.Recorded { return nil }
