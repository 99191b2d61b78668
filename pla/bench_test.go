package pla

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
	"golang.org/x/sys/unix"
)

// BenchmarkServiceSample is the service's cost per sample interval with 1
// and with 10 sets over the same objects of the live host (processors and
// memory; and every process), each writing its own binary log: the 10
// sets share one collection, so what they add to one set's cost is their
// logs. Started together, they write the same records, which they
// compress once; staggered (each started a tick after the one before),
// their logs differ and each compresses its own.
func BenchmarkServiceSample(b *testing.B) {
	for _, mix := range benchMixes {
		for _, n := range []int{1, 10} {
			b.Run(fmt.Sprintf("%s/sets=%d", mix.name, n), func(b *testing.B) { benchService(b, n, mix.counters, false, false) })
		}
		b.Run(fmt.Sprintf("%s/sets=10-staggered", mix.name), func(b *testing.B) { benchService(b, 10, mix.counters, true, false) })
	}
}

// benchMixes are the counters of the sets of the service benchmarks.
var benchMixes = []struct {
	name     string
	counters []string
}{
	{"light", []string{`\Processor(*)\% Processor Time`, `\Memory\Available Bytes`}},
	{"processes", []string{`\Processor(*)\% Processor Time`, `\Memory\Available Bytes`, `\Process(*)\Working Set`}},
}

// BenchmarkServiceLogs is BenchmarkServiceSample with the live host's
// collection taken out: the source replays 8 samples of the live host
// (taken back to back when a set first asks for its objects), each with
// the time of its tick. What is left is what the sets themselves cost (a
// query's reduced sample, a log's write), so that (sets=10 - sets=1) / 9
// is the CPU one extra set costs per sample, free of the noise of reading
// /proc on a busy machine.
func BenchmarkServiceLogs(b *testing.B) {
	for _, mix := range benchMixes {
		for _, n := range []int{1, 10} {
			b.Run(fmt.Sprintf("%s/sets=%d", mix.name, n), func(b *testing.B) { benchService(b, n, mix.counters, false, true) })
		}
		b.Run(fmt.Sprintf("%s/sets=10-staggered", mix.name), func(b *testing.B) { benchService(b, 10, mix.counters, true, true) })
	}
}

// replaySource replays the first samples its source gives for each list
// of objects asked, in turn, each with the time of the call.
type replaySource struct {
	src   pdh.Source
	taken map[string][]*pdh.Sample
	next  int
}

// replayed is how many samples a replaySource takes for each list of
// objects.
const replayed = 8

func (r *replaySource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	key := fmt.Sprint(objects)
	if _, ok := r.taken[key]; !ok {
		for range replayed {
			s, err := r.src.Sample(ctx, objects)
			if err != nil {
				return nil, err
			}
			var blocks [][]byte
			for _, blk := range s.Blocks {
				blocks = append(blocks, bytes.Clone(blk.Bytes()))
			}
			c, err := pdh.NewSample(blocks)
			if err != nil {
				return nil, err
			}
			c.Problems = slices.Clone(s.Problems)
			r.taken[key] = append(r.taken[key], c)
		}
	}
	c := *r.taken[key][r.next%replayed]
	r.next++
	c.Time = time.Now()
	return &c, nil
}

func (r *replaySource) Titles() *titles.DB     { return r.src.Titles() }
func (r *replaySource) Recorded() pdh.Recorded { return nil }

func benchService(b *testing.B, n int, counters []string, staggered, replay bool) {
	{
		{
			h, err := host.New(host.Options{SegmentDir: b.TempDir()})
			if err != nil {
				b.Skip("no live host:", err)
			}
			defer h.Close()
			var warned []string
			src := h.Source()
			if replay {
				src = &replaySource{src: src, taken: map[string][]*pdh.Sample{}}
			}
			opts := Options{NewSource: func() (pdh.Source, io.Closer, error) { return src, io.NopCloser(nil), nil },
				Warn: func(m string) { warned = append(warned, m) }}
			svc := NewService(b.Context(), opts)
			svc.sampleAge = time.Microsecond // ticks back to back: none waits for a slot
			dir, root := filepath.Join(b.TempDir(), "state"), b.TempDir()
			ticks := 0 // before the timed ones
			for i := range n {
				set := newSet(fmt.Sprintf("b%d", i), root, counters...)
				set.Collector.SampleInterval = 3600 // the benchmark ticks, not the clock
				if err := svc.Start(dir, set, time.Time{}); err != nil {
					b.Fatal(err)
				}
				if staggered {
					// Each set starts a tick after the one before (its own first sample):
					// the logs then hold different records and share no compression.
					g := svc.groups[time.Hour]
					for _, r := range g.runs {
						r.last = time.Time{}
					}
					svc.tick(g)
					// The next set's start must not share this tick's
					// collection (setup, not timed).
					time.Sleep(sampleAge)
					ticks++
				}
			}
			g := svc.groups[time.Hour]
			// One tick before the timed ones: the replay takes its samples
			// of the live host, each log writes its first record and makes
			// its encoder (a set's start, not its per-sample cost).
			for _, r := range g.runs {
				r.last = time.Time{}
			}
			svc.tick(g)
			runtime.GC() // the setup's garbage is not the timed ticks' cost
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				for _, r := range g.runs {
					r.last = time.Time{} // each iteration is a new interval
				}
				svc.tick(g)
			}
			b.StopTimer()
			// CPU time (user + system) per sample: less disturbed than
			// the elapsed time by other work on a shared machine.
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
			svc.StopAll("done")
			svc.Wait()
			if len(warned) > 0 {
				b.Fatalf("%d warnings, the first: %s", len(warned), warned[0])
			}
			for i := range n {
				want := b.N + 2 // the first record, the untimed tick's, the timed ones
				if staggered {
					want += ticks - i
				}
				if k, _ := logLen(b, filepath.Join(root, fmt.Sprintf("b%d.plog", i))); k != want {
					b.Fatalf("set b%d: %d samples in its log after %d ticks, want %d", i, k, b.N, want)
				}
			}
		}
	}
}

// cpuTime is the CPU time this process has used (user and system).
func cpuTime(b *testing.B) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
