package host

import (
	"context"
	"strconv"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// LiveSource is the local engine as a pdh.Source: every Sample is a fresh
// collection of the objects asked for (the engine adds related objects,
// such as Process for Thread).
type LiveSource struct {
	h   *Host
	buf []byte // the query string, reused
}

// Source returns the live local host as a data source for pdh queries.
func (h *Host) Source() pdh.Source { return &LiveSource{h: h} }

// Sample collects the objects with the given title indexes in one block
// ("Global" when objects is nil or empty).
func (s *LiveSource) Sample(ctx context.Context, objects []uint32) ([][]byte, error) {
	name := "Global"
	if len(objects) > 0 {
		s.buf = s.buf[:0]
		for i, idx := range objects {
			if i > 0 {
				s.buf = append(s.buf, ' ')
			}
			s.buf = strconv.AppendUint(s.buf, uint64(idx), 10)
		}
		name = string(s.buf)
	}
	r, err := s.h.QueryValue(ctx, name)
	if err != nil {
		return nil, err
	}
	return [][]byte{r.Block}, nil
}

// Titles is the engine's title database.
func (s *LiveSource) Titles() *titles.DB { return s.h.Titles() }
