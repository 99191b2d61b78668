package bench

import (
	"context"
	"testing"

	"github.com/perfcounters/perfcounters/host"
)

// BenchmarkOurGlobal is one whole `Global` query of the local engine: every
// built-in object (Processor ... Objects, Process, Process V2, Thread) into
// one PERF_DATA_BLOCK, as `perfc query Global` does. It is the full
// collection issue 3 asks about; the Process+Thread benchmarks above isolate
// the part that scales with processes and threads.
func BenchmarkOurGlobal(b *testing.B) {
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	size := 0
	loop(b, func() {
		r, err := h.QueryValue(ctx, "Global")
		if err != nil {
			b.Fatal(err)
		}
		size = len(r.Block)
	})
	b.ReportMetric(float64(size), "block-bytes")
}

// BenchmarkFirstGlobal is a one-shot `perfc query Global`: the host is
// built, answers its first query and is closed, every iteration, so every
// file is opened for the first time (nothing kept yet). Compare it with
// FloorOpenReadClose, the cost of opening and reading those files once.
func BenchmarkFirstGlobal(b *testing.B) { benchFirst(b, "Global") }

// BenchmarkFirstProcess is the same for the Process object alone (230), the
// first sample of `typeperf "\Process(*)\..."`.
func BenchmarkFirstProcess(b *testing.B) { benchFirst(b, "230") }

func benchFirst(b *testing.B, query string) {
	ctx := context.Background()
	loop(b, func() {
		h, err := host.New(host.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.QueryValue(ctx, query); err != nil {
			b.Fatal(err)
		}
		h.Close()
	})
}
