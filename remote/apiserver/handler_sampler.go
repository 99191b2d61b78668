package apiserver

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// costlySource is the host's Costly objects as a live source, for the
// sampler behind the enumeration of Costly objects.
type costlySource struct {
	r  Registry
	db *titles.DB
}

func (s costlySource) Sample(ctx context.Context, _ []uint32) (*pdh.Sample, error) {
	return s.r.Costly(ctx)
}
func (s costlySource) Titles() *titles.DB     { return s.db }
func (s costlySource) Recorded() pdh.Recorded { return nil }

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

func newPairSource(db *titles.DB, prev, cur *pdh.Shot) *pairSource {
	s := &pairSource{db: db}
	if prev != nil {
		s.samples = append(s.samples, prev.Sample)
	}
	s.samples = append(s.samples, cur.Sample)
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
