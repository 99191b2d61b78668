package prom

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// fixedSource hands out its samples in turn and then the last one again,
// and counts the collections asked for.
type fixedSource struct {
	db      *titles.DB
	samples []*pdh.Sample
	next    int
	calls   int
	asked   [][]uint32
	block   chan struct{} // when set, Sample waits for it
}

func (s *fixedSource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	if s.block != nil {
		select {
		case <-s.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.calls++
	s.asked = append(s.asked, objects)
	smp := s.samples[min(s.next, len(s.samples)-1)]
	s.next++
	return smp, nil
}

func (s *fixedSource) Titles() *titles.DB     { return s.db }
func (s *fixedSource) Recorded() pdh.Recorded { return nil }

// newHost is a host with opts, closed when the test ends.
func newHost(t *testing.T, opts host.Options) *host.Host {
	t.Helper()
	h, err := host.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// windowsSource returns the real Windows samples s01 and s02 of
// testdata/windows (see PROVENANCE.md) with that machine's names.
func windowsSource(t testing.TB) *fixedSource {
	t.Helper()
	f, err := os.Open("testdata/windows/counter-names-009.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, err := titles.ParseTSV(f)
	if err != nil {
		t.Fatal(err)
	}
	src := &fixedSource{db: db}
	for _, s := range []string{"s01", "s02"} {
		paths, err := filepath.Glob("testdata/windows/" + s + "-*.bin")
		if err != nil || len(paths) == 0 {
			t.Fatalf("no blocks for %s: %v", s, err)
		}
		var raw [][]byte
		for _, p := range paths {
			b, err := perfdata.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			raw = append(raw, b)
		}
		smp, err := pdh.NewSample(raw)
		if err != nil {
			t.Fatal(err)
		}
		src.samples = append(src.samples, smp)
	}
	return src
}
