package pla

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
)

// fakeSource is a live source of synthetic samples taken at time.Now()
// (the fake clock inside a synctest bubble): \Memory with two counters
// and \Process with procs instances whose values are random (so that
// samples do not compress to nothing). It counts the samples taken.
type fakeSource struct {
	mu    sync.Mutex
	db    *titles.DB
	rng   *rand.Rand
	procs int
	calls int
	asked [][]uint32
}

func newFakeSource(procs int) *fakeSource {
	return &fakeSource{db: titles.English(), rng: rand.New(rand.NewPCG(1, 2)), procs: procs}
}

var (
	memCounters = []perfdata.CounterSpec{
		{NameIndex: 24, HelpIndex: 25, DetailLevel: 100, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
		{NameIndex: 26, HelpIndex: 27, DetailLevel: 100, Type: countertype.PERF_COUNTER_RAWCOUNT},
	}
	procCounters = []perfdata.CounterSpec{
		{NameIndex: 6, HelpIndex: 7, DetailLevel: 100, Type: countertype.PERF_100NSEC_TIMER},
		{NameIndex: 180, HelpIndex: 181, DetailLevel: 100, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
	}
)

func (f *fakeSource) Sample(_ context.Context, objects []uint32) (*pdh.Sample, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.asked = append(f.asked, append([]uint32(nil), objects...))
	at := time.Now()
	ml, err := perfdata.NewLayout(memCounters)
	if err != nil {
		return nil, err
	}
	pl, err := perfdata.NewLayout(procCounters)
	if err != nil {
		return nil, err
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{DefaultObject: 4, PerfTime: at.UnixNano(), PerfFreq: 1_000_000_000,
		PerfTime100nSec: perfdata.FileTime(at), SystemTime: perfdata.SystemTimeOf(at), SystemName: "FAKEHOST"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 4, HelpIndex: 5, DetailLevel: 100, Single: true}, ml, memCounters); err != nil {
		return nil, err
	}
	v := b.Single()
	v.Set(0, f.rng.Uint64N(1<<33))
	v.Set(1, f.rng.Uint64N(1<<20))
	if err := b.EndObject(); err != nil {
		return nil, err
	}
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 230, HelpIndex: 231, DetailLevel: 100}, pl, procCounters); err != nil {
		return nil, err
	}
	for i := range f.procs {
		v := b.Instance(fmt.Sprintf("proc%d", i), 0, 0, int32(i+1))
		v.Set(0, f.rng.Uint64())
		v.Set(1, f.rng.Uint64())
	}
	if err := b.EndObject(); err != nil {
		return nil, err
	}
	return pdh.NewSample([][]byte{bytes.Clone(b.Bytes())})
}

func (f *fakeSource) Titles() *titles.DB     { return f.db }
func (f *fakeSource) Recorded() pdh.Recorded { return nil }

func (f *fakeSource) taken() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// testOptions are service options over src, with -max's MB made 16 KiB.
func testOptions(src pdh.Source) Options {
	return Options{
		NewSource: func() (pdh.Source, io.Closer, error) { return src, io.NopCloser(nil), nil },
		MB:        16 << 10,
	}
}

// newSet returns a set named name logging into root.
func newSet(name, root string, counters ...string) *collectorset.Set {
	s := collectorset.New(name, root)
	s.Collector.SampleInterval = 1
	if len(counters) == 0 {
		counters = []string{`\Memory\Available Bytes`, `\Process(*)\% Processor Time`}
	}
	s.Collector.Counters = counters
	return s
}

func stateDir(t *testing.T) string { return filepath.Join(t.TempDir(), "state") }

func createSet(dir string, s *collectorset.Set) error { return state.CreateCollectorSet(dir, s, false) }

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}
