package host

import (
	"context"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// LiveSource is the local engine as a pdh.Source: every Sample is a fresh
// collection of the objects asked for (the engine adds related objects,
// such as Process for Thread), parsed once, with the engine's problems
// (objects dropped, objects with unreadable data and which values are
// placeholders) handed to the consumer.
type LiveSource struct {
	h *Host
}

// Source returns the live local host as a data source for pdh queries.
func (h *Host) Source() pdh.Source { return &LiveSource{h: h} }

// Sample collects the objects with the given title indexes in one block
// (Global when objects is empty).
func (s *LiveSource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	q := engine.Query{Kind: engine.QueryGlobal}
	if len(objects) > 0 {
		q = engine.Query{Kind: engine.QueryIndexes, Indexes: objects}
	}
	r, err := s.h.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	blk, err := perfdata.Parse(r.Block)
	if err != nil {
		// The engine's own builder wrote it: a failure here is a bug, but
		// it is reported, not trusted.
		return nil, err
	}
	smp := &pdh.Sample{Blocks: []perfdata.Block{blk}, Time: perfdata.FileTimeToTime(blk.Header().PerfTime100nSec)}
	smp.Problems = SampleProblems(r)
	return smp, nil
}

// SampleProblems converts an engine result's problems to the consumer's
// form: dropped objects, then partial ones with their placeholder values.
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
		for _, m := range p.Missing {
			pp.Missing = append(pp.Missing, pdh.MissingValues{Instance: m.Instance, Counters: m.Counters})
		}
		out = append(out, pp)
	}
	return out
}

// Titles is the engine's title database.
func (s *LiveSource) Titles() *titles.DB { return s.h.Titles() }

// Recorded returns nil: the live host is not a recording.
func (s *LiveSource) Recorded() pdh.Recorded { return nil }
